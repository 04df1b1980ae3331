"""Where one analysis's time goes: each stage's wall time, and CPU time per thread and job.

    PYTHONPATH=. .venv/bin/python bench/stage_times.py FILE [FILE ...]

`bench/run.py` compares whole processes, and on a machine whose cores are shared its
ratios move with the load. CPU time per thread (`time.thread_time`) moves far less, so this
runs `tokens analyze`'s pipeline in this process with each stage, each tokenizer job and
each store write timed, and prints:

* per stage (main thread) and per thread and job: CPU seconds, busy wall seconds, and when
  the first began and the last ended (seconds from the analysis's start);
* TOKENIZER CPU: one single-threaded o200k pass over the same input (decode and
  `encode_ordinary`, as bench/run.py's TOKENIZER), timed in a child process;
* the ratio to that pass which two free cores allow at best, max(main thread CPU, all CPU
  / 2) / TOKENIZER CPU: the optimizer runs on the main thread (it holds the GIL), and
  nothing runs faster than all its CPU time spread over both cores.

The timers wrap the pipeline's stage functions, the tokenizer threads' job runner and
the store writes; they add well under a percent.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokenlab import pipeline, visible_writer
from tokenlab.commands import analysis_output
from tokenlab.counting import crew

_TOKENIZER_PASS = """
import sys, time
from tokenlab.counting.tokens import encoding
encoder = encoding()
data = open(sys.argv[1], "rb").read()
start = time.thread_time()
encoder.encode_ordinary(data.decode("utf-8", errors="replace"))
print(time.thread_time() - start)
"""


@dataclass
class Busy:
    """One kind of work on one thread: its CPU time and the wall intervals it ran in."""

    cpu: float = 0.0
    intervals: list[tuple[float, float]] = field(default_factory=list)


class Timers:
    """Wraps functions so that each call adds its thread's CPU time and its interval."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.busy: dict[str, Busy] = defaultdict(Busy)
        self._lock = threading.Lock()

    def timed(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            began, cpu = time.perf_counter(), time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent = time.thread_time() - cpu
                with self._lock:
                    busy = self.busy[f"{threading.current_thread().name} {name}"]
                    busy.cpu += spent
                    busy.intervals.append((began - self.start, time.perf_counter() - self.start))

        return run


def instrument(timers: Timers) -> None:
    pipeline.STAGES = tuple((name, timers.timed(name, stage)) for name, stage in pipeline.STAGES)
    visible_writer._store_and_reload = timers.timed("store and reload", visible_writer._store_and_reload)
    visible_writer._store = timers.timed("store", visible_writer._store)
    run_job = crew._run

    def run(future: Any, job: Any) -> None:
        name = getattr(getattr(job, "func", job), "__name__", "job")
        timers.timed(name, run_job)(future, job)

    crew._run = run
    crew._Crew._help = timers.timed("helper (encoding built, jobs, freed)", crew._Crew._help)


def tokenizer_cpu(path: Path) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _TOKENIZER_PASS, str(path)], check=True, capture_output=True, text=True
    )
    return float(done.stdout)


def analyse(path: Path, timers: Timers) -> tuple[float, float, str]:
    """Wall and process CPU seconds of one analysis, and its trace."""
    data = path.read_bytes()
    store = Path(tempfile.mkdtemp(prefix="stage-times-"))
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        timers.start = wall
        output = analysis_output(
            data, label=str(path), signals=(), granularity="coarse", redact=True, store=store, as_json=False
        )
        return time.perf_counter() - wall, time.process_time() - cpu, output.stderr.decode()
    finally:
        shutil.rmtree(store, ignore_errors=True)


def report(path: Path, timers: Timers, wall: float, cpu: float, trace: str, tokenizer: float) -> None:
    print(f"{path} ({path.stat().st_size:,} bytes)")
    print(f"{'THREAD AND WORK':<58} {'N':>5} {'CPU s':>7} {'BUSY s':>7} {'FIRST':>7} {'LAST':>7}")
    for name, busy in sorted(timers.busy.items(), key=lambda item: item[1].intervals[0][0]):
        spans = busy.intervals
        occupied = sum(end - begin for begin, end in spans)
        first, last = spans[0][0], spans[-1][1]
        print(f"{name:<58} {len(spans):>5} {busy.cpu:>7.2f} {occupied:>7.2f} {first:>7.2f} {last:>7.2f}")
    main = sum(busy.cpu for name, busy in timers.busy.items() if name.split()[0] == "MainThread")
    bound = max(main, cpu / 2) / tokenizer
    print(
        f"analysis wall {wall:.2f} s, CPU {cpu:.2f} s (main thread {main:.2f} s); "
        f"TOKENIZER CPU {tokenizer:.2f} s; two free cores allow at best {bound:.2f}x; "
        f"peak RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; "
        f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}"
    )
    print(trace)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    timers = Timers()
    instrument(timers)
    for path in args.files:
        timers.busy.clear()
        wall, cpu, trace = analyse(path, timers)
        report(path, timers, wall, cpu, trace, tokenizer_cpu(path))


if __name__ == "__main__":
    main()
