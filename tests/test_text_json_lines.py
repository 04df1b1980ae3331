"""Large JSON lines folded by shape (`optimizers/text/json_lines.py`): the first lines of
each shape stay whole, a record of another shape (a failure) among alike records is
shown, the folded lines are exactly the input's other lines, held as input ranges, and a
mapping gives what its bytes give."""

from __future__ import annotations

import json
import mmap
from pathlib import Path

import pytest

from tokenlab.counting.runs import InputSlices
from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, OptimizeResult
from tokenlab.optimizers.text.json_lines import JsonLinesConfig, fold_json_lines, looks_like_json_lines

ANY_SIZE = JsonLinesConfig(min_bytes=0)


def _records(count: int, failed: frozenset[int] = frozenset()) -> bytes:
    lines = []
    for index in range(count):
        record: dict[str, object] = {
            "id": f"job_{index}",
            "status": "failed" if index in failed else "succeeded",
        }
        if index in failed:
            record["error"] = {"code": "OOM_KILLED"}
        record["attempt"] = 1 + (index % 5 == 0)
        record["trace"] = f"{index * 7919:032x}"
        lines.append(json.dumps(record))
    return "".join(line + "\n" for line in lines).encode()


def _folded(data: bytes, granularity: Granularity, limits: JsonLinesConfig = ANY_SIZE) -> OptimizeResult:
    result = fold_json_lines(data, OptimizerConfig(granularity=granularity), limits)
    assert result is not None
    return result


def _shown(result: OptimizeResult) -> str:
    return "".join(part for part in result.parts if isinstance(part, str))


def _omissions(result: OptimizeResult) -> list[Omission]:
    return list(result.omissions)


def test_the_first_lines_of_each_shape_stay_and_the_header_counts_shapes_and_states() -> None:
    data = _records(1000, failed=frozenset({500, 700, 900}))
    lines = data.decode().splitlines()
    shown = _shown(_folded(data, Granularity.COARSE))
    assert shown.startswith(
        "[1,000 JSON lines, 2 shapes: 997 × {id, status, attempt, trace}; 3 × {id, status, error, attempt, trace}"
        ' (failed). status: "succeeded" ×997, "failed" ×3; attempt: 1 ×800, 2 ×200]\n'
    )
    for index in (0, 1, 500, 700):
        assert lines[index] + "\n" in shown
    assert lines[2] not in shown and lines[900] not in shown
    assert "[… 498 lines]\n" in shown and "[… 299 lines]\n" in shown


def test_the_shown_lines_of_a_failing_shape_are_declared_signals() -> None:
    data = _records(1000, failed=frozenset({500, 700, 900}))
    lines = data.decode().splitlines()
    result = _folded(data, Granularity.COARSE)
    assert result.signals == (lines[500], lines[700])
    assert all(signal in _shown(result) for signal in result.signals)


def test_fine_stores_each_run_behind_its_fold_line_as_input_ranges() -> None:
    data = _records(300, failed=frozenset({100}))
    lines = data.splitlines(keepends=True)
    result = _folded(data, Granularity.FINE)
    omissions = _omissions(result)
    assert all(isinstance(omission.content, InputSlices) for omission in omissions)
    assert [omission.data for omission in omissions] == [b"".join(lines[2:100]), b"".join(lines[101:])]
    parts = list(result.parts)
    assert parts[parts.index(omissions[0]) - 2] == "[… 98 lines]"


def test_coarse_stores_every_folded_line_behind_one_ref() -> None:
    data = _records(300, failed=frozenset({100}))
    lines = data.splitlines(keepends=True)
    result = _folded(data, Granularity.COARSE)
    (omission,) = _omissions(result)
    assert omission.data == b"".join(lines[2:100] + lines[101:])
    assert _shown(result).endswith("[folded lines: ]\n")


def test_a_long_line_is_cut_and_its_rest_folded() -> None:
    long_value = "é" * 1500  # two bytes each: the cut falls inside one unless moved back
    data = b"".join(
        json.dumps({"id": n, "blob": long_value}, ensure_ascii=False).encode() + b"\n" for n in range(3)
    )
    limits = JsonLinesConfig(min_bytes=0, line_bytes=1000)  # byte 1000 continues an `é`
    result = _folded(data, Granularity.COARSE, limits)
    first, second, third, _end = data.split(b"\n")
    assert _shown(result).splitlines()[1] == first[:999].decode() + " …"
    (omission,) = _omissions(result)
    assert omission.data == first[999:] + second[999:] + third + b"\n"  # the shown lines' ends stay


def test_fine_stores_the_rest_of_a_cut_line_behind_it() -> None:
    data = b"".join(json.dumps({"id": n, "blob": "x" * 3000}).encode() + b"\n" for n in range(4))
    first = data.split(b"\n")[0]
    result = _folded(data, Granularity.FINE)
    rest, _second_rest, run = _omissions(result)
    assert (rest.data, run.data) == (first[2000:], data.split(b"\n", 2)[2])
    assert _shown(result).splitlines()[1] == first[:2000].decode() + " … "  # the marker follows


def test_too_many_shapes_are_no_series_of_records() -> None:
    data = b"".join(json.dumps({f"key_{n}": n}).encode() + b"\n" for n in range(10))
    assert fold_json_lines(data, OptimizerConfig(), JsonLinesConfig(min_bytes=0, max_shapes=9)) is None
    assert fold_json_lines(data, OptimizerConfig(), JsonLinesConfig(min_bytes=0, max_shapes=10)) is not None


def test_lines_that_are_no_objects_are_a_shape_of_their_own() -> None:
    data = _records(50) + b"Traceback (most recent call last):\n" + _records(50)
    shown = _shown(_folded(data, Granularity.COARSE))
    assert "1 × (not a JSON object)" in shown
    assert "\nTraceback (most recent call last):\n" in shown


@pytest.mark.parametrize(
    ("data", "recognised"),
    [
        (_records(3), True),
        (b'{"a": 1}\n', False),  # one line: a document, not lines
        (b'{"a": 1}\n[1, 2]\n', False),
        (b"plain text\nmore text\n", False),
        (b'{"a": 1}\n{"a": \n', False),
    ],
)
def test_json_lines_are_recognised_from_their_first_lines(data: bytes, recognised: bool) -> None:
    assert looks_like_json_lines(data, ANY_SIZE) is recognised


def test_smaller_inputs_keep_the_text_outline() -> None:
    data = _records(100)
    assert not looks_like_json_lines(data)
    assert looks_like_json_lines(data, JsonLinesConfig(min_bytes=len(data)))


@pytest.mark.parametrize("granularity", list(Granularity))
def test_a_mapping_is_folded_as_its_bytes(granularity: Granularity, tmp_path: Path) -> None:
    data = _records(2000, failed=frozenset({1500}))
    path = tmp_path / "events.jsonl"
    path.write_bytes(data)
    limits = JsonLinesConfig(min_bytes=0, chunk_bytes=4096)  # lines across a chunk's end
    with open(path, "rb") as file:
        raw = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    from_mapping = _folded(raw, granularity, limits)  # type: ignore[arg-type]
    read = _folded(data, granularity, limits)
    assert _shown(from_mapping) == _shown(read)
    assert [omission.data for omission in _omissions(from_mapping)] == [
        omission.data for omission in _omissions(read)
    ]
    raw.close()
