"""Tests for the YAML optimizer: goldens, key paths visible, exact recovery, detection."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import yaml_cases
from tests.conftest import Golden, render_preview
from tokenlab.classify import classify
from tokenlab.counting import tokens
from tokenlab.optimizers import ContentType, Omission, OptimizerConfig
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.yaml_doc import optimizer as yaml_doc
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import FolderStore, open_store

COARSE = OptimizerConfig()
FIXTURES = Path(__file__).parent.parent / "fixtures"
CASES = {
    "kubectl_pods": yaml_cases.kubectl_pods,
    "manifests": yaml_cases.manifests,
    "ci_small": yaml_cases.ci_small,
    "ci_large": yaml_cases.ci_large,
}


def preview(data: bytes) -> str:
    return render_preview(yaml_doc.optimize(data, COARSE))


def saved(data: bytes) -> float:
    return 1 - tokens.count(preview(data)) / tokens.count(data.decode("utf-8"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_goldens(case: str, golden: Golden) -> None:
    golden.check(f"yaml/{case}.txt", preview(CASES[case]()))


@pytest.mark.parametrize("case", sorted(CASES))
def test_visible_lines_are_input_lines(case: str) -> None:
    data = CASES[case]()
    original = set(data.decode().splitlines())
    for line in preview(data).splitlines():
        assert line in original or "#ref:ctx_" in line


def test_pods_keep_key_paths_and_the_failing_pod_whole() -> None:
    data = yaml_cases.kubectl_pods()
    shown = preview(data)
    for n in range(12):
        assert f"    name: checkout-7d9f8b6c4-{n:05x}\n" in shown
    assert shown.count("  kind: Pod\n") == 12
    assert shown.count("      image: registry.example.com/shop/checkout:1.42.0\n") >= 12
    for fragment in (
        "          reason: CrashLoopBackOff\n",
        "          message: back-off 5m0s restarting failed container=checkout pod=checkout-7d9f8b6c4-00005",
        "          exitCode: 1\n",
        "      restartCount: 7\n",
    ):
        assert fragment in shown
    assert "f:imagePullPolicy" not in shown  # managedFields folded
    assert '{"apiVersion":"v1","kind":"Pod"' not in shown  # last-applied-configuration folded
    assert saved(data) > 0.6


def test_failing_pod_is_shown_in_detail() -> None:
    shown = preview(yaml_cases.kubectl_pods())
    failing = shown[shown.index("checkout-7d9f8b6c4-00005") :]
    failing = failing[: failing.index("- apiVersion: v1\n  kind: Pod")]
    assert "- name: DATABASE_URL" in failing and "terminationMessagePolicy: File" in failing


def test_stream_documents_and_long_scalars() -> None:
    shown = preview(yaml_cases.manifests())
    assert shown.count("---\n") == 5
    for name in ("api", "worker", "scheduler", "web"):
        assert f"  name: shop-{name}\n" in shown
        assert f'image: "ghcr.io/example/shop-{name}:3.1.4"' in shown
    assert "kind: Secret" in shown and "MIIDdzCCAl" not in shown
    ci = preview(yaml_cases.ci_large())
    assert "    - ./scripts/step_03.sh" in ci and "    - ./scripts/step_19.sh" in ci
    assert "# … 12 similar items #ref:ctx_" in ci
    assert 'echo "line 1 of the release notes' in ci and "line 20 of" not in ci


def test_small_ci_config_is_unchanged() -> None:
    data = yaml_cases.ci_small()
    assert preview(data) == data.decode()
    fixture = (FIXTURES / "reads" / "ci_workflow.yaml").read_bytes()
    assert preview(fixture) == fixture.decode()


def test_very_long_line_keeps_a_prefix() -> None:
    data = b"kind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: " + b"QUJD" * 2000 + b"\n"
    shown = preview(data)
    assert shown.startswith("kind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: QUJD")
    assert len(shown) < 300


@pytest.mark.parametrize("case", sorted(CASES))
def test_classified_as_yaml(case: str) -> None:
    assert classify(CASES[case]()).content_type is ContentType.YAML


@pytest.mark.parametrize(
    "data",
    [
        b"INFO: starting\nINFO: listening on :8080\nWARN: slow request\nINFO: done\n",
        b"---\ntitle: Notes\n---\n# Heading\n\nSome prose in a paragraph.\n\nMore prose: here.\n",
        b"# Title\n\n- first point\n- second point\n- third: with a colon\n\nA paragraph.\n",
        b"Dear team,\nthe build failed: see below.\nRegards: me\n",
        b"- a\n- b\n- c\n",
        b"key: value\n\tbad: tab\nother: [unclosed\n",
    ],
    ids=["log", "markdown-front-matter", "markdown-list", "prose", "plain-list", "broken"],
)
def test_not_yaml(data: bytes) -> None:
    assert classify(data).content_type is not ContentType.YAML


def test_json_stays_json() -> None:
    assert classify(b'{"a": 1,\n "b": [1, 2],\n "c": {"d": "e"}}\n').content_type is ContentType.JSON


@pytest.mark.parametrize("case", sorted(CASES))
def test_end_to_end_recovery(case: str, tmp_path: Path) -> None:
    data = CASES[case]()
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source=f"{case}.yaml", store=store)
    assert packet.content_type is ContentType.YAML
    assert packet.recovery_status.value == "PASS", packet.recovery_failures
    assert restore(packet.visible.encode("utf-8"), store) == data


def test_hostile_shapes_do_not_blow_up() -> None:
    deep = b"".join(b" " * n + b"k%d:\n" % n for n in range(300)) + b" " * 300 + b"v: 1\n"
    assert preview(deep) == deep.decode()
    aliases = b"a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\nd: [*c, *c, *c]\n"
    assert preview(aliases) == aliases.decode()
    spaces = b"k: " + b" " * 200_000 + b"x\n" + b"y" * 100_000
    assert preview(spaces)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400) | st.text(alphabet="ab:- #|>\n'\"{}[]", max_size=200).map(str.encode))
def test_arbitrary_bytes_never_raise_and_tile(data: bytes) -> None:
    result = yaml_doc.optimize(data, COARSE)
    assert all(isinstance(part, (str, Omission)) for part in result.parts)
    yaml_doc.looks_like_yaml(data)
    position = 0
    for omission in result.omissions:
        found = data.find(omission.data, position)
        assert found >= position
        position = found + len(omission.data)


_ITEMS = st.lists(
    st.tuples(st.sampled_from(["ok", "Running", "CrashLoopBackOff", "failed"]), st.integers(0, 9999)),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ITEMS)
def test_generated_lists_round_trip_and_keep_failures(items: list[tuple[str, int]]) -> None:
    lines = ["items:"]
    for n, (status, number) in enumerate(items):
        lines += [f"- name: item-{n}", f"  status: {status}", "  spec:"]
        lines += [f"    field_{k}: value {number} {k}" for k in range(8)]
    data = ("\n".join(lines) + "\n").encode()
    store = open_store()
    packet = analyze(data, source="generated.yaml", store=store)
    assert restore(packet.visible.encode("utf-8"), store) == data
    shown = preview(data)
    for n, (status, _) in enumerate(items):
        assert f"- name: item-{n}\n" in shown
        if status in ("CrashLoopBackOff", "failed"):
            assert f"- name: item-{n}\n  status: {status}\n" in shown


def test_a_stream_of_documents_of_one_shape_shows_the_first_and_one_line_for_the_rest() -> None:
    docs = [
        f"apiVersion: v1\nkind: Service\nmetadata:\n  name: shard-{n:02}\nspec:\n  ports:\n  - port: {8000 + n}\n"
        for n in range(12)
    ]
    shown = preview("---\n".join(docs).encode())
    assert docs[0] in shown
    assert "{name: shard-01–11; - port: 8001–8011}" in shown
    assert line_shown.not_shown(("name: shard-05", "- port: 8005"), shown) == ()
    assert shown.count("kind: Service") == 1 and "[×11 more like the one above" in shown
