"""The pipeline's contract: stage order, invariants, exact restore, literal markers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenlab import pipeline, spooled_text, visible_writer
from tokenlab.errors import StoreCorruptionError
from tokenlab.optimizers import ContentType, Granularity, OptimizeResult, OptimizerConfig, optimizer_for
from tokenlab.optimizers.diff import render as diff_render
from tokenlab.packet import Status
from tokenlab.pipeline import STAGES, analyze
from tokenlab.restore import restore
from tokenlab.store import FolderStore, Store, open_store

FIXTURES = Path(__file__).parent.parent / "fixtures"


def run(data: bytes, **kwargs: object) -> tuple[Store, object]:
    store = open_store()
    return store, analyze(data, source="test", store=store, **kwargs)  # type: ignore[arg-type]


def test_stage_order_is_defined_once_and_traced_once_each() -> None:
    names = [name for name, _ in STAGES]
    assert names == ["LOAD", "CLASSIFY", "MEASURE_RAW", "OPTIMIZE", "MEASURE_OPT", "SIGNAL", "RECOVERY"]
    store = open_store()
    packet = analyze(b"hello\n", source="t", store=store)
    assert [entry.stage for entry in packet.trace] == names


def test_unchanged_text_passes_through_without_footer() -> None:
    store, packet = run(b"short note\n")
    assert packet.visible == "short note\n"
    assert not packet.all_refs
    assert restore(packet.visible.encode(), store) == b"short note\n"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"no trailing newline",
        b"crlf line\r\nsecond\r\n",
        "latin-1 caf\xe9\n".encode("latin-1"),
        b"nul \x00 byte in text\n",
        bytes(range(256)) * 40,
        b"\x1b[31mERROR\x1b[0m red\n" * 50,
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a": 1, "a": 2}',
        b'{"truncated": [1, 2, ',
        b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old\n+new\n\\ No newline at end of file\n",
        b"diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,40 +1,41 @@\n ctx\n-old\n+ne",
        b"#ref:ctx_31154f\n[original 3 bytes: #ref:ctx_31154f]\n",
    ],
    ids=[
        "empty",
        "no-newline",
        "crlf",
        "latin1",
        "nul",
        "binary",
        "ansi",
        "deep-json",
        "dup-keys",
        "truncated-json",
        "no-newline-diff",
        "truncated-diff",
        "fake-footer",
    ],
)
def test_hostile_inputs_analyze_and_restore_exactly(data: bytes) -> None:
    store, packet = run(data)
    assert packet.recovery_status is Status.PASS
    assert restore(packet.visible.encode("utf-8"), store) == data
    packet.visible.encode("utf-8")  # always valid UTF-8


def test_five_megabyte_single_line() -> None:
    data = b"x" * (5 * 1024 * 1024)
    store, packet = run(data)
    assert restore(packet.visible.encode(), store) == data


def test_input_marker_is_never_confused_with_ours() -> None:
    planted = (
        b"INFO cache hit #ref:ctx_31154f\n" * 200 + b"ERROR PaymentService line 421 see #ref:ctx_31154f\n"
    )
    store, packet = run(planted)
    assert "#ref(literal):ctx_31154f" in packet.visible
    ours = {ref.id for ref in packet.all_refs}
    assert "ctx_31154f" not in ours or store.load("ctx_31154f").data != planted
    assert restore(packet.visible.encode(), store) == planted


def test_input_that_is_our_own_output_restores_exactly() -> None:
    store, first = run(b"INFO tick 1\n" * 300 + b"ERROR boom\n")
    store, second = run(first.visible.encode())
    assert restore(second.visible.encode(), store) == first.visible.encode()


def test_signals_pass_and_fail() -> None:
    data = b"INFO ok\n" * 500 + b"ERROR PaymentService line 421\n"
    _, packet = run(data, signals=("ERROR PaymentService line 421",))
    assert packet.signal_status is Status.PASS
    _, packet = run(data, signals=("never printed",))
    assert packet.signal_status is Status.FAIL
    assert packet.missing_signals == ("never printed",)


def test_recovery_fails_loudly_when_a_ref_is_damaged(monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store()
    real_put = store._put  # every write, whether reloaded at once (omissions) or by RECOVERY

    def damaging_put(data: bytes, **kwargs: str) -> tuple[str, str]:
        ref_id, sha = real_put(data, **kwargs)
        path = store.ref_path(ref_id)
        path.write_bytes(path.read_bytes()[:-1] + b"!")
        return ref_id, sha

    monkeypatch.setattr(store, "_put", damaging_put)
    packet = analyze(b"INFO tick\n" * 100 + b"ERROR x\n", source="t", store=store)
    assert packet.recovery_status is Status.FAIL
    assert "ctx_" in packet.recovery_failures[0]


def test_secrets_are_masked_and_recoverable() -> None:
    key = "AKIAIOSFODNN7EXAMPLE"
    data = f"ERROR upload failed with key {key}\n".encode() + b"INFO retry\n" * 30
    store, packet = run(data)
    assert key not in packet.visible
    assert "[secret:aws-access-key #ref:ctx_" in packet.visible
    assert packet.secrets_masked == 1
    assert restore(packet.visible.encode(), store) == data
    _, unmasked = run(data, redact_secrets=False)
    assert key in unmasked.visible


def test_text_with_only_secrets_masked_needs_no_footer_and_restores() -> None:
    data = b"DB_HOST=db.internal\nDB_PASSWORD=hunter2-not-real\nWORKERS=8\n"
    store, packet = run(data)
    assert packet.visible.startswith("DB_HOST=db.internal\nDB_PASSWORD=[secret:password #ref:ctx_")
    assert "[original" not in packet.visible
    assert restore(packet.visible.encode(), store) == data


def test_masked_text_with_an_escaped_look_alike_keeps_its_footer() -> None:
    data = b"password=hunter2-not-real\nsee #ref:ctx_abcdef\n"
    store, packet = run(data)
    assert "#ref(literal):ctx_abcdef" in packet.visible
    assert packet.visible.rstrip("\n").splitlines()[-1].startswith("[original ")
    assert restore(packet.visible.encode(), store) == data


def test_a_marker_that_is_not_a_masked_secret_needs_the_footer() -> None:
    store, packet = run(b"INFO same line\n" * 2000)
    body = packet.visible.rstrip("\n").rsplit("\n", 1)[0] + "\n"
    with pytest.raises(StoreCorruptionError, match="footer"):
        restore(body.encode(), store)


def test_measurements_are_consistent() -> None:
    _, packet = run(b"INFO same line\n" * 2000)
    assert packet.raw_measure.tokens > packet.visible_measure.tokens > 0
    assert packet.marker_tokens > 0
    assert packet.referenced_tokens > 0
    assert 0 < packet.saved_pct < 100


def test_granularity_fine_gives_at_least_as_many_refs() -> None:
    data = (FIXTURES / "service.log").read_bytes()
    _, coarse = run(data)
    _, fine = run(data, config=OptimizerConfig(Granularity.FINE))
    assert coarse.content_type is ContentType.LOG
    assert len(fine.refs) > len(coarse.refs) >= 1


# --- never larger, automatic signals -------------------------------------------------------

LINE = st.sampled_from(
    [
        "2026-03-14 09:00:01 INFO served request 17 in 3 ms",
        "  ",
        "",
        "error: build failed",
        "   2 |   int x;",
        "Ran 12 tests in 0.5s",
        "café ok",
        "x" * 40,
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(max_size=3000), st.lists(LINE, max_size=400).map("\n".join)))
def test_visible_text_is_never_larger_than_the_input(tmp_path: Path, text: str) -> None:
    data = text.encode("utf-8", errors="surrogatepass")
    packet = analyze(data, source="t", store=FolderStore(tmp_path / "s"), redact_secrets=False)
    assert packet.visible_measure is not None and packet.raw_measure is not None
    if "#ref:" not in text:  # an escaped marker look-alike needs the footer to restore
        assert packet.visible_measure.tokens <= packet.raw_measure.tokens
    assert restore(packet.visible.encode(), FolderStore(tmp_path / "s")) == data


def test_output_that_would_grow_passes_through_unchanged(tmp_path: Path) -> None:
    data = b"error: x\n" + b"   |  \n" * 3 + b"note:    spaced     out\n"
    packet = analyze(data, source="t", store=FolderStore(tmp_path))
    assert packet.visible == data.decode()
    assert packet.saved_pct == 0.0


def test_failures_and_summaries_are_checked_without_given_signals(tmp_path: Path) -> None:
    body = b"".join(b"2026-03-14 09:00:%02d INFO step %d done\n" % (n % 60, n) for n in range(400))
    data = body + b"2026-03-14 09:10:00 ERROR disk full on /var\n" + body + b"== 3 failed, 40 passed in 2.1s ==\n"
    packet = analyze(data, source="t", store=FolderStore(tmp_path))
    assert "2026-03-14 09:10:00 ERROR disk full on /var" in packet.automatic_signals
    assert "== 3 failed, 40 passed in 2.1s ==" in packet.automatic_signals
    assert packet.signal_status is Status.PASS
    assert packet.as_dict()["signal"]["automatic"] == list(packet.automatic_signals)


def test_a_log_with_one_latin1_byte_a_line_is_a_log(tmp_path: Path) -> None:
    data = b"".join(b"2026-03-14 09:00:%02d INFO caf\xe9 order %d served\n" % (n % 60, n) for n in range(300))
    data += b"2026-03-14 09:10:00 [ERROR] payment gateway timeout\n"
    packet = analyze(data, source="t", store=FolderStore(tmp_path))
    assert packet.content_type is ContentType.LOG
    assert "[ERROR] payment gateway timeout" in packet.visible


def test_failure_lines_with_a_secret_or_a_marker_look_alike_are_checked_as_shown(tmp_path: Path) -> None:
    body = b"".join(b"2026-03-14 09:00:%02d INFO step %d done\n" % (n % 60, n) for n in range(300))
    data = body + b"ERROR login failed password=hunter2secret\nERROR stale #ref:ctx_abcdef in cache\n" + body
    packet = analyze(data, source="t", store=FolderStore(tmp_path))
    assert "ERROR stale #ref:ctx_abcdef in cache" in packet.automatic_signals
    assert packet.signal_status is Status.PASS
    assert "hunter2secret" not in packet.visible


def test_an_empty_input_is_optimized_as_the_text_optimizer_would(store: Store) -> None:
    """The Optimize stage answers an empty input (text, as `classify` says) itself, without
    importing the text optimizer: it must answer the same."""
    config = OptimizerConfig(Granularity.COARSE)
    assert optimizer_for(ContentType.TEXT)(b"", config) == OptimizeResult(())
    packet = analyze(b"", source="<stdin>", store=store)
    assert packet.visible == "" and packet.recovery_status is not Status.FAIL


def test_an_empty_input_imports_no_optimizer(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from tokenlab.pipeline import analyze; from tokenlab.store import FolderStore; "
        f"analyze(b'', source='<stdin>', store=FolderStore(Path({str(tmp_path)!r}))); print(sorted(sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "optimizer'" not in done.stdout


def test_an_empty_input_starts_no_thread(tmp_path: Path) -> None:
    """Nothing to count and nothing to store: no tokenizer or I/O thread is started, and
    `concurrent.futures` (which loads `logging`) is not imported."""
    code = (
        "import sys, threading; from pathlib import Path; from tokenlab.pipeline import analyze; "
        "from tokenlab.store import FolderStore; "
        f"packet = analyze(b'', source='<stdin>', store=FolderStore(Path({str(tmp_path)!r}))); "
        "print(threading.active_count(), 'concurrent.futures' in sys.modules, packet.visible_measure.tokens)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["1", "False", "0"]


def _secret_diff() -> bytes:
    """A diff of several files whose changed lines hold secrets, one of them a private key
    over many lines and one a key whose value is on the next line, and a lockfile."""
    files = []
    for n in range(40):
        lines = "".join(f"+    step_{n}_{k}(record)\n" for k in range(12))
        secret = [
            "+    token = 'ghp_" + "a1B2c3D4e5" * 4 + "'\n",
            "+-----BEGIN RSA PRIVATE KEY-----\n+MIIEpAIBAAKCAQEA\n+-----END RSA PRIVATE KEY-----\n",
            "+    password =\n+        hunter2hunter2\n",
            "+    see #ref:ctx_0123456789ab for the log\n",
        ][n % 4]
        files.append(
            f"diff --git a/src/m{n}.py b/src/m{n}.py\nindex 1a2b3c4..5d6e7f8 100644\n--- a/src/m{n}.py\n"
            f"+++ b/src/m{n}.py\n@@ -1,3 +1,17 @@\n {n}\n{lines}{secret} end({n})\n"
        )
        if n == 20:
            files.append(
                "diff --git a/package-lock.json b/package-lock.json\n--- a/package-lock.json\n"
                "+++ b/package-lock.json\n@@ -1,2 +1,2 @@\n-\"a\": 1,\n+\"a\": 2,\n"
            )
    return "".join(files).encode()


STREAMED_INPUTS = {
    **{name: (FIXTURES / name).read_bytes() for name in (
        "ansi_build.log", "api_response.json", "auth_guard.diff", "design_notes.md", "files.txt",
        "service.log", "templated_service.log", "real/git_diff_conflict_markers.txt",
    )},
    "secrets.diff": _secret_diff(),
}  # fmt: skip


@pytest.mark.parametrize("name", STREAMED_INPUTS)
def test_a_visible_text_written_and_counted_in_small_pieces_is_the_one_built_at_once(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = STREAMED_INPUTS[name]
    _, whole = run(data)
    monkeypatch.setattr(spooled_text, "MEMORY_BYTES", 64)
    for setting in ("_PENDING_BYTES", "_MASKED_BYTES"):
        monkeypatch.setattr(visible_writer, setting, 64)
    monkeypatch.setattr(pipeline, "_COUNTED_BYTES", 64)
    monkeypatch.setattr(diff_render, "_EXCERPT_BYTES", 64)
    store, pieces = run(data)
    assert pieces.visible_text.spilled
    assert pieces.visible_bytes == whole.visible_bytes
    assert pieces.visible_measure == whole.visible_measure
    assert pieces.secrets_masked == whole.secrets_masked
    assert [ref.id for ref in pieces.all_refs] == [ref.id for ref in whole.all_refs]
    assert restore(pieces.visible_bytes, store) == data
