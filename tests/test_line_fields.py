"""Field records (`lines.fields`): rows printed one `key = value` line each, folded."""

from __future__ import annotations

from tokenlab.optimizers import Granularity, Omission
from tokenlab.optimizers.lines.fields import describe, fold_fields


def _shown(parts) -> str:
    return "".join(part if isinstance(part, str) else "#ref" for part in parts)


def _recovered(parts) -> bytes:
    return b"".join(part.encode() if isinstance(part, str) else b"" for part in parts)


def _line_mode(rows: int, odd: dict[int, tuple[str, str]]) -> bytes:
    """A client's line mode: keys right-aligned, records between blank lines."""
    records = []
    for number in range(1, rows + 1):
        status, note = odd.get(number, ("ok", ""))
        records.append(
            f"    id = {number}\n  site = {('north', 'south', 'east')[number % 3]}\n"
            f"  temp = {4 + number % 5}.5\nstatus = {status}\n  note = {note}\n"
        )
    return "\n".join(records).encode()


def _expanded(rows: int, failing: int) -> bytes:
    """An expanded display: each record under a numbered rule, keys left-aligned."""
    text = "Expanded display is on.\n"
    for number in range(1, rows + 1):
        error = "OSError: [Errno 28] No space left on device" if number == failing else ""
        text += f"-[ RECORD {number} ]{'-' * 30}\nrun_id | {number}\njob    | export-{number % 4:02}\nerror  | {error}\n"
    return text.encode()


def test_line_mode_records_fold_but_the_odd_one() -> None:
    data = _line_mode(40, {17: ("alarm", "door open")})
    parts = fold_fields(data)
    assert parts is not None
    shown = _shown(parts)
    assert shown.count("status = ok") == 1  # the first record only
    assert "[×38 more like the one above" in shown
    assert "id = 2–16,18–40" in shown
    assert "site = south, east, north in turn" in shown
    assert "temp = 4.5–8.5: 5.5, 6.5, 7.5, 8.5, 4.5 in turn" in shown
    assert "    id = 17\n  site = east\n  temp = 6.5\nstatus = alarm\n  note = door open\n" in shown


def test_expanded_records_keep_the_failing_record_under_its_rule() -> None:
    data = _expanded(30, failing=12)
    shown = _shown(fold_fields(data, Granularity.COARSE) or ())
    assert "-[ RECORD 12 ]" in shown and "error  | OSError: [Errno 28] No space left on device" in shown
    assert "[×28 more like the one above] {[ RECORD 2–11,13–30 ]; run_id = 2–11,13–30; job = export-01, export-02, export-03, export-00 in turn; 1 shown whole below}" in shown
    assert shown.count("-[ RECORD") == 2


def test_folded_records_are_held_by_refs() -> None:
    data = _expanded(30, failing=12)
    parts = fold_fields(data)
    assert parts is not None
    held = b"".join(part.data for part in parts if isinstance(part, Omission))
    assert len(held) + len(_recovered(parts)) > len(data) // 2
    assert b"-[ RECORD 2 ]" in held and b"-[ RECORD 12 ]" not in held


def test_fields_under_a_heading_are_no_record() -> None:
    # A finding's heading with its fields indented under it: the heading's block.
    findings = "".join(
        f">> Issue: weak hash number {n}\n   Severity: Low\n   Location: a.py:{n}:1\n\n" for n in range(20)
    )
    assert fold_fields(findings.encode()) is None


def test_few_records_stay() -> None:
    assert fold_fields(_expanded(4, failing=0)) is None


def test_describe_says_a_column_once() -> None:
    places = list(range(1, 13))
    assert describe("host", [f"w{n % 3}" for n in places], places, "w0") == "host = w0–2 in turn"
    assert describe("kind", ["a"] * 6 + ["b"] * 6, places, "a") == "kind = a ×6 then b ×6"
    assert describe("ms", [str(n * n) for n in places], places, "0") == "ms = 1–144, 12 values"
    assert describe("ts", [f"10:00:{n:02}" for n in places], places, "x") == "ts = 10:00:01 … 10:00:12 rising, 12 values"
    assert describe("same", ["v"] * 12, places, "v") == ""


def test_a_record_with_a_failure_line_stays_whole() -> None:
    # Three failures in ten records: too many to be unusual, each a failure line.
    levels = ["info", "ERROR", "info", "info", "ERROR", "info", "info", "ERROR", "info", "info"]
    data = "".join(f"level: {level}\n  msg: step {n} took {n * 7 % 11} s\n  host: node-{n}\n\n" for n, level in enumerate(levels))
    shown = _shown(fold_fields(data.encode()) or ())
    assert shown.count("level: ERROR") == 3
    assert "msg: step 4 took 6 s" in shown and "msg: step 3 took" not in shown


def test_vertical_rows_under_starred_rules_keep_their_colon() -> None:
    # Another client's vertical output: `key: value`, each row under a starred rule.
    rows = "".join(
        f"{'*' * 27} {n}. row {'*' * 27}\n     id: {n}\n   zone: {'ab'[n % 2]}\n  state: {'stuck' if n == 9 else 'ready'}\n"
        for n in range(1, 21)
    )
    shown = _shown(fold_fields(rows.encode(), Granularity.COARSE) or ())
    assert "[×18 more like the one above] {2–8,10–20. row; id: 2–8,10–20; zone: b, a in turn; 1 shown whole below}" in shown
    assert f"{'*' * 27} 9. row {'*' * 27}\n     id: 9\n   zone: b\n  state: stuck\n" in shown


def test_a_long_rule_like_line_is_read_once() -> None:
    # A line of 200,000 dashes after records (a pattern that backtracks reads it ~10^10
    # times): no record rule, and records are not most of the input.
    data = _line_mode(12, {}) + b"\n" + b"-" * 200_000 + b"x\n-\n"
    assert fold_fields(data) is None
    assert fold_fields(_line_mode(12, {}) + b"\n" + b"-" * 200 + b"\n") is not None


def _settings(names: list[str], separator: str, rule: bool) -> bytes:
    """A listing of distinct settings, one record each, most fields at a usual value."""
    text = ""
    for number, name in enumerate(names, 1):
        text += f"-[ RECORD {number} ]{'-' * 20}\n" if rule else ("\n" if number > 1 else "")
        unit = "ms" if name == "retry_delay" else ""
        context = "user" if name.endswith("on_error") else "sighup"
        reset = "9" if name == "fsync" else str(number % 3)  # the reset value, as the setting but once
        setting = str(number % 3)
        fields = (("name", name), ("setting", setting), ("unit", unit), ("context", context), ("source", "default"))
        for key, value in (*fields, ("reset", reset)):
            text += f"{key:<8}{separator}{value}\n".replace(f"{separator}\n", separator.rstrip() + "\n")
    return text.encode()


_NAMES = ["archive_mode", "exit_on_error", "fsync", "log_destination", "log_on_error", "retry_delay", "syslog_ident", "work_mem"]


def test_a_listing_of_distinct_entries_keeps_each_record_without_its_usual_lines() -> None:
    # A database client's expanded display of settings: every record is another setting,
    # so each stays, without the lines holding what most records hold.
    data = _settings(_NAMES, "| ", rule=True)
    parts = fold_fields(data, Granularity.FINE)
    assert parts is not None
    shown = _shown(parts)
    for name in _NAMES:
        assert f"name    | {name}\n" in shown
    assert "-[ RECORD 2 ]" in shown and "-[ RECORD 8 ]" in shown
    assert "name    | exit_on_error\nsetting | 2\ncontext | user\n" in shown
    assert "name    | retry_delay\nsetting | 0\nunit    | ms\n" in shown
    assert "name    | fsync\nsetting | 0\nreset   | 9\n" in shown
    said = "{unit = (empty); context = sighup; source = default; reset = as setting}"
    assert f"[in the 7 records below, 24 lines holding the values said here are left out #ref] {said}" in shown
    assert shown.count("source  | default") == 1  # in the first record only
    assert b"".join(part.data for part in parts if isinstance(part, Omission)).count(b"source  | default") == 7


def test_distinct_entries_in_key_value_blocks_keep_each_record() -> None:
    # Another tool's shape: `key = value` blocks between blank lines (no rules).
    data = _settings(_NAMES, "= ", rule=False)
    shown = _shown(fold_fields(data, Granularity.COARSE) or ())
    assert all(f"name    = {name}\n" in shown for name in _NAMES)
    assert "{unit = (empty); context = sighup; source = default; reset = as setting}" in shown
    assert shown.startswith("[lines: 24 of 55 folded: #ref]\n")
    assert "more like the one above" not in shown


def test_a_failure_word_in_a_key_is_no_failure() -> None:
    # `Error:` names a field here; only the record whose value reports one stays whole.
    data = "".join(
        f"job: export-{n % 3}\nrun: {n}\nError: {'OSError: disk full' if n == 7 else ''}\n\n" for n in range(1, 13)
    )
    shown = _shown(fold_fields(data.encode(), Granularity.COARSE) or ())
    assert "[×10 more like the one above]" in shown
    assert "run: 7\nError: OSError: disk full\n" in shown
    assert shown.count("\nError: ") == 2  # the first record and the failing one
