"""Budgeted reads on large real files: budgets, deref exactness and HTTP/CLI parity.

1. Budget sweep: for each file and each budget (50, 200, 1,000, 5,000, 100,000) the
   `auto`, `full` and `outline` reads never exceed the budget unless they say
   `truncated: true`; at 100,000 a file whose full text fits comes back `full`,
   byte-identical. Prints the view `auto` chose and its tokens.
2. Deref: the files are committed to a throwaway repository, read at every budget and
   searched; then the working tree is rewritten and every evidence pointer must still
   dereference to bytes with its sha256. Working-tree pointers (uncommitted edits) must
   verify before the file changes and fail verification after.
3. Server: `POST /v1/files/read` and `/v1/search` answer exactly like the library calls
   behind the CLI, and paths outside the root get 403.

    .venv/bin/python bench/read_budget_check.py [FILE ...]

Without files it picks the largest stdlib modules and the largest file of each other
type it finds in this interpreter's library folders and /usr/include. Exit 1 on any failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tokenlab.errors import TokenlabError
from tokenlab.reads.pointers import Evidence, deref, parse_pointer
from tokenlab.reads.search import SearchRequest, search
from tokenlab.reads.views import ReadRequest, ReadResponse, View, read

BUDGETS = (50, 200, 1_000, 5_000, 100_000)
VIEWS = (View.AUTO, View.FULL, View.OUTLINE)
MAX_BYTES = 3_000_000
OTHER_TYPES = (
    ".md",
    ".json",
    ".yaml",
    ".toml",
    ".csv",
    ".c",
    ".h",
    ".js",
    ".ts",
    ".rs",
    ".go",
    ".rst",
    ".txt",
)
SEARCH_QUERIES = ("def ", "return", "class", "error")
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"]
FORBIDDEN = ("../x", "/etc/passwd", "%2e%2e/x", "..%2fx", "%252e%252e/x", "a/../../x", "outside-link")


def _walk(root: Path, limit: int = 200_000) -> Iterator[Path]:
    seen = 0
    for directory, folders, files in os.walk(root):
        folders[:] = [name for name in folders if not name.startswith(".") and name not in ("test", "tests")]
        for name in files:
            seen += 1
            if seen > limit:
                return
            yield Path(directory) / name


def default_files() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sized = [
        (path.stat().st_size, path) for path in _walk(stdlib) if path.is_file() and not path.is_symlink()
    ]
    python = sorted(
        ((size, path) for size, path in sized if path.suffix == ".py" and "site-packages" not in path.parts),
        reverse=True,
    )[:8]
    others = sized + [(path.stat().st_size, path) for path in _walk(Path("/usr/include")) if path.is_file()]
    picked = [path for _, path in python]
    for suffix in OTHER_TYPES:
        candidates = [(size, path) for size, path in others if path.suffix == suffix and size <= MAX_BYTES]
        if candidates:
            picked.append(max(candidates)[1])
    return picked


# --- 1. budgets ----------------------------------------------------------------------------


def honest(response: ReadResponse) -> bool:
    return response.tokens <= response.budget_tokens or response.truncated


def sweep(files: list[Path]) -> tuple[list[str], int, list[str]]:
    failures: list[str] = []
    rows = [
        f"{'file':<34} {'bytes':>9} {'full tok':>9}  " + "  ".join(f"{budget:>15,}" for budget in BUDGETS)
    ]
    checks = 0
    for path in files:
        data = path.read_bytes()
        cells = []
        full_tokens = read(ReadRequest(path, View.FULL, 10**9)).tokens
        for budget in BUDGETS:
            for view in VIEWS:
                response = read(ReadRequest(path, view, budget))
                checks += 1
                if not honest(response):
                    failures.append(
                        f"{path.name} {view.value}@{budget}: {response.tokens} tokens, not truncated"
                    )
                must_be_full = budget == 100_000 and full_tokens <= budget and view is not View.OUTLINE
                if must_be_full and (response.view != "full" or response.raw != data):
                    failures.append(f"{path.name} {view.value}@100000: fits but came back {response.view}")
                if view is View.AUTO:
                    mark = "*" if response.truncated else ""
                    cells.append(f"{response.view[:7]:>7} {response.tokens:>6,}{mark}")
        rows.append(
            f"{path.name[:34]:<34} {len(data):>9,} {full_tokens:>9,}  "
            + "  ".join(f"{cell:>15}" for cell in cells)
        )
    return rows, checks, failures


# --- 2. deref exactness ----------------------------------------------------------------------


def git(repo: Path, *args: str) -> None:
    subprocess.run([*GIT, "-C", str(repo), *args], check=True, capture_output=True)


def copy_into_repo(files: list[Path], repo: Path) -> list[Path]:
    git(repo, "init", "-q")
    copies = []
    for number, path in enumerate(files):
        copy = repo / f"{number:02d}_{path.name}"
        shutil.copyfile(path, copy)
        copies.append(copy)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "bench files")
    return copies


def collect_evidence(copies: list[Path], repo: Path) -> list[Evidence]:
    evidence: list[Evidence] = []
    for copy in copies:
        for budget in BUDGETS:
            for view in VIEWS:
                evidence.extend(read(ReadRequest(copy, view, budget)).evidence)
    for query in SEARCH_QUERIES:
        evidence.extend(search(SearchRequest(query, (repo,), 5_000)).evidence)
    return list(dict.fromkeys(evidence))


def exact(evidence: list[Evidence], repo: Path) -> list[str]:
    failures = []
    for item in evidence:
        try:
            deref(parse_pointer(item.pointer), repo=repo).verify(item.sha256)
        except TokenlabError as error:
            failures.append(f"{item.pointer}: {error}")
    return failures


def deref_check(copies: list[Path], repo: Path) -> tuple[list[str], list[str]]:
    committed = collect_evidence(copies, repo)
    for copy in copies:  # the working tree moves on, and so does HEAD
        copy.write_bytes(b"".join(reversed(copy.read_bytes().splitlines(keepends=True))) + b"\nedited\n")
    git(repo, "commit", "-qam", "rewritten")
    failures = exact(committed, repo)
    worktree_files = copies[:3]
    for copy in worktree_files:
        copy.write_bytes(copy.read_bytes() + b"uncommitted line\n")
    local = [
        item for copy in worktree_files for item in read(ReadRequest(copy, View.OUTLINE, 5_000)).evidence
    ]
    failures += [f"worktree before change: {f}" for f in exact(local, repo)]
    for copy in worktree_files:
        copy.write_bytes(b"changed again\n" + copy.read_bytes())
    undetected = len(local) - len(exact(local, repo))
    if undetected:
        failures.append(f"{undetected} working-tree pointers still verified after their file changed")
    lines = [
        (
            f"commit pointers: {len(committed)} dereferenced after the working tree and HEAD moved on, "
            f"{len(committed) - sum(1 for f in failures if not f.startswith('worktree'))} exact"
        ),
        (
            f"working-tree pointers: {len(local)} exact before the edit, "
            f"{len(local) - undetected} mismatches detected after it"
        ),
    ]
    return lines, failures


# --- 3. server parity --------------------------------------------------------------------


def server_check(copies: list[Path], repo: Path) -> tuple[list[str], list[str]]:
    from fastapi.testclient import TestClient

    from tokenlab.serve.http import create_app

    (repo / "outside-link").symlink_to("/etc/passwd")
    client = TestClient(create_app(repo, max_response_bytes=64 * 1024 * 1024))
    failures, compared = [], 0
    for copy in copies:
        for budget in BUDGETS:
            body = {"path": copy.name, "budget_tokens": budget}
            answer = client.post("/v1/files/read", json=body).json()
            compared += 1
            if answer != read(ReadRequest(copy, View.AUTO, budget)).as_dict():
                failures.append(f"server read of {copy.name}@{budget} differs from the CLI")
    for query in SEARCH_QUERIES:
        answer = client.post("/v1/search", json={"query": query, "budget_tokens": 1000}).json()
        compared += 1
        if (
            answer
            != search(
                SearchRequest(query, (repo,), 1000), allow=lambda path: path.is_relative_to(repo)
            ).as_dict()
        ):
            failures.append(f"server search {query!r} differs from the CLI")
    refused = [
        path for path in FORBIDDEN if client.post("/v1/files/read", json={"path": path}).status_code == 403
    ]
    failures += [f"server served {path!r}" for path in FORBIDDEN if path not in refused]
    return [
        (
            f"server: {compared} responses identical to the CLI's; "
            f"{len(refused)}/{len(FORBIDDEN)} outside paths refused (403)"
        )
    ], failures


def main(argv: list[str]) -> int:
    files = [Path(arg) for arg in argv] or default_files()
    started = time.perf_counter()
    rows, checks, failures = sweep(files)
    print("auto view and its tokens per budget (* = truncated)")
    print("\n".join(rows))
    print(
        f"{checks} reads (auto, full, outline x {len(BUDGETS)} budgets x {len(files)} files): "
        f"{len(failures)} over budget or not full"
    )
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder) / "benchrepo"
        repo.mkdir()
        os.environ["TOKENLAB_STORE"] = str(Path(folder) / "store")
        copies = copy_into_repo(files, repo)
        swept = time.perf_counter()
        server_lines, server_failures = server_check(copies, repo)
        served = time.perf_counter()
        deref_lines, deref_failures = deref_check(copies, repo)
        finished = time.perf_counter()
    print("\n".join(deref_lines + server_lines))
    print(f"time: sweep {swept - started:.0f}s, server {served - swept:.0f}s, deref {finished - served:.0f}s")
    failures += deref_failures + server_failures
    for failure in failures[:20]:
        print("FAIL", failure)
    print(f"{'PASS' if not failures else 'FAIL'} in {time.perf_counter() - started:.1f}s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
