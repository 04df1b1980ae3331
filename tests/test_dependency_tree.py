"""Tests for the dependency tree optimizer: classification, goldens, problems kept, exact bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Golden, render_preview
from tokenlab.classify import classify
from tokenlab.optimizers import ContentType, Granularity, Omission, OptimizerConfig
from tokenlab.optimizers.dependency_tree import optimizer as dependency_tree
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import FolderStore

COARSE = OptimizerConfig()
FINE = OptimizerConfig(Granularity.FINE)
REAL = Path(__file__).parent.parent / "fixtures" / "real"
CAPTURES = (
    "npm_ls_all.txt",
    "npm_ls_all_4_packages.txt",
    "npm_ls_problems.txt",
    "npm_explain_semver.txt",
    "cargo_tree_i_no_dedupe_core_types.txt",
    "pipdeptree_r_tokenlab_venv.txt",
)

MVN = "\n".join(
    [
        "[INFO] --- maven-dependency-plugin:3.6.1:tree (default-cli) @ shop ---",
        "[INFO] com.example:shop:jar:1.0-SNAPSHOT",
        *(
            line
            for n in range(40)
            for line in (
                f"[INFO] +- org.lib{n}:lib{n}:jar:1.{n}.0:compile",
                f"[INFO] |  +- org.dep{n}:core{n}:jar:2.{n}:compile",
                f"[INFO] |  |  \\- org.deep{n}:deep{n}:jar:3.{n}:runtime",
                f"[INFO] |  \\- org.dep{n}:util{n}:jar:2.{n}:compile",
            )
        ),
        "[INFO] \\- junit:junit:jar:4.13.2:test",
        "[INFO] ------------------------------------------------------------------------",
        "[INFO] BUILD SUCCESS",
        "",
    ]
)

CARGO = "\n".join(
    [
        "app v0.1.0 (/src/app)",
        *(
            line
            for n in range(60)
            for line in (
                f"├── crate{n} v1.{n}.0",
                f"│   ├── inner{n} v0.{n}.1",
                f"│   │   └── leaf{n % 3} v2.0.{n % 2}",
                f"│   └── serde v1.0.{n % 2} (*)",
            )
        ),
        "[dev-dependencies]",
        "└── tempfile v3.10.1",
        "    └── fastrand v2.0.1",
        "",
    ]
)


def preview(data: bytes, config: OptimizerConfig = COARSE) -> str:
    return render_preview(dependency_tree.optimize(data, config))


@pytest.mark.parametrize("name", CAPTURES)
@pytest.mark.parametrize("granularity", ["coarse", "fine"])
def test_capture_goldens(name: str, granularity: str, golden: Golden) -> None:
    config = FINE if granularity == "fine" else COARSE
    golden.check(f"dependency_tree/{name}.{granularity}.txt", preview((REAL / name).read_bytes(), config))


@pytest.mark.parametrize("name", [*CAPTURES, "cargo_tree_workspace.txt"])
def test_captures_classify_and_keep_their_signals(name: str, tmp_path: Path) -> None:
    data = (REAL / name).read_bytes()
    assert classify(data).content_type is ContentType.DEPENDENCY_TREE
    expected = tuple((REAL / f"{name}.signals").read_text().splitlines())
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source=name, store=store, signals=expected)
    assert packet.signal_status.value == "PASS", packet.missing_signals
    assert packet.recovery_status.value == "PASS"
    assert restore(packet.visible.encode("utf-8"), store) == data


def test_problems_stay_with_their_path() -> None:
    data = (REAL / "npm_ls_problems.txt").read_bytes()
    result = dependency_tree.optimize(data, COARSE)
    shown = render_preview(result)
    assert "└─┬ mocha@10.8.2\n" in shown and "  ├─┬ chokidar@3.6.0\n" in shown
    assert "  │ ├── UNMET OPTIONAL DEPENDENCY fsevents@~2.3.2" in result.signals
    assert "├── UNMET DEPENDENCY is-odd@^3.0.1" in result.signals
    assert "npm error code ELSPROBLEMS" in result.signals
    assert "4 problem entries, all shown" in shown  # a folded name holding `error` is no problem
    few = dependency_tree.TreeLimits(problems_shown=2)
    assert "4 problem entries, 3 shown" in render_preview(dependency_tree.optimize(data, COARSE, few))  # one is shallow


def test_census_counts_depths_versions_and_repeats() -> None:
    shown = preview((REAL / "npm_ls_all.txt").read_bytes())
    first = shown.splitlines()[0]
    assert first.startswith("[dependency tree: 129 entries by depth 1: 1, 2: 31, 3: 51")
    assert "71 distinct packages, 1 at several versions: ms (2.0.0, 2.1.3)" in first
    assert "58 repeated entries" in first
    assert "  ├─┬ body-parser@1.20.2\n  │ … 17 lines: bytes, content-type, debug, depd, destroy, http-errors, iconv-lite, on-finished, … +4\n" in shown


def test_coarse_and_fine_hold_the_same_folded_bytes() -> None:
    data = (REAL / "npm_ls_all_4_packages.txt").read_bytes()
    (coarse,) = [p.data for p in dependency_tree.optimize(data, COARSE).parts if isinstance(p, Omission)]
    fine = [p.data for p in dependency_tree.optimize(data, FINE).parts if isinstance(p, Omission)]
    assert len(fine) > 1 and b"".join(fine) == coarse


def test_maven_tree_keeps_direct_dependencies() -> None:
    data = MVN.encode()
    assert classify(data).content_type is ContentType.DEPENDENCY_TREE
    shown = preview(data)
    assert "[INFO] +- org.lib7:lib7:jar:1.7.0:compile\n" in shown
    assert "[INFO] \\- junit:junit:jar:4.13.2:test\n" in shown
    assert "[INFO] BUILD SUCCESS" in shown
    assert "org.deep7:deep7" not in shown
    assert "by depth 1: 41, 2: 80, 3: 40" in shown


def test_cargo_tree_sections_and_repeats() -> None:
    data = CARGO.encode()
    assert classify(data).content_type is ContentType.DEPENDENCY_TREE
    shown = preview(data)
    assert "├── crate59 v1.59.0\n" in shown and "[dev-dependencies]\n└── tempfile v3.10.1\n" in shown
    assert "inner5 v0.5.1" not in shown
    assert "60 repeated entries" in shown
    assert "serde (1.0.0, 1.0.1)" in shown and "leaf0 (2.0.0, 2.0.1)" in shown


def test_small_tree_passes_through() -> None:
    data = (REAL / "cargo_tree_workspace.txt").read_bytes()
    assert preview(data) == data.decode()


@pytest.mark.parametrize(
    "name", ["tree_small.txt", "tree_services.txt", "find_listing.txt", "pip_list.txt", "npm_install.log"]
)
def test_other_captures_are_not_trees(name: str) -> None:
    assert classify((REAL / name).read_bytes()).content_type is not ContentType.DEPENDENCY_TREE


def test_pipdeptree_shape() -> None:
    lines = ["Flask==3.1.3"]
    lines += [f"├── dep{n} [required: >=1.{n}, installed: 1.{n}.2]" for n in range(8)]
    lines += [
        "└── Werkzeug [required: >=3.1.0, installed: 3.1.9]",
        "    └── MarkupSafe [required: >=2.1.1, installed: 3.0.4]",
    ]
    assert classify("\n".join(lines).encode()).content_type is ContentType.DEPENDENCY_TREE


def test_hostile_input_restores(tmp_path: Path) -> None:
    data = ("├── a@1.0.0\n│ " * 3000 + "└── \udcff").encode("utf-8", "surrogateescape") + b"\r\n\x00"
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source="tree.txt", store=store)
    assert packet.recovery_status.value == "PASS"
    assert restore(packet.visible.encode("utf-8"), store) == data


def test_tree_drawn_by_indentation_keeps_records_and_direct_dependents() -> None:
    data = (REAL / "npm_explain_semver.txt").read_bytes()
    assert classify(data).content_type is ContentType.DEPENDENCY_TREE
    shown = preview(data)
    for line in (
        "semver@6.3.2\nnode_modules/semver\n",
        "node_modules/make-dir/node_modules/semver\n",
        '  semver@"^6.3.1" from @babel/helper-compilation-targets@7.29.13\n',
        '  semver@"^6.3.0" from istanbul-lib-instrument@5.2.1\n',
    ):
        assert line in shown
    assert len(shown.splitlines()) < 60
    # The location lines name no package: they are no entries of the census.
    assert "[dependency tree: 7,040 entries by depth 1: 6, 2: 35" in shown
    # Ranges asked for are not versions installed.
    assert "at several versions" not in shown


def test_folded_alike_subtrees_show_the_first_and_name_the_rest() -> None:
    lines = ["app@1.0.0", "node_modules/app"]
    for n in range(6):
        lines += [f'  app@"^1.0.0" from lib{n}@2.{n}.0', f"  node_modules/lib{n}"]
        for m in range(20):
            lines += [f'    lib{n}@"^2.0.0" from user{m}@3.{m}.0', f"    node_modules/user{m}"]
            lines += [f'      user{m}@"^3.0.0" from the root project']
    shown = preview("\n".join(lines).encode())
    first = '    lib0@"^2.0.0" from user0@3.0.0\n    node_modules/user0\n      user0@"^3.0.0" from the root project\n'
    assert first in shown
    assert "    … 57 lines: user1@3.1.0, user2@3.2.0, user3@3.3.0, user4@3.4.0, user5@3.5.0, user6@3.6.0, user7@3.7.0, user8@3.8.0, … +11\n" in shown
    assert '  app@"^1.0.0" from lib5@2.5.0\n' in shown
    assert "user1@3.1.0\n" not in shown


def test_folded_runs_are_named_by_their_packages() -> None:
    shown = preview((REAL / "cargo_tree_i_no_dedupe_core_types.txt").read_bytes())
    assert "├── catalog v0.4.4 (/tmp/left24/rustws/catalog)\n│   … 9 lines: notifications, payments, reports\n" in shown


@pytest.mark.parametrize(
    "text",
    [
        # A stack dump: versioned frames, all at one indentation.
        "\n".join(
            ['"main" #1 prio=5 tid=0x1 runnable', "   java.lang.Thread.State: RUNNABLE"]
            + [f"\tat java.base@17.0.{n}/java.lang.Thread.run(Thread.java:{n})" for n in range(40)]
        ),
        # Prose quoting versions, wrapped at one indentation.
        "\n".join(f"Upgrade lib{n}@1.{n}.0 first.\n    It fixes issue {n}." for n in range(40)),
    ],
)
def test_indented_text_that_is_no_tree(text: str) -> None:
    assert classify(text.encode()).content_type is not ContentType.DEPENDENCY_TREE
