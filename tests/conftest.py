"""Shared test set-up: an isolated store per test, and golden-file checks for optimizers."""

from __future__ import annotations

import difflib
import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.pg_cluster import Cluster, cluster_or_skip
from tests.warm_worker import serving_on_a_thread
from tokenlab.agent import worker
from tokenlab.optimizers import Excerpt, Omission, OptimizeResult
from tokenlab.store import Store, open_store

GOLDEN_DIR = Path(__file__).parent / "golden"
# Property tests check behaviour, never time (STYLE.md): hypothesis's default 200 ms deadline
# failed an example that was the first to load the tokenizer's vocabulary on a loaded machine.
settings.register_profile("tokenlab", deadline=None)
settings.load_profile("tokenlab")
# Commits in throwaway repositories, whatever the user's git configuration says.
GIT = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"]


def run_git(repo: Path, *args: str) -> str:
    return subprocess.run(
        [*GIT, "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite golden files instead of comparing")


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's own cache folder (the tokenizer's ranks cache), shared by its tests:
    it holds only what any of them would rebuild, and never the user's."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def isolated_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session_cache: Path) -> Path:
    """Every test gets its own store and never sees the user's environment; commands run
    in their own process unless a test starts the warm worker itself."""
    store_dir = tmp_path / "store"
    monkeypatch.setenv("TOKENLAB_STORE", str(store_dir))
    monkeypatch.setenv("TOKENLAB_WORKER", "0")
    monkeypatch.setenv("XDG_CACHE_HOME", str(session_cache))
    monkeypatch.chdir(tmp_path)
    return store_dir


@pytest.fixture
def store(isolated_store: Path) -> Iterator[Store]:
    """The test's own store, opened as a command would open it."""
    with open_store() as opened:
        yield opened


def render_preview(result: OptimizeResult) -> str:
    """Render an optimizer result as a fresh store would, without touching one."""
    return "".join(
        f"#ref:ctx_{hashlib.sha256(part.data).hexdigest()[:6]}"
        if isinstance(part, Omission)
        else part.text
        if isinstance(part, Excerpt)
        else part
        for part in result.parts
    )


class Golden:
    def __init__(self, update: bool) -> None:
        self.update = update

    def check(self, name: str, actual: str) -> None:
        path = GOLDEN_DIR / name
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(actual)
            return
        if not path.exists():
            pytest.fail(f"missing golden file {path}; run pytest --update-golden")
        with open(path, encoding="utf-8", newline="") as handle:
            expected = handle.read()
        if actual != expected:
            diff = difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"golden/{name}",
                tofile="actual",
            )
            pytest.fail("golden mismatch:\n" + "".join(diff))


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    return Golden(bool(request.config.getoption("--update-golden")))


# --- PostgreSQL: one throwaway cluster per session, one fresh database per test ----------


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A running PostgreSQL cluster (see `pg_cluster.py`). Without PostgreSQL the tests
    that need it are skipped, saying so, except under CI (`CI` set), where they fail."""
    cluster = cluster_or_skip()
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture
def pg_url(pg_cluster: Cluster, request: pytest.FixtureRequest) -> str:
    """The URL of an empty database of its own for this test."""
    name = "t_" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:16]
    pg_cluster.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return pg_cluster.new_database(name)


# --- the warm worker ---------------------------------------------------------------------


@pytest.fixture
def short_store() -> Iterator[str]:
    """A store folder with a path short enough for a Unix socket."""
    folder = tempfile.mkdtemp(prefix="tl-", dir="/tmp")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def serving(short_store: str) -> Iterator[worker.Worker]:
    """A worker serving `short_store` on a thread, stopped after the test."""
    codes: list[int] = []
    with serving_on_a_thread(short_store, codes) as (server, _):
        yield server
    assert codes == [0]
