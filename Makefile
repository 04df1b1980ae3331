# The README's two commands: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test native bench-perf bench-peer bench-pack clean

$(BIN)/tokens: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# A path entry, not setuptools' default import finder: that finder imports pathlib, re
	# and importlib.util at every interpreter start (about 15 ms of each `tokens` call).
	$(BIN)/pip install --quiet -e '.[test]' --config-settings editable_mode=compat
	touch $@

# The native client hooks and rewrites name when it is built (tokenlab/agent/native.py): it
# stands for this venv's Python and this tokenlab. Without a C compiler nothing is built, and
# they name the Python launcher form instead.
$(BIN)/tokens-native: native/tokens_client.c tokenlab/__init__.py $(BIN)/tokens
	$(BIN)/python -m tokenlab.agent.native $@

native: $(BIN)/tokens-native

run: $(BIN)/tokens $(BIN)/tokens-native
	$(BIN)/tokens benchmark --fixtures fixtures

test: $(BIN)/tokens $(BIN)/tokens-native
	$(BIN)/python -m pytest -q

bench-perf: $(BIN)/tokens
	$(BIN)/python bench/run.py

# The peer comparison (bench/peer.py) runs headroom-ai in a venv of its own, beside tokenlab.
PEER_VENV := .venv-peer
$(PEER_VENV)/.installed: bench/requirements-peer.txt pyproject.toml
	$(PYTHON) -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/pip install --quiet --upgrade pip
	$(PEER_VENV)/bin/pip install --quiet -r bench/requirements-peer.txt -e .
	touch $@

bench-peer: $(PEER_VENV)/.installed
	$(PEER_VENV)/bin/python bench/peer.py

# The packer against aider's repo map (in a venv of its own) and repomix (npm, in a folder of its own).
PACK_PEER_VENV := .venv-pack-peer
PACK_PEER_NPM := /tmp/npm-pack-peer
$(PACK_PEER_VENV)/.installed: bench/requirements-pack-peer.txt
	$(PYTHON) -m venv $(PACK_PEER_VENV)
	$(PACK_PEER_VENV)/bin/pip install --quiet -r bench/requirements-pack-peer.txt
	touch $@

$(PACK_PEER_NPM)/node_modules/.bin/repomix:
	mkdir -p $(PACK_PEER_NPM) && cd $(PACK_PEER_NPM) && npm install --silent repomix@1.14.0

bench-pack: $(BIN)/tokens $(PACK_PEER_VENV)/.installed $(PACK_PEER_NPM)/node_modules/.bin/repomix
	$(BIN)/python bench/pack_bench.py

clean:
	rm -rf $(VENV) var/context
