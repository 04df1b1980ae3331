"""Tests for JSON documents cut short (`json_doc/cut.py`): recognised, laid out from their
start to where they stop, every omitted byte in a ref, linear on megabytes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.conftest import render_preview
from tokenlab.classify import classify
from tokenlab.optimizers import ContentType, Omission, OptimizerConfig
from tokenlab.optimizers.json_doc import cut as json_cut
from tokenlab.optimizers.json_doc import optimizer as json_doc
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import FolderStore

COARSE = OptimizerConfig()


def plan_document() -> bytes:
    """A minified infrastructure plan, as `show -json` prints it on one line."""
    names = [f"{tier}-{region}" for tier in ("archive", "audit") for region in ("eu-west-1", "us-east-1", "sa-east-1")]
    changes = [
        {"address": f'pipeline["{name}"]', "change": {"actions": ["create"], "before": None,
                                                     "after": {"input": {"name": name, "replicas": 2, "retention_h": 8760}}}}
        for name in names
    ]
    document = {
        "format_version": "1.2",
        "variables": {"regions": {"value": ["eu-west-1", "us-east-1", "sa-east-1"]}},
        "planned_values": {"root_module": {"resources": [{"address": name, "values": {"x": "y" * 300}} for name in names]}},
        "resource_changes": changes,
        "configuration": {"root_module": {}},
    }
    return json.dumps(document, separators=(",", ":")).encode()


def api_listing() -> bytes:
    """A pretty-printed API response, as `curl … | head -c` leaves it."""
    items = [{"id": n, "name": f"pod-{n}", "status": {"phase": "Failed" if n == 3 else "Running"}} for n in range(60)]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2).encode()


def cut_at(data: bytes, marker: bytes, after: int = 0) -> bytes:
    return data[: data.index(marker) + after]


def check_tiling(data: bytes, result_parts: tuple) -> None:
    """Omitted bytes come from the input in order, never overlapping."""
    position = 0
    for part in result_parts:
        if isinstance(part, Omission):
            found = data.find(part.data, position)
            assert found >= 0
            position = found + len(part.data)


@pytest.mark.parametrize(
    ("data", "path", "start", "end"),
    [
        (
            cut_at(plan_document(), b'"retention_h":8760}}}},{"address":"pipeline[\\"audit-sa-east-1', 16),
            "$.resource_changes[4].change.after.input.retention_h",
            '{"format_version":"1.2","variables":{"regions":',
            '"change":{"actions":["create"],"before":null,"after":{"input":{"name":"audit-us-east-1","replicas":2,"retention_h":87',
        ),
        (
            cut_at(api_listing(), b'"name": "pod-41"', 12),
            "$.items[41].name",
            '{\n  "apiVersion": "v1",\n  "kind": "List",',
            '"name": "pod-',
        ),
    ],
    ids=["minified-plan", "pretty-api-listing"],
)
def test_a_cut_document_says_where_it_stops_and_shows_its_start_and_end(
    data: bytes, path: str, start: str, end: str
) -> None:
    assert classify(data).content_type is ContentType.JSON
    result = json_doc.optimize(data, COARSE)
    shown = render_preview(result)
    note = shown.splitlines()[0]
    assert note.startswith(f"[cut short: this JSON document stops after {len(data):,} bytes, inside {path},")
    assert result.signals == (note,)
    assert start in shown and end in shown
    assert shown.rstrip("\n").endswith(data.decode()[-20:])  # the last bytes, where the cut is
    assert len(shown) < len(data) / 2
    check_tiling(data, result.parts)


def test_members_show_their_sizes_and_the_folded_ones_are_counted() -> None:
    members = ",".join(f'"key_{n}":{json.dumps({"values": list(range(60)), "name": f"n{n}"}, separators=(",", ":"))}' for n in range(20))
    data = ('{"head":"short",' + members + ',"open":[1,2,3').encode()
    shown = render_preview(json_doc.optimize(data, COARSE))
    assert '{"head":"short","key_0":{"values":[0,1,2' in shown
    assert "{values: [60 items], name}" in shown
    assert "… 12 more members " in shown  # key_7 … key_18 between the head and the last one
    assert '"key_19":{"values"' in shown and shown.rstrip().endswith('"open":[1,2,3')


def test_an_array_of_records_that_say_their_kind_names_the_kinds() -> None:
    """An infrastructure plan's resources, a cluster's objects: a count alone does not say
    what the folded records are."""
    resources = [{"address": f"pipeline[{n}]", "mode": "managed", "type": "terraform_data"} for n in range(30)]
    manifests = [{"apiVersion": "v1", "kind": kind, "metadata": {"name": f"o{n}"}} for n, kind in enumerate(["Deployment"] * 2 + ["Service"])]
    rows = [{"id": n, "type": f"t{n}"} for n in range(5)]  # a column of values, not a few kinds
    document = {"planned": {"resources": resources, "objects": manifests, "rows": rows, "ids": list(range(4))}}
    data = json.dumps({"a": document, "open": [1, 2]}, separators=(",", ":"))[:-3].encode()
    shown = render_preview(json_doc.optimize(data, COARSE))
    assert "resources: [30 items, each type terraform_data]" in shown
    assert "objects: [3 items: kind Deployment ×2, Service ×1]" in shown
    assert "rows: [5 items]" in shown and "ids: [4 items]" in shown


def test_the_records_complete_before_the_cut_are_named_with_their_outcomes() -> None:
    """A plan's resource changes, a job list's runs: the fold before the cut names each
    record and tallies what happens to them, which its count alone does not say."""
    data = cut_at(plan_document(), b'"retention_h":8760}}}},{"address":"pipeline[\\"audit-sa-east-1', 16)
    shown = render_preview(json_doc.optimize(data, COARSE))
    assert (
        '[4 items complete; address: pipeline["archive-eu-west-1"], pipeline["archive-us-east-1"],'
        ' pipeline["archive-sa-east-1"], pipeline["audit-eu-west-1"]; change.actions: [create] ×4; then the cut]'
    ) in shown
    runs = [{"id": f"r{n}", "status": "failed" if n == 2 else "ok", "conclusion": {"code": n}} for n in range(3)]
    data = json.dumps({"runs": runs}, separators=(",", ":")).encode()[:-3] + b" " * 2100
    shown = render_preview(json_doc.optimize(data, COARSE))
    assert "[2 items complete; id: r0, r1; status: ok ×2; then the cut]" in shown  # `conclusion` holds no short value
    many = [{"id": f"r{n}", "status": "ok"} for n in range(40)]
    data = json.dumps({"runs": many}, separators=(",", ":")).encode()[:-3] + b" " * 2100
    assert "[39 items complete, then the cut]" in render_preview(json_doc.optimize(data, COARSE))


def test_every_cut_of_a_document_is_read_or_left_as_it_was() -> None:
    rng = random.Random(7)
    text = json.dumps(
        {"a": [{"k": "v\\\"é😀", "n": -2.5e3, "t": True, "z": None}] * 5, "b": {"c": {"d": [1, [2, [3]]]}}},
        ensure_ascii=False,
    )
    for cut in range(1, len(text)):
        prefix = text[:cut]
        document = json_cut.read_cut(prefix)
        assert (document is not None) == json_cut.ends_early(prefix.encode()), prefix
        if document is not None:
            parts, _ = json_cut.cut_parts(prefix, document, json_cut.CutLimits(member_chars=20, tail_chars=30))
            check_tiling(prefix.encode(), tuple(parts))
    assert rng  # the cut points are every one, not a sample


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}\n{"b": 2',  # two documents, the second cut: no one document
        b'{"a": 1,, "b": [' + b"1," * 2000,  # a syntax error before the cut
        b'[1, 2] 3' + b" " * 3000,
        b"[" + b"1," * 2000 + b"1]",  # complete
    ],
    ids=["ndjson", "syntax-error", "trailing", "complete"],
)
def test_broken_or_complete_documents_are_not_cut_documents(data: bytes) -> None:
    text = data.decode()
    assert json_cut.read_cut(text) is None or not json_cut.ends_early(data)
    result = json_doc.optimize(data, COARSE)
    assert not any(isinstance(part, str) and part.startswith("[cut short") for part in result.parts)


def test_a_short_cut_document_is_shown_whole() -> None:
    data = b'{"a": [1, 2'
    assert classify(data).content_type is ContentType.JSON
    assert render_preview(json_doc.optimize(data, COARSE)) == data.decode()


def test_five_megabyte_cut_minified_response_completes(tmp_path: Path) -> None:
    items = [{"id": n, "name": f"item_{n}", "status": "failed" if n % 7 == 0 else "ok"} for n in range(150_000)]
    data = json.dumps({"items": items}, separators=(",", ":")).encode()[:5_000_000]
    shown = render_preview(json_doc.optimize(data, COARSE))
    assert shown.startswith("[cut short: this JSON document stops after 5,000,000 bytes, inside $.items[")
    assert len(shown) < 2000
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source="cut.json", store=store)
    assert restore(packet.visible.encode("utf-8"), store) == data


def test_one_megabyte_single_line_string_cut_completes() -> None:
    data = b'{"log":"' + b"y\\n" * 350_000
    shown = render_preview(json_doc.optimize(data, COARSE))
    assert "inside $.log," in shown.splitlines()[0]
    assert shown.rstrip("\n").endswith("y\\n")


def test_a_deep_cut_finds_every_open_container() -> None:
    data = b'{"a":' * 40 + b"[" + b"1," * 50_000 + b'{"b":"x'
    shown = render_preview(json_doc.optimize(data, COARSE))
    assert "with 42 brackets never closed" in shown and "(30 more levels)" in shown and "[50000].b," in shown
