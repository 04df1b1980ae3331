"""Records of one skeleton as a family: rows pair each record's varying values, a table says
what it can once."""

from __future__ import annotations

from tests.record_samples import HASHES, config_map, worker
from tokenlab.optimizers.lines import families


def _plan_block(index: int, name: str, zone: str) -> list[str]:
    return [
        f"  # data.node[{index}] will be created",
        f'      + name   = "{name}"',
        '      + engine = "redis"',
        f'      + zone   = "{zone}"',
    ]


def test_rows_pair_the_values_of_each_record() -> None:
    found = families.family([_plan_block(0, "cache-0", "eu-1a"), _plan_block(7, "cache-7", "us-2c")])
    assert found is not None
    assert found.rows() == ["node[0] name=cache-0 zone=eu-1a", "node[7] name=cache-7 zone=us-2c"]
    assert found.headline() == "# data.node[#] will be created"


def test_constant_values_are_not_listed() -> None:
    found = families.family([_plan_block(1, "a1", "z"), _plan_block(2, "a2", "z")])
    assert found is not None
    assert all("engine" not in row and "zone" not in row for row in found.rows())


def test_another_skeleton_is_no_family() -> None:
    other = [*_plan_block(3, "c3", "z")[:3], '      + size   = "3"']
    assert families.family([_plan_block(1, "a1", "z"), other]) is None
    assert families.family([_plan_block(1, "a1", "z"), _plan_block(2, "a2", "z")[:3]]) is None


def test_a_file_named_on_the_row_before_is_left_out() -> None:
    found = families.family(
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
    found = families.family(
        [
            ["worker[15]: Creation complete [id=2a94559e-4f1c-8a2b-0c3d-1e2f3a4b5c6d]"],
            ["worker[16]: Creation complete [id=013daf7f-4f1c-8a2b-0c3d-1e2f3a4b5c6d]"],
        ]
    )
    assert found is not None
    assert found.rows() == ["worker[15] id=2a94559e…", "worker[16] id=013daf7f…"]


def test_a_table_names_each_long_id_by_as_few_first_digits_as_tell_them_apart() -> None:
    # A plan's apply (UUIDs) and a container listing (hashes): four digits tell these apart.
    prefixes = ["2a94559e", "013daf7f", "7b886263"]
    uuids = [f"{prefix}-4f1c-8a2b-0c3d-1e2f3a4b5c6d" for prefix in prefixes]
    applied = families.family([[f"worker[{n}]: Creation complete [id={uid}]"] for n, uid in enumerate(uuids)])
    assert applied is not None
    assert applied.table().endswith("id=#…]: 2a94 013d 7b88")
    digests = ["f294e8253a", "6f0d87501b", "a78be1e1c2"]
    started = families.family([[f"Started container {digest}0123456789abcdef", "  up"] for digest in digests])
    assert started is not None
    assert started.table().endswith(": f294 6f0d a78b")


def test_ids_are_no_numbers_said_by_a_rule() -> None:
    ids = [f"{n}{n}{n}{n}a1b2-1a19-9733-6990-7fac259bc1b6" for n in range(1, 5)]
    found = families.family([[f"node[{n}]: done [id={uuid}]"] for n, uuid in enumerate(ids, 1)])
    assert found is not None
    assert found.table().endswith("id=#…]: 1111 2222 3333 4444")


def test_ids_sharing_their_first_digits_are_named_by_as_many_more_as_tell_them_apart() -> None:
    digests = [f"{prefix}{'0' * 32}" for prefix in ["abcd1234", "abcd9876", "abce0000", "abcd1234"]]
    found = families.family([[f"commit {digest}", "Author: x"] for digest in digests])
    assert found is not None
    # Two records of one id do not ask for more digits: three ids, five digits each.
    assert found.table().endswith(": abcd1 abcd9 abce0 abcd1")


def test_a_table_says_a_usual_value_once() -> None:
    picked = [(1, "eu-1"), (4, "us-2"), (9, "us-2"), (10, "eu-1"), (15, "ap-3"), (22, "us-2"), (23, "eu-1")]
    found = families.family([worker(n, region, "gpu" if n == 10 else "std") for n, region in picked])
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
    found = families.family([_deployment(n, "3.7.9" if n == 6 else "3.8.1", 0 if n == 11 else 2) for n in range(1, 15)])
    assert found is not None
    table = found.table()
    assert "image: registry.local/shop/api:3.8.1, but shop06-api has image: registry.local/shop/api:3.7.9" in table
    assert "replicas: 2, but shop11-api has replicas: 0" in table
    assert "unless shown" not in table


def test_a_table_says_numbered_dealt_and_stretched_columns_by_their_rule() -> None:
    regions = ["eu-1", "us-2", "ap-3"]
    found = families.family([worker(n, regions[n % 3], "gpu" if n > 4 else "std") for n in range(1, 9)])
    assert found is not None
    assert found.table() == (
        'worker[1–8]; + name = "worker-1–8"; + region = "#" cycling us-2, ap-3, eu-1; + tier = "#" std ×4 then gpu ×4'
    )


def test_records_of_one_kin_differ_in_names_under_one_headline() -> None:
    found = families.kin_family(
        [
            ["Race at 0x10", "   at 0x11: bump_req_get (race.c:10)", "   by 0x12: handler (race.c:18)"],
            ["Race at 0x20", "   at 0x21: bump_req_put (race.c:10)", "   by 0x22: handler (race.c:18)"],
            ["Race at 0x30", "   at 0x31: bump_cache_hits (race.c:11)", "   by 0x32: handler (race.c:19)"],
        ]
    )
    assert found is not None
    assert found.headline(1).strip() == "at #: # (race.c:#)"
    assert families.kin(["Race at 0x10", "  at 0x11: bump_a (x.c:1)"]) == families.kin(["Race at 0x20", "  at 0x21: bump_b (x.c:2)"])


def test_another_headline_or_another_line_shape_is_another_kin() -> None:
    assert families.kin(["Race during read", "  at f"]) != families.kin(["Race during write", "  at f"])
    assert families.kin_family([["Race at 1", "  at f (a.c:1)"], ["Race at 2", "  at g h (a.c:1)"]]) is None
    assert families.kin_family([["Race at 1", "  at f"], ["Leak at 2", "  at f"]]) is None


def test_a_numbered_column_with_a_record_that_stands_out_names_it_with_its_place() -> None:
    found = families.family([[f"  name: {'Job' if n == 7 else 'job'}-{n:02}", f"  - --batch={n * 50}"] for n in range(1, 13)])
    assert found is not None
    assert found.table() == "name: job-01–06,08–12 but name: Job-07 as record 7; - --batch=50 to 600 step 50"


def test_a_name_numbered_by_its_record_lists_only_the_part_that_follows_no_rule() -> None:
    found = families.family([config_map(n) for n in range(1, 7)])
    assert found is not None
    assert found.others().table() == "TENANT: t02–06; name: tenant02–06-config-#: " + " ".join(HASHES[1:])
    # A number's digits after its point are no part of a name: `0.017` is listed whole.
    timed = families.family([[f"case {n}", f'  time="0.{n * 7 % 10}{n:02}"', "  ok"] for n in range(1, 7)])
    assert timed is not None and 'time="#": 0.701 0.402 0.103' in timed.table()


def test_a_column_holding_another_in_a_fixed_text_is_said_once_by_that_text() -> None:
    queues = [("emails", 3600), ("exports", 7200), ("ledger", 18000), ("search", 900)]
    found = families.family(
        [[f'  # data.queue["{name}"] will be created', f'      + dlq = "{name}-dlq"', f"      + ttl = {ttl}"] for name, ttl in queues]
    )
    assert found is not None
    assert found.table() == '+ dlq = "#-dlq" for each value; value | + ttl = #: emails 3600; exports 7200; ledger 18000; search 900'


def test_a_name_the_values_share_before_their_brackets_is_said_once() -> None:
    # A JUnit report's test names, a quoted call: what the brackets hold is the row.
    cases = [("EUR-10", "9.2"), ("GBP-25", "19.75"), ("CHF-55", "48.4")]
    found = families.family(
        [[f'<testcase name="test_rate[{case}]">', f"<failure>got {got}</failure>"] for case, got in cases]
    )
    assert found is not None
    assert found.table() == 'name="test_rate[#]"> | got #</failure>: EUR-10 9.2; GBP-25 19.75; CHF-55 48.4'
    calls = families.family([[f"test 'parse(case{n}b)' failed", f"  took {n}ms"] for n in (3, 5, 8)])
    assert calls is not None
    assert calls.table() == "test 'parse(#)' | took #: case3b 3ms; case5b 5ms; case8b 8ms"


def test_a_value_compared_with_the_one_before_it_is_headed_by_the_comparison() -> None:
    # A failed assertion's two sides; a check macro's; a schema step's versions.
    sides = [(9.2, 9.21), (23.0, 24.5), (36.8, 30.0)]
    found = families.family([[f"test_rate[{n}] failed", f"E  assert {a} == {b}"] for n, (a, b) in enumerate(sides)])
    assert found is not None
    assert found.table() == "test_rate[0–2]; assert # == #: 9.2 9.21; 23.0 24.5; 36.8 30.0"
    checks = families.family([[f"CHECK failed at step{n}:", f"  size {n * 7} != {n * n}"] for n in (1, 4, 6)])
    assert checks is not None
    assert checks.table() == "at #: | size # != #: step1 7 1; step4 28 16; step6 42 36"
    versions = (("0003", "0004", 12), ("0004", "0007", 9), ("0007", "0008", 31))
    steps = families.family([[f"migrate {a} -> {b} in {t}ms"] for a, b, t in versions])
    assert steps is not None
    assert "migrate # -> #" in steps.table()


def test_a_value_repeated_as_a_calls_argument_and_as_a_field_is_named_by_the_field() -> None:
    rows = [(10, 9.2, "EUR"), (25, 23.0, "GBP"), (55, 50.6, "CHF")]
    found = families.family(
        [[f"E   where {got} = convert({n}, '{c}')", f"amount = {n}, currency = '{c}'"] for n, got, c in rows]
    )
    assert found is not None
    assert found.table() == "where # | amount = #, | currency = '#': 9.2 10 EUR; 23.0 25 GBP; 50.6 55 CHF"
    # A test's id in its heading stays the record's name, whatever field repeats it.
    named = families.family([[f"___ test_cost[{n}] ___", f"weight = {n}", f"got {got}"] for n, got, _ in rows])
    assert named is not None
    assert named.table() == "test_cost[#] | got #: 10 9.2; 25 23.0; 55 50.6"


def test_columns_holding_parts_of_an_id_listed_row_by_row_are_said_by_it() -> None:
    # A parametrised test's parameters inside its id; a job's region and shard in its name.
    cases = [("EUR", 10, 9.2), ("GBP", 25, 19.75), ("CHF", 55, 48.4)]
    found = families.family(
        [[f"___ test_rate[{c}-{n}] ___", f"amount = {n}, currency = '{c}'", f"E  assert {got} == 0"]
         for c, n, got in cases]
    )
    assert found is not None
    assert found.table() == (
        "amount = #, currency = '#' as in test_rate[#]; "
        "test_rate[#] | assert #: EUR-10 9.2; GBP-25 19.75; CHF-55 48.4"
    )
    jobs = [("eu1", "a7", 3), ("us2", "c4", 8), ("ap3", "b9", 1)]
    found = families.family([[f"job {r}_{s}: region={r} shard={s}", f"  took {t}s"] for r, s, t in jobs])
    assert found is not None
    assert found.table() == "region=#, shard=# as in job #:; job #: | took #: eu1_a7 3s; us2_c4 8s; ap3_b9 1s"


def test_a_long_line_is_not_quoted_whole_for_an_unusual_value() -> None:
    # A record printed on one long line (a report's element): its value is said bare.
    def case(index: int) -> list[str]:
        seconds = "0.9" if index == 4 else "0.1"
        padding = "x" * 120
        return [f'<case name="t{index:02}" time="{seconds}" seed="{index * 7919 % 101}" note="{padding}">', "  <ok/>"]

    found = families.family([case(n) for n in range(1, 13)])
    assert found is not None
    table = found.table()
    assert " has " not in table and "unless shown" in table


def test_a_value_differing_from_the_one_it_is_compared_with_by_one_amount_is_said_by_it() -> None:
    # A parametrised test off by a cent (one record's float noise keeps its comparison);
    # a C check macro off by 3; a shipping rate off by 156.
    sides = [("9.2", "9.21"), ("23.0", "23.01"), ("64.4", "64.41000000000001"), ("36.8", "36.81")]
    found = families.family([[f"test_rate[{n}] failed", f"E  assert {a} == {b}"] for n, (a, b) in enumerate(sides)])
    assert found is not None
    assert found.table() == "test_rate[0–3]; assert # == #+0.01: 9.2 23.0 64.4 == 64.41000000000001 36.8"
    checks = families.family([[f"CHECK failed at step{n}:", f"  size {n * n} != {n * n + 3}"] for n in (1, 4, 6)])
    assert checks is not None
    assert checks.table() == "at #: | size # != #+3: step1 1; step4 16; step6 36"
    costs = families.family([[f"test_cost[{g}]", f"E  assert {c} == {c + 156}"] for g, c in ((250, 649), (650, 805), (900, 1117))])
    assert costs is not None
    assert costs.table() == "test_cost[#] | assert # == #+156: 250 649; 650 805; 900 1117"
    # A small difference is said in fixed point, as the values print it (never `#+1E-7`).
    small = [(f"0.{n:07d}", f"0.{n + 1:07d}") for n in (10, 20, 35, 47)]
    tiny = families.family([[f"check[{n}] failed", f"  assert {a} == {b}"] for n, (a, b) in enumerate(small)])
    assert tiny is not None and "assert # == #+0.0000001: 0.0000010 " in tiny.table()


def test_numbers_printed_otherwise_or_differing_by_several_amounts_stay_listed() -> None:
    # Zero-padded versions are no sums; differences of 1, 3 and 7 are no one amount.
    versions = (("0003", "0004"), ("0004", "0007"), ("0007", "0008"))
    steps = families.family([[f"migrate {a} -> {b} in {n}ms"] for n, (a, b) in enumerate(versions)])
    assert steps is not None
    assert "migrate # -> #:" in steps.table()
    sides = [(1, 2), (10, 13), (20, 27)]
    found = families.family([[f"check[{n}] failed", f"  assert {a} == {b}"] for n, (a, b) in enumerate(sides)])
    assert found is not None
    assert found.table() == "check[0–2]; assert # == #: 1 2; 10 13; 20 27"
    # Numbers of more digits than the arithmetic keeps exactly are no sums either.
    big = [(f"{n}.{'7' * 30}", f"{n}.{'7' * 29}8") for n in (1, 2, 3)]
    ids = families.family([[f"check[{n}] failed", f"  assert {a} == {b}"] for n, (a, b) in enumerate(big)])
    assert ids is not None and "assert # == #:" in ids.table()


def test_pointers_under_values_of_several_widths_are_one_shape() -> None:
    # A traceback's carets under a call; a compiler's under an argument.
    def frame(a: int) -> list[str]:
        return [f"    assert ratio({a}, 0) == 0", "           " + "^" * len(f"ratio({a}, 0)"), "E   ZeroDivisionError"]

    def diagnostic(n: int) -> list[str]:
        return [f"error: bad width {n}", f"  --> src/a.rs:{n}:5", "   |", f"   = take({n})", "           " + "^" * len(str(n))]

    assert families.skeleton(frame(7)) == families.skeleton(frame(20))
    assert families.skeleton(diagnostic(120)) == families.skeleton(diagnostic(1234))
    # A pointer is no rule when it is one or two marks: `^` and `^^^` differ.
    assert families.skeleton(["x", "  ^"]) != families.skeleton(["x", "  ^^^"])


def test_a_line_named_with_the_headline_holds_a_value_that_varies() -> None:
    # A test's failure lines: the one naming the values is said as a template; the location
    # line, alike in every record, is read in the first record shown whole.
    records = [[f"___ test_cost[{n}] ___", f"E  assert {n} == {n + 1}", "test_rates.py:17: AssertionError"] for n in (3, 8, 12, 20)]
    found = families.family(records)
    assert found is not None
    said = found.said([1, 2])
    assert said is not None and said.startswith("___ test_cost[#] ___ … E assert # == # {")
    assert "AssertionError" not in said
