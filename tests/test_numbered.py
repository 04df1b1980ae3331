"""Names that differ in one number, said once per family: every member stays named."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from tokenlab.optimizers.lines.numbered import family, number_runs, said_once

_SAID_RE = re.compile(r"^(.*)\{([^{}]*)\}(.*)$")


def _members(said: str) -> set[str]:
    """The names a said-once entry stands for (a test-side reading of the notation)."""
    found = _SAID_RE.match(said)
    if found is None:
        return {said}
    before, runs, after = found.groups()
    names = set()
    for run in runs.split(","):
        first, _, last = run.partition("…")
        width = len(first)
        for number in range(int(first), int(last or first) + 1):
            names.add(f"{before}{number:0{width}d}{after}")
    return names


def test_a_name_s_family_takes_out_its_last_number() -> None:
    assert family("node2_disk13.log") == ("node2_disk\0.log", "13")
    assert family("README.md") is None


def test_numbers_are_said_as_runs_with_their_padding() -> None:
    assert number_runs(["3", "1", "2", "4", "7", "9", "10", "11"]) == "1…4,7,9…11"
    assert number_runs(["001", "002", "003", "046"]) == "001…003,046"
    assert number_runs(["1", "2"]) == "1,2"  # two in a row are no shorter as a run
    assert number_runs([str(n) for n in range(0, 40, 2)], cap=3) == "0,2,4,… +17"


def test_families_are_said_once_where_their_first_member_stood() -> None:
    names = ["setup.py", "api_001.py", "api_000.yaml", "api_002.py", "api_003.yaml", "api_004.py", "a1", "a2"]
    # two yaml files and a1, a2 are fewer than three: named as they are
    assert said_once(names) == [
        "setup.py",
        "api_{001,002,004}.py",
        "api_000.yaml",
        "api_003.yaml",
        "a1",
        "a2",
    ]


def test_other_numbers_stay_in_the_family_so_no_combination_is_invented() -> None:
    names = [f"node{node}_disk{disk}" for node in (2, 3) for disk in (1, 2, 3)]
    assert said_once(names) == ["node2_disk{1…3}", "node3_disk{1…3}"]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["api_", "t", "mod-"]), st.integers(0, 120), st.sampled_from([".py", ".yaml", ""])
        )
    )
)
def test_every_name_stays_named(parts: list[tuple[str, int, str]]) -> None:
    names = [f"{before}{number:03d}{after}" for before, number, after in parts]
    named = set().union(*(_members(said) for said in said_once(names))) if names else set()
    assert named == set(names)
