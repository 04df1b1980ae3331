"""Multi-line records folded: the first of each shape shown whole, the others one group line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Golden, render_preview
from tests.record_samples import HASHES, config_map, worker
from tokenlab.classify import classify
from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, optimizer_for
from tokenlab.optimizers.lines import records
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.lines import shown as line_shown


FIXTURES = Path(__file__).parent.parent / "fixtures" / "real"


def _plan(workers: int) -> bytes:
    regions = ["eu-1", "us-2", "ap-3"]
    blocks = ["\n".join(worker(n, regions[n % 3], "std")) + "\n" for n in range(workers)]
    gateway = '  # data.gateway will be created\n      + name = "edge"\n'
    return ("Plan for this run:\n\n" + "\n".join(blocks) + "\n" + gateway + "\nPlan: 9 to add.\n").encode()


def test_fold_records_shows_the_first_record_and_one_line_for_the_rest() -> None:
    parts = records.fold_records(_plan(12))
    assert parts is not None
    shown = "".join(part if isinstance(part, str) else "#ref" for part in parts)
    assert "\n".join(worker(0, "eu-1", "std")) in shown and 'name = "worker-1"' not in shown
    assert "[×11 more like the one above #ref] # data.worker[#] will be created {" in shown
    assert "{worker[1–11]; + name = \"worker-1–11\"; + region = \"#\" cycling us-2, ap-3, eu-1}" in shown
    assert '# data.gateway will be created\n      + name = "edge"' in shown
    folded = [part for part in parts if isinstance(part, Omission)]
    assert len(folded) == 1 and all(_plan(12)[a:b] in folded[0].data for a, b in folded[0].source)


def test_records_that_are_a_small_part_of_the_input_do_not_fold() -> None:
    topics = [f"{chr(65 + n % 26)}{chr(97 + n // 26)}" for n in range(200)]  # no two lines of one shape
    prose = "".join(f"A line of prose on topic {topic} that says something else.\n" for topic in topics).encode()
    assert records.fold_records(_plan(4) + prose) is None
    assert records.fold_records(_plan(2)) is None


def test_a_value_is_its_whole_word() -> None:
    assert line_shapes.word_slots("___ test_rate[EUR-10] ___") == (["___ test_rate[", "] ___"], ["EUR-10"])
    assert line_shapes.word_slots("  app: orders-shard-01") == (["  app: ", ""], ["orders-shard-01"])
    assert line_shapes.word_slots("x v1+v2 y") == (["x ", " y"], ["v1+v2"])


def _apply_log() -> bytes:
    """A plan's records, then progress lines of one shape each, finishing out of order."""
    order = [3, 0, 7, 1, 5, 2, 6, 4]
    ids = {n: f"{n:x}{n:x}{n:x}{n:x}a1b2-1a19-9733-6990-7fac259bc1b{n}" for n in order}
    progress = "".join(f"data.node[{n}]: Creating...\n" for n in order)
    progress += "".join(f"data.node[{n}]: Creation complete after 0s [id={ids[n]}]\n" for n in order)
    listing = "names = [\n" + "".join('  "(known after apply)",\n' for _ in order) + "]\n"
    return _plan(30) + b"\n" + progress.encode() + b"\n" + listing.encode()


def test_lines_of_one_shape_fold_after_the_first_in_natural_order() -> None:
    data = _apply_log()
    parts = records.fold_records(data)
    assert parts is not None
    shown = "".join(part if isinstance(part, str) else "#ref" for part in parts)
    assert "data.node[0]: Creating...\n[×7 more like the one above #ref] data.node[#]: Creating... {node[1–7] (sorted)}\n" in shown
    assert "data.node[3]: Creating..." not in shown
    # Paired with its id, in the order of the numbers; each id by as few first digits as
    # tell the ids apart.
    assert "{node[1–7] (sorted); id=#…]: 1111 2222 3333 4444 5555 6666 7777}" in shown
    assert '  "(known after apply)",\n[×7 more like the one above #ref]\n]' in shown
    folded = [part for part in parts if isinstance(part, Omission)]
    assert all(b"".join(data[a:b] for a, b in omission.source) == omission.data for omission in folded)


def test_coarse_folding_holds_every_folded_record_in_one_ref() -> None:
    data = _apply_log()
    parts = records.fold_records(data, Granularity.COARSE)
    assert parts is not None
    folded = [part for part in parts if isinstance(part, Omission)]
    lines = data.count(b"\n")
    assert len(folded) == 1 and str(parts[0]) == f"[records: {lines:,} lines; 50 records folded: "
    assert folded[0].data == b"".join(data[a:b] for a, b in folded[0].source)
    assert "[×7 more like the one above] data.node[#]: Creating..." in "".join(p for p in parts if isinstance(p, str))


def _race(kind: str, address: int, name: str) -> list[str]:
    return [
        "==7== ----------------------------------------",
        "==7== ",
        f"==7== Possible data race during {kind} of size 8 at 0x{address:X} by thread #3",
        "==7== Locks held: none",
        f"==7==    at 0x{address + 16:X}: bump_{name} (race.c:10)",
        "==7==    by 0x1093: handler (race.c:18)",
        "==7== ",
        "==7== This conflicts with a previous write of size 8 by thread #2",
        f"==7==    at 0x{address + 32:X}: bump_{name} (race.c:10)",
        f'==7==  Address 0x{address:x} is 0 bytes inside data symbol "{name}"',
        "==7== ",
    ]


_COUNTERS = ["req_total", "req_get", "req_put", "bytes_in", "bytes_out", "cache_hits"]


def _race_log(tail: list[str]) -> bytes:
    lines = ["==7== Helgrind, a thread error detector", "==7== "]
    for number, name in enumerate(_COUNTERS):
        lines += _race("read", 0x10C0C8 + 8 * number, name)
    lines += ["==7== ----------------------------------------", "==7== ", *tail]
    return ("\n".join(lines) + "\n").encode()


_LOCK_ORDER = [
    '==7== Thread #4: lock order "0x10C060 before 0x10C0A0" violated',
    "==7== ",
    "==7== Observed (incorrect) order is: acquisition of lock at 0x10C0A0",
    "==7==    by 0x1094: handler (race.c:25)",
    "==7==    by 0x48ED: start_thread (pthread_create.c:442)",
    "==7== ",
    "==7==  followed by a later acquisition of lock at 0x10C060",
    "==7==    by 0x1095: handler (race.c:25)",
    "==7==    by 0x48ED: start_thread (pthread_create.c:442)",
    "==7== ",
    "==7== Required order was established by acquisition of lock at 0x10C060",
    "==7==    by 0x1096: handler (race.c:23)",
    "==7==    by 0x48ED: start_thread (pthread_create.c:442)",
    "==7== ",
    "==7== ERROR SUMMARY: 85 errors from 29 contexts",
]


def test_records_between_rules_fold_through_the_prefix_and_another_shape_stays_whole() -> None:
    data = _race_log(_LOCK_ORDER)
    parts = records.fold_records(data)
    assert parts is not None
    shown = "".join(part for part in parts if isinstance(part, str))
    assert shown.count("Possible data race") == 2  # the first record whole, and the group line
    group = next(line for line in shown.splitlines() if line.startswith("[×5 more"))
    assert "at #: # (race.c:10)" in group  # a line naming the varying function, as a template
    assert all(name in group for name in _COUNTERS[1:])
    for line in _LOCK_ORDER:
        assert line + "\n" in shown  # another shape: whole, its frames not folded as lines
    assert shown.count("start_thread") == 3  # a line in each of its paragraphs


def test_a_block_under_an_indented_first_line_is_a_record() -> None:
    blocks = [
        f"      Start {n}: roundtrip_q{10 + 2 * n}\n"
        f"{n}/9 Test #{n}: roundtrip_q{10 + 2 * n} ....***Failed    0.01 sec\n"
        f"roundtrip.c:17: assertion failed: max_err <= 3 (max_err={30 - n} at sample {n * 7 % 5})\n"
        f"quality={10 + 2 * n} step={25 - n}\n"
        for n in range(1, 9)
    ]
    parts = records.fold_records("\n".join(blocks).encode())
    assert parts is not None
    shown = "".join(part for part in parts if isinstance(part, str))
    group = next(line for line in shown.splitlines() if line.startswith("[×7 more"))
    assert "assertion failed: max_err <= 3 (max_err=# at sample #)" in group  # its failure line, as a template
    assert "roundtrip_q26" in group and "max_err" in group


def _make_trace(objects: int) -> bytes:
    lines = ["GNU Make 4.3", "Reading makefiles...", "Updating goal targets...."]
    for n in range(1, objects + 1):
        lines += [
            f"    Considering target file 'build/codec_{n:03}.o'.",
            f"     File 'build/codec_{n:03}.o' does not exist.",
            f"     Trying pattern rule with stem 'codec_{n:03}'.",
            f"     Trying implicit prerequisite 'src/codec_{n:03}.c'.",
            f"    Must remake target 'build/codec_{n:03}.o'.",
            f"cc -O2 -c src/codec_{n:03}.c -o build/codec_{n:03}.o",
            f"Reaping winning child 0x55{n:04x} PID {3000 + 7 * n * n % 97}",
        ]
    lines += ["make: Target 'all' not remade because of errors."]
    return ("\n".join(lines) + "\n").encode()


def test_plain_text_records_may_be_headed_by_a_repeated_headline_without_blank_lines() -> None:
    data = _make_trace(12)
    assert records.fold_records(data) is None  # a structured document's family keeps its own rules
    parts = records.fold_records(data, Granularity.FINE, records.TEXT_LIMITS)
    assert parts is not None
    shown = "".join(part for part in parts if isinstance(part, str))
    assert "    Considering target file 'build/codec_001.o'.\n" in shown
    assert "codec_005" not in shown.split("[×")[0]  # folded after the first record
    assert "make: Target 'all' not remade because of errors." in shown


def _service(tenant: int) -> list[str]:
    return [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata:",
        f"  name: tenant{tenant:02}-api",
        "spec:",
        "  configMapRef:",
        f"    name: tenant{tenant:02}-config-{HASHES[tenant - 1]}",
    ]


def test_a_column_listed_whole_above_is_not_listed_again_and_an_odd_name_joins_its_kind() -> None:
    documents = [config_map(n, "debug" if n == 4 else "info") for n in range(1, 7)] + [_service(n) for n in range(1, 7)]
    data = "---\n".join("\n".join(lines) + "\n" for lines in documents).encode()
    shown = _shown(records.fold_records(data))
    assert "LOG_LEVEL: debug" not in shown.split("[×")[0]  # folded with its kind, not kept whole
    assert "LOG_LEVEL: info, but tenant04-config-bch45c62k2 has LOG_LEVEL: debug" in shown
    assert shown.count(HASHES[3]) == 2  # where the odd record is named, and once in its column
    assert "name: tenant02–06-config-# as listed above}" in shown


def test_a_failing_record_of_another_error_does_not_join_its_kind() -> None:
    blocks = [[f"FAILED test_rate[{n}]", "  in rates.py:17", "E   AssertionError: wrong rate"] for n in range(1, 7)]
    blocks[3][2] = "E   AssertionError: wrong zone"  # of their kind, but another error
    data = "\n".join("\n".join(lines) + "\n" for lines in blocks).encode()
    shown = _shown(records.fold_records(data))
    assert "FAILED test_rate[4]\n  in rates.py:17\nE   AssertionError: wrong zone\n" in shown


RECORD_CAPTURES = [
    "terraform_plan_30_ingest_12_queues.log",
    "terraform_apply_30_ingest_12_queues.log",
    "kubectl_create_job_dry_run_30_tenants.yaml",
    "pytest_parametrize_25_zone_b.log",
    "pytest_parametrize_25_zone_b_junit.xml",
    "node_test_spec_24_same_failure.log",
    "terraform_plan_color_160_workers_12_precondition_errors.log",
    "kubectl_kustomize_14_tenants_42_objects.yaml",
]


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
@pytest.mark.parametrize("name", RECORD_CAPTURES)
def test_record_captures_golden_with_every_signal_shown(name: str, granularity: Granularity, golden: Golden) -> None:
    data = (FIXTURES / name).read_bytes()
    content_type = classify(data).content_type
    result = optimizer_for(content_type)(data, OptimizerConfig(granularity))
    shown = render_preview(result)
    golden.check(f"records/{name}.{granularity.value}.txt", f"[{content_type.value}]\n{shown}")
    signals = tuple(line for line in (FIXTURES / f"{name}.signals").read_text(encoding="utf-8").splitlines() if line)
    assert line_shown.not_shown(signals + tuple(result.signals), shown) == ()


def _shown(parts: tuple[object, ...] | None) -> str:
    assert parts is not None
    return "".join(part if isinstance(part, str) else "#ref" for part in parts)


def test_kept_text_is_shown_without_colour_codes() -> None:
    coloured = _plan(12).replace(b"Plan: 9 to add.", b"\x1b[1mPlan:\x1b[0m 9 to add.").replace(b"+ name", b"\x1b[32m+\x1b[0m name")
    shown = _shown(records.fold_records(coloured))
    assert "\x1b" not in shown
    assert "Plan: 9 to add." in shown and '+ name   = "worker-0"' in shown


def _doctest_example(call: str, want: str, got: str | None, line: int) -> list[str]:
    record = ["Trying:", f"    {call}", "Expecting:", f"    {want}"]
    if got is None:
        return [*record, "ok"]
    return [*record, "*" * 20, f'File "units.py", line {line}, in units.{call.split("(")[0]}', "Failed example:", f"    {call}", "Expected:", f"    {want}", "Got:", f"    {got}"]


def _failing_tests(count: int) -> list[list[str]]:
    return [
        [f"FAIL: test_parse:{n}", f"  input '{n}.{n + 1}'", "  Traceback (most recent call last):", f'    File "test_x.py", line {10 + n}, in test_parse', f"  AssertionError: got {n * 3}"]
        for n in range(count)
    ]


def test_a_few_failing_records_that_differ_in_more_than_a_name_stay_whole() -> None:
    passing = [_doctest_example(f"c_to_f({n})", f"{n * 1.8 + 32:.1f}", None, 0) for n in range(12)]
    failing = [_doctest_example("f_to_c(42.5)", "5.8", "5.83", 140), _doctest_example("f_to_c(100)", "37.8", "37.78", 142), _doctest_example("gal_to_l(10)", "37.9", "37.85", 104)]
    text = "\n".join(line for record in [*passing[:6], *failing, *passing[6:]] for line in record) + "\n"
    shown = _shown(records.fold_records(text.encode(), Granularity.COARSE, records.TEXT_LIMITS))
    for record in failing:
        assert "\n".join(record) in shown  # each failure whole, not a row of a group line
    assert "c_to_f(5)" not in shown  # passing records still fold
    unittest = "\n\n".join("\n".join(record) for record in _failing_tests(4)) + "\n\nRan 4 tests\n"
    assert records.fold_records(unittest.encode()) is None  # four failures, each kept: nothing left to fold


def test_failing_records_fold_when_they_differ_in_a_name_only_or_are_many() -> None:
    boxes = "".join(
        f"╷\n│ Error: Resource precondition failed\n│\n│   on main.tf line 32:\n│   32: condition = replicas > 0\n│\n│ Worker worker-{n:02} must run at least one replica.\n╵\n"
        for n in (7, 23, 31, 58)
    )
    shown = _shown(records.fold_records(("Plan: 4 to add.\n" + boxes).encode(), Granularity.COARSE, records.TEXT_LIMITS))
    assert "│ Worker worker-07 must run at least one replica." in shown
    # The group line stands where the second box was, its opening corner folded with it.
    assert "╵\n[×3 more like the one above] Error: Resource precondition failed … Worker worker-# must run at least one replica." in shown
    assert "worker-23" in shown and "worker-58" in shown
    many = "\n\n".join("\n".join(record) for record in _failing_tests(9)) + "\n"
    shown = _shown(records.fold_records(many.encode()))
    assert "[×8 more like the one above" in shown


def test_the_coarse_header_counts_the_inputs_lines_beside_the_records_folded() -> None:
    data = _race_log(_LOCK_ORDER)
    parts = records.fold_records(data, Granularity.COARSE)
    assert parts is not None
    lines = data.count(b"\n")
    header = str(parts[0])
    assert header.startswith(f"[records: {lines} lines; ") and header.endswith(" records folded: ")


def _with_failure_in_the_middle(tool: str) -> tuple[bytes, bytes]:
    """Records of one shape with a failing record of another shape among them, and the
    failure's line."""
    if tool == "make":
        data = _make_trace(14)
        failing = b"src/codec_007.c:1:35: error: 'undefined_scale' undeclared\nmake: *** [Makefile:12: build/codec_007.o] Error 1\n"
        at = data.index(b"Reaping winning child", data.index(b"codec_007.c -o"))
        return data[:at] + failing + data[at:].replace(b"Reaping winning", b"Reaping losing", 1), failing.splitlines()[0]
    passing = [_doctest_example(f"c_to_f({n})", f"{n * 1.8 + 32:.1f}", None, 0) for n in range(14)]
    failing_record = _doctest_example("f_to_c(42.5)", "5.8", "5.83", 140)
    text = "\n".join(line for record in [*passing[:7], failing_record, *passing[7:]] for line in record) + "\n"
    return text.encode(), b"Failed example:"


@pytest.mark.parametrize("tool", ["make", "doctest"])
def test_records_never_fold_across_a_failure_between_them(tool: str) -> None:
    # A group line stands where its first record was: records after the failure folded
    # into a group before it would read as having come before it.
    data, failure = _with_failure_in_the_middle(tool)
    parts = records.fold_records(data, Granularity.FINE, records.TEXT_LIMITS)
    assert parts is not None
    failure_at = data.index(failure)
    groups = [part for part in parts if isinstance(part, Omission)]
    assert len(groups) >= 2
    for group in groups:
        assert all(end <= failure_at for _, end in group.source) or all(start > failure_at for start, _ in group.source)
    shown = _shown(parts)
    assert failure.decode() in shown
