"""`tokens proxy` with the real Codex CLI (Responses API, streamed) in front of the scripted
endpoint: Codex runs the same scenario direct and through the proxy, and the test asserts on
what the model was sent.

- the large output of `cat build.log` arrives as tokenlab's visible text, every hand-written
  signal of the log visible, its ref restoring what Codex would have sent byte for byte;
- each request's `input` items up to the previous turn are byte-identical to what the
  previous request sent (the provider's prompt cache holds);
- small outputs arrive as Codex sent them.

Token counts (o200k) are printed: through the proxy, direct (what Codex sends), and raw.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from tests.e2e.hosts import run_codex
from tests.e2e.model_server import ModelServer, Record, Scenario, ToolResult, shell_call
from tokenlab.agent.json_spans import spans
from tokenlab.counting.tokens import count
from tokenlab.serve.proxy import ProxyServer, ProxySettings
from tokenlab.store import open_store

pytestmark = pytest.mark.e2e

# Written into the log before looking at any output: what a reader must still see.
SIGNALS = (
    "WARNING deprecated flag -fold used by module_17",
    "ERROR retry 2/3: cc1 killed (signal 9) on module_380",
    "BUILD OK: 400 modules",
)
COMMANDS = ("cat build.log", "echo small", "cat build.log | tail -n 3")
ORIGINAL_REF = re.compile(r"\[original [\d,]+ bytes: #ref:(ctx_[0-9a-f]+)")
VARYING = re.compile(r"^(Chunk ID|Wall time): .*$", re.MULTILINE)


def build_log() -> str:
    lines = [f"INFO worker {i} compiled module_{i}.o in 12ms" for i in range(1, 401)]
    lines.insert(17, SIGNALS[0])
    lines.insert(380, SIGNALS[1])
    return "\n".join(lines) + "\n" + SIGNALS[2] + "\n"


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    home, work = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    work.mkdir()
    (work / "build.log").write_text(build_log())
    return home, work


@pytest.fixture
def proxy_store(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "proxy-store"


def run(home: Path, work: Path, proxy_store: Path | None) -> tuple[list[ToolResult], list[Record]]:
    with ModelServer(Scenario([shell_call(c) for c in COMMANDS], final="done")) as server:
        if proxy_store is None:
            done = run_codex(home, work, server.url, "--sandbox", "workspace-write")
        else:
            with open_store(str(proxy_store)) as store:
                proxy = ProxyServer(("127.0.0.1", 0), ProxySettings(server.url, server.url), store)
                threading.Thread(target=proxy.serve_forever, daemon=True).start()
                try:
                    done = run_codex(home, work, proxy.url, "--sandbox", "workspace-write")
                finally:
                    proxy.shutdown()
                    proxy.server_close()
    assert done.returncode == 0, f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-3000:]}"
    return server.tool_results(), [r for r in server.requests if r.path.endswith("/responses")]


def test_codex_through_the_proxy(project: tuple[Path, Path], proxy_store: Path) -> None:
    home, work = project
    direct, _ = run(home, work, None)
    proxied, requests = run(home, work, proxy_store)
    assert len(direct) == len(proxied) == len(COMMANDS)

    big, small, tail = proxied
    assert [s for s in SIGNALS if s not in direct[0].text] == []  # Codex itself kept them
    assert [s for s in SIGNALS if s not in big.text] == []
    assert "#ref:ctx_" in big.text and "expand_ref" in big.text
    assert len(big.text) < len(direct[0].text) // 3
    ref = ORIGINAL_REF.search(big.text)
    assert ref is not None
    with open_store(str(proxy_store)) as store:
        restored = store.load(ref.group(1)).data.decode()
    assert VARYING.sub("", restored) == VARYING.sub("", direct[0].text)
    assert "chars truncated" in restored  # the proxy gets what Codex sends, after Codex's own cut
    assert VARYING.sub("", small.text) == VARYING.sub("", direct[1].text)
    assert VARYING.sub("", tail.text) == VARYING.sub("", direct[2].text)

    conversation = [r for r in requests if isinstance(r.body, dict) and isinstance(r.body.get("input"), list)]
    turns = [r for r in conversation if r.offered]
    assert len(turns) >= len(COMMANDS) + 1
    for before, after in pairwise(turns):
        items = len(before.body["input"])
        earlier = spans(before.raw, [("input", i) for i in range(items)])
        later = spans(after.raw, [("input", i) for i in range(items)])
        for i in range(items):
            assert before.raw[slice(*earlier[("input", i)])] == after.raw[slice(*later[("input", i)])], i

    raw = (work / "build.log").read_text()
    report = {"cat build.log": {"proxy": count(big.text), "direct": count(direct[0].text), "raw": count(raw)}}
    print("\nCODEX PROXY TOKENS", json.dumps(report))
