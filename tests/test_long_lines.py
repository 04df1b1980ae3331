"""Long lines never hang an optimizer or the analysis.

Tool output holds lines no regex author pictured: a minified JSON response, a base64
blob, a word of a megabyte. A pattern that retries its scan from every byte of such a
line (`\\S*[/\\\\]\\S*` on a word without a slash) is quadratic there: seconds at 10 KB, hours
at 1 MB. Each input below goes through every registered optimizer, in both granularities,
and through `tokens analyze`, in child processes. A step that does not finish within its
limit fails the test, naming the step: the limits are hang detectors, far above what a
linear run takes (well under a second per optimizer for a megabyte), not timings.
"""

from __future__ import annotations

import base64
import json
import os
import random
import selectors
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
STEP_SECONDS = 20  # one optimizer on one input
ANALYZE_SECONDS = 60  # the whole analysis: classify, optimize, count, mask, store

# Runs every optimizer on the file named by argv[1], saying which before it starts.
_EVERY_OPTIMIZER = """
import sys
from tokenlab.optimizers import Granularity, OptimizerConfig, optimizer_for
from tokenlab.packet import ContentType

data = open(sys.argv[1], "rb").read()
for content_type in ContentType:
    for granularity in Granularity:
        print(content_type.name, granularity.value, flush=True)
        optimizer_for(content_type)(data, OptimizerConfig(granularity))
"""


def _child_env() -> dict[str, str]:
    """The environment of a child that imports this checkout's `tokenlab`."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def _every_optimizer_finishes(path: Path, errors: Path) -> None:
    """Each optimizer's run ends within `STEP_SECONDS` of the one before it."""
    with errors.open("w") as stderr, subprocess.Popen(
        [sys.executable, "-c", _EVERY_OPTIMIZER, str(path)],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=_child_env(),
    ) as child:
        assert child.stdout is not None
        watch = selectors.DefaultSelector()
        watch.register(child.stdout, selectors.EVENT_READ)
        step = "start-up"
        while True:
            if not watch.select(timeout=STEP_SECONDS):
                child.kill()
                pytest.fail(f"{step} on {path.name} did not finish within {STEP_SECONDS} s")
            line = child.stdout.readline()
            if not line:
                break
            step = line.strip()
        code = child.wait()
    assert code == 0, f"{step} on {path.name} failed:\n{errors.read_text()[-2000:]}"


def _analysis_finishes(path: Path, store: Path) -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tokenlab", "analyze", str(path), "--store", str(store)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=_child_env(),
            timeout=ANALYZE_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"tokens analyze {path.name} did not finish within {ANALYZE_SECONDS} s")
    assert done.returncode == 0, done.stderr[-2000:]


def _finishes(data: bytes, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    _every_optimizer_finishes(path, tmp_path / f"{name}.stderr")
    _analysis_finishes(path, tmp_path / "store")


# Pieces of tool output whose runs regexes read: words, failure words, paths, numbers,
# quotes, brackets, blanks. A line is a few of them, then one unit repeated past 100 KB,
# then a few more: a long run of one shape, with something that can fail after it.
_PIECES = [
    "a", "Z", "_", "1", "0x1f", "1,", "1.", "-", "--", ".", ":", "::", "/", "\\", "`", "'", '"',
    "(", ")", "[", "]", "{", "}", "<", ">", "=", "==", "#", "@", "$", "%", "*", "+", "|", ",", ";",
    "!", "?", "~", "^", " ", "  ", "\t", "é", "│", "├── ", "error", "error:", "FAILED", "warning",
    "Traceback", "a.py:12:", "src/a.c:3:5: ", "at f (a.js:1:2)", "e9f3a1b2", "2024-01-01T10:00:00Z",
    "ok", "tests", "-rw-r--r--", "\\u00e9", "\\\"", "eyJ", "AKIA", "password=", "://", "\r",
]  # fmt: skip
_piece_runs = st.lists(st.sampled_from(_PIECES), max_size=6).map("".join)
_long_lines = st.builds(
    lambda head, unit, tail, copies: "\n".join([head + unit * (100_000 // len(unit) + 1) + tail] * copies),
    _piece_runs,
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=3).map("".join),
    _piece_runs,
    st.integers(1, 3),  # copies: lines of one shape are grouped, and their values read
)


QUICK = settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@QUICK
@given(_long_lines)
def test_long_lines_of_random_pieces_finish(tmp_path: Path, text: str) -> None:
    _finishes(text.encode(), tmp_path, "random.txt")


def test_a_long_word_before_a_warning_finishes(tmp_path: Path) -> None:
    """The shape issue 21 reported: a 100 KB word, then a warning (112 s in the text
    optimizer, which looked for path words from every byte of the word)."""
    _finishes(b"a" * 100_000 + b" warning: something failed\n", tmp_path, "word-then-warning.txt")


def _word_with_failures() -> bytes:
    return b"a" * 500_000 + b".error:" + b"b" * 500_000 + b"(FAILED)\n"


def _base64_line() -> bytes:
    return base64.b64encode(random.Random(1).randbytes(786_432)) + b"\n"


def _short_words() -> bytes:
    words = ["a", "of", "the", "error:", "FAILED", "x.py:3", "1,2", "id=7", "--", "ok", "(x)"]
    pick = random.Random(2).choice
    return " ".join(pick(words) for _ in range(200_000)).encode() + b"\n"


def _cut_json() -> bytes:
    """A minified response cut short by `head -c`: a JSON document cut short."""
    items = [
        {"id": i, "name": f"item_{i}", "status": "failed" if i % 7 == 0 else "ok", "message": "error:timeout"}
        for i in range(20_000)
    ]
    return json.dumps({"items": items}, separators=(",", ":")).encode()[:300_000]


def _one_byte_lines() -> bytes:
    pick = random.Random(3).choice
    return b"\n".join(pick([b"a", b"-", b"=", b"|", b"#", b" ", b":", b"1"]) for _ in range(100_000)) + b"\n"


def _grep_hits_with_a_long_line() -> bytes:
    """Search results over a minified bundle: one hit is a 1 MB line, read as search results."""
    short = b"".join(b"src/m%d.js:%d:  return parseConfig(x)\n" % (i, i) for i in range(50))
    return short + b"dist/app.min.js:1:" + b"a=parseConfig(" * 80_000 + b"\n" + short


_SLOW = pytest.mark.slow  # a few seconds each: a megabyte through 24 optimizer runs and an analysis


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(_word_with_failures, id="1MB-word-with-failures", marks=_SLOW),
        pytest.param(_base64_line, id="1MB-base64-line", marks=_SLOW),
        pytest.param(_short_words, id="200k-short-words"),
        pytest.param(_cut_json, id="cut-minified-json"),
        pytest.param(_one_byte_lines, id="100k-one-byte-lines", marks=_SLOW),
        pytest.param(_grep_hits_with_a_long_line, id="grep-hits-with-a-1MB-line", marks=_SLOW),
    ],
)
def test_long_line_shapes_finish(tmp_path: Path, make: Callable[[], bytes]) -> None:
    _finishes(make(), tmp_path, "shape.txt")
