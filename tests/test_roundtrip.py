"""Round-trip law: for any input, analyze never raises and restore returns it exactly."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenlab.counting import tokens
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import open_store

QUICK = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
THOROUGH = settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LEVELS = ["INFO", "DEBUG", "WARN", "ERROR", "FATAL"]
GREEN, RESET = "\x1b[32m", "\x1b[0m"


def _log_line(day: int, level: str, n: int, msg: str, ansi: bool) -> str:
    line = f"2026-11-{day:02d}T10:{n % 60:02d}:00Z {level} req-{n:06x} {msg} in {n % 997}ms"
    return f"{GREEN}{line}{RESET}" if ansi else line


log_lines = st.builds(
    _log_line,
    st.integers(1, 28),
    st.sampled_from(LEVELS),
    st.integers(0, 10**6),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30),
    st.booleans(),
)
logs = st.lists(log_lines, min_size=1, max_size=200).map(
    lambda lines: "\n".join(lines).encode("utf-8", errors="surrogatepass")
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=12)
        | st.dictionaries(
            st.sampled_from(["id", "status", "error", "telemetry", "padding_1", "x", "name"])
            | st.text(max_size=8),
            children,
            max_size=10,
        )
    ),
    max_leaves=80,
)
json_docs = st.tuples(json_values, st.sampled_from([None, 2, 4])).map(
    lambda pair: json.dumps(pair[0], indent=pair[1]).encode()
)


def _hunk(lines: list[tuple[str, str]]) -> str:
    old = sum(1 for kind, _ in lines if kind in " -")
    new = sum(1 for kind, _ in lines if kind in " +")
    return f"@@ -1,{old} +1,{new} @@\n" + "".join(f"{kind}{text}\n" for kind, text in lines)


diffs = st.lists(
    st.tuples(
        st.sampled_from(["src/a.py", "package-lock.json", "src/Security/AuthGuard.php", "dist/app.min.js"]),
        st.lists(
            st.tuples(st.sampled_from([" ", "+", "-"]), st.text(alphabet="abc ()=;$é…", max_size=30)),
            min_size=1,
            max_size=40,
        ),
    ),
    min_size=1,
    max_size=5,
).map(
    lambda files: "".join(
        f"diff --git a/{name} b/{name}\nindex 111..222 100644\n--- a/{name}\n+++ b/{name}\n{_hunk(lines)}"
        for name, lines in files
    ).encode()
)


def _plan(nodes: list[tuple[int, str, int]], order: list[int]) -> bytes:
    """Records of one skeleton (a plan's blocks), then one-line records in another order."""
    blocks = [
        f'  # data.node[{n}] will be created\n  + resource "node" {{\n      + zone = "{zone}"\n'
        f"      + size = {size}\n    }}\n"
        for n, (_, zone, size) in enumerate(nodes)
    ]
    progress = [f"data.node[{n % len(nodes)}]: done [id={nodes[n % len(nodes)][0]:032x}]\n" for n in order]
    return ("\n".join(blocks) + "\n" + "".join(progress)).encode()


plans = st.builds(
    _plan,
    st.lists(
        st.tuples(st.integers(0, 2**128 - 1), st.sampled_from(["eu-1", "us-2", "ap-3", "eu-1a b"]), st.integers(0, 9)),
        min_size=3,
        max_size=40,
    ),
    st.lists(st.integers(0, 60), max_size=60),
)


def round_trip(data: bytes, granularity: Granularity = Granularity.COARSE) -> None:
    store = open_store()
    packet = analyze(data, source="hypothesis", store=store, config=OptimizerConfig(granularity))
    assert packet.recovery_status.value == "PASS", packet.recovery_failures
    visible = packet.visible.encode("utf-8")
    assert restore(visible, store) == data
    # Counts reuse the raw count wherever they can; they must equal tokenizing each text.
    assert packet.raw_measure and packet.visible_measure
    assert packet.raw_measure.tokens == tokens.count(data.decode("utf-8", errors="replace"))
    assert packet.visible_measure.tokens == tokens.count(packet.visible)
    assert packet.referenced_tokens == sum(
        tokens.count(ref.data.decode("utf-8", errors="replace")) for ref in packet.refs
    )


@QUICK
@given(st.binary(max_size=4096), st.sampled_from(list(Granularity)))
def test_arbitrary_bytes(data: bytes, granularity: Granularity) -> None:
    round_trip(data, granularity)


@QUICK
@given(logs | json_docs | diffs | plans, st.sampled_from(list(Granularity)))
def test_generated_structured_inputs(data: bytes, granularity: Granularity) -> None:
    round_trip(data, granularity)


@pytest.mark.slow
@THOROUGH
@given(st.binary(max_size=16384) | st.text(max_size=4000).map(str.encode))
def test_arbitrary_bytes_thorough(data: bytes) -> None:
    round_trip(data)


@pytest.mark.slow
@THOROUGH
@given(logs | json_docs | diffs | plans, st.sampled_from(list(Granularity)))
def test_generated_structured_inputs_thorough(data: bytes, granularity: Granularity) -> None:
    round_trip(data, granularity)
