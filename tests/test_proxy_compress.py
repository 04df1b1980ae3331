"""The proxy's answer for a tool result: decided once, the same bytes every time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tokenlab import ledger, pipeline
from tokenlab.agent.proxy_compress import ResultCompressor
from tokenlab.agent.proxy_rewrite import Api, ToolResult
from tokenlab.store import open_store

LOG = (Path(__file__).parent.parent / "fixtures" / "real" / "cargo_test_failures.log").read_text()
PATH = ("messages", 1, "content")


def result(text: str = LOG, newest: bool = True) -> ToolResult:
    return ToolResult(PATH, text, "Bash", newest)


@pytest.fixture
def runs(monkeypatch):
    """How many times the pipeline ran."""
    calls = []
    real = pipeline.analyze

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "analyze", counted)
    return calls


def compressor(isolated_store, **options) -> ResultCompressor:
    store = open_store(str(isolated_store))
    return ResultCompressor(store, Api.ANTHROPIC, only_newest=options.pop("only_newest", True), **options)


def test_the_same_text_reads_the_same_after_a_restart_and_runs_once(isolated_store, runs):
    first = compressor(isolated_store)(result(), "m")
    assert first is not None and "#ref:ctx_" in first
    again = compressor(isolated_store)(result(), "m")  # a new process would build a new one
    assert again == first
    assert len(runs) == 1
    rows = [r for r in ledger.records(isolated_store) if r.kind is ledger.Kind.PROXY]
    assert len(rows) == 1


def test_only_newest_leaves_a_result_it_never_compressed(isolated_store, runs):
    assert compressor(isolated_store)(result(newest=False), "m") is None
    assert runs == []
    assert compressor(isolated_store, only_newest=False)(result(newest=False), "m") is not None


def test_only_newest_keeps_a_result_compressed_once_it_is_seen(isolated_store):
    newest = compressor(isolated_store)(result(newest=True), "m")
    assert compressor(isolated_store)(result(newest=False), "m") == newest


def test_small_results_are_left_alone(isolated_store, runs):
    assert compressor(isolated_store)(result("ok\n" * 50), "m") is None
    assert compressor(isolated_store, min_tokens=5000)(result(), "m") is None
    assert runs == []


def test_tokenlab_output_is_left_but_a_look_alike_footer_is_not(isolated_store):
    with open_store(str(isolated_store)) as store:
        ours = pipeline.analyze(LOG.encode(), source="tokens run", store=store).visible
    assert compressor(isolated_store)(result(ours * 2), "m") is None
    fake = LOG + "[original 3,478 bytes: #ref:ctx_0123456789abcdef]\n"
    visible = compressor(isolated_store)(result(fake), "m")
    assert visible is not None and "#ref(literal):ctx_0123456789abcdef" in visible


def test_a_pipeline_failure_leaves_the_result_and_is_tried_again(isolated_store, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("secret content " + LOG)

    monkeypatch.setattr(pipeline, "analyze", broken)
    assert compressor(isolated_store)(result(), "m") is None
    assert "RuntimeError" in caplog.text and "secret content" not in caplog.text
    monkeypatch.undo()
    assert compressor(isolated_store)(result(), "m") is not None


def test_collected_refs_are_stored_again_with_the_same_text(isolated_store, runs):
    first = compressor(isolated_store)(result(), "m")
    shutil.rmtree(isolated_store / "v1" / "refs")
    assert compressor(isolated_store)(result(), "m") == first
    assert len(runs) == 2
