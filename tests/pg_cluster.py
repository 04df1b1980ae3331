"""A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary folder, then
`pg_ctl start` on a free loopback port; stopped and removed afterwards.
`bench/pg_store.py` starts one too, `durable` (fsync on).

PostgreSQL refuses to run as root, so when the tests run as root the cluster belongs to
the `postgres` user (`runuser -u postgres`). Authentication is `trust` for the test role,
and `scram-sha-256` over TCP for one role with a password (`PASSWORD_ROLE`), so a wrong
password can be tested. `fsync` is off unless `durable`: a test cluster lives as long as
the test session.

Set `TOKENLAB_PG_BIN` to use another PostgreSQL than `/usr/lib/postgresql/15/bin`.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

PG_BIN = Path(os.environ.get("TOKENLAB_PG_BIN", "/usr/lib/postgresql/15/bin"))
SUPERUSER = "tokenlab"
PASSWORD_ROLE = "secretive"
PASSWORD = "Sw0rdfish-9f3b2c"  # a value that no output may ever contain


class ClusterUnavailable(Exception):
    """PostgreSQL is not installed here, or a cluster could not be started."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    folder: Path
    port: int
    durable: bool = False  # fsync on, as a real server runs (benchmarks)
    netns: str | None = None  # run the server in this network namespace
    listen: str = "127.0.0.1"

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, database: str = "postgres", user: str = SUPERUSER, password: str | None = None) -> str:
        secret = f":{password}" if password is not None else ""
        return f"postgresql://{user}{secret}@{self.listen}:{self.port}/{database}"

    def _as_owner(self, *argv: str) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if self.netns:
            prefix = ["ip", "netns", "exec", self.netns, *prefix]
        return subprocess.run([*prefix, *argv], check=False, capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        options = f"-k {self.folder} -p {self.port} -c listen_addresses={self.listen}"
        options += "" if self.durable else " -c fsync=off"
        done = self._as_owner(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", options, "-l",
            str(self.folder / "log"), "-w", "start",
        )  # fmt: skip
        if done.returncode:
            raise ClusterUnavailable(f"pg_ctl start failed: {done.stderr.strip() or done.stdout.strip()}")

    def stop(self, mode: str = "fast") -> None:
        self._as_owner(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def sql(self, statement: str, database: str = "postgres") -> None:
        import psycopg

        # Over the Unix socket: it works from any network namespace.
        with psycopg.connect(
            host=str(self.folder), port=self.port, user=SUPERUSER, dbname=database, autocommit=True
        ) as conn:
            conn.execute(statement.encode())

    def new_database(self, name: str) -> str:
        self.sql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


def start_cluster(*, durable: bool = False, netns: str | None = None, listen: str = "127.0.0.1") -> Cluster:
    """A running cluster, or ClusterUnavailable saying why not."""
    if not (PG_BIN / "initdb").is_file():
        raise ClusterUnavailable(f"PostgreSQL not found at {PG_BIN} (set TOKENLAB_PG_BIN)")
    folder = Path(tempfile.mkdtemp(prefix="tokenlab-pg-"))
    if os.getuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            raise ClusterUnavailable("running as root and there is no postgres user") from None
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    cluster = Cluster(folder, _free_port(), durable, netns, listen)
    done = cluster._as_owner(
        str(PG_BIN / "initdb"), "-A", "trust", "-U", SUPERUSER, "-D", str(cluster.data), "--no-sync"
    )
    if done.returncode:
        shutil.rmtree(folder, ignore_errors=True)
        raise ClusterUnavailable(f"initdb failed: {done.stderr.strip()}")
    hba = cluster.data / "pg_hba.conf"
    hba.write_text(
        f"host all {PASSWORD_ROLE} 127.0.0.1/32 scram-sha-256\nhost all {PASSWORD_ROLE} samenet scram-sha-256\n"
        + hba.read_text()
        + "host all all samenet trust\n"
    )
    try:
        cluster.start()
        cluster.sql(f"CREATE ROLE {PASSWORD_ROLE} LOGIN SUPERUSER PASSWORD '{PASSWORD}'")
    except Exception:
        cluster.remove()
        raise
    return cluster


def cluster_or_skip() -> Cluster:
    """A running cluster; without PostgreSQL, skip saying so, or fail when `CI` is set."""
    import pytest

    try:
        return start_cluster()
    except ClusterUnavailable as why:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs PostgreSQL for the shared-store tests: {why}")
        pytest.skip(f"PostgreSQL store tests skipped: {why}")
