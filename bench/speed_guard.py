"""Speed guard for CI (issue 21): `tokens analyze` must stay within a few tokenizer passes.

A 5x slowdown of log analysis once landed unnoticed: the tests passed, and the benchmark
(`bench/run.py`) is run by hand. This guard runs in `.ci/run` after the tests. For each
input, generated deterministically (seeded) into a temporary folder, never the repo, it
times side by side, from spawn to exit:

* ANALYZE: `tokens analyze FILE --store <fresh empty store>` (TOKENLAB_WORKER=0, stdout to
  /dev/null), which must also exit 0 (its signal and recovery checks pass);
* TOKENIZER: the baseline of `bench/run.py`, a `python -c` that imports `tokenlab.counting.tokens`,
  builds `tokens.encoding()`, reads and decodes the file and runs one `encode_ordinary`.

Both pay interpreter start. The runs alternate (analyze, tokenizer, analyze, ...) so that
the machine's speed, which shifts from minute to minute on a shared 2-core VM, is shared
by both sides; RATIO = median ANALYZE / median TOKENIZER over --pairs pairs, or, when
that is over the limit, over as many again (PAIRS says how many). A RATIO above
--max-ratio (3.0), a run past --timeout, a non-zero exit of analyze, or a raw token count
that differs from the tokenizer pass's fails the guard (exit code 1).

It is not a pytest test: the tests assert behaviour and never time anything (STYLE.md),
and this takes minutes of whole-process runs.

Usage:
    .venv/bin/python bench/speed_guard.py
    .venv/bin/python bench/speed_guard.py --only log,compiler --max-ratio 2.5
    .venv/bin/python bench/speed_guard.py --pythonpath /path/to/other/checkout
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench_run  # bench/run.py: its generators and its baseline

MB = 1_000_000
STREAM_SIZE = 8 * MB

# ---------------------------------------------------------------------------------------
# Deterministic inputs. A writer fills one path; streaming types stop at the first record
# boundary past STREAM_SIZE.


def _write_blocks(path: Path, blocks: Iterator[bytes], size: int, trailer: bytes = b"") -> None:
    written = 0
    with open(path, "wb") as out:
        for block in blocks:
            out.write(block)
            written += len(block)
            if written + len(trailer) >= size:
                break
        out.write(trailer)


def _from_bench(kind: str) -> Callable[[Path], None]:
    """bench/run.py's generator for `kind`, with its seed."""
    input_type = bench_run.INPUT_TYPES[kind]

    def write(path: Path) -> None:
        rng = random.Random(f"tokenlab-bench-{kind}")
        _write_blocks(path, input_type.blocks(rng), STREAM_SIZE, input_type.trailer)

    return write


def _compiler_blocks(rng: random.Random) -> Iterator[bytes]:
    """gcc diagnostics: unused-variable warnings, an undeclared-variable error every 10,007
    lines (ten in the 8 MB log)."""
    line_no = 0
    while True:
        out = []
        for _ in range(500):
            line_no += 1
            path = f"src/mod{rng.randint(1, 40)}/file{rng.randint(1, 300)}.c"
            where = f"{path}:{rng.randint(1, 2000)}:{rng.randint(1, 40)}"
            variable = f"v{rng.randint(0, 999):03d}"
            if line_no % 10_007 == 0:
                out.append(f"{where}: error: '{variable}' undeclared (first use in this function)\n")
            else:
                out.append(f"{where}: warning: unused variable '{variable}' [-Wunused-variable]\n")
        yield "".join(out).encode()


def _seeded(name: str, blocks: Callable[[random.Random], Iterator[bytes]]) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        _write_blocks(path, blocks(random.Random(f"tokenlab-speed-guard-{name}")), STREAM_SIZE)

    return write


def _long_word(path: Path) -> None:
    """A 1 MB run without whitespace, then a failure: `aaa…aaa error: something failed`."""
    path.write_bytes(b"a" * 1_000_000 + b" error: something failed\n")


def _word_in_run(path: Path) -> None:
    """One 1 MB line without whitespace, a failure word inside the run."""
    run = b"a" * 500_000
    path.write_bytes(run + b"error:build_failed" + run + b"\n")


def _base64_line(path: Path) -> None:
    data = random.Random("tokenlab-speed-guard-base64").randbytes(750_000)
    path.write_bytes(base64.b64encode(data) + b"\n")


def _many_words(path: Path) -> None:
    """One line of 200,000 short words."""
    rng = random.Random("tokenlab-speed-guard-words")
    words = ("a", "to", "of", "id", "ok", "run", "set", "x1", "err", "the", "job", "42")
    path.write_bytes((" ".join(rng.choice(words) for _ in range(200_000)) + "\n").encode())


def _tiny_lines(path: Path) -> None:
    """100,000 lines of one byte each."""
    rng = random.Random("tokenlab-speed-guard-tiny")
    path.write_bytes("".join(f"{rng.choice('abcxyz0123;')}\n" for _ in range(100_000)).encode())


@dataclass(frozen=True)
class Input:
    name: str
    filename: str
    write: Callable[[Path], None]


INPUTS = (
    Input("log", "service.log", _from_bench("log")),
    Input("compiler", "build.log", _seeded("compiler", _compiler_blocks)),
    Input("filelist", "files.txt", _from_bench("filelist")),
    Input("diff", "changes.diff", _from_bench("diff")),
    Input("json", "records.json", _from_bench("json")),
    Input("long-word", "long-word.txt", _long_word),
    Input("word-in-run", "word-in-run.txt", _word_in_run),
    Input("base64", "blob.b64", _base64_line),
    Input("many-words", "words.txt", _many_words),
    Input("tiny-lines", "tiny.txt", _tiny_lines),
)

# ---------------------------------------------------------------------------------------
# Child processes, timed from spawn to exit, killed with their process group on timeout.


@dataclass(frozen=True)
class ChildRun:
    seconds: float
    returncode: int | None  # None: killed after the timeout
    stdout: bytes
    stderr: bytes

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def run_child(argv: list[str], env: dict[str, str], cwd: Path, timeout: float, keep_stdout: bool) -> ChildRun:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out if keep_stdout else subprocess.DEVNULL,
            stderr=err,
            env=env,
            cwd=cwd,
            start_new_session=True,  # its own process group, so a kill reaches any helper
        )
        try:
            returncode: int | None = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            returncode = None
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return ChildRun(seconds, returncode, out.read(), err.read())


@dataclass(frozen=True)
class Setup:
    tokens: str
    python: str
    env: dict[str, str]
    work: Path  # inputs, stores and the children's cwd (`python -c` puts its cwd first on sys.path)
    timeout: float
    pairs: int


@dataclass
class Result:
    name: str
    size: int
    analyze: list[ChildRun] = field(default_factory=list)
    baseline: list[ChildRun] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # failures other than the ratio

    @property
    def analyze_s(self) -> float:
        return statistics.median(r.seconds for r in self.analyze) if self.analyze else float("nan")

    @property
    def tokenizer_s(self) -> float:
        return statistics.median(r.seconds for r in self.baseline) if self.baseline else float("nan")

    @property
    def ratio(self) -> float:
        return self.analyze_s / self.tokenizer_s if self.analyze and self.baseline else float("nan")

    def note(self, problem: str) -> None:
        if problem and problem not in self.problems:
            self.problems.append(problem)

    def verdict(self, max_ratio: float) -> str:
        """`ok`, or every reason it fails ("not <=" also catches a NaN ratio)."""
        slow = [] if self.ratio <= max_ratio else [f"SLOW (> {max_ratio:g})"]
        return "; ".join([*slow, *self.problems]) or "ok"


def _exit_problem(run: ChildRun) -> str:
    """Why analyze exited non-zero: its failed SIGNAL or RECOVERY check, else its last line."""
    if run.returncode == 0:
        return ""
    trace = run.stderr.decode(errors="replace")
    check = re.search(r"^(SIGNAL|RECOVERY)\s+(FAIL[^:\n]*)", trace, re.MULTILINE)
    reason = f"{check[1]} {check[2]}" if check else (trace.strip().splitlines() or ["no output"])[-1][:120]
    return f"FAIL exit {run.returncode}: {reason}"


def _count_problem(analyze: ChildRun, baseline: ChildRun) -> str:
    """analyze's exact raw count must equal the tokenizer pass's: a shortcut cannot pass."""
    raw = re.search(rb"MEASURE_RAW\s+bytes=\d+ tokens=(\d+)", analyze.stderr)
    found, expected = (raw[1].decode() if raw else "none"), baseline.stdout.split()[0].decode()
    return "" if found == expected else f"FAIL raw count {found} != {expected}"


def run_analyze(path: Path, setup: Setup) -> ChildRun:
    store = Path(tempfile.mkdtemp(prefix="store-", dir=setup.work))  # fresh and empty
    try:
        argv = [setup.tokens, "analyze", str(path), "--store", str(store)]
        return run_child(argv, setup.env, setup.work, setup.timeout, keep_stdout=False)
    finally:
        shutil.rmtree(store, ignore_errors=True)


def run_tokenizer(path: Path, setup: Setup) -> ChildRun:
    """bench/run.py's baseline, imported so the two benches compare against the same pass."""
    argv = [setup.python, "-c", bench_run._BASELINE, str(path)]
    return run_child(argv, setup.env, setup.work, setup.timeout, keep_stdout=True)


def measure(item: Input, path: Path, setup: Setup, max_ratio: float) -> Result:
    """--pairs alternating (analyze, tokenizer) pairs; when their RATIO is over the limit,
    as many again, and RATIO over all of them: one busy minute of a shared machine does not
    fail the guard, a slowdown does. A timeout ends the input after one tokenizer pass for
    scale: more runs would only wait for the timeout again."""
    result = Result(item.name, path.stat().st_size)
    if _pairs(result, path, setup) and not result.problems and not result.ratio <= max_ratio:
        _pairs(result, path, setup)
    return result


def _pairs(result: Result, path: Path, setup: Setup) -> bool:
    """Add --pairs pairs to `result`; False when a timeout or a failed baseline ended them."""
    for _ in range(setup.pairs):
        analyze = run_analyze(path, setup)
        result.analyze.append(analyze)
        baseline = run_tokenizer(path, setup)
        if baseline.returncode != 0:
            result.note(
                "timeout (tokenizer)" if baseline.timed_out else f"FAIL tokenizer exit {baseline.returncode}"
            )
            return False
        result.baseline.append(baseline)
        if analyze.timed_out:
            result.note(f"timeout (analyze killed after {setup.timeout:g} s)")
            return False
        result.note(_exit_problem(analyze))
        result.note(_count_problem(analyze, baseline))
    return True


# ---------------------------------------------------------------------------------------
# Setup, reporting, main.

HEADER = ("INPUT", "BYTES", "ANALYZE s", "TOKENIZER s", "RATIO", "PAIRS", "VERDICT")
WIDTHS = (12, 11, 10, 12, 6, 5)  # the verdict, last, is not padded


def row(result: Result, max_ratio: float) -> tuple[str, ...]:
    return (
        result.name,
        f"{result.size:,}",
        f"{result.analyze_s:.2f}",
        f"{result.tokenizer_s:.2f}",
        f"{result.ratio:.2f}",
        str(len(result.baseline)),
        result.verdict(max_ratio),
    )


def print_row(cells: tuple[str, ...]) -> None:
    padded = [cells[0].ljust(WIDTHS[0]), *(c.rjust(w) for c, w in zip(cells[1:], WIDTHS[1:]))]
    print("  ".join([*padded, cells[-1]]))
    sys.stdout.flush()


def child_env(pythonpath: str | None) -> dict[str, str]:
    env = {**os.environ, "TOKENLAB_WORKER": "0"}
    env.pop("TOKENLAB_STORE", None)  # --store names the fresh store
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (pythonpath, os.environ.get("PYTHONPATH")) if p)
    return env


_COMPILE = (
    "import compileall, os, tokenlab\n"
    "root = os.path.dirname(tokenlab.__file__)\n"
    "compileall.compile_dir(root, quiet=1)\n"
    "print(root)\n"
)


def compile_tokenlab(setup: Setup) -> str:
    """Compile the measured tokenlab's bytecode, as installing a wheel does: under
    PYTHONDONTWRITEBYTECODE=1 an editable install recompiles every module on each run."""
    done = run_child([setup.python, "-c", _COMPILE], setup.env, setup.work, setup.timeout, keep_stdout=True)
    if done.returncode != 0:
        raise SystemExit(f"cannot import tokenlab with {setup.python}:\n{done.stderr.decode()[-2000:]}")
    return done.stdout.decode().strip()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    bin_dir = Path(sys.executable).parent
    parser.add_argument("--only", help="comma-separated inputs: " + ",".join(i.name for i in INPUTS))
    parser.add_argument("--max-ratio", type=float, default=3.0, help="fail above this RATIO (default 3.0)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per child run (default 120)")
    parser.add_argument("--pairs", type=int, default=3, help="alternating pairs per input (default 3)")
    parser.add_argument("--tokens", default=str(bin_dir / "tokens"), help="the tokens executable")
    parser.add_argument("--python", default=sys.executable, help="interpreter of the tokenizer pass")
    parser.add_argument("--pythonpath", help="put this checkout first on PYTHONPATH of both children")
    return parser.parse_args()


def selected(only: str | None) -> list[Input]:
    if not only:
        return list(INPUTS)
    names = [name.strip() for name in only.split(",") if name.strip()]
    by_name = {item.name: item for item in INPUTS}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise SystemExit(f"unknown input(s): {', '.join(unknown)}; known: {', '.join(by_name)}")
    return [by_name[name] for name in names]


def main() -> int:
    args = parse_args()
    inputs = selected(args.only)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tokenlab-speed-guard-") as folder:
        work = Path(folder)
        env = child_env(args.pythonpath)
        setup = Setup(args.tokens, args.python, env, work, args.timeout, args.pairs)
        package = compile_tokenlab(setup)
        print(
            f"speed guard: tokenlab at {package}, {args.pairs} alternating pairs per input, "
            f"RATIO limit {args.max_ratio:g}, timeout {args.timeout:g} s, load {os.getloadavg()[0]:.2f}"
        )
        print_row(HEADER)
        results = []
        for item in inputs:
            path = work / item.filename
            item.write(path)
            results.append(measure(item, path, setup, args.max_ratio))
            path.unlink()
            print_row(row(results[-1], args.max_ratio))
    failed = [r.name for r in results if r.verdict(args.max_ratio) != "ok"]
    summary = f"FAILED: {', '.join(failed)}" if failed else "all inputs within the limit"
    print(f"{summary} ({time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.2f})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
