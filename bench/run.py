"""Performance benchmark for issue 5: `tokens analyze` against one tokenizer pass.

For each content type (a templated service log, a JSON array of records with telemetry,
a multi-file diff, a file list) and size (1, 10, 100 MB; 1 MB = 1,000,000 bytes) this
generates an input deterministically under /tmp (never in the repo), then times, side by
side and alternately:

* ANALYZE: `tokens analyze FILE --store <fresh empty store>` as a whole process, stdout
  to /dev/null, its trace on stderr parsed for the raw token count and SAVED%.
* TOKENIZER: a baseline process that loads the same offline vocabulary
  (`tokenlab.counting.tokens.encoding()`), reads the file, decodes it (U+FFFD replacement) and
  runs one single-threaded `encode_ordinary` over it. Both sides pay interpreter start and
  vocabulary load; the child also reports the pure in-process encode time (ENCODE s).

RATIO = median ANALYZE / median TOKENIZER, over --repeat alternating runs at 100 MB and
--small-repeat below (their share of the VM's noise is larger). Peak RSS is the child's `ru_maxrss` from
`os.wait4`. The raw token count in analyze's trace must equal the baseline's count, so an
approximate count cannot pass unnoticed.

Usage:
    .venv/bin/python bench/run.py                     # 4 types x 1, 10, 100 MB, startup, store
    .venv/bin/python bench/run.py --sizes 1,10 --repeat 5 --types log
    .venv/bin/python bench/run.py --gigabyte          # also the 1 GB log (one run)
    .venv/bin/python bench/run.py --write-results     # rewrite its sections of bench/RESULTS.md
    .venv/bin/python bench/run.py --per-call --write-results   # only issue 25's per-call rows, in their section
    .venv/bin/python bench/run.py --per-call --gigabyte        # and 1 GB of log, file list, diff, JSON lines
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = REPO / ".venv" / "bin" / "python"
TOKENS = REPO / ".venv" / "bin" / "tokens"
# How hooks and their rewrites run tokenlab (`agent/launcher.tokens_argv`): no `site`.
LAUNCHER = [str(PYTHON), "-S", str(REPO / "tokenlab" / "__main__.py")]
# What hooks and rewrites run instead where the native client is built (`make native`).
NATIVE = REPO / ".venv" / "bin" / "tokens-native"
WORK = Path(os.environ.get("TOKENLAB_BENCH_DIR", "/tmp/tokenlab-bench"))
MB = 1_000_000
# Bump a type's version when its generator changes, so cached inputs are regenerated.
GENERATOR_VERSION = {"log": 1, "json": 1, "diff": 1, "filelist": 2, "jsonl": 1}

# ---------------------------------------------------------------------------------------
# Deterministic inputs. Each generator yields blocks of bytes; `write_input` stops at the
# first record boundary past the target size (JSON then closes its array).


def _hex(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(digits * 4):0{digits}x}"


_LOG_TEMPLATES: tuple[Callable[[random.Random], str], ...] = (
    lambda r: (
        f"INFO  [cart.api] request_id={_hex(r, 8)} POST /api/cart/{r.randint(1, 99999)}/items -> 201 ({r.uniform(1, 90):.1f} ms)"
    ),
    lambda r: (
        f"INFO  [orders.api] request_id={_hex(r, 8)} GET /api/orders/{r.randint(1, 999999)} -> 200 ({r.uniform(1, 40):.1f} ms)"
    ),
    lambda r: (
        f"DEBUG [cache] request_id={_hex(r, 8)} cache hit key=product:{r.randint(1, 9999)} ttl={r.randint(1, 900)}s"
    ),
    lambda r: (
        f"DEBUG [cache] request_id={_hex(r, 8)} cache miss key=user:{r.randint(1, 99999)} loading from db"
    ),
    lambda r: (
        f"INFO  [auth] request_id={_hex(r, 8)} user {r.randint(1000, 99999)} authenticated from 10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}"
    ),
    lambda r: (
        f"INFO  [health] request_id={_hex(r, 8)} health check ok db={r.uniform(0.1, 5):.1f}ms redis={r.uniform(0.1, 5):.1f}ms queue_depth={r.randint(0, 80)}"
    ),
    lambda r: (
        f"INFO  [kafka] request_id={_hex(r, 8)} committed offset {r.randint(10**6, 10**8)} partition {r.randint(0, 11)} topic orders.created"
    ),
    lambda r: (
        f"DEBUG [db.pool] request_id={_hex(r, 8)} acquired connection {r.randint(1, 40)}/40 wait={r.uniform(0, 3):.2f}ms"
    ),
    lambda r: (
        f"INFO  [payments] request_id={_hex(r, 8)} charge {_hex(r, 12)} captured amount={r.randint(100, 99999)} currency=EUR"
    ),
)


def _log_blocks(rng: random.Random) -> Iterator[bytes]:
    seconds = 0.0
    line_no = 0
    while True:
        out = []
        for _ in range(200):
            line_no += 1
            seconds += rng.uniform(0.001, 0.09)
            minutes, sec = divmod(seconds, 60)
            hours, minutes = divmod(int(minutes), 60)
            stamp = f"2026-03-14 {9 + hours % 14:02d}:{minutes:02d}:{sec:06.3f}".replace(".", ",")
            pid = 4100 + line_no // 50000
            if line_no % 7919 == 0:
                body = (
                    f"ERROR [payments] request_id={_hex(rng, 8)} ERROR PaymentService line 421: "
                    f"charge {_hex(rng, 12)} declined by gateway (code={rng.randint(1, 99)})"
                )
            elif line_no % 3011 == 0:
                body = f"WARN  [db.pool] request_id={_hex(rng, 8)} slow query {rng.randint(500, 5000)} ms on orders"
            else:
                body = rng.choice(_LOG_TEMPLATES)(rng)
            out.append(f"{stamp} {body.replace(' request_id', f' pid={pid} request_id', 1)}\n")
            if line_no % 49999 == 0:
                out.append(
                    "Traceback (most recent call last):\n"
                    '  File "/srv/checkout/app/worker.py", line 88, in run\n'
                    "    result = handler(message)\n"
                    '  File "/srv/checkout/app/payments.py", line 421, in charge\n'
                    "    raise GatewayTimeout(gateway)\n"
                    f"app.errors.GatewayTimeout: gateway eu-{rng.randint(1, 9)} timed out after 30s\n"
                )
        yield "".join(out).encode()


def _json_record(rng: random.Random, index: int) -> dict[str, object]:
    failed = index % 997 == 500
    return {
        "id": f"job_{index}",
        "name": f"rollout-step-{index}",
        "status": "failed" if failed else "succeeded",
        **({"error": {"code": "OOM_KILLED", "message": f"worker {index} exceeded 2 GiB"}} if failed else {}),
        "attempt": 1 + (index % 13 == 0),
        "duration_ms": rng.randint(200, 2000) * (40 if failed else 1),
        "node": f"ip-10-4-{rng.randint(0, 9)}-{rng.randint(1, 254)}.eu-west-1.compute.internal",
        "started_at": f"2024-06-11T{10 + index // 3600 % 14:02d}:{index // 60 % 60:02d}:{index % 60:02d}Z",
        "telemetry": {
            "cpu_ms": rng.randint(10, 999),
            "rss_kb": rng.randint(100000, 200000),
            "gc_pauses": [rng.randint(1, 30) for _ in range(12)],
            "trace_id": _hex(rng, 32),
            "labels": {"team": "payments", "env": "prod", "region": "eu-west-1"},
        },
        "debug": {
            "worker_pid": rng.randint(1000, 65000),
            "scheduler_seq": index,
            "checksum": "".join(
                rng.choices("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", k=44)
            ),
        },
    }


def _json_blocks(rng: random.Random) -> Iterator[bytes]:
    index = 0
    first = True
    while True:
        out = []
        for _ in range(20):
            body = json.dumps(_json_record(rng, index), indent=2)
            out.append(("[\n" if first else ",\n") + "\n".join("  " + line for line in body.splitlines()))
            first = False
            index += 1
        yield "".join(out).encode()


_JSON_END = b"\n]\n"


def _jsonl_blocks(rng: random.Random) -> Iterator[bytes]:
    """The same records as JSON lines, one compact object per line (a job runner's event log)."""
    index = 0
    while True:
        yield "".join(json.dumps(_json_record(rng, index + at)) + "\n" for at in range(200)).encode()
        index += 200

_CODE_LINES = (
    "    if not {name}.is_valid():",
    '        raise ValueError(f"invalid {name}: {{{name}!r}}")',
    "    result = self.{name}_service.fetch({name}_id, timeout={num})",
    '    logger.debug("loaded %s in %.1f ms", {name}, elapsed * {num})',
    '    return {{"id": {name}.id, "status": {name}.status, "total": {num}}}',
    "def handle_{name}(request, {name}_id: int) -> Response:",
    "    # Keep the {name} cache warm for the next {num} requests.",
    "    for item in {name}.items[:{num}]:",
    "        total += item.price * item.quantity",
    "",
)
_NAMES = ("invoice", "order", "cart", "payment", "customer", "refund", "shipment", "ledger")


def _code_line(rng: random.Random) -> str:
    return rng.choice(_CODE_LINES).format(name=rng.choice(_NAMES), num=rng.randint(1, 500))


def _diff_file(rng: random.Random, index: int) -> str:
    module = rng.choice(_NAMES)
    path = f"src/{module}/handlers_{index}.py"
    out = [
        f"diff --git a/{path} b/{path}\n",
        f"index {_hex(rng, 7)}..{_hex(rng, 7)} 100644\n",
        f"--- a/{path}\n+++ b/{path}\n",
    ]
    line = 1
    for _ in range(rng.randint(1, 4)):
        line += rng.randint(5, 120)
        context_before = rng.choice((3, 3, 3, 24))
        removed = [_code_line(rng) for _ in range(rng.randint(0, 6))]
        added = [_code_line(rng) for _ in range(rng.randint(1, 8))]
        old_len = context_before + len(removed) + 3
        new_len = context_before + len(added) + 3
        out.append(f"@@ -{line},{old_len} +{line},{new_len} @@ def handle_{module}(request):\n")
        out.extend(f" {_code_line(rng)}\n" for _ in range(context_before))
        out.extend(f"-{text}\n" for text in removed)
        out.extend(f"+{text}\n" for text in added)
        out.extend(f" {_code_line(rng)}\n" for _ in range(3))
    return "".join(out)


def _lockfile_diff(rng: random.Random) -> str:
    out = [
        "diff --git a/package-lock.json b/package-lock.json\n",
        f"index {_hex(rng, 7)}..{_hex(rng, 7)} 100644\n",
        "--- a/package-lock.json\n+++ b/package-lock.json\n",
        "@@ -1,400 +1,400 @@\n",
    ]
    for _ in range(200):
        pkg = f"node_modules/{rng.choice(_NAMES)}-{_hex(rng, 4)}"
        out.append(f'-    "{pkg}": {{"version": "1.{rng.randint(0, 40)}.{rng.randint(0, 9)}"}},\n')
        out.append(f'+    "{pkg}": {{"version": "1.{rng.randint(0, 40)}.{rng.randint(0, 9)}"}},\n')
    return "".join(out)


_AUTH_DIFF = (
    "diff --git a/src/Security/AuthGuard.php b/src/Security/AuthGuard.php\n"
    "index 1a2b3c4..5d6e7f8 100644\n"
    "--- a/src/Security/AuthGuard.php\n+++ b/src/Security/AuthGuard.php\n"
    "@@ -40,9 +40,6 @@ final class AuthGuard\n"
    "     public function check(Request $request): void\n"
    "     {\n"
    "-        if (!$this->tokens->isValid($request->bearer())) {\n"
    "-            throw new AccessDenied('invalid token');\n"
    "-        }\n"
    "         $this->audit->record($request);\n"
    "     }\n"
    " }\n"
)


def _diff_blocks(rng: random.Random) -> Iterator[bytes]:
    index = 0
    while True:
        out = []
        for _ in range(10):
            index += 1
            if index % 2000 == 1000:
                out.append(_AUTH_DIFF)
            elif index % 500 == 0:
                out.append(_lockfile_diff(rng))
            else:
                out.append(_diff_file(rng, index))
        yield "".join(out).encode()


_TOP_FILES = ("README.md", "pyproject.toml", "package.json", "Makefile", "Dockerfile", "LICENSE")
_PACKAGE_DIRS = ("src", "tests", "docs", "assets", "scripts", "node_modules", "build")
_EXTS = (".py", ".ts", ".tsx", ".js", ".json", ".md", ".css", ".png", ".go", ".rs")


def _filelist_blocks(rng: random.Random) -> Iterator[bytes]:
    """`find . -type f` over a growing monorepo: depth-first, files grouped by folder."""
    yield "".join(f"./{name}\n" for name in _TOP_FILES).encode()
    package = 0
    while True:
        package += 1
        out: list[str] = []
        stack = [(f"./packages/{rng.choice(_NAMES)}-{package}/{top}", 1) for top in _PACKAGE_DIRS]
        while stack:
            folder, depth = stack.pop()
            ext = rng.choice(_EXTS)
            out.extend(
                f"{folder}/{rng.choice(_NAMES)}_{_hex(rng, 4)}{ext}\n" for _ in range(rng.randint(2, 30))
            )
            if depth < 6:
                stack.extend(
                    (f"{folder}/{rng.choice(_NAMES)}_{index}", depth + 1)
                    for index in range(rng.randint(0, 4 - depth // 2))
                )
        yield "".join(out).encode()


@dataclass(frozen=True)
class InputType:
    name: str
    suffix: str
    blocks: Callable[[random.Random], Iterator[bytes]]
    trailer: bytes = b""


INPUT_TYPES = {
    "log": InputType("log", ".log", _log_blocks),
    "json": InputType("json", ".json", _json_blocks, _JSON_END),
    "diff": InputType("diff", ".diff", _diff_blocks),
    "filelist": InputType("filelist", ".txt", _filelist_blocks),
    "jsonl": InputType("jsonl", ".jsonl", _jsonl_blocks),
}
# The types a gigabyte input of which is analysed by `--gigabyte` (issue 25: flat memory).
STREAMING_TYPES = ("log", "filelist", "diff", "jsonl")


def input_path(kind: InputType, size: int) -> Path:
    return WORK / "inputs" / f"{kind.name}-{size // MB}MB-v{GENERATOR_VERSION[kind.name]}{kind.suffix}"


def write_input(kind: InputType, size: int) -> Path:
    """Generate (once) `kind` at about `size` bytes; reused while the generator is unchanged."""
    path = input_path(kind, size)
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"tokenlab-bench-{kind.name}")
    temp = path.with_suffix(".partial")
    written = 0
    with open(temp, "wb") as out:
        for block in kind.blocks(rng):
            out.write(block)
            written += len(block)
            if written + len(kind.trailer) >= size:
                break
        out.write(kind.trailer)
    temp.rename(path)
    return path


# ---------------------------------------------------------------------------------------
# Child processes, timed from spawn to reap, peak RSS from rusage.


@dataclass(frozen=True)
class ChildRun:
    seconds: float
    peak_rss_kb: int
    returncode: int
    stdout: bytes
    stderr: bytes


# Every process measured here runs on its own unless a case starts the warm worker itself:
# a fresh store per run would otherwise start a worker per run.
IN_PROCESS_ENV = {**os.environ, "TOKENLAB_WORKER": "0"}


def run_child(
    argv: list[str],
    *,
    stdout_to_null: bool = False,
    env: dict[str, str] | None = None,
    stdin: Path | None = None,
    cwd: Path | None = None,
) -> ChildRun:
    stdout_target = subprocess.DEVNULL if stdout_to_null else subprocess.PIPE
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        open(stdin or os.devnull, "rb") as given,
    ):
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv,
            stdin=given,
            stdout=stdout_target if stdout_to_null else out,
            stderr=err,
            env=IN_PROCESS_ENV if env is None else env,
            cwd=cwd or WORK,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return ChildRun(seconds, usage.ru_maxrss, proc.returncode, out.read(), err.read())


_BASELINE = """
import sys, time
from tokenlab.counting.tokens import encoding
encoder = encoding()
with open(sys.argv[1], "rb") as handle:
    text = handle.read().decode("utf-8", errors="replace")
start = time.perf_counter()
count = len(encoder.encode_ordinary(text))
print(count, time.perf_counter() - start)
"""


@dataclass
class CaseResult:
    kind: str
    size: int
    input_bytes: int
    analyze: list[ChildRun] = field(default_factory=list)
    baseline: list[ChildRun] = field(default_factory=list)
    encode_seconds: list[float] = field(default_factory=list)
    raw_tokens: int = 0
    baseline_tokens: int = 0
    saved_pct: str = "?"

    @property
    def analyze_s(self) -> float:
        return statistics.median(r.seconds for r in self.analyze)

    @property
    def tokenizer_s(self) -> float:
        return statistics.median(r.seconds for r in self.baseline) if self.baseline else float("nan")

    @property
    def encode_s(self) -> float:
        return statistics.median(self.encode_seconds) if self.encode_seconds else float("nan")

    @property
    def ratio(self) -> float:
        return self.analyze_s / self.tokenizer_s

    @property
    def peak_rss_mb(self) -> float:
        return max(r.peak_rss_kb for r in self.analyze) * 1024 / MB


def fresh_store() -> Path:
    store = WORK / "store-run"
    shutil.rmtree(store, ignore_errors=True)
    return store


def run_analyze(path: Path) -> ChildRun:
    store = fresh_store()
    run = run_child([str(TOKENS), "analyze", str(path), "--store", str(store)], stdout_to_null=True)
    shutil.rmtree(store, ignore_errors=True)
    if run.returncode != 0:
        raise SystemExit(f"tokens analyze {path} exited {run.returncode}:\n{run.stderr.decode()[-2000:]}")
    return run


def run_case(kind: InputType, size: int, repeat: int, baseline: bool = True) -> CaseResult:
    path = write_input(kind, size)
    result = CaseResult(kind.name, size, path.stat().st_size)
    for _ in range(repeat):
        if baseline:
            base = run_child([str(PYTHON), "-c", _BASELINE, str(path)])
            count, encode_s = base.stdout.split()
            result.baseline.append(base)
            result.encode_seconds.append(float(encode_s))
            result.baseline_tokens = int(count)
        result.analyze.append(run_analyze(path))
    trace = result.analyze[-1].stderr.decode()
    raw = re.search(r"MEASURE_RAW\s+bytes=\d+ tokens=(\d+)", trace)
    saved = re.search(r"saved=(-?[\d.]+%)", trace)
    result.raw_tokens = int(raw.group(1)) if raw else -1
    result.saved_pct = saved.group(1) if saved else "?"
    if baseline and result.raw_tokens != result.baseline_tokens:
        raise SystemExit(
            f"{kind.name} {size // MB} MB: analyze counted {result.raw_tokens} raw tokens, "
            f"the tokenizer pass {result.baseline_tokens}"
        )
    return result


# ---------------------------------------------------------------------------------------
# Startup and store scale.


def median_seconds(argv: list[str], repeat: int, **kwargs: object) -> float:
    return statistics.median(run_child(argv, **kwargs).seconds for _ in range(repeat))  # type: ignore[arg-type]


def small_log() -> Path:
    path = WORK / "inputs" / f"log-20KB-v{GENERATOR_VERSION['log']}.log"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        block = next(_log_blocks(random.Random("tokenlab-bench-log")))
        path.write_bytes(block[: block.index(b"\n", 20_000) + 1])
    return path


def startup(repeat: int) -> dict[str, float]:
    log = small_log()

    def analyze_small() -> float:
        return run_analyze(log).seconds

    size = f"{log.stat().st_size:,} B log"
    figures = {
        "python -c pass": median_seconds([str(PYTHON), "-c", "pass"], repeat),
        "tokens --help": median_seconds([str(TOKENS), "--help"], repeat, stdout_to_null=True),
        f"cat ({size})": median_seconds(["cat", str(log)], repeat, stdout_to_null=True),
        f"tokens analyze ({size}), cold": statistics.median(analyze_small() for _ in range(repeat)),
        "true": median_seconds(["true"], repeat),
    }
    cold_store = fresh_store()
    run_true = [str(TOKENS), "run", "--store", str(cold_store), "--", "true"]
    figures["tokens run -- true, cold"] = median_seconds(run_true, repeat, stdout_to_null=True)
    shutil.rmtree(cold_store, ignore_errors=True)
    with warm_worker() as (store, env):
        analyze = [str(TOKENS), "analyze", str(log), "--store", str(store)]
        figures[f"tokens analyze ({size}), warm"] = median_seconds(analyze, repeat, stdout_to_null=True, env=env)
        run_true = [str(TOKENS), "run", "--store", str(store), "--", "true"]
        figures["tokens run -- true, warm"] = median_seconds(run_true, repeat, stdout_to_null=True, env=env)
    return figures


def startup_overheads(figures: dict[str, float]) -> list[str]:
    """`tokens analyze` over the bare `cat` of the same log and `tokens run -- true` over
    `true`, cold (in-process) and warm (the worker serving), as issue 13 asks: at most
    0.25 s cold and 50 ms warm."""
    lines = []
    for name, seconds in figures.items():
        command, _, kind = name.rpartition(", ")
        if kind not in ("cold", "warm"):
            continue
        bare_name = "true" if command.startswith("tokens run") else next(n for n in figures if n.startswith("cat "))
        lines.append(f"- Overhead of `{command}` over `{bare_name}`, {kind}: {(seconds - figures[bare_name]) * 1000:.0f} ms.")
    return lines


@contextlib.contextmanager
def warm_worker() -> Iterator[tuple[Path, dict[str, str]]]:
    """A warm worker serving a fresh store (a short path: it holds a Unix socket), and the
    environment that lets `tokens` use it; the worker is stopped afterwards."""
    store = Path(tempfile.mkdtemp(prefix="tl-bench-", dir="/tmp"))
    worker = subprocess.Popen([str(PYTHON), "-m", "tokenlab.agent.worker", str(store)], cwd=WORK)
    try:
        deadline = time.monotonic() + 60
        while not (store / "worker.sock").exists():
            if time.monotonic() > deadline or worker.poll() is not None:
                raise SystemExit("the warm worker did not start")
            time.sleep(0.05)
        yield store, {**os.environ, "TOKENLAB_WORKER": "1"}
    finally:
        worker.terminate()
        worker.wait(30)
        shutil.rmtree(store, ignore_errors=True)


# ---------------------------------------------------------------------------------------
# Per call (issue 25): what each command of the agent's loop costs as a process.


@dataclass(frozen=True)
class PerCall:
    command: str
    bare: str  # what the command stands in for, measured in the same rounds
    seconds: float


def hook_call() -> tuple[Path, dict[str, str]]:
    """A recorded Claude Code PreToolUse call for `git status` in a project whose settings
    allow it (so the hook does its usual work: the rewrite to tokenlab's `run`), and the
    environment the hook runs in (a home of its own, no user settings)."""
    project = WORK / "hook-project"
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    settings = {"permissions": {"allow": ["Bash(git status)"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    home = WORK / "hook-home"
    home.mkdir(exist_ok=True)
    call = WORK / "hook-pretooluse.json"
    recorded = {
        "session_id": "bench",
        "transcript_path": str(home / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git status", "description": "Show the working tree status"},
    }
    call.write_text(json.dumps(recorded))
    environment = {**IN_PROCESS_ENV, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
    return call, environment


def per_call(repeat: int) -> list[PerCall]:
    """Medians of `repeat` rounds, each running every command once in turn, so the machine's
    load falls alike on the commands and on `python -c pass` and the bare commands."""
    log = small_log()
    call, hook_env = hook_call()
    hook = [str(TOKENS), "hook", "claude-code"]
    installed_hook = [*LAUNCHER, "hook", "claude-code"]
    for argv in (hook, installed_hook):
        answer = run_child(argv, stdin=call, env=hook_env, cwd=call.parent).stdout
        if b'"updatedInput"' not in answer:  # the rewrite to tokenlab's `run`
            raise SystemExit(f"{argv} did not rewrite the recorded call: {answer!r}")
    size = f"{log.stat().st_size:,} B log"

    def cold(tokens: list[str], command: str, *rest: str) -> float:
        """`tokens COMMAND --store <fresh> REST…` in-process, starting no worker: the worker a
        first call starts would build its tokenizer beside the next commands of the round."""
        argv = [*tokens, command, "--store", str(fresh_store()), *rest]
        return run_child(argv, stdout_to_null=True, env=IN_PROCESS_ENV).seconds

    native_hook = [str(NATIVE), "hook", "claude-code"]
    with warm_worker() as (store, env):
        # The hook served by the worker of the store it finds (its rewrite's `tokens run` uses it too).
        warm_hook_env = {**hook_env, "TOKENLAB_WORKER": "1", "TOKENLAB_STORE": str(store)}
        for argv in (hook, installed_hook, *([native_hook] if NATIVE.exists() else [])):
            served = run_child(argv, stdin=call, env=warm_hook_env, cwd=call.parent).stdout
            if served != run_child(argv, stdin=call, env=hook_env, cwd=call.parent).stdout:
                raise SystemExit(f"{argv} answered otherwise through the worker: {served!r}")
        commands: dict[str, tuple[str, Callable[[], float]]] = {
            "python -c pass": ("python -c pass", lambda: run_child([str(PYTHON), "-c", "pass"]).seconds),
            "true": ("true", lambda: run_child(["true"]).seconds),
            f"cat ({size})": (f"cat ({size})", lambda: run_child(["cat", str(log)], stdout_to_null=True).seconds),
            "tokens run -- true, warm": (
                "true",
                lambda: run_child(
                    [str(TOKENS), "run", "--store", str(store), "--", "true"], stdout_to_null=True, env=env
                ).seconds,
            ),
            "python -S entry run -- true, warm (as rewritten)": (
                "true",
                lambda: run_child(
                    [*LAUNCHER, "run", "--store", str(store), "--", "true"], stdout_to_null=True, env=env
                ).seconds,
            ),
            "tokens run -- true, cold": ("true", lambda: cold([str(TOKENS)], "run", "--", "true")),
            "python -S entry run -- true, cold (as rewritten)": ("true", lambda: cold(LAUNCHER, "run", "--", "true")),
            "tokens hook claude-code (PreToolUse)": (
                "true",
                lambda: run_child(hook, stdin=call, env=hook_env, cwd=call.parent, stdout_to_null=True).seconds,
            ),
            "python -S entry hook claude-code (PreToolUse, as installed)": (
                "true",
                lambda: run_child(
                    installed_hook, stdin=call, env=hook_env, cwd=call.parent, stdout_to_null=True
                ).seconds,
            ),
            "tokens hook claude-code (PreToolUse), warm": (
                "true",
                lambda: run_child(hook, stdin=call, env=warm_hook_env, cwd=call.parent, stdout_to_null=True).seconds,
            ),
            "python -S entry hook claude-code (PreToolUse, as installed), warm": (
                "true",
                lambda: run_child(
                    installed_hook, stdin=call, env=warm_hook_env, cwd=call.parent, stdout_to_null=True
                ).seconds,
            ),
            f"tokens analyze ({size}), warm": (
                f"cat ({size})",
                lambda: run_child(
                    [str(TOKENS), "analyze", str(log), "--store", str(store)], stdout_to_null=True, env=env
                ).seconds,
            ),
            f"tokens analyze ({size}), cold": (f"cat ({size})", lambda: cold([str(TOKENS)], "analyze", str(log))),
        }
        if NATIVE.exists():
            commands.update(_native_commands(store, env, call, warm_hook_env))
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(repeat):
            for name, (_, measure) in commands.items():
                samples[name].append(measure())
    shutil.rmtree(fresh_store(), ignore_errors=True)
    return [PerCall(name, bare, statistics.median(samples[name])) for name, (bare, _) in commands.items()]


def _native_commands(
    store: Path, env: dict[str, str], call: Path, warm_hook_env: dict[str, str]
) -> dict[str, tuple[str, Callable[[], float]]]:
    """The warm run and hook as hooks and rewrites name them where the native client is built."""
    run = [str(NATIVE), "run", "--store", str(store), "--", "true"]
    hook = [str(NATIVE), "hook", "claude-code"]
    return {
        "tokens-native run -- true, warm (as rewritten, native client)": (
            "true",
            lambda: run_child(run, stdout_to_null=True, env=env).seconds,
        ),
        "tokens-native hook claude-code (PreToolUse, as installed, native client), warm": (
            "true",
            lambda: run_child(hook, stdin=call, env=warm_hook_env, cwd=call.parent, stdout_to_null=True).seconds,
        ),
    }


def per_call_rows(calls: list[PerCall]) -> list[tuple[str, ...]]:
    seconds = {call.command: call.seconds for call in calls}
    return [
        (
            f"`{call.command}`",
            f"{call.seconds * 1000:.1f}",
            f"{call.seconds / seconds['python -c pass']:.2f}x",
            f"{call.seconds / seconds[call.bare]:.2f}x (`{call.bare}`)",
        )
        for call in calls
    ]


PER_CALL_HEADER = ("COMMAND", "WALL ms", "/ python -c pass", "/ BARE")


def per_call_verdicts(calls: list[PerCall]) -> list[str]:
    """Issue 25's per-call goals, as ratios to `python -c pass` in the same rounds."""
    seconds = {call.command: call.seconds for call in calls}
    bare = seconds["python -c pass"]
    goals = (
        ("tokens run -- true, warm", 1.0),
        ("python -S entry run -- true, warm (as rewritten)", 1.0),
        ("tokens hook claude-code (PreToolUse)", 1.0),
        ("python -S entry hook claude-code (PreToolUse, as installed)", 1.0),
        ("tokens hook claude-code (PreToolUse), warm", 1.0),
        ("python -S entry hook claude-code (PreToolUse, as installed), warm", 1.0),
        ("tokens-native run -- true, warm (as rewritten, native client)", 1.0),
        ("tokens-native hook claude-code (PreToolUse, as installed, native client), warm", 1.0),
        ("tokens run -- true, cold", 5.0),
        ("python -S entry run -- true, cold (as rewritten)", 5.0),
    )
    return [
        f"- `{name}` at most {bound:.1f}x `python -c pass`: "
        f"{'met' if seconds[name] / bare <= bound else 'NOT met'} ({seconds[name] / bare:.2f}x)."
        for name, bound in goals
        if name in seconds  # the native client's rows only where it is built
    ]


# ---------------------------------------------------------------------------------------
# Gigabyte inputs (issue 25): peak RSS and time of one run each, from a file, from stdin
# and through `tokens run`.


@dataclass(frozen=True)
class GigabyteRun:
    kind: str
    way: str
    input_bytes: int
    seconds: float
    peak_rss_mb: float


def gigabyte_runs(kinds: list[str], size: int) -> list[GigabyteRun]:
    runs = []
    for name in kinds:
        path = write_input(INPUT_TYPES[name], size)
        ways = {
            "file": (["analyze", str(path)], None),
            "stdin": (["analyze", "-"], path),
            "tokens run": (["run", "--", "cat", str(path)], None),
        }
        for way, ((command, *rest), stdin) in ways.items():
            argv = [str(TOKENS), command, "--store", str(fresh_store()), *rest]
            run = run_child(argv, stdout_to_null=True, stdin=stdin)
            if run.returncode != 0:
                raise SystemExit(f"{name} {way} exited {run.returncode}:\n{run.stderr.decode()[-2000:]}")
            runs.append(GigabyteRun(name, way, path.stat().st_size, run.seconds, run.peak_rss_kb * 1024 / MB))
            print(f"{name:9} {way:11} {run.seconds:7.1f} s  peak RSS {runs[-1].peak_rss_mb:7,.0f} MB")
    shutil.rmtree(fresh_store(), ignore_errors=True)
    return runs


def write_issue25_section(about: str, calls: list[PerCall], giga: list[GigabyteRun]) -> None:
    """Replace this run's section of bench/RESULTS.md (after the other benchmarks' sections)."""
    parts = [
        _ISSUE25_TITLE,
        "",
        f"Written by `bench/run.py --per-call{' --gigabyte' if giga else ''} --write-results` "
        f"on {time.strftime('%Y-%m-%d %H:%M %Z')}. Machine: {about}.",
        "",
    ]
    if calls:
        parts += [
            "Per call: medians of rounds that run every command once in turn. Cold runs get a",
            "fresh store and no warm worker (and start none: TOKENLAB_WORKER=0); warm ones a",
            "worker serving the store. The hook",
            "answers a recorded PreToolUse call for `git status` that the project allows (it",
            "rewrites it): in-process (TOKENLAB_WORKER=0), and warm, answered by the worker of",
            "the store it finds. BARE is what the command stands in for, measured in the same rounds.",
            "`python -S entry` is `<python> -S <repo>/tokenlab/__main__.py`, the form hooks are",
            "installed with and the PreToolUse rewrite runs (`agent/launcher.py`); `tokens` is the",
            "console script a user types (an editable install as a path entry, as `make` installs it).",
            "",
            markdown_table(PER_CALL_HEADER, per_call_rows(calls)),
            "",
            *per_call_verdicts(calls),
            "",
        ]
    if giga:
        parts += [
            "Gigabyte inputs, one run each, a fresh store each:",
            "",
            markdown_table(
                ("TYPE", "FROM", "BYTES", "TIME s", "PEAK RSS"),
                [
                    (g.kind, g.way, f"{g.input_bytes:,}", f"{g.seconds:.1f}", f"{g.peak_rss_mb:,.0f} MB")
                    for g in giga
                ],
            ),
            "",
            f"- Peak RSS at most 300 MB: {'met' if all(g.peak_rss_mb <= 300 for g in giga) else 'NOT met'}.",
            "",
        ]
    results = REPO / "bench" / "RESULTS.md"
    text = results.read_text() if results.exists() else ""
    before, _, after = text.partition(_ISSUE25_TITLE)
    following = after.find("\n## ")
    rest = after[following + 1 :] if after and following >= 0 else ""
    results.write_text(before.rstrip("\n") + "\n\n" + "\n".join(parts) + ("\n" + rest if rest else ""))


_ISSUE25_TITLE = "## Per call and gigabyte inputs (issue 25)"


_FILL_STORE = """
import os, sys
from pathlib import Path
from tokenlab.store import FolderStore, Store
# Setup only: skip fsync so filling 100,000 refs takes seconds; the layout is the real one.
os.fsync = lambda fd: None
store = FolderStore(Path(sys.argv[1]))
ids = [store.put(b"ref %d\\n" % i * 20, source="bench", content_type="text", reason="bench")
       for i in range(int(sys.argv[2]))]
print(" ".join(ids[:: max(1, len(ids) // 50)]))
"""

_LOAD_TIMING = """
import sys, time, statistics
from pathlib import Path
from tokenlab.store import FolderStore, Store
store = FolderStore(Path(sys.argv[1]))
ids = sys.argv[2:]
times = []
for _ in range(20):
    for ref in ids:
        start = time.perf_counter()
        store.load(ref)
        times.append(time.perf_counter() - start)
print(statistics.median(times))
"""


@dataclass(frozen=True)
class StoreFigures:
    refs: int
    show_ref_s: float
    load_us: float
    stats_s: float
    stats_rss_mb: float
    verify_s: float
    verify_rss_mb: float


def store_scale(counts: list[int], repeat: int) -> list[StoreFigures]:
    figures = []
    for count in counts:
        store = WORK / f"store-{count}"
        if not (store / "ids").exists():
            shutil.rmtree(store, ignore_errors=True)
            filled = run_child([str(PYTHON), "-c", _FILL_STORE, str(store), str(count)])
            (store / "ids").write_bytes(filled.stdout)
        ids = (store / "ids").read_text().split()
        shows = [
            run_child([str(TOKENS), "show-ref", ids[i % len(ids)], "--raw", "--store", str(store)]).seconds
            for i in range(repeat)
        ]
        load = run_child([str(PYTHON), "-c", _LOAD_TIMING, str(store), *ids])
        stats = [run_child([str(TOKENS), "store", "stats", "--store", str(store)]) for _ in range(repeat)]
        verify = [run_child([str(TOKENS), "store", "verify", "--store", str(store)]) for _ in range(repeat)]
        figures.append(
            StoreFigures(
                count,
                statistics.median(shows),
                float(load.stdout) * 1e6,
                statistics.median(r.seconds for r in stats),
                max(r.peak_rss_kb for r in stats) * 1024 / MB,
                statistics.median(r.seconds for r in verify),
                max(r.peak_rss_kb for r in verify) * 1024 / MB,
            )
        )
    return figures


# ---------------------------------------------------------------------------------------
# Reporting.

HEADER = (
    "TYPE",
    "SIZE",
    "ANALYZE s",
    "TOKENIZER s",
    "RATIO",
    "MB/s",
    "PEAK RSS",
    "SAVED%",
    "ENCODE s",
    "BASE RSS",
    "RUNS",
)


def case_row(case: CaseResult) -> tuple[str, ...]:
    base_rss = max((r.peak_rss_kb for r in case.baseline), default=0) * 1024 / MB
    return (
        case.kind,
        f"{case.input_bytes / MB:,.0f} MB",
        f"{case.analyze_s:.2f}",
        f"{case.tokenizer_s:.2f}",
        f"{case.ratio:.2f}",
        f"{case.input_bytes / MB / case.analyze_s:.1f}",
        f"{case.peak_rss_mb:,.0f} MB",
        case.saved_pct,
        f"{case.encode_s:.2f}",
        f"{base_rss:,.0f} MB",
        str(len(case.analyze)),
    )


def markdown_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def linearity(cases: list[CaseResult]) -> list[tuple[str, ...]]:
    """100 MB over 10 MB, in time and peak RSS, per type (target: at most 11x)."""
    rows: list[tuple[str, ...]] = []
    by_key = {(c.kind, c.size): c for c in cases}
    for kind in INPUT_TYPES:
        small, large = by_key.get((kind, 10 * MB)), by_key.get((kind, 100 * MB))
        if small and large:
            rows.append(
                (
                    kind,
                    f"{large.analyze_s / small.analyze_s:.1f}x",
                    f"{large.peak_rss_mb / small.peak_rss_mb:.1f}x",
                    f"{large.input_bytes / small.input_bytes:.1f}x",
                )
            )
    return rows


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
    except OSError:
        mem_kb = 0
    versions = (
        run_child(
            [str(PYTHON), "-c", "import tiktoken, sys; print(sys.version.split()[0], tiktoken.__version__)"]
        )
        .stdout.decode()
        .split()
    )
    return (
        f"{model}, {os.cpu_count()} cores, {mem_kb / 1024 / 1024:.0f} GiB RAM, {platform.system()} "
        f"{platform.release()}; Python {versions[0]}, tiktoken {versions[1]}; "
        f"load average before the run {os.getloadavg()[0]:.2f}"
    )


_SPIN = "sum(range(3 * 10**7))"


def parallel_throughput() -> float:
    """How much work two CPU-bound processes get done together, relative to one alone.

    About 2 when the two vCPUs run on separate cores; about 1.3 when they share one core's
    two hyperthreads, which this VM sometimes does for minutes: a multi-threaded analyze
    then slows down far more than the single-threaded baseline.
    """
    alone = run_child([str(PYTHON), "-c", _SPIN]).seconds
    start = time.perf_counter()
    spinners = [subprocess.Popen([str(PYTHON), "-c", _SPIN]) for _ in range(2)]
    for spinner in spinners:
        spinner.wait()
    return 2 * alone / (time.perf_counter() - start)


def print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    for row in (header, *rows):
        print("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--types", default="log,json,diff,filelist")
    parser.add_argument("--sizes", default="1,10,100", help="sizes in MB (1 MB = 10^6 bytes)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; medians are reported")
    parser.add_argument(
        "--small-repeat",
        type=int,
        default=7,
        help="runs per case under 100 MB (at least --repeat): one such run takes about a second, "
        "and the VM's noise is a larger share of it",
    )
    parser.add_argument(
        "--gigabyte",
        action="store_true",
        help="also a 1 GB log in the main table; with --per-call, 1 GB of each streaming type "
        "(log, file list, diff, JSON lines) from a file, from stdin and through `tokens run` (one run each)",
    )
    parser.add_argument(
        "--per-call",
        action="store_true",
        help="only the per-call rows (and with --gigabyte the gigabyte rows), in a section of their own",
    )
    parser.add_argument("--no-startup", action="store_true")
    parser.add_argument("--no-store", action="store_true")
    parser.add_argument("--store-refs", default="1000,100000")
    parser.add_argument("--write-results", action="store_true", help="rewrite its own sections of bench/RESULTS.md, keeping those other benchmarks added after them")
    args = parser.parse_args()

    WORK.mkdir(parents=True, exist_ok=True)
    # An installed wheel ships compiled bytecode; an editable install under
    # PYTHONDONTWRITEBYTECODE=1 (as on this machine) would recompile tokenlab on every run
    # of both children. Compile once, as installing would.
    compileall.compile_dir(REPO / "tokenlab", quiet=1)
    about = machine()
    throughput_before = parallel_throughput()
    print(about, f"(parallel throughput {throughput_before:.2f}x)")
    if args.per_call:
        calls = per_call(max(args.repeat, 20))
        print_table(PER_CALL_HEADER, per_call_rows(calls))
        print("\n".join(per_call_verdicts(calls)))
        giga_runs = gigabyte_runs(list(STREAMING_TYPES), 1000 * MB) if args.gigabyte else []
        if args.write_results:
            write_issue25_section(about, calls, giga_runs)
        return
    cases = []
    rows = []
    for size in (int(s) * MB for s in args.sizes.split(",")):
        for name in args.types.split(","):
            repeat = args.repeat if size >= 100 * MB else max(args.repeat, args.small_repeat)
            case = run_case(INPUT_TYPES[name], size, repeat)
            cases.append(case)
            rows.append(case_row(case))
            print_table(HEADER, rows[-1:])
    about += f"; two CPU-bound processes ran at {throughput_before:.2f}x one before the cases, "
    about += f"{parallel_throughput():.2f}x after them"
    print()
    print_table(HEADER, rows)
    linear = linearity(cases)
    if linear:
        print_table(("TYPE", "TIME 100/10", "RSS 100/10", "BYTES 100/10"), linear)

    giga = None
    if args.gigabyte:
        giga = run_case(INPUT_TYPES["log"], 1000 * MB, 1, baseline=False)
        print(
            f"1 GB log: {giga.analyze_s:.1f} s, peak RSS {giga.peak_rss_mb:,.0f} MB, saved {giga.saved_pct}"
        )

    start = {} if args.no_startup else startup(max(args.repeat, 15))
    for name, seconds in start.items():
        print(f"{name:<40} {seconds:.3f} s")

    store = (
        []
        if args.no_store
        else store_scale([int(n) for n in args.store_refs.split(",")], max(args.repeat, 7))
    )
    for fig in store:
        print(fig)

    if args.write_results:
        write_results(about, cases, rows, linear, giga, start, store)


def write_results(
    about: str,
    cases: list[CaseResult],
    rows: list[tuple[str, ...]],
    linear: list[tuple[str, ...]],
    giga: CaseResult | None,
    start: dict[str, float],
    store: list[StoreFigures],
) -> None:
    bare = start.get("python -c pass")
    parts = [
        "# Performance results (issue 5)",
        "",
        f"Written by `bench/run.py --write-results` on {time.strftime('%Y-%m-%d %H:%M %Z')}.",
        "",
        f"Machine: {about}.",
        "",
        "## analyze against one tokenizer pass",
        "",
        "ANALYZE: `tokens analyze FILE --store <fresh empty store>` as a whole process, stdout to",
        "/dev/null. TOKENIZER: a whole process that loads the same offline vocabulary",
        "(`tokenlab.counting.tokens.encoding()`), reads and decodes the file (U+FFFD replacement) and runs",
        "one single-threaded `encode_ordinary` over it; ENCODE is that pass alone, timed inside",
        "the process. Both are medians of RUNS alternating runs; RATIO = ANALYZE / TOKENIZER. PEAK RSS",
        "is analyze's `ru_maxrss` (BASE RSS the tokenizer process's). analyze's exact raw token",
        "count was checked equal to the tokenizer pass's in every case. 1 MB = 10^6 bytes.",
        "",
        markdown_table(HEADER, rows),
        "",
    ]
    if linear:
        parts += ["Growth from 10 MB to 100 MB (target: at most 11x):", ""]
        parts += [markdown_table(("TYPE", "TIME 100/10", "RSS 100/10", "BYTES 100/10"), linear), ""]
    if giga:
        parts += [
            (
                f"1 GB log ({giga.input_bytes:,} bytes, one run): {giga.analyze_s:.1f} s, "
                f"peak RSS {giga.peak_rss_mb:,.0f} MB, saved {giga.saved_pct}."
            ),
            "",
        ]
    if start:
        parts += ["## Startup (medians)", "", "| COMMAND | WALL s | / python -c pass |", "|---|---|---|"]
        parts += [f"| `{name}` | {s:.3f} | {s / bare:.1f}x |" for name, s in start.items() if bare]
        parts += ["", *startup_overheads(start), ""]
    if store:
        parts += [
            "## Store at scale",
            "",
            "| REFS | show-ref s (process) | Store.load µs | stats s | stats RSS | verify s | verify RSS |",
            "|---|---|---|---|---|---|---|",
        ]
        parts += [
            f"| {f.refs:,} | {f.show_ref_s:.3f} | {f.load_us:.0f} | {f.stats_s:.2f} | "
            f"{f.stats_rss_mb:.0f} MB | {f.verify_s:.2f} | {f.verify_rss_mb:.0f} MB |"
            for f in store
        ]
        parts.append("")
    parts += ["## Targets", "", *verdicts(cases, giga, start, store), ""]
    parts += [_RESULTS_END, ""]
    results = REPO / "bench" / "RESULTS.md"
    # Other benchmarks add their sections after this run's: they are kept as they are.
    kept = results.read_text().partition(_RESULTS_END + "\n")[2] if results.exists() else ""
    results.write_text("\n".join(parts) + kept)


_RESULTS_END = "Where the time goes, what was tried and what is left: `bench/README.md`."


def verdicts(
    cases: list[CaseResult], giga: CaseResult | None, start: dict[str, float], store: list[StoreFigures]
) -> list[str]:
    """One line per target of issue 5, judged from the figures above."""

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    over = [f"{c.kind} {c.size // MB} MB ({c.ratio:.2f})" for c in cases if c.ratio > 1.25]
    lines = [f"- RATIO at most 1.25: {met(not over)}" + (f" for {', '.join(over)}" if over else "") + "."]
    by_key = {(c.kind, c.size): c for c in cases}
    growth = []
    for kind in INPUT_TYPES:
        small, large = by_key.get((kind, 10 * MB)), by_key.get((kind, 100 * MB))
        if small and large:
            growth.append(
                large.analyze_s / small.analyze_s <= 11 and large.peak_rss_mb / small.peak_rss_mb <= 11
            )
    if growth:
        lines.append(f"- Linear growth, 100 MB at most 11x 10 MB in time and RSS: {met(all(growth))}.")
    log100 = by_key.get(("log", 100 * MB))
    if log100:
        bound = 2 * log100.input_bytes / MB + 150
        lines.append(
            f"- Peak RSS of the 100 MB log at most 2x input + 150 MB ({bound:.0f} MB): "
            f"{met(log100.peak_rss_mb <= bound)} ({log100.peak_rss_mb:.0f} MB)."
        )
    if giga:
        lines.append(f"- 1 GB log completes: met ({giga.analyze_s:.0f} s, {giga.peak_rss_mb:,.0f} MB).")
    helps = [s for name, s in start.items() if name.endswith("--help")]
    small_runs = [s for name, s in start.items() if name.startswith("tokens analyze")]
    if helps and small_runs:
        lines.append(f"- `tokens --help` under 0.25 s: {met(helps[0] < 0.25)} ({helps[0]:.3f} s).")
        lines.append(
            f"- `tokens analyze` of a 20 KB log under 0.4 s: {met(small_runs[0] < 0.4)} ({small_runs[0]:.3f} s)."
        )
    if len(store) >= 2:
        low, high = store[0], store[-1]
        lines.append(
            f"- show-ref O(1): {high.refs:,} refs vs {low.refs:,}: Store.load {high.load_us:.0f} vs "
            f"{low.load_us:.0f} µs, the command {high.show_ref_s:.3f} vs {low.show_ref_s:.3f} s."
        )
        lines.append(
            f"- store stats/verify stream: peak RSS {high.stats_rss_mb:.0f}/{high.verify_rss_mb:.0f} MB "
            f"at {high.refs:,} refs vs {low.stats_rss_mb:.0f}/{low.verify_rss_mb:.0f} MB at {low.refs:,}."
        )
    return lines


if __name__ == "__main__":
    main()
