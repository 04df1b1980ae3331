"""Log optimizer: goldens, signals, coverage of every line, hostile bytes, both granularities."""

from __future__ import annotations

import re
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Golden, render_preview
from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, OptimizeResult
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.log import optimizer as log
from tokenlab.optimizers.log import templates as log_templates
from tokenlab.optimizers.log.optimizer import LogLimits
from tokenlab.optimizers.log.templates import lines_and_templates, template_of

FIXTURES = Path(__file__).parent.parent / "fixtures"
LOG_FIXTURES = (
    "service.log",
    "ansi_build.log",
    "real/pip_install_fail.log",
    "real/unittest_verbose.log",
    "real/pytest_fail.log",
)
COARSE = OptimizerConfig(Granularity.COARSE)
FINE = OptimizerConfig(Granularity.FINE)
CONFIGS = pytest.mark.parametrize("config", [COARSE, FINE], ids=["coarse", "fine"])
VISIBLE_LINE_END = re.compile("\r\n|\r|\n")
ANSI = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\r\n]*(?:\x07|\x1b\\)|[@-Z\\-_])")


# Most tests exercise the folding rules on short inputs: without the small-input rule, and
# without the last lines that stay visible when no separator rule closes the log.
FOLDING = LogLimits(small_input_bytes=0, closing_lines_default=0)


def optimize(data: bytes, config: OptimizerConfig, limits: LogLimits = FOLDING) -> OptimizeResult:
    return log.optimize(data, config, limits)


def omissions(result: OptimizeResult) -> list[Omission]:
    return list(result.omissions)


def assert_covered(data: bytes, result: OptimizeResult) -> None:
    """Every original line is shown verbatim (ANSI aside) or held, exactly, by an omission."""
    held: Counter[bytes] = Counter()
    for omission in omissions(result):
        held.update(omission.data.splitlines(keepends=True))
    raw_lines = data.splitlines(keepends=True)
    assert not held - Counter(raw_lines), "an omission holds bytes that are not original lines"
    shown = set(VISIBLE_LINE_END.split(render_preview(result)))
    for line in raw_lines:
        if held[line]:
            held[line] -= 1
            continue
        text = ANSI.sub(b"", line).rstrip(b"\r\n").decode("utf-8", errors="replace")
        assert text in shown, f"line neither visible nor in an omission: {line!r}"


def assert_in_order(data: bytes, omission: Omission) -> None:
    """An omission's lines appear in the input in the same order."""
    raw = iter(data.splitlines(keepends=True))
    for line in omission.data.splitlines(keepends=True):
        assert any(candidate == line for candidate in raw), f"out of order: {line!r}"


def service_lines(count: int, start: int = 0) -> list[bytes]:
    return [
        b"2026-03-14 09:%02d:%02d,%03d INFO [orders] request_id=%08x GET /api/orders/%d -> 200 (%d.%d ms)\n"
        % (n // 60 % 60, n % 60, n % 1000, 0x9F3A0000 + n * 7919, 10000 + n, n % 40, n % 10)
        for n in range(start, start + count)
    ]


# --- goldens and signals on the fixtures -------------------------------------------------


@CONFIGS
@pytest.mark.parametrize("name", LOG_FIXTURES)
def test_fixture_golden(name: str, config: OptimizerConfig, golden: Golden) -> None:
    result = optimize((FIXTURES / name).read_bytes(), config)
    golden.check(f"log/{name.replace('/', '__')}.{config.granularity.value}.txt", render_preview(result))


@CONFIGS
@pytest.mark.parametrize("name", LOG_FIXTURES)
def test_fixture_signals_stay_visible(name: str, config: OptimizerConfig) -> None:
    signals = (FIXTURES / f"{name}.signals").read_text(encoding="utf-8").splitlines()
    shown = render_preview(log.optimize((FIXTURES / name).read_bytes(), config))
    assert line_shown.not_shown(tuple(signal for signal in signals if signal), shown) == ()


@CONFIGS
@pytest.mark.parametrize("name", LOG_FIXTURES)
def test_fixture_lines_all_covered(name: str, config: OptimizerConfig) -> None:
    data = (FIXTURES / name).read_bytes()
    result = optimize(data, config)
    assert_covered(data, result)
    for omission in omissions(result):
        assert_in_order(data, omission)


def test_service_log_shrinks_to_a_handful_of_lines() -> None:
    shown = render_preview(optimize((FIXTURES / "service.log").read_bytes(), COARSE))
    assert len(shown.splitlines()) < 60
    assert "[×2,325]" in shown


# --- folding ------------------------------------------------------------------------------


@CONFIGS
def test_templated_lines_fold_to_first_line_with_count(config: OptimizerConfig) -> None:
    lines = service_lines(50)
    result = optimize(b"".join(lines), config)
    shown = render_preview(result)
    assert "[×50" in shown and shown.count("\n") == 2
    assert "2026-03-14 {09:00:00,000 … 09:00:49,049} INFO [orders]" in shown
    (omission,) = omissions(result)
    assert omission.data == b"".join(lines)


def test_identical_lines_say_identical() -> None:
    shown = render_preview(optimize(b"retrying connection\n" * 7, COARSE))
    assert "[×7 identical] retrying connection" in shown


def test_coarse_has_one_omission_in_original_order() -> None:
    noise = service_lines(20)
    other = [b"2026-03-14 10:00:%02d DEBUG cache hit key=product:%d\n" % (n, n * 13) for n in range(20)]
    mixed = [line for pair in zip(noise, other) for line in pair]
    data = b"".join(mixed)
    result = optimize(data, COARSE)
    (omission,) = omissions(result)
    assert omission.data == data


def test_fine_has_one_omission_per_group_each_in_order() -> None:
    noise = service_lines(20)
    other = [b"2026-03-14 10:00:%02d DEBUG cache hit key=product:%d\n" % (n, n * 13) for n in range(20)]
    data = b"".join(line for pair in zip(noise, other) for line in pair)
    result = optimize(data, FINE)
    assert [o.data for o in omissions(result)] == [b"".join(noise), b"".join(other)]
    assert all("not contiguous" in o.reason for o in omissions(result))


def test_passing_tests_fold_whatever_their_names() -> None:
    names = ["parse_header", "render_cookie", "encode_path", "decode_token", "merge_session"]
    data = b"".join(
        b"test_%s (tests.test_http.TestHttp.test_%s) ... ok\n" % (n.encode(), n.encode()) for n in names
    )
    data += b"test_boom (tests.test_http.TestHttp.test_boom) ... FAIL\n"
    shown = render_preview(optimize(data, COARSE))
    assert "[×5] {test_parse_header, test_render_cookie," in shown  # never taken as context
    assert "test_boom (tests.test_http.TestHttp.test_boom) ... FAIL" in shown


def test_long_run_of_distinct_lines_keeps_head_and_tail() -> None:
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
             "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"]  # fmt: skip
    data = b"".join(b"Compiling %s\n" % w.encode() for w in words)
    result = optimize(data, FINE)
    shown = render_preview(result).splitlines()
    assert shown[1:4] == ["Compiling alpha", "Compiling bravo", "Compiling charlie"]
    assert shown[-3:] == ["Compiling romeo", "Compiling sierra", "Compiling tango"]
    assert shown[4].startswith("[… 14 more lines #ref:ctx_")
    assert omissions(result)[0].data == b"".join(b"Compiling %s\n" % w.encode() for w in words[3:17])


def test_a_folded_run_never_hides_its_outlier() -> None:
    durations = [4, 3, 5, 4, 6, 3, 1517, 4, 5, 3, 4, 6, 5, 4]
    data = b"".join(
        b"LOG statement %d on table_%c: duration %d ms\n" % (n, 97 + n, ms) for n, ms in enumerate(durations)
    )
    result = optimize(data, FINE)
    shown = render_preview(result).splitlines()
    slow = b"LOG statement 6 on table_g: duration 1517 ms"
    assert slow.decode() in shown
    assert shown[4].startswith("[… 3 more lines #ref:ctx_") and shown[6].startswith(
        "[… 4 more lines #ref:ctx_"
    )
    assert [omission.data.count(b"\n") for omission in omissions(result)] == [3, 4]


# --- anomalies ----------------------------------------------------------------------------


@CONFIGS
def test_error_and_context_stay_verbatim_in_place(config: OptimizerConfig) -> None:
    before, after = service_lines(30), service_lines(30, start=30)
    error = b"2026-03-14 09:00:30,500 ERROR [payments] ERROR PaymentService line 421: gateway 502\n"
    data = b"".join([*before, error, *after])
    shown = render_preview(optimize(data, config)).splitlines()
    at = shown.index(error.decode().rstrip("\n"))
    assert shown[at - 1] == before[-1].decode().rstrip("\n")
    # The line after it is routine (its shape is one of many): its group line shows it.
    assert after[0].decode().rstrip("\n") not in shown
    assert "[×59" in shown[1]  # the group sits where its first line was, before the error


def test_traceback_block_stays_whole() -> None:
    trace = (
        b"Traceback (most recent call last):\n"
        b'  File "/srv/app/service.py", line 12, in handle\n'
        b"    return charge(order)\n"
        b'  File "/srv/app/gateway.py", line 88, in charge\n'
        b"    raise GatewayError(502)\n"
        b"app.gateway.GatewayError: 502\n"
    )
    data = b"".join(service_lines(10)) + trace + b"".join(service_lines(10, start=10))
    shown = render_preview(optimize(data, COARSE))
    assert trace.decode() in shown


def test_exception_message_lines_follow_the_traceback() -> None:
    trace = (
        b"Traceback (most recent call last):\n"
        b'  File "t.py", line 3, in test_x\n'
        b"    self.assertEqual(a, b)\n"
        b"AssertionError: 'x' != 'y'\n"
        b"- x\n"
        b"+ y\n"
        b"\n"
    )
    shown = render_preview(optimize(b"".join(service_lines(10)) + trace, COARSE))
    assert trace.decode() in shown


def test_repeated_anomaly_keeps_three_and_folds_the_rest() -> None:
    errors = [
        b"2026-03-14 09:00:%02d ERROR [db] connection refused to 10.0.0.%d:5432\n" % (n, n) for n in range(10)
    ]
    data = b"".join(line for pair in zip(service_lines(10), errors) for line in pair)
    result = optimize(data, FINE)
    shown = render_preview(result)
    for error in errors[:3]:
        assert error.decode().rstrip("\n") in shown
    # The group line lists every folded repeat's values, so it counts them, not "more".
    assert "[×7 #ref:ctx_" in shown
    assert "connection refused to {10.0.0.3 10.0.0.4 10.0.0.5 10.0.0.6 10.0.0.7 10.0.0.8 10.0.0.9}:5432" in shown
    repeat = next(o for o in omissions(result) if b"ERROR" in o.data)
    assert repeat.data == b"".join(errors[3:])


def test_distinct_errors_are_all_kept() -> None:
    errors = [
        b"ERROR: test_%s failed\n" % name for name in (b"alpha", b"bravo", b"charlie", b"delta", b"echo")
    ]
    data = b"".join(line for pair in zip(service_lines(5), errors) for line in pair)
    shown = render_preview(optimize(data, COARSE))
    assert all(error.decode().rstrip("\n") in shown for error in errors)


# --- bytes: ANSI, CRLF, long lines, hostile input -----------------------------------------


@CONFIGS
def test_ansi_removed_from_visible_but_kept_in_omissions(config: OptimizerConfig) -> None:
    lines = [b"\x1b[32mINFO\x1b[0m step %d done in %dms\r\n" % (n, n * 3) for n in range(20)]
    data = b"".join(lines) + b"\x1b[1;31merror\x1b[0m: build failed\r\n"
    result = optimize(data, config)
    shown = render_preview(result)
    assert "\x1b" not in shown
    assert "error: build failed" in shown
    assert "INFO step 19 done in 57ms\n" in shown  # context of the error, escapes removed
    assert b"".join(o.data for o in omissions(result)) == b"".join(lines[:-1])


def test_crlf_kept_exactly_in_omissions() -> None:
    data = b"".join(line.replace(b"\n", b"\r\n") for line in service_lines(12))
    result = optimize(data, COARSE)
    assert omissions(result)[0].data == data
    assert "\r" not in render_preview(result)


def test_escape_between_cr_and_lf_does_not_shift_lines() -> None:
    data = b"".join(b"step %d\r\x1b[0m\n" % n for n in range(8)) + b"ERROR done\n"
    result = optimize(data, COARSE)
    assert_covered(data, result)


def test_long_line_is_cut_and_kept_whole_behind_a_ref() -> None:
    data = b"ERROR payload: " + b"x" * 5_000_000 + b"\nnext line\n"
    result = optimize(data, FINE)
    shown = render_preview(result)
    assert len(shown) < 2_000 and "ERROR payload: xxx" in shown
    assert "[whole line: 5,000,016 bytes #ref:ctx_" in shown
    assert omissions(result)[0].data == data.splitlines(keepends=True)[0]


@pytest.mark.parametrize(
    "settings",
    [
        "benchmark: 5.2.3 (defaults: timer=time.perf_counter disable_gc=False min_rounds=5 min_time=0.000005"
        " max_time=1.0 calibration_precision=10 warmup=False warmup_iterations=100000)",
        "JAVA_OPTS: -Xmx2g user.timezone=UTC file.encoding=UTF-8 java.io.tmpdir=/tmp gc=G1 threads=8 jit=on debug=off heap=2g",
        "config loaded: retries=3, backoff=exponential, timeout=30s, pool=16, region=eu-west-1, tls=true, cache=lru, log=info",
    ],
    ids=["pytest-benchmark", "jvm-options", "service-config"],
)
def test_a_line_of_many_settings_shows_its_first_two_and_keeps_the_whole_behind_a_ref(settings: str) -> None:
    data = f"session starts\n{settings}\nERROR: build failed\ndone\n".encode()
    result = optimize(data, FINE)
    shown = render_preview(result)
    assert settings not in shown and "[whole line: " in shown
    first_two = " ".join(re.findall(r"[A-Za-z_][\w.-]*=[^\s=,()]+", settings)[:2])
    assert first_two.replace(" ", ", " if ", " in settings else " ") + "… [whole line: " in shown
    assert settings.encode() + b"\n" in [omission.data for omission in omissions(result)]
    assert_covered(data, result)


@pytest.mark.parametrize(
    "line",
    [
        "level=error msg=timeout host=db1 port=5432 user=app db=orders pool=16 wait=30s retry=3",
        "2024-05-01T10:00:00Z level=info method=GET path=/api/orders status=500 duration=1.2s bytes=512 user=app ip=10.0.0.7",
        "build: target=x86_64 opt=2 debug=off",
        "LOG:  checkpoint complete: wrote=1138 buffers; added=0 removed=0 recycled=0; write=0.007 s, sync=0.001 s,"
        " total=0.012 s; files=7 longest=0.001 s, average=0.001 s; distance=1 kB, estimate=2 kB",
    ],
    ids=["logfmt-error", "logfmt-info", "few-settings", "measurements"],
)
def test_a_failure_or_a_few_settings_stay_whole(line: str) -> None:
    data = f"session starts\n{line}\nERROR: build failed\ndone\n".encode()
    assert line in render_preview(optimize(data, FINE))


def test_long_line_without_spaces_or_newline() -> None:
    data = b"a1" * 2_500_000
    result = optimize(data, COARSE)
    assert_covered(data, result)
    assert len(render_preview(result)) < 2_000


def test_small_log_without_repeats_passes_through() -> None:
    data = b"Starting\r\nListening on :8080\nno newline at end"
    assert render_preview(optimize(data, COARSE)) == data.decode()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"\n\n\n\n",
        b"\x00\x01\x02\xff\xfe" * 100,
        "café ünïcode — ok\n".encode("latin-1", errors="replace") * 20,
        b"\xc3\x28 invalid utf-8 \xa0\xa1\n" * 30,
        b"\x1b[31m\x1b[0m\n" * 10,
        b"\x1b" * 1000,
        b"\r" * 1000,
        b"Traceback (most recent call last):\n" * 50,
        b'  File "x"\nTraceback (most recent call last):',
        b"E " * 100_000,
    ],
    ids=[
        "empty",
        "newline",
        "blank",
        "binary",
        "latin1",
        "invalid-utf8",
        "ansi-only",
        "esc",
        "cr",
        "tracebacks",
        "truncated-traceback",
        "long-E",
    ],
)
@CONFIGS
def test_hostile_bytes_never_raise(data: bytes, config: OptimizerConfig) -> None:
    result = optimize(data, config)
    assert_covered(data, result)


@pytest.mark.parametrize("name", LOG_FIXTURES)
def test_chunk_boundaries_change_nothing(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = (FIXTURES / name).read_bytes()
    expected = optimize(data, FINE), optimize(data, COARSE)
    monkeypatch.setattr(log_templates, "_CHUNK", 100)
    assert (optimize(data, FINE), optimize(data, COARSE)) == expected


def test_memory_besides_the_omission_is_a_fraction_of_the_input() -> None:
    """Lines are offsets and template numbers in arrays, templated a chunk at a time.

    A list of int objects per line, or templating in large chunks, costs several times
    the input on top of the coarse omission (nearly a copy of the input) at the peak.
    """
    data = b"".join(service_lines(50_000))
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = optimize(data, COARSE)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (omission,) = omissions(result)
    assert peak - len(omission.data) < len(data) // 2


def _letters(n: int) -> str:
    """`n` in base 26 as four letters: a word without a digit, so its own template."""
    return "".join(chr(ord("a") + n // 26**place % 26) for place in range(4))


def test_template_numbers_widen_past_two_bytes() -> None:
    """Template numbers take 2 bytes a line below 2**16 templates and 4 from there on,
    each line still numbered with its own template."""
    distinct = [f"INFO cache evicted {_letters(n)} entry\n".encode() for n in range(70_000)]
    data = b"".join([*distinct, distinct[0], distinct[-1]])
    lines, templates = lines_and_templates(data)
    assert templates.of_line.typecode == "I"
    assert len(templates.keys) == 70_000
    assert templates.of_line[-2:].tolist() == [0, 69_999]
    for i in (0, 65_535, 65_536, 69_999, len(lines) - 1):
        assert templates.key(i) == template_of(lines.clean(i))
    assert lines_and_templates(b"".join(service_lines(100)))[1].of_line.typecode == "H"


def test_limits_are_tunable() -> None:
    data = b"".join(service_lines(10))
    shown = render_preview(optimize(data, COARSE, LogLimits(min_group=11, small_input_bytes=0, closing_lines_default=0)))
    assert shown == data.decode()


# --- properties ---------------------------------------------------------------------------

LOG_ATOMS = st.sampled_from(
    [
        b"INFO GET /api/orders/%d 200\n",
        b"DEBUG cache hit %d\n",
        b"ERROR PaymentService line 421\n",
        b"WARN slow request %d ms\r\n",
        b"Traceback (most recent call last):\n",
        b'  File "app.py", line %d, in run\n',
        b"ValueError: bad %d\n",
        b"\x1b[32mok\x1b[0m %d\n",
        b"\n",
        b"test_x%d (m.C.test_x) ... ok\n",
        b"\xff\xfe %d\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(LOG_ATOMS, st.integers(0, 999)), max_size=80), st.booleans())
def test_generated_logs_are_covered(atoms: list[tuple[bytes, int]], fine: bool) -> None:
    data = b"".join(atom % n if b"%d" in atom else atom for atom, n in atoms)
    result = optimize(data, FINE if fine else COARSE)
    assert_covered(data, result)
    if not fine:
        assert len(omissions(result)) <= 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(LOG_ATOMS, st.integers(0, 999)), max_size=80), st.integers(1, 64))
def test_small_chunks_give_the_same_result(atoms: list[tuple[bytes, int]], chunk: int) -> None:
    data = b"".join(atom % n if b"%d" in atom else atom for atom, n in atoms)
    data = data.replace(b"\r\n", b"\r\x1b[0m\n")  # escapes between CR and LF shift line ends
    expected = optimize(data, FINE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(log_templates, "_CHUNK", chunk)
        assert optimize(data, FINE) == expected


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2_000), st.booleans())
def test_arbitrary_bytes_never_raise(data: bytes, fine: bool) -> None:
    result = optimize(data, FINE if fine else COARSE)
    assert_covered(data, result)


def test_template_example_abbreviates_long_ids_but_refs_keep_them() -> None:
    ids = [f"{i:032x}" for i in range(1, 40)]
    data = "".join(f"2026-01-01T00:00:{i:02d}Z INFO req={rid} served\n" for i, rid in enumerate(ids)).encode()
    result = optimize(data, OptimizerConfig())
    shown = render_preview(result)
    assert "req={00000000…, …} served" in shown
    assert ids[0] not in shown
    assert b"".join(o.data for o in result.omissions) == data


def _shown(data: bytes) -> str:
    return render_preview(optimize(data, COARSE))


def test_request_lines_differing_in_one_word_share_a_group_line() -> None:
    paths = ["/api/users", "/api/orders", "/api/cart"]
    data = "".join(
        f"2026-01-01T00:00:{i % 60:02d}Z INFO [http] GET {paths[i % 3]}/{1000 + i} status=200 ms={i % 90}\n"
        for i in range(300)
    ).encode() + b"2026-01-01T00:01:00Z ERROR [db] connection lost\n" + b"2026-01-01T00:01:01Z INFO [main] bye\n"
    shown = _shown(data)
    assert "GET {/api/users/{1000 … 1297} ×100, /api/orders/{1001 … 1298} ×100, /api/cart/{1002 … 1296} ×99}" in shown
    assert "status=200 ms={0 … 89}" in shown  # what varies is never shown as the first line's
    assert "ERROR [db] connection lost" in shown


def test_a_routine_line_after_an_error_is_left_to_its_group() -> None:
    steps = [f"cc -c src/unit{i:02}.c -o build/unit{i:02}.o" for i in range(40)]
    steps.insert(20, "src/unit19.c:3:1: error: expected ';' before '}' token")
    shown = _shown(("\n".join(steps) + "\nmake: *** [all] Error 1\n").encode())
    assert "error: expected ';'" in shown and "cc -c src/unit20.c" not in shown


def test_a_frequent_warning_is_listed_by_its_group_line_alone() -> None:
    lines = []
    for i in range(20):
        lines += [f"src/unit{i:02}.c:7:9: warning: unused variable ‘tmp{i:02}’ [-Wunused-variable]",
                  f"    7 |     int tmp{i:02} = {i};", "      |         ^~~~"]
    shown = _shown(("\n".join(lines) + "\n").encode())
    # The place every file shares is named once, after the list, with their extension.
    assert "[×20] {src/unit00 src/unit01 src/unit02 … +17}.c:7:9: warning: unused variable" in shown
    assert "    7 |" not in shown


def test_a_cascade_on_one_source_line_shows_its_frame_once_and_warnings_fold_theirs() -> None:
    lines = [f"gcc -c src/other{i:02}.c" for i in range(30)] + [
        "src/a.c:4:5: warning: implicit declaration of function ‘f’ [-Wimplicit-function-declaration]",
        "    4 |     f();", "      |     ^",
        "src/a.c:16:5: error: expected ‘,’ or ‘;’ before ‘for’",
        "   16 |     for (k = 0; k < n; k++)", "      |     ^~~",
        "src/a.c:16:24: error: ‘k’ undeclared (first use in this function)",
        "   16 |     for (k = 0; k < n; k++)", "      |                        ^",
        "src/a.c:16:24: note: each undeclared identifier is reported only once",
        "make: *** [Makefile:11: a.o] Error 1",
    ]
    shown = _shown(("\n".join(lines) + "\n").encode())
    assert shown.count("   16 |     for (k = 0; k < n; k++)") == 1
    assert "src/a.c:16:24: error: ‘k’ undeclared (first use in this function) [+3 lines]" in shown
    assert "[-Wimplicit-function-declaration] [+2 lines]" in shown


def test_locations_name_their_shared_folder_once_and_each_name_keeps_its_locations() -> None:
    out = []
    for f in range(6):
        out += ["", f"/home/u/project/src/mod{f:02}.js"]
        out += [f"  {3 + k}:{5 + k}  error  '{['fs', 'e'][k % 2]}' is defined but never used  no-unused-vars" for k in range(4)]
        out += [f"  {20 + f}:1  error  Unexpected var, use let or const instead  no-var"]
    data = ("\n".join(out) + "\n\n✖ 30 problems (30 errors, 0 warnings)\n").encode()
    shown = _shown(data)
    assert "; locations in /home/u/project/src/:" in shown.splitlines()[0]
    # `fs` and `e` alternate: one group line each, listing only its own locations (a
    # tally `'{fs ×12, e ×12}'` beside one list of 24 would not say which is where).
    assert "[×12] {mod00.js:3:5 :5:7 mod01.js:3:5 :5:7 " in shown
    assert "} error 'fs' is defined but never used no-unused-vars" in shown
    assert "[×12] {mod00.js:4:6 :6:8 mod01.js:4:6 :6:8 " in shown
    assert "} error 'e' is defined but never used no-unused-vars" in shown
    signals = tuple(line.strip() for line in out if "error" in line)
    assert line_shown.not_shown(signals, shown) == ()


def test_diagnostics_written_as_line_and_column_words_list_every_error_location() -> None:
    """`path: line N, col M, Error - msg` (eslint's compact format) is a diagnostic record
    too: its errors group across files and every location stays listed."""
    lines = [
        f"/src/app/mod{n:02d}.js: line 9, col {20 + n % 3}, Error - Duplicate key 'f{n}'. (no-dupe-keys)\n"
        f"/src/app/mod{n:02d}.js: line 4, col 9, Warning - Expected '===' and instead saw '=='. (eqeqeq)\n"
        for n in range(30)
    ]
    data = ("".join(lines) + "\n60 problems\n").encode()
    shown = render_preview(log.optimize(data, OptimizerConfig()))
    assert len(shown) < len(data) / 2
    errors = tuple(line for line in data.decode().splitlines() if "Error -" in line)
    assert line_shown.not_shown(errors, shown) == ()
    assert "60 problems" in shown


def test_files_that_share_a_few_places_are_listed_once_per_place() -> None:
    lines = [f"src/file{n:02d}.ts({3 if n < 10 else 4},53): error TS2322: Type 'string' is not assignable.\n" for n in range(30)]
    shown = render_preview(log.optimize("".join(lines).encode(), OptimizerConfig()))
    assert "{in src/: file00 file01 file02 file03 file04 file05 file06 file07 file08 file09}.ts(3,53)" in shown
    assert "{file10 file11" in shown and "file29}.ts(4,53)" in shown
    assert line_shown.not_shown(tuple(line.rstrip("\n") for line in lines), shown) == ()


def _borrow_error(name: str, line: int) -> list[str]:
    return [
        f"error[E0502]: cannot borrow `{name}` as mutable because it is also borrowed as immutable",
        f"  --> src/lib.rs:{line}:5", "   |",
        f"{line - 1} |     let first = &{name}[0];", "   |                  ------ immutable borrow occurs here",
        f"{line} |     {name}.clear();", "   |     ^^^^^^^^^^^^^^ mutable borrow occurs here",
        f"{line + 1} |     println!(\"{{:?}}\", first);", "   |                      ----- immutable borrow later used here", "",
    ]


def test_a_few_errors_of_one_kind_each_show_their_frame() -> None:
    lines = [f"   Compiling dep{n} v0.1.{n}" for n in range(20)]
    lines += _borrow_error("orders", 25) + _borrow_error("v", 41)
    lines += ["error: aborting due to 2 previous errors"]
    shown = _shown(("\n".join(lines) + "\n").encode())
    for name in ("orders", "v"):
        assert f"error[E0502]: cannot borrow `{name}` as mutable because it is also borrowed as immutable" in shown
    assert shown.count("mutable borrow occurs here") == 4  # each error's labels, both kinds
    assert "[×2] error[E0502]" not in shown


def test_many_errors_of_one_kind_still_group() -> None:
    lines = [line for n in range(6) for line in _borrow_error(f"v{n}", 10 * n + 5)]
    shown = _shown(("\n".join(lines) + "\n").encode())
    assert "[×5] error[E0502]" in shown


def test_an_errors_frame_shows_its_primary_label_past_the_line_limit() -> None:
    lines = [
        "error[E0502]: cannot borrow `*orders` as mutable because it is also borrowed as immutable",
        "  --> src/lib.rs:13:5", "   |", " 8 | fn index(orders: &mut Vec<Order>) {",
        "   |                  - let's call the lifetime of this reference `'1`",
        " 9 |     let mut m = HashMap::new();", "10 |     for o in orders.iter() {",
        "   |              ------ immutable borrow occurs here", "...",
        "13 |     orders.push(order);", "   |     ^^^^^^^^^^^^^^^^^^ mutable borrow occurs here",
        "14 |     m", "   |     - returning this value requires that `*orders` is borrowed for `'1`",
    ]
    shown = _shown(("\n".join([*(f"step {n} done" for n in range(10)), *lines]) + "\n").encode())
    assert "   |     ^^^^^^^^^^^^^^^^^^ mutable borrow occurs here" in shown
    assert "returning this value" not in shown  # the rest of the frame still folds


def test_a_wrapped_diagnostic_is_one_unit_with_its_code_source_and_caret() -> None:
    lines = []
    for n in range(30):
        lines += [f"pkg/mod{n:02}.py:{10 + n}: error: Function is missing a return type", "annotation  [no-untyped-def]"]
        lines += [f"        def test_{n}(self):", "        ^~~~~~~~~~~~~~~~~~~~"]
    lines += ["Found 30 errors in 30 files (checked 30 source files)"]
    shown = _shown(("\n".join(lines) + "\n").encode())
    # One group line for the 29 repeats: no orphan `[code]` or caret groups.
    assert "[×29] {" in shown and "annotation  [no-untyped-def]" in shown
    assert "identical] annotation" not in shown and "identical]         ^" not in shown
    assert line_shown.not_shown(tuple(line for line in lines if ": error:" in line), shown) == ()


def test_repeated_errors_list_the_symbols_their_labelled_lines_name() -> None:
    lines = []
    for n in range(12):
        kind, name = [("variable", f"missingVar{n}"), ("class", f"Invoice{n}x")][n % 2]
        lines += [f"src/app/Service{n}.java:10: error: cannot find symbol", f"        Object o = {name};"]
        lines += ["                   ^", f"  symbol:   {kind} {name}", f"  location: class Service{n}"]
    lines += ["12 errors"]
    shown = _shown(("\n".join(lines) + "\n").encode())
    assert "symbol: variable {missingVar2, missingVar4, " in shown and "symbol: class {Invoice1x, Invoice3x, " in shown
    signals = tuple(line.strip() for line in lines if "symbol:" in line or ": error:" in line)
    assert line_shown.not_shown(signals, shown) == ()


def test_compiler_diagnostics_with_caret_lines_classify_as_a_log() -> None:
    from tokenlab.classify import classify
    from tokenlab.optimizers import ContentType

    lines = []
    for n in range(10):
        lines += [f"src/a/Service{n}.java:{n + 9}: error: cannot find symbol", f"        String s = missingVar{n};"]
        lines += ["                   ^", f"  symbol:   variable missingVar{n}", f"  location: class Service{n}"]
    assert classify(("\n".join(lines) + "\n10 errors\n").encode()).content_type is ContentType.LOG


def test_a_few_one_line_errors_of_one_kind_are_shown_as_printed() -> None:
    steps = [f"12:00:0{n} PM - Building project 'packages/p{n}/tsconfig.json'...\n" for n in range(6)]
    errors = [
        "packages/p1/src/m1.ts(4,63): error TS6133: 'unused' is declared but its value is never read.\n",
        "packages/p3/src/m3.ts(5,2): error TS6133: 'implicit' is declared but its value is never read.\n",
    ]
    data = "".join(steps[:2] + errors[:1] + steps[2:4] + errors[1:] + steps[4:])
    shown = render_preview(log.optimize(data.encode(), COARSE, FOLDING))
    for error in errors:
        assert error.rstrip("\n") in shown


def _build_with_errors_among_warnings(warnings: int, errors: int) -> bytes:
    lines = [
        f"src/mod{n * 37 % 1000}/file{n % 9}.c:{n * 13 % 5000}:{n % 80 + 1}: warning: unused variable 'v{n * 7 % 9999}' [-Wunused-variable]"
        for n in range(warnings)
    ]
    for k in range(errors):
        lines.insert(
            (k + 1) * warnings // (errors + 1),
            f"src/mod{k * 91 % 1000}/file{k % 9}.c:{k * 331 % 5000}:{k % 80 + 1}: error: 'v{k * 97}' undeclared (first use in this function)",
        )
    return ("\n".join(lines) + "\n").encode()


@CONFIGS
def test_grouped_errors_pass_their_own_signal_check_and_come_before_warnings(config: OptimizerConfig) -> None:
    data = _build_with_errors_among_warnings(400, 10)
    result = log.optimize(data, config)
    shown = render_preview(result)
    errors = [line for line in data.decode().splitlines() if ": error: " in line]
    assert set(errors) <= set(result.signals)
    assert line_shown.not_shown(tuple(errors), shown) == ()
    group_lines = [line for line in shown.splitlines() if line.startswith("[×")]
    assert ": error: " in group_lines[0] and ": warning: " in group_lines[1]


# --- framed records: header, pointer, `|` frame, help ------------------------------------


def _framed_record(code: str, message: str, path: str, line: int, source: str, help_text: str) -> str:
    gutter = " " * len(str(line))
    return (
        f"{code} {message}\n"
        f"{gutter}--> {path}:{line}:5\n"
        f"{gutter} |\n"
        f"{line} |     {source}\n"
        f"{gutter} |     ^^^^^^\n"
        f"{gutter} |\n"
        f"help: {help_text}\n"
        "\n"
    )


def _lint_run(records: int) -> bytes:
    text = "".join(
        _framed_record("UP031", "Use format specifiers", f"pkg/mod{n % 4}.py", 10 + 7 * n, f'x{n} = "%s" % y{n}', "Replace with format specifiers")
        for n in range(records)
    )
    text += _framed_record("E722", "Do not use bare `except`", "pkg/run.py", 88, "except:", "Catch a named exception")
    return (text + f"Found {records + 1} errors.\n").encode()


@CONFIGS
def test_framed_records_show_one_example_and_list_every_location(config: OptimizerConfig) -> None:
    data = _lint_run(30)
    result = log.optimize(data, config)
    shown = render_preview(result)
    assert shown.count("UP031 Use format specifiers") == 2  # the example and its group line
    assert "10 |     x0 = \"%s\" % y0" in shown and "help: Replace with format specifiers" in shown
    pointers = [line.split("--> ")[1] for line in data.decode().splitlines() if "--> " in line]
    assert line_shown.not_shown(tuple(pointers), shown) == ()
    assert "E722 Do not use bare `except`" in shown and "88 |     except:" in shown
    assert_covered(data, result)


def test_frame_lines_of_different_records_never_fold_together() -> None:
    shown = render_preview(log.optimize(_lint_run(30), COARSE))
    group_lines = [line for line in shown.splitlines() if line.startswith("[×")]
    assert len(group_lines) == 1 and group_lines[0].startswith("[×29] UP031 Use format specifiers --> {pkg/mod1.py:17:5")


def test_a_framed_records_help_and_an_errors_notes_stay_below_its_folded_frame() -> None:
    long_frame = "".join(f"{n} |     line {n}\n" for n in range(10, 30))
    record = "{header}\n  --> src/a.rs:10:5\n   |\n" + long_frame + "   = note: {note}\n   = help: {help}\n\n"
    data = record.format(header="warning: value never read", note="warn by default", help="remove it") * 2
    data += record.format(header="error[E0382]: use of moved value", note="move occurs here", help="clone it")
    shown = render_preview(log.optimize((data + "error: could not compile\n").encode(), COARSE))
    assert "= help: remove it" in shown and "= help: clone it" in shown and "= note: move occurs here" in shown
    assert "warn by default" not in shown and "29 |     line 29" not in shown


def _note_under_a_folded_frame(header: str, note: str, gutter: str, more: int) -> str:
    frame = f"{gutter}|\n" + "".join(f"{n} |     line {n}\n" for n in range(10, 10 + more))
    pointed = f"{note}\n{gutter}--> lib/defs.py:2:9\n{gutter}|\n2 | #![warn(missing_docs)]\n{gutter}|    ^^^^\n"
    return f"{header}\n{gutter}--> src/a.rs:10:5\n{frame}{pointed}\n"


@pytest.mark.parametrize(
    "header, note, gutter, more",
    [
        # rustdoc: the pointer is the last line before the cut; ty: its gutter is
        ("warning: missing documentation for a struct field", "note: the lint level is defined here", " ", 3),
        ("error[invalid-argument-type]: Argument is incorrect", "info: Method defined here", "   ", 2),
    ],
)
def test_a_note_pointer_shown_above_a_folded_tail_keeps_the_source_line_it_points_at(
    header: str, note: str, gutter: str, more: int
) -> None:
    """rustc's and ty's notes point at code elsewhere: the location alone does not say
    what is there (which lint the crate enables, which method is called)."""
    data = _note_under_a_folded_frame(header, note, gutter, more) * 2 + "error: could not compile\n"
    shown = render_preview(log.optimize(data.encode(), COARSE))
    assert f"{gutter}--> lib/defs.py:2:9" in shown and "2 | #![warn(missing_docs)]" in shown
    assert "more line of this diagnostic" in shown  # the caret under it still folds


def test_a_source_line_quoted_in_a_frame_is_no_signal() -> None:
    record = "B001 Do not raise here\n --> a.py:{n}:1\n  |\n{n} |     raise ValueError: exit status 2\n  |\n\n"
    data = "".join(record.format(n=n) for n in range(1, 12)).encode()
    assert not [signal for signal in log.optimize(data, COARSE).signals if "|" in signal]


@pytest.mark.parametrize("data", [b"a\r\nb\n\nc", b"\x1b[31mred\x1b[0m\nplain\r\n", b"one line\n"])
def test_a_batch_of_lines_reads_as_each_line_would(data: bytes) -> None:
    lines, _ = lines_and_templates(data)
    every = list(range(len(lines)))
    for indexes in (every, every[::-1], every[1:], [0, 0]):
        assert lines.cleans(indexes) == [lines.clean(index) for index in indexes]


# Names without digits, so that no two rows share a template.
_WORD_PAIRS = [
    (a, c + b)
    for a in ("utils", "cli", "config", "auth", "cache", "audit", "exec", "pack", "view", "run", "ls", "ci")
    for b in ("output", "display", "format", "open", "read", "ping", "queue", "usage", "log")
    for c in ("", "sub", "meta")
]


@pytest.mark.parametrize(
    ("rows", "details"),
    [
        # a packer's dry run: a file list, then what the package is
        (
            [f"npm notice {i % 9 + 1}.{i % 7}kB lib/{a}/{b}.js" for i, (a, b) in enumerate(_WORD_PAIRS)],
            ["npm notice Tarball Details", "npm notice name: kit", "npm notice version: 2.4.1",
             "npm notice filename: kit-2.4.1.tgz", "npm notice total files: 120", "npm notice"],
        ),
        # an uploader: progress rows, then where the release is
        (
            [f"Uploading {a}-{b}.whl" for a, b in _WORD_PAIRS],
            ["Release summary", "Project: kit", "Version: 2.4.1", "Archive: kit-2.4.1.tar.gz", "Done"],
        ),
    ],
)
def test_a_details_block_closing_the_log_stays_whole_with_its_heading(rows: list[str], details: list[str]) -> None:
    data = ("\n".join([*rows, *details, "kit-2.4.1"]) + "\n").encode()
    shown = render_preview(log.optimize(data, COARSE))
    for line in details[:4]:
        assert line in shown
    assert rows[62] not in shown
# --- a dump's header: the lines a reader reads first -------------------------------------


def _dump(records: int, body: int) -> bytes:
    """A dump of several records, each led by `Archive` and its header fields, then a
    body of distinct lines."""
    out: list[str] = []
    for n in range(records):
        out += [f"Archive /srv/pkg/module{n}.pkg", f"  Built from \"module{n}.src\"", f"  format version: {n + 3}"]
        out += [f"  flags: (0x00{n}1) PUBLIC, SEALED", f"  entries: {body}, attributes: {n}"]
        out += [f"    #{k} = Entry  {chr(97 + k % 26)}{k * 7 + n} // item {k}" for k in range(body)]
    return ("\n".join(out) + "\n").encode()


def test_each_record_of_a_dump_keeps_its_header() -> None:
    shown = render_preview(optimize(_dump(3, 60), COARSE))
    for n in range(3):
        assert f"Archive /srv/pkg/module{n}.pkg\n  Built from \"module{n}.src\"\n  format version: {n + 3}\n" in shown
        assert f"  flags: (0x00{n}1) PUBLIC, SEALED\n  entries: 60, attributes: {n}\n" in shown
    assert "// item 20" not in shown  # the body still folds


def test_a_word_leading_many_lines_leads_no_record() -> None:
    lines = [f"step {n} of the build ran {'quickly' if n % 2 else 'slowly'} on worker {n * 7}" for n in range(60)]
    shown = render_preview(optimize(("\n".join(lines) + "\n").encode(), COARSE))
    assert "step 30 of the build" not in shown


def test_class_file_dump_headers_stay() -> None:
    data = (FIXTURES / "real" / "javap_c_v_invoice_ledger.txt").read_bytes()
    shown = render_preview(log.optimize(data, COARSE))
    for name, flags in (("Invoice", "(0x0021) ACC_PUBLIC, ACC_SUPER"), ("Ledger", "(0x0031) ACC_PUBLIC, ACC_FINAL, ACC_SUPER")):
        assert f'  Compiled from "{name}.java"\n' in shown
        assert f"  minor version: 0\n  major version: 61\n  flags: {flags}\n" in shown


def _path_report(tool: str) -> list[str]:
    """A warning reporting a path through two steps before its own location, each step a
    note at another place over its quoted source and caret; the first step's source line
    is empty (a blank line over its caret), as both tools print it."""
    if tool == "cppcheck":
        return [
            "zlib/gzjoin.c:209:9: warning: Null pointer dereference: in [ctunullpointer]",
            "    if (bget(in) != 0x1f)", "        ^",
            "zlib/gzjoin.c:293:12: note: Assuming that condition 'in==NULL' is not redundant", "", "           ^",
            "zlib/gzjoin.c:295:11: note: Calling function gzhead, 1st argument is null", "    gzhead(in);", "          ^",
            "zlib/gzjoin.c:209:9: note: Dereferencing argument in that is null", "    if (bget(in) != 0x1f)", "        ^",
        ]
    return [
        "src/list.c:41:12: warning: Access to field 'next' results in a dereference of a null pointer (loaded from variable 'node') [core.NullDereference]",
        "    return node->next;", "           ^",
        "src/list.c:30:7: note: Assuming 'head' is equal to NULL", "", "      ^",
        "src/list.c:36:10: note: Passing null pointer value via 1st parameter 'node'", "    return next_of(head);", "         ^",
        "src/list.c:41:12: note: Access to field 'next' results in a dereference of a null pointer", "    return node->next;", "           ^",
    ]


@pytest.mark.parametrize("tool", ["cppcheck", "clang-analyzer"])
def test_a_warnings_path_steps_stay_with_it_and_visible_an_empty_source_line_included(tool: str) -> None:
    others = [f"src/m{n:02}.c:{n + 3}:5: style: The scope of the variable 'v{n}' can be reduced. [variableScope]" for n in range(20)]
    error = ["src/main.c:92:18: error: Uninitialized variable: msgbuf [uninitvar]", "        (LPVOID)&msgbuf,", "                 ^"]
    report = _path_report(tool)
    shown = _shown(("\n".join([*others, *report, *error]) + "\n").encode())
    steps = [line for line in report[3:] if ": note: " in line and line.split(": note:")[0] not in report[0]]
    assert len(steps) == 2 and all(step in shown for step in steps)  # each step of the path, in order
    assert shown.index(report[0]) < shown.index(steps[0]) < shown.index(steps[1])
    assert not re.search(r"^\[×\d+\]\s+\^", shown, re.MULTILINE)  # no step's caret grouped with another's


def _frame_then_tail(tool: str, module: str, line: int) -> list[str]:
    """A framed record whose frame quotes a long statement, then lines telling where the
    tool looked: the same in every record."""
    source = [f"{line + k} | {'/' if k == 0 else '|'}     name_{k} as name_{k}," for k in range(6)]
    if tool == "pyrefly":
        return [
            f"ERROR Cannot find module `{module}` [missing-import]", f"  --> pkg/__init__.py:{line}:1", "   |", *source, "   | |_^",
            "  Looked in these locations:",
            '  Fallback search path (guessed from importing file with heuristics): ["/src/pkg", "/src"]',
            '  Site packages path queried from interpreter: ["/opt/venv/lib/python3.11/site-packages"]',
        ]
    return [
        f"error[unresolved-import]: Cannot resolve imported module `{module}`", f" --> pkg/__init__.py:{line}:1", "  |", *source, "  |",
        "info: Searched in the following paths during module resolution:",
        "info:   1. /src (first-party code)",
        "info:   2. /opt/venv/lib/python3.11/site-packages (site-packages)",
    ]


@pytest.mark.parametrize("tool", ["pyrefly", "ty"])
def test_a_tail_every_record_repeats_shows_once_under_the_first_record(tool: str) -> None:
    records = [line for n in range(12) for line in _frame_then_tail(tool, f"mod_{n}", 10 * n + 1)]
    shown = _shown(("\n".join([*records, " INFO 12 errors"]) + "\n").encode())
    assert shown.count("/opt/venv/lib/python3.11/site-packages") == 1
    first_tail = _frame_then_tail(tool, "mod_0", 1)[-3:]
    assert "\n".join(first_tail) in shown  # with the record shown, in its place
    assert shown.index("mod_0") < shown.index(first_tail[0]) < shown.index("mod_1")


def test_notes_carrying_their_own_rule_code_are_findings_not_path_steps() -> None:
    # A linter's note-severity findings (shellcheck -f gcc) follow a warning as notes
    # would: each is a finding with its own code, folded with the warning's frame.
    notes = [f"lib/build.sh:{300 + n}:9: note: Double quote to prevent globbing and word splitting. [SC2086]" for n in range(4)]
    lines = ["lib/build.sh:281:1: warning: setup references arguments, but none are ever passed. [SC2120]", *notes]
    shown = _shown(("\n".join([*lines, "lib/build.sh:320:3: error: Couldn't parse this function. [SC1073]"]) + "\n").encode())
    assert not any(note in shown for note in notes) and "[SC2120] [+4 lines]" in shown


@pytest.mark.parametrize(
    "lines",
    [
        # a parametrised test's ids, a cloud region, a thread pool's thread names
        [f"FAILED t.py::test_rate[{c}-{n}] - Error" for c in ("EUR", "GBP", "CHF") for n in (10, 25)],
        [f"2026-03-14 09:00:0{n} INFO [{region}] replica sync finished" for n, region in enumerate(
            ("eu-west-1", "us-east-2", "ap-south-1", "eu-central-1", "us-west-2", "sa-east-1"))],
        [f"12:00:0{n} [{pool}-{n}-thread-{n + 1}] worker idle" for n, pool in enumerate(
            ("pool", "io", "cpu", "pool", "io", "cpu"))],
    ],
    ids=["pytest", "regions", "threads"],
)
def test_bracketed_ids_that_differ_in_their_letters_are_one_value(lines: list[str]) -> None:
    data = "\n".join(lines).encode() + b"\n"
    result = optimize(service_lines_text(20) + data, FINE)
    shown = render_preview(result)
    # One group line for the lines (a failure's first three shown as examples), naming
    # each id whole.
    ending = lines[0].rsplit(" ", 1)[1]
    assert sum(line.startswith("[×") and line.endswith(ending) for line in shown.splitlines()) == 1
    assert line_shown.not_shown(tuple(lines), shown) == ()
    assert sum(line in shown for line in lines) <= 3


def service_lines_text(count: int) -> bytes:
    return b"".join(service_lines(count))
