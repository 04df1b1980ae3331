# The README's two commands: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test bench-perf clean

$(BIN)/tokens: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

run: $(BIN)/tokens
	$(BIN)/tokens benchmark --fixtures fixtures

test: $(BIN)/tokens
	$(BIN)/python -m pytest -q

bench-perf: $(BIN)/tokens
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) var/context
