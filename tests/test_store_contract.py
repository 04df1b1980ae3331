"""The store contract (see `tokenlab/store/base.py`), checked on every backend by one suite."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tokenlab.errors import RefNotFoundError, StoreCorruptionError
from tokenlab.store import FolderStore, Store, open_store, parse_ref_id
from tokenlab.store import postgres as pg_backend
from tokenlab.store.maintenance import copy, gc, stats, verify

META = {"source": "test", "content_type": "text", "reason": "contract"}


@dataclass
class Backend:
    """A store under test, and how to damage it behind its back."""

    spec: str
    damage: Callable[[str, str], None]  # (ref id, "flip" | "truncate" | "extend")
    forge: Callable[[str, bytes], None]  # claim a hex id for other bytes
    age: Callable[[str, float], None]  # make a ref's last use this many days ago

    def open(self) -> Store:
        return open_store(self.spec)


def _folder_backend(root: Path) -> Backend:
    store = FolderStore(root)

    def damage(ref_id: str, how: str) -> None:
        path = store.ref_path(ref_id)
        blob = path.read_bytes()
        changed = {
            "flip": blob[:-3] + bytes([blob[-3] ^ 1]) + blob[-2:],
            "truncate": blob[:-1],
            "extend": blob + b"!",
        }[how]
        path.write_bytes(changed)

    def forge(hex_id: str, other: bytes) -> None:
        real = store.put(other, **META)
        path = store.refs_dir / hex_id[:2] / hex_id
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(store.ref_path(real).read_bytes())

    def age(ref_id: str, days: float) -> None:
        when = time.time() - days * 86400
        os.utime(store.ref_path(ref_id), (when, when))

    return Backend(str(root), damage, forge, age)


def _pg_backend(url: str) -> Backend:
    import psycopg

    def sql(statement: str, *args: object) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(statement.encode(), args)

    def damage(ref_id: str, how: str) -> None:
        change = {
            "flip": "set_byte(data, length(data) - 3, get_byte(data, length(data) - 3) # 1)",
            "truncate": "substring(data FROM 1 FOR length(data) - 1)",
            "extend": "data || '\\x21'::bytea",
        }[how]
        last = "(SELECT max(seq) FROM tokenlab_chunks WHERE ref_id = %s)"
        sql(f"UPDATE tokenlab_chunks SET data = {change} WHERE ref_id = %s AND seq = {last}",
            parse_ref_id(ref_id), parse_ref_id(ref_id))  # fmt: skip

    def forge(hex_id: str, other: bytes) -> None:
        sha = hex_id + hashlib.sha256(other).hexdigest()[len(hex_id) :]  # other bytes, this prefix
        sql(
            "INSERT INTO tokenlab_refs (id, sha256, source, content_type, reason, bytes, chunks, created)"
            " VALUES (%s, %s, 'forged', 'text', 'forged', %s, 1, 0)",
            hex_id, sha, len(other),
        )  # fmt: skip
        sql("INSERT INTO tokenlab_chunks VALUES (%s, 0, %s)", hex_id, other)

    def age(ref_id: str, days: float) -> None:
        sql("UPDATE tokenlab_refs SET last_use = now() - make_interval(days => %s) WHERE id = %s",
            int(days), parse_ref_id(ref_id))  # fmt: skip

    with open_store(url) as store:
        store.init()  # the schema, so damage and forge have tables to work on
    return Backend(url, damage, forge, age)


@pytest.fixture(params=["folder", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "folder":
        yield _folder_backend(tmp_path / "contract-store")
    else:
        yield _pg_backend(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(backend: Backend) -> Iterator[Store]:
    with backend.open() as opened:
        yield opened


def put(store: Store, data: bytes) -> str:
    return store.put(data, **META)


def test_id_is_the_shortest_prefix_and_reloads_exactly(store: Store, backend: Backend) -> None:
    data = bytes(range(256)) * 3
    ref_id = put(store, data)
    assert ref_id == "ctx_" + hashlib.sha256(data).hexdigest()[:6]
    assert put(store, data) == ref_id
    with backend.open() as other:  # as another process would see it
        record = other.load(ref_id)
    assert (record.data, record.length, record.sha256) == (data, len(data), hashlib.sha256(data).hexdigest())
    assert (record.source, record.content_type, record.reason) == ("test", "text", "contract")
    assert store.load("#ref:" + ref_id).data == data


def test_empty_and_multi_chunk_refs(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg_backend, "CHUNK_BYTES", 1000)
    data = os.urandom(4500)
    for payload in (b"", data):
        ref_id, failure = store.put_and_reload(payload, **META)
        assert failure is None
        assert store.load(ref_id).data == payload
        assert store.holds(ref_id, payload) and not store.holds(ref_id, payload + b"x")
        store.check(ref_id)


def test_a_ref_written_block_by_block_is_the_ref_of_its_joined_bytes(store: Store) -> None:
    blocks = [os.urandom(1500), b"", memoryview(os.urandom(3000))[100:2100], b"tail\n"]
    joined = b"".join(blocks)
    ref_id, failure = store.put_stream_and_reload(lambda: iter(blocks), **META)
    assert failure is None
    assert ref_id == "ctx_" + hashlib.sha256(joined).hexdigest()[:6]
    assert store.load(ref_id).data == joined
    assert store.put_and_reload(joined, **META) == (ref_id, None)


def test_a_ref_written_block_by_block_over_damaged_bytes_says_so(store: Store, backend: Backend) -> None:
    blocks = [b"folded line\n" * 200, b"another\n" * 300]
    ref_id, _ = store.put_stream_and_reload(lambda: iter(blocks), **META)
    backend.damage(ref_id, "flip")
    again, failure = store.put_stream_and_reload(lambda: iter(blocks), **META)
    assert again == ref_id and failure is not None and ref_id.removeprefix("ctx_") in failure


def test_prefix_collision_grows_the_id_and_never_replaces(store: Store, backend: Backend) -> None:
    second_sha = hashlib.sha256(b"second").hexdigest()
    backend.forge(second_sha[:6], b"first")
    second = put(store, b"second")
    assert second == "ctx_" + second_sha[:7]
    assert store.load(second).data == b"second"
    assert put(store, b"second") == second


def test_missing_ref_is_not_found(store: Store) -> None:
    with pytest.raises(RefNotFoundError, match="ctx_000000"):
        store.load("ctx_000000")
    with pytest.raises(RefNotFoundError):
        store.check("ctx_000000")


@pytest.mark.parametrize("how", ["flip", "truncate", "extend"])
def test_damaged_bytes_fail_loudly_naming_the_ref(store: Store, backend: Backend, how: str) -> None:
    data = b"important bytes " * 100
    ref_id = put(store, data)
    intact = put(store, b"an intact neighbour")
    backend.damage(ref_id, how)
    for read in (store.load, store.check, lambda ref: store.holds(ref, data)):
        with pytest.raises(StoreCorruptionError, match=ref_id):
            read(ref_id)
    again, failure = store.put_and_reload(data, **META)  # already there: never replaced
    assert again == ref_id and failure is not None and ref_id in failure
    report = verify(store)
    assert report.checked == 2 and len(report.corrupt) == 1 and ref_id in report.corrupt[0]
    assert store.load(intact).data == b"an intact neighbour"


def _race_writer(spec: str, seed: int, queue: multiprocessing.Queue[list[str]]) -> None:
    with open_store(spec) as store:
        queue.put([store.put(_race_payload(i), **META) for i in range(seed, seed + 40)])


def _race_payload(i: int) -> bytes:
    return f"shared payload {i % 30}\n".encode() * (1 + i % 30)


def test_racing_writers_agree_on_every_id(backend: Backend) -> None:
    context = multiprocessing.get_context("spawn")
    queue: multiprocessing.Queue[list[str]] = context.Queue()
    writers = [context.Process(target=_race_writer, args=(backend.spec, 0, queue)) for _ in range(6)]
    for writer in writers:
        writer.start()
    results = [queue.get(timeout=120) for _ in writers]
    for writer in writers:
        writer.join()
    assert all(result == results[0] for result in results)
    with backend.open() as store:
        for i, ref_id in enumerate(results[0]):
            assert store.load(ref_id).data == _race_payload(i)
        assert verify(store).clean and stats(store).refs == 30


def test_stats_verify_gc(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg_backend, "PAGE", 3)  # several pages
    ids = [put(store, f"ref {i}".encode()) for i in range(10)]
    found = stats(store)
    assert found.refs == 10 and found.bytes >= sum(len(f"ref {i}") for i in range(10))
    assert found.oldest_use is not None and found.newest_use is not None
    report = verify(store)
    assert report.clean and report.checked == 10
    assert gc(store, 1, dry_run=False) == []
    assert len(gc(store, 0, dry_run=True)) == 10
    assert len(gc(store, 0, dry_run=False)) == 10
    with pytest.raises(RefNotFoundError):
        store.load(ids[0])
    assert stats(store).refs == 0
    assert put(store, b"ref 0") == ids[0]  # written again after gc


def test_copy_both_ways_verifies_and_skips_present(store: Store, tmp_path: Path, backend: Backend) -> None:
    payloads = [os.urandom(3000), b"small", b""]
    ids = [put(store, data) for data in payloads]
    other = FolderStore(tmp_path / "other") if not isinstance(store, FolderStore) else None
    with other or open_store(tmp_path / "other-folder") as target:
        first = copy(store, target)
        assert sorted(first.copied) == sorted(ids) and first.clean
        again = copy(store, target, ids[:1] + ["ctx_0000aa"])
        assert again.present == ids[:1] and again.missing == ["ctx_0000aa"] and not again.clean
        for ref_id, data in zip(ids, payloads, strict=True):
            assert target.load(ref_id).data == data
        backend.damage(ids[0], "flip")
        fresh = FolderStore(tmp_path / "fresh")
        damaged = copy(store, fresh)
        assert len(damaged.failed) == 1 and ids[0] in damaged.failed[0]
        with pytest.raises(RefNotFoundError):
            fresh.load(ids[0])  # nothing of a ref that did not verify
        back = copy(target, store, ids[1:])
        assert back.present == ids[1:]


def test_reads_and_writes_count_as_use_for_gc(store: Store, backend: Backend) -> None:
    read, written, idle = (put(store, f"{name} ref".encode()) for name in ("read", "written", "idle"))
    for ref_id in (read, written, idle):
        backend.age(ref_id, 3)
    store.load(read)
    put(store, b"written ref")
    removed = gc(store, 2, dry_run=False)  # folder: file paths; PostgreSQL: ref ids
    assert [Path(entry).name.removeprefix("ctx_") for entry in removed] == [parse_ref_id(idle)]
    assert store.load(read).data == b"read ref" and store.load(written).data == b"written ref"
    with pytest.raises(RefNotFoundError):
        store.load(idle)
