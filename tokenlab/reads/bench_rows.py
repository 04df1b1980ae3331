"""Budgeted-read rows for `tokens benchmark`: outline size against the full file, and pointer checks.

For each file under `fixtures/reads/` the row holds the token counts of the full view and
of the complete outline, how many symbols the outline found, and whether every evidence
pointer those two reads returned dereferences (from its commit, or the working tree) to
bytes with the recorded sha256. The benchmark renders the rows; this module only measures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tokenlab.errors import TokenlabError
from tokenlab.packet import Status
from tokenlab.reads.pointers import Evidence, deref, parse_pointer
from tokenlab.reads.symbols import walk
from tokenlab.reads.views import ReadRequest, View, read

# Large enough that no fixture degrades: the row compares complete views.
UNLIMITED = 10**9
_NOT_FIXTURES = (".signals",)


@dataclass(frozen=True)
class ReadRow:
    fixture: str
    full_tokens: int
    outline_tokens: int
    symbols: int
    pointer_status: Status
    pointers_checked: int
    failure: str = ""

    @property
    def ratio(self) -> float:
        """Outline tokens per full-file token (0 for an empty file)."""
        return self.outline_tokens / self.full_tokens if self.full_tokens else 0.0


def check_evidence(evidence: tuple[Evidence, ...], repo_hint: Path) -> str:
    """'' when every pointer derefs to its sha256, else the first failure."""
    for item in evidence:
        try:
            deref(parse_pointer(item.pointer), repo=repo_hint).verify(item.sha256)
        except TokenlabError as error:
            return f"{item.pointer}: {error}"
    return ""


def read_row(path: Path, label: str) -> ReadRow:
    full = read(ReadRequest(path, View.FULL, UNLIMITED))
    outlined = read(ReadRequest(path, View.OUTLINE, UNLIMITED))
    from tokenlab.reads.outline import outline

    symbols = len(walk(outline(path.name, full.content).symbols))
    evidence = full.evidence + outlined.evidence
    failure = check_evidence(evidence, path.parent)
    return ReadRow(
        fixture=label,
        full_tokens=full.tokens,
        outline_tokens=outlined.tokens if outlined.view == "outline" else 0,
        symbols=symbols,
        pointer_status=Status.FAIL if failure else Status.PASS,
        pointers_checked=len(evidence),
        failure=failure,
    )


def read_rows(fixtures_dir: Path) -> list[ReadRow]:
    """One row per file under `fixtures_dir` (recursively), in path order."""
    files = sorted(
        path
        for path in fixtures_dir.rglob("*")
        if path.is_file() and not path.name.startswith(".") and path.suffix not in _NOT_FIXTURES
    )
    return [read_row(path, path.relative_to(fixtures_dir).as_posix()) for path in files]
