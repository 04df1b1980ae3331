"""Memory that does not hold a large input (issue 25): a 200 MB log, a 100 MB diff and a
100 MB file listing (and one of half a million folders) are each analysed in a child process under a data limit that the code
which read the input into memory exceeded
(`RLIMIT_DATA` counts the heap, anonymous mappings and thread stacks, so it holds with the
tokenizer's threads, where `RLIMIT_AS` counts reserved address space too). A mapped
input's resident pages are no data: the log's peak RSS, which counts them, is bounded too,
from a file and from standard input."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LOG_BYTES = 200_000_000
# Measured on this log (3.0 million lines): VmData peaked at 542 MiB when the folded lines
# were joined into one omission in memory, and at 464 MiB while the input was read into
# memory. Mapped from its file, the input is not counted (a shared read-only mapping is
# not data): what remains is the tokenizer and the log optimizer's per-line arrays (README,
# "Memory").
DATA_LIMIT = 350 << 20


@pytest.fixture(scope="session")
def large_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A templated log of about 200 MB that folds almost whole, with one failure at the end."""
    path = tmp_path_factory.mktemp("memory") / "service.log"
    with open(path, "wb") as out:
        written = first = 0
        while written < LOG_BYTES:
            block = "".join(
                f"2026-12-02T10:{(n // 60) % 60:02}:{n % 60:02}Z INFO worker-{n % 8} handled GET"
                f" /api/items/{n} in {n % 97} ms\n"
                for n in range(first, first + 10_000)
            ).encode()
            first += 10_000
            written += out.write(block)
        out.write(b"2026-12-02T11:00:00Z ERROR worker-3 request /api/items/7 failed: connection reset\n")
    return path


@dataclass(frozen=True)
class Analysed:
    stdout: bytes
    peak_rss: int  # bytes: the child's `ru_maxrss`


# The analysis runs as the grandchild of a small process, which reports its peak: a
# process's `ru_maxrss` keeps the resident size of what it was forked from (the kernel
# records it at exec), and this test's own process holds hundreds of MB late in a suite.
# On one CPU when asked: how many blocks the tokenizer's threads hold at once depends on
# how they are scheduled, which moves the peak by some 40 MB on an idle machine.
_MEASURED = """
import os, resource, subprocess, sys
limit, report, cpus = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def limited():
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    if cpus == "one":
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
child = subprocess.Popen(sys.argv[4:], preexec_fn=limited)
_, status, usage = os.wait4(child.pid, 0)
with open(report, "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _analysed_under(
    limit: int, path: Path, *command: str, from_stdin: bool = False, one_cpu: bool = False
) -> Analysed:
    """`tokens analyze PATH`, or `tokens COMMAND… PATH`, under a data limit (on one CPU with
    `one_cpu`), and its peak RSS."""
    given = "-" if from_stdin else str(path)
    analysis = [sys.executable, "-m", "tokenlab", *(command or ("analyze",)), given]
    with (
        tempfile.TemporaryDirectory() as folder,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        open(path, "rb") as given,
    ):
        report = Path(folder) / "peak"
        code = subprocess.call(
            [sys.executable, "-c", _MEASURED, str(limit), str(report), "one" if one_cpu else "all", *analysis],
            env={**os.environ, "PYTHONPATH": str(REPO), "TOKENLAB_WORKER": "0"},
            stdin=given if from_stdin else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
        )
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
        peak_kib = int(report.read_text())
    assert code == 0, stderr.decode(errors="replace")[-2000:]
    assert b"refs reload byte-exactly" in stderr
    return Analysed(stdout, peak_kib * 1024)


# Measured on this log from a file: peak RSS 345 MB when a search for paragraph starts read
# the whole mapping in one regex call (no page given back until it returned). Since, on
# `bench/run.py`'s 200 MB log: 174 MB from a file, and up to 277 MB from stdin at load 20,
# where the pager, which gives back what other passes leave resident, runs late.
LOG_RSS_LIMIT = 300_000_000


@pytest.mark.slow
@pytest.mark.parametrize("from_stdin", [False, True], ids=["file", "stdin"])
def test_a_200_mb_log_is_analysed_under_a_data_limit(large_log: Path, from_stdin: bool) -> None:
    analysed = _analysed_under(DATA_LIMIT, large_log, from_stdin=from_stdin)
    assert b"failed: connection reset" in analysed.stdout
    assert analysed.peak_rss <= LOG_RSS_LIMIT


INTERLEAVED_LOG_BYTES = 100_000_000
# Measured on this log from standard input: peak RSS 193 MB when stdin was spooled a MB a
# write (the page cache keeps a write in one block, and a line read mapped the whole 1 MB
# block it fell in) and lines read here and there gave pages back every 1,024 lines; 130 MB
# spooled 64 KB a write, giving pages back once the lines read may have mapped 8 MB.
INTERLEAVED_RSS_LIMIT = 160_000_000

_SHAPES = (
    "INFO  [cart.api] request_id={h:08x} POST /api/cart/{a}/items -> 201 ({b}.{c} ms)",
    "INFO  [orders.api] request_id={h:08x} GET /api/orders/{a} -> 200 ({b}.{c} ms)",
    "DEBUG [cache] request_id={h:08x} cache hit key=product:{a} ttl={b}s",
    "DEBUG [cache] request_id={h:08x} cache miss key=user:{a} loading from db",
    "INFO  [auth] request_id={h:08x} user {a} authenticated from 10.{b}.{c}.7",
    "INFO  [health] request_id={h:08x} health check ok db={b}.{c}ms queue_depth={a}",
    "DEBUG [db.pool] request_id={h:08x} acquired connection {b}/40 wait={c}.{a}ms",
)


def _interleaved_line(n: int) -> str:
    """Line `n` of a service log: seven shapes in no order, a slow query every 3,011 lines
    and a declined charge every 7,919."""
    h = n * 2654435761 % 2**32
    if n % 7919 == 0:
        body = f"ERROR [payments] request_id={h:08x} charge {h % 99991} declined by gateway (code={n % 97})"
    elif n % 3011 == 0:
        body = f"WARN  [db.pool] request_id={h:08x} slow query {h % 5000} ms on orders"
    else:
        body = _SHAPES[h % len(_SHAPES)].format(h=h, a=h % 99_991, b=h % 89, c=h % 10)
    clock = f"{9 + n // 3_600_000 % 14:02}:{n // 60_000 % 60:02}:{n // 1000 % 60:02},{n % 1000:03}"
    return f"2026-03-14 {clock} {body}\n"


@pytest.fixture(scope="session")
def interleaved_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 100 MB of a service log whose shapes interleave: each folded group's lines,
    and the anomalies' context, are read all over the input."""
    path = tmp_path_factory.mktemp("memory") / "interleaved.log"
    with open(path, "wb") as out:
        written = first = 0
        while written < INTERLEAVED_LOG_BYTES:
            written += out.write("".join(map(_interleaved_line, range(first, first + 200))).encode())
            first += 200
    return path


@pytest.mark.slow
def test_a_log_read_all_over_from_stdin_holds_few_pages_of_its_spool(interleaved_log: Path) -> None:
    analysed = _analysed_under(DATA_LIMIT, interleaved_log, from_stdin=True)
    assert b"declined by gateway" in analysed.stdout
    assert analysed.peak_rss <= INTERLEAVED_RSS_LIMIT


DIFF_BYTES = 100_000_000
# Measured on this diff (25,000 files of one change amid 80 context lines): VmData peaked at
# 489 MiB when the diff was copied out of its mapping and its folded context joined into
# one omission; read from the mapping and stored from input ranges, at 333 MiB.
DIFF_DATA_LIMIT = 400 << 20
# Peak RSS on it, on one CPU: 263-274 MB while its cuts and grouped spans were lists of
# ints and tuples and freed large buffers stayed in the heap as holes (glibc's rising mmap
# threshold); 193-206 MB as columns of machine ints, with the threshold fixed (`heap.py`).
DIFF_RSS_LIMIT = 235_000_000


_GUARD_REMOVED = (
    b"diff --git a/src/guard.py b/src/guard.py\n--- a/src/guard.py\n+++ b/src/guard.py\n"
    b"@@ -1,3 +1,2 @@\n def check(user):\n-    require_permission(user)\n     return True\n"
)


def _write_diff(path: Path, size: int, hunk: Callable[[int], str]) -> Path:
    """About `size` bytes of one-hunk files (`hunk(n)`: file n's header and body, after its
    `diff --git`, `index`, `---` and `+++` lines), then one removed permission check."""
    with open(path, "wb") as out:
        written = last = 0
        while written < size:
            files = []
            for file in range(last + 1, last + 1001):
                name = f"src/module_{file}.py"
                files.append(
                    f"diff --git a/{name} b/{name}\nindex 1a2b3c4..5d6e7f8 100644\n"
                    f"--- a/{name}\n+++ b/{name}\n{hunk(file)}"
                )
            last += 1000
            written += out.write("".join(files).encode())
        out.write(_GUARD_REMOVED)
    return path


def _one_change_amid_context(file: int) -> str:
    before = "".join(f"     total_{file}_{k} = measure(record_{k}, {file})\n" for k in range(40))
    after = "".join(f"     check_{file}_{k} = verify(record_{k}, {file})\n" for k in range(40))
    return f"@@ -10,81 +10,81 @@ def handle_{file}():\n{before}-    limit = {file}\n+    limit = {file + 1}\n{after}"


@pytest.fixture(scope="session")
def large_diff(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 100 MB of files that each change one line amid 80 distinct context lines, and
    one removed permission check at the end."""
    path = tmp_path_factory.mktemp("memory") / "change.diff"
    return _write_diff(path, DIFF_BYTES, _one_change_amid_context)


@pytest.mark.slow
def test_a_100_mb_diff_is_analysed_under_a_data_limit(large_diff: Path) -> None:
    analysed = _analysed_under(DIFF_DATA_LIMIT, large_diff, one_cpu=True)
    assert b"-    require_permission(user)" in analysed.stdout
    assert analysed.peak_rss <= DIFF_RSS_LIMIT


LISTING_BYTES = 100_000_000
# Measured on this listing (2.3 million paths in 115,000 folders): VmData peaked at 387 MiB
# when the listing was copied out of its mapping and every folder's four entry forms were
# held at once; read from the mapping, at 252 MiB.
LISTING_DATA_LIMIT = 320 << 20


@pytest.fixture(scope="session")
def large_listing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 100 MB of `find` output: 20 files a folder, 20 folders a package."""
    path = tmp_path_factory.mktemp("memory") / "files.txt"
    return _write_listing(
        path, LISTING_BYTES, lambda n: f"./src/package_{n // 400}/module_{n // 20 % 20}/file_{n}.py\n"
    )


def _write_listing(path: Path, size: int, path_of: Callable[[int], str]) -> Path:
    """Two files at the top, then file `n`'s path for n = 0, 1, … until `size` bytes."""
    with open(path, "wb") as out:
        out.write(b"./README.md\n./pyproject.toml\n")
        written = first = 0
        while written < size:
            written += out.write("".join(map(path_of, range(first, first + 20_000))).encode())
            first += 20_000
    return path


@pytest.mark.slow
def test_a_100_mb_file_listing_is_analysed_under_a_data_limit(large_listing: Path) -> None:
    analysed = _analysed_under(LISTING_DATA_LIMIT, large_listing)
    assert b"pyproject.toml" in analysed.stdout


# A listing of many small folders (two files each: 536,000 folders in 34 MB, mapped), whose
# cost is per folder, not per byte. Measured: peak RSS 603 MB, and a MemoryError under the
# listing's data limit, when every folder was an object (a path, a dict of children, a
# `Counter` of extensions) and (folder, extension) pairs were counted in a `Counter` of the
# whole listing; 197 MB as rows of parallel arrays (`file_list/folders.py`).
FOLDERS_LISTING_BYTES = 34_000_000
FOLDERS_RSS_LIMIT = 300_000_000


@pytest.fixture(scope="session")
def listing_of_small_folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("memory") / "folders.txt"
    return _write_listing(
        path, FOLDERS_LISTING_BYTES, lambda n: f"./s/a{n // 2000}/b{n // 200}/c{n // 2}/{n}.py\n"
    )


@pytest.mark.slow
def test_a_listing_of_half_a_million_folders_is_analysed_in_bounded_memory(
    listing_of_small_folders: Path,
) -> None:
    analysed = _analysed_under(LISTING_DATA_LIMIT, listing_of_small_folders)
    assert b"pyproject.toml" in analysed.stdout
    assert analysed.peak_rss <= FOLDERS_RSS_LIMIT


JSON_LINES_BYTES = 200_000_000
# Measured on these lines (600,000 records of two shapes): the text outline, which held
# the lines of its input several times over, failed at a 350 MiB limit within seconds;
# folded by shape from the mapping, the analysis ran under 250 MiB (README, "Memory").
JSON_LINES_DATA_LIMIT = 300 << 20


@pytest.fixture(scope="session")
def large_json_lines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 200 MB of job events, one JSON object a line, one in 997 of them a failure."""
    path = tmp_path_factory.mktemp("memory") / "events.jsonl"
    with open(path, "wb") as out:
        written = first = 0
        while written < JSON_LINES_BYTES:
            block = "".join(_job_event(n) for n in range(first, first + 10_000)).encode()
            first += 10_000
            written += out.write(block)
    return path


def _job_event(n: int) -> str:
    outcome = '"failed", "error": {"code": "OOM_KILLED"}' if n % 997 == 500 else '"succeeded"'
    return (
        f'{{"id": "job_{n}", "status": {outcome}, "attempt": {1 + n % 3}, '
        f'"node": "ip-10-4-{n % 10}-{n % 254}.eu-west-1.compute.internal", '
        f'"telemetry": {{"cpu_ms": {n * 7 % 999}, "rss_kb": {100000 + n * 31 % 99999}, '
        f'"trace_id": "{n * 2654435761 % 2**128:032x}", "labels": {{"team": "payments", "env": "prod"}}}}, '
        f'"debug": {{"worker_pid": {1000 + n % 64000}, "checksum": "{n * 40503 % 2**160:040x}"}}}}\n'
    )


@pytest.mark.slow
def test_200_mb_of_json_lines_are_analysed_under_a_data_limit(large_json_lines: Path) -> None:
    analysed = _analysed_under(JSON_LINES_DATA_LIMIT, large_json_lines)
    assert b'{"id": "job_500", "status": "failed", "error": {"code": "OOM_KILLED"' in analysed.stdout


CHANGED_DIFF_BYTES = 100_000_000
# Measured on this diff (33,000 files of 40 changed lines each, most of it shown): VmData
# peaked at 860 MiB when its visible text was held as text (two bytes a character, for the
# `… N lines` folds) and encoded again to be checked, counted and written, and through
# `tokens run` at 1,508 MiB, when naming the opener in the footer counted the whole text
# again; held once, as UTF-8, at 682 and 686 MiB.
CHANGED_DIFF_DATA_LIMIT = 780 << 20


def _mostly_changed(file: int) -> str:
    context = "".join(f"     step_{k}(record, {file})\n" for k in range(12))
    removed = "".join(f"-    total_{k} = measure(record_{k}, {file})\n" for k in range(20))
    added = "".join(f"+    total_{k} = verify(record_{k}, {file + k})\n" for k in range(20))
    return f"@@ -10,32 +10,32 @@ def handle_{file}():\n{context}{removed}{added}"


@pytest.fixture(scope="session")
def changed_diff(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 100 MB of files whose hunks are mostly changed lines (kept visible), with a
    `… N lines` fold in each, and one removed permission check at the end."""
    path = tmp_path_factory.mktemp("memory") / "rewrite.diff"
    return _write_diff(path, CHANGED_DIFF_BYTES, _mostly_changed)


@pytest.mark.slow
def test_a_100_mb_diff_shown_mostly_whole_is_analysed_under_a_data_limit(changed_diff: Path) -> None:
    analysed = _analysed_under(CHANGED_DIFF_DATA_LIMIT, changed_diff)
    assert b"-    require_permission(user)" in analysed.stdout


@pytest.mark.slow
def test_a_run_printing_a_100_mb_diff_is_analysed_under_a_data_limit(changed_diff: Path) -> None:
    analysed = _analysed_under(CHANGED_DIFF_DATA_LIMIT, changed_diff, "run", "--trace", "--", "cat")
    assert b"-    require_permission(user)" in analysed.stdout



VISIBLE_DIFF_BYTES = 30_000_000
# Measured on this diff (a visible text of 25.8 MB, all of it one text between omissions:
# no file is folded whole, no hunk body repeats): VmData went over 255 MiB (the analysis
# passed under 280) while the text was held at once, as excerpts, as one string to mask
# and joined; written out as it is built, the analysis passes under 165 MiB.
VISIBLE_DIFF_DATA_LIMIT = 210 << 20


@pytest.fixture(scope="session")
def visible_diff(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 30 MB of files whose hunks are mostly changed lines, as `changed_diff`."""
    path = tmp_path_factory.mktemp("memory") / "visible.diff"
    return _write_diff(path, VISIBLE_DIFF_BYTES, _mostly_changed)


@pytest.mark.slow
@pytest.mark.parametrize("command", [("analyze",), ("run", "--trace", "--", "cat")], ids=["analyze", "run"])
def test_a_diff_shown_mostly_whole_is_written_out_as_it_is_built(
    visible_diff: Path, command: tuple[str, ...]
) -> None:
    analysed = _analysed_under(VISIBLE_DIFF_DATA_LIMIT, visible_diff, *command)
    assert b"-    require_permission(user)" in analysed.stdout
    assert len(analysed.stdout) > 25_000_000

# Counting a visible text of 256 KB or more first looks for its runs of input bytes in the
# input (`counting/runs.py`): a group line is in no input, so its probe is searched for
# through all of it. Measured on the 200 MB log: peak RSS 221 MB when that search read the
# mapping whole, with no page given back (the 1 GB log's visible text, 680 KB, made it the
# analysis's peak: 1,155 MB); given back as the search passes them, 22 MB.
SEARCH_RSS_LIMIT = 100_000_000
_SEARCHED = """
import sys
from tokenlab.counting.index import DEFAULT_LIMITS
from tokenlab.counting.runs import _find_runs
from tokenlab.mapped import mapping
with open(sys.argv[1], "rb") as file:
    raw = mapping(file)
shown = "".join(f"[x{n}] {n} more lines like the one above\\n" for n in range(8000)).encode()
assert len(shown) >= DEFAULT_LIMITS.min_aligned_bytes
assert _find_runs(shown, raw, DEFAULT_LIMITS) is None
"""


@pytest.mark.slow
def test_a_visible_text_is_looked_for_in_a_mapped_200_mb_log_page_by_page(large_log: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "peak"
        search = [sys.executable, "-c", _SEARCHED, str(large_log)]
        measured = [sys.executable, "-c", _MEASURED, str(DATA_LIMIT), str(report), "all"]
        subprocess.check_call([*measured, *search], env={**os.environ, "PYTHONPATH": str(REPO)})
        peak_rss = int(report.read_text()) * 1024
    assert peak_rss <= SEARCH_RSS_LIMIT


HUNKS_DIFF_BYTES = 30_000_000
# Measured on this diff (24,000 files of four small hunks, 190,000 context folds, all
# read into memory: it is under `mapped.MAPPED_BYTES`): VmData peaked at 424 MiB when
# each run of input bytes shown was a tuple, the raw index kept a dict by cut, a near
# repeat's slices a tuple and a list each, and the planner lived until the visible text
# was counted; at 326 MiB since.
HUNKS_DIFF_DATA_LIMIT = 375 << 20


def _small_hunks(file: int) -> str:
    hunks = []
    for hunk in range(4):
        context = [f"     step_{file}_{hunk}_{k}(record)\n" for k in range(6)]
        removed = f"-    limit = {file + hunk}\n-    width = {hunk}\n"
        added = f"+    limit = {file + hunk + 1}\n+    width = {hunk + 1}\n"
        header = f"@@ -{10 + 40 * hunk},8 +{10 + 40 * hunk},8 @@ def handle_{file}():\n"
        hunks.append(header + "".join(context[:3]) + removed + added + "".join(context[3:]))
    return "".join(hunks)


@pytest.fixture(scope="session")
def hunks_diff(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 30 MB of files of four hunks, each of two changed lines amid three context
    lines a side (git's default), and one removed permission check at the end."""
    path = tmp_path_factory.mktemp("memory") / "hunks.diff"
    return _write_diff(path, HUNKS_DIFF_BYTES, _small_hunks)


@pytest.mark.slow
def test_a_diff_of_small_hunks_is_analysed_under_a_data_limit(hunks_diff: Path) -> None:
    analysed = _analysed_under(HUNKS_DIFF_DATA_LIMIT, hunks_diff)
    assert b"-    require_permission(user)" in analysed.stdout
    assert analysed.stdout.count("\u2026 2 lines".encode()) > 100_000
