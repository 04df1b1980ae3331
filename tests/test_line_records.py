"""Records of one skeleton said once: rows pair each record's varying values."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Golden, render_preview
from tokenlab.classify import classify
from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, optimizer_for
from tokenlab.optimizers.lines import records
from tokenlab.optimizers.lines import shapes as line_shapes

FIXTURES = Path(__file__).parent.parent / "fixtures" / "real"


def _plan_block(index: int, name: str, zone: str) -> list[str]:
    return [
        f"  # data.node[{index}] will be created",
        f'      + name   = "{name}"',
        '      + engine = "redis"',
        f'      + zone   = "{zone}"',
    ]


def test_rows_pair_the_values_of_each_record() -> None:
    found = records.family([_plan_block(0, "cache-0", "eu-1a"), _plan_block(7, "cache-7", "us-2c")])
    assert found is not None
    assert found.rows() == ["node[0] name=cache-0 zone=eu-1a", "node[7] name=cache-7 zone=us-2c"]
    assert found.headline() == "# data.node[#] will be created"


def test_constant_values_are_not_listed() -> None:
    found = records.family([_plan_block(1, "a1", "z"), _plan_block(2, "a2", "z")])
    assert found is not None
    assert all("engine" not in row and "zone" not in row for row in found.rows())


def test_another_skeleton_is_no_family() -> None:
    other = [*_plan_block(3, "c3", "z")[:3], '      + size   = "3"']
    assert records.family([_plan_block(1, "a1", "z"), other]) is None
    assert records.family([_plan_block(1, "a1", "z"), _plan_block(2, "a2", "z")[:3]]) is None


def test_a_file_named_on_the_row_before_is_left_out() -> None:
    found = records.family(
        [
            ["--> src/a.rs:4:9", "warning: unused variable: `x1`"],
            ["--> src/a.rs:24:9", "warning: unused variable: `x2`"],
            ["--> src/b.rs:3:1", "warning: unused variable: `x3`"],
        ]
    )
    assert found is not None
    assert found.rows() == ["src/a.rs:4:9 x1", ":24:9 x2", "src/b.rs:3:1 x3"]
    assert found.headline(1) == "warning: unused variable: `#`"


def test_long_ids_show_their_first_digits() -> None:
    found = records.family(
        [
            ["worker[15]: Creation complete [id=2a94559e-4f1c-8a2b-0c3d-1e2f3a4b5c6d]"],
            ["worker[16]: Creation complete [id=013daf7f-4f1c-8a2b-0c3d-1e2f3a4b5c6d]"],
        ]
    )
    assert found is not None
    assert found.rows() == ["worker[15] id=2a94559e…", "worker[16] id=013daf7f…"]


def _worker(index: int, region: str, tier: str) -> list[str]:
    return [
        f"  # data.worker[{index}] will be created",
        f'      + name   = "worker-{index}"',
        f'      + region = "{region}"',
        f'      + tier   = "{tier}"',
    ]


def test_a_table_says_a_usual_value_once() -> None:
    picked = [(1, "eu-1"), (4, "us-2"), (9, "us-2"), (10, "eu-1"), (15, "ap-3"), (22, "us-2"), (23, "eu-1")]
    found = records.family([_worker(n, region, "gpu" if n == 10 else "std") for n, region in picked])
    assert found is not None
    # The record holding another value is named by its `name`, beside its line whole.
    assert found.table() == (
        '+ tier = "std", but worker-10 has + tier = "gpu"; worker[#] | + name = "#" | + region = "#": '
        "1 worker-1 eu-1; 4 worker-4 us-2; 9 worker-9 us-2; 10 worker-10 eu-1; "
        "15 worker-15 ap-3; 22 worker-22 us-2; 23 worker-23 eu-1"
    )


def _deployment(index: int, image: str, replicas: int) -> list[str]:
    return [
        "kind: Deployment",
        "metadata:",
        f"  name: shop{index:02}-api",
        "spec:",
        f"  replicas: {replicas}",
        f"  image: registry.local/shop/api:{image}",
        f"  port: {8000 + index}",
    ]


def test_a_record_with_an_unusual_value_is_named_by_its_name_with_its_line_whole() -> None:
    found = records.family([_deployment(n, "3.7.9" if n == 6 else "3.8.1", 0 if n == 11 else 2) for n in range(1, 15)])
    assert found is not None
    table = found.table()
    assert "image: registry.local/shop/api:3.8.1, but shop06-api has image: registry.local/shop/api:3.7.9" in table
    assert "replicas: 2, but shop11-api has replicas: 0" in table
    assert "unless shown" not in table


def test_a_table_says_numbered_dealt_and_stretched_columns_by_their_rule() -> None:
    regions = ["eu-1", "us-2", "ap-3"]
    found = records.family([_worker(n, regions[n % 3], "gpu" if n > 4 else "std") for n in range(1, 9)])
    assert found is not None
    assert found.table() == (
        'worker[1–8]; + name = "worker-1–8"; + region = "#" cycling us-2, ap-3, eu-1; + tier = "#" std ×4 then gpu ×4'
    )


def _plan(workers: int) -> bytes:
    regions = ["eu-1", "us-2", "ap-3"]
    blocks = ["\n".join(_worker(n, regions[n % 3], "std")) + "\n" for n in range(workers)]
    gateway = '  # data.gateway will be created\n      + name = "edge"\n'
    return ("Plan for this run:\n\n" + "\n".join(blocks) + "\n" + gateway + "\nPlan: 9 to add.\n").encode()


def test_fold_records_shows_the_first_record_and_one_line_for_the_rest() -> None:
    parts = records.fold_records(_plan(12))
    assert parts is not None
    shown = "".join(part if isinstance(part, str) else "#ref" for part in parts)
    assert "\n".join(_worker(0, "eu-1", "std")) in shown and 'name = "worker-1"' not in shown
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
    # Paired with its id, in the order of the numbers; each id by its first digits.
    assert "{node[1–7] (sorted); id=#…]: 1111a1b2 2222a1b2 3333a1b2 4444a1b2 5555a1b2 6666a1b2 7777a1b2}" in shown
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


def test_records_of_one_kin_differ_in_names_under_one_headline() -> None:
    found = records.kin_family(
        [
            ["Race at 0x10", "   at 0x11: bump_req_get (race.c:10)", "   by 0x12: handler (race.c:18)"],
            ["Race at 0x20", "   at 0x21: bump_req_put (race.c:10)", "   by 0x22: handler (race.c:18)"],
            ["Race at 0x30", "   at 0x31: bump_cache_hits (race.c:11)", "   by 0x32: handler (race.c:19)"],
        ]
    )
    assert found is not None
    assert found.headline(1).strip() == "at #: # (race.c:#)"
    assert records.kin(["Race at 0x10", "  at 0x11: bump_a (x.c:1)"]) == records.kin(["Race at 0x20", "  at 0x21: bump_b (x.c:2)"])


def test_another_headline_or_another_line_shape_is_another_kin() -> None:
    assert records.kin(["Race during read", "  at f"]) != records.kin(["Race during write", "  at f"])
    assert records.kin_family([["Race at 1", "  at f (a.c:1)"], ["Race at 2", "  at g h (a.c:1)"]]) is None
    assert records.kin_family([["Race at 1", "  at f"], ["Leak at 2", "  at f"]]) is None


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


def test_a_numbered_column_with_a_record_that_stands_out_names_it_with_its_place() -> None:
    found = records.family([[f"  name: {'Job' if n == 7 else 'job'}-{n:02}", f"  - --batch={n * 50}"] for n in range(1, 13)])
    assert found is not None
    assert found.table() == "name: job-01–06,08–12 but name: Job-07 as record 7; - --batch=50,100,…,600"


_HASHES = ["b79fthhg2d", "9bhfb87m59", "hcb5f2h8gc", "bch45c62k2", "fbgkmmkb26", "dt87mfd4g9"]


def _config(tenant: int, level: str = "info") -> list[str]:
    return [
        "apiVersion: v1",
        "data:",
        f"  LOG_LEVEL: {level}",
        f"  TENANT: t{tenant:02}",
        "kind: ConfigMap",
        "metadata:",
        f"  name: tenant{tenant:02}-config-{_HASHES[tenant - 1]}",
    ]


def _service(tenant: int) -> list[str]:
    return [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata:",
        f"  name: tenant{tenant:02}-api",
        "spec:",
        "  configMapRef:",
        f"    name: tenant{tenant:02}-config-{_HASHES[tenant - 1]}",
    ]


def test_a_name_numbered_by_its_record_lists_only_the_part_that_follows_no_rule() -> None:
    found = records.family([_config(n) for n in range(1, 7)])
    assert found is not None
    assert found.others().table() == "TENANT: t02–06; name: tenant02–06-config-#: " + " ".join(_HASHES[1:])
    # A number's digits after its point are no part of a name: `0.017` is listed whole.
    timed = records.family([[f"case {n}", f'  time="0.{n * 7 % 10}{n:02}"', "  ok"] for n in range(1, 7)])
    assert timed is not None and 'time="#": 0.701 0.402 0.103' in timed.table()


def test_a_column_holding_another_in_a_fixed_text_is_said_once_by_that_text() -> None:
    queues = [("emails", 3600), ("exports", 7200), ("ledger", 18000), ("search", 900)]
    found = records.family(
        [[f'  # data.queue["{name}"] will be created', f'      + dlq = "{name}-dlq"', f"      + ttl = {ttl}"] for name, ttl in queues]
    )
    assert found is not None
    assert found.table() == '+ dlq = "#-dlq" for each value; value | + ttl = #: emails 3600; exports 7200; ledger 18000; search 900'


def test_a_name_the_values_share_before_their_brackets_is_said_once() -> None:
    # A JUnit report's test names, a quoted call: what the brackets hold is the row.
    cases = [("EUR-10", "9.2"), ("GBP-25", "19.75"), ("CHF-55", "48.4")]
    found = records.family(
        [[f'<testcase name="test_rate[{case}]">', f"<failure>got {got}</failure>"] for case, got in cases]
    )
    assert found is not None
    assert found.table() == 'name="test_rate[#]"> | got #</failure>: EUR-10 9.2; GBP-25 19.75; CHF-55 48.4'
    calls = records.family([[f"test 'parse(case{n}b)' failed", f"  took {n}ms"] for n in (3, 5, 8)])
    assert calls is not None
    assert calls.table() == "test 'parse(#)' | took #: case3b 3ms; case5b 5ms; case8b 8ms"


def test_a_value_compared_with_the_one_before_it_is_headed_by_the_comparison() -> None:
    # A failed assertion's two sides; a check macro's; a schema step's versions.
    sides = [(9.2, 9.21), (23.0, 23.01), (36.8, 36.81)]
    found = records.family([[f"test_rate[{n}] failed", f"E  assert {a} == {b}"] for n, (a, b) in enumerate(sides)])
    assert found is not None
    assert found.table() == "test_rate[0–2]; assert # == #: 9.2 9.21; 23.0 23.01; 36.8 36.81"
    checks = records.family([[f"CHECK failed at step{n}:", f"  size {n * 7} != {n * 7 + 3}"] for n in (1, 4, 6)])
    assert checks is not None
    assert checks.table() == "at #: | size # != #: step1 7 10; step4 28 31; step6 42 45"
    versions = (("0003", "0004", 12), ("0004", "0007", 9), ("0007", "0008", 31))
    steps = records.family([[f"migrate {a} -> {b} in {t}ms"] for a, b, t in versions])
    assert steps is not None
    assert "migrate # -> #" in steps.table()


def test_a_value_repeated_as_a_calls_argument_and_as_a_field_is_named_by_the_field() -> None:
    rows = [(10, 9.2, "EUR"), (25, 23.0, "GBP"), (55, 50.6, "CHF")]
    found = records.family(
        [[f"E   where {got} = convert({n}, '{c}')", f"amount = {n}, currency = '{c}'"] for n, got, c in rows]
    )
    assert found is not None
    assert found.table() == "where # | amount = #, | currency = '#': 9.2 10 EUR; 23.0 25 GBP; 50.6 55 CHF"
    # A test's id in its heading stays the record's name, whatever field repeats it.
    named = records.family([[f"___ test_cost[{n}] ___", f"weight = {n}", f"got {got}"] for n, got, _ in rows])
    assert named is not None
    assert named.table() == "test_cost[#] | got #: 10 9.2; 25 23.0; 55 50.6"


def test_columns_holding_parts_of_an_id_listed_row_by_row_are_said_by_it() -> None:
    # A parametrised test's parameters inside its id; a job's region and shard in its name.
    cases = [("EUR", 10, 9.2), ("GBP", 25, 19.75), ("CHF", 55, 48.4)]
    found = records.family(
        [[f"___ test_rate[{c}-{n}] ___", f"amount = {n}, currency = '{c}'", f"E  assert {got} == 0"]
         for c, n, got in cases]
    )
    assert found is not None
    assert found.table() == (
        "amount = #, currency = '#' as in test_rate[#]; "
        "test_rate[#] | assert #: EUR-10 9.2; GBP-25 19.75; CHF-55 48.4"
    )
    jobs = [("eu1", "a7", 3), ("us2", "c4", 8), ("ap3", "b9", 1)]
    found = records.family([[f"job {r}_{s}: region={r} shard={s}", f"  took {t}s"] for r, s, t in jobs])
    assert found is not None
    assert found.table() == "region=#, shard=# as in job #:; job #: | took #: eu1_a7 3s; us2_c4 8s; ap3_b9 1s"


def test_a_column_listed_whole_above_is_not_listed_again_and_an_odd_name_joins_its_kind() -> None:
    documents = [_config(n, "debug" if n == 4 else "info") for n in range(1, 7)] + [_service(n) for n in range(1, 7)]
    data = "---\n".join("\n".join(lines) + "\n" for lines in documents).encode()
    shown = _shown(records.fold_records(data))
    assert "LOG_LEVEL: debug" not in shown.split("[×")[0]  # folded with its kind, not kept whole
    assert "LOG_LEVEL: info, but tenant04-config-bch45c62k2 has LOG_LEVEL: debug" in shown
    assert shown.count(_HASHES[3]) == 2  # where the odd record is named, and once in its column
    assert "name: tenant02–06-config-# as listed above}" in shown


def test_a_failing_record_of_another_error_does_not_join_its_kind() -> None:
    blocks = [[f"FAILED test_rate[{n}]", "  in rates.py:17", "E   AssertionError: wrong rate"] for n in range(1, 7)]
    blocks[3][2] = "E   AssertionError: wrong zone"  # of their kind, but another error
    data = "\n".join("\n".join(lines) + "\n" for lines in blocks).encode()
    shown = _shown(records.fold_records(data))
    assert "FAILED test_rate[4]\n  in rates.py:17\nE   AssertionError: wrong zone\n" in shown


# Real captures of records repeated with a few values changed (issue 24, class 4): a plan
# and an apply, a dry-run manifest, a parametrised failure in text and JUnit XML, and a
# node test run failing one way for many inputs.
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
    assert line_shapes.not_shown(signals + tuple(result.signals), shown) == ()


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
def test_a_long_line_is_not_quoted_whole_for_an_unusual_value() -> None:
    # A record printed on one long line (a report's element): its value is said bare.
    def case(index: int) -> list[str]:
        seconds = "0.9" if index == 4 else "0.1"
        padding = "x" * 120
        return [f'<case name="t{index:02}" time="{seconds}" seed="{index * 7919 % 101}" note="{padding}">', "  <ok/>"]

    found = records.family([case(n) for n in range(1, 13)])
    assert found is not None
    table = found.table()
    assert " has " not in table and "unless shown" in table


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
