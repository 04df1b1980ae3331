import hashlib
import os
import stat
from pathlib import Path

import pytest

from tokenlab.errors import InputError, RefNotFoundError, StoreCorruptionError
from tokenlab.store import FolderStore, Store, open_store, parse_ref_id


def put(store: Store, data: bytes) -> str:
    return store.put(data, source="test", content_type="text", reason="unit test")


def test_id_is_a_short_prefix_of_the_sha256(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    ref_id = put(store, b"hello")
    assert ref_id == "ctx_" + hashlib.sha256(b"hello").hexdigest()[:6]


def test_same_bytes_same_id_and_exact_reload(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    data = bytes(range(256)) * 3
    assert put(store, data) == put(store, data)
    record = store.load(put(store, data))
    assert record.data == data
    assert record.length == len(data)
    assert (record.source, record.content_type, record.reason) == ("test", "text", "unit test")


def test_prefix_collision_grows_the_id(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    first = put(store, b"first")
    # Forge a ref that claims the 6-digit prefix of `second` for other bytes.
    second_sha = hashlib.sha256(b"second").hexdigest()
    forged = store.ref_path("ctx_" + second_sha[:6])
    forged.parent.mkdir(parents=True, exist_ok=True)
    forged.write_bytes(store.ref_path(first).read_bytes())
    second = put(store, b"second")
    assert second == "ctx_" + second_sha[:7]
    assert store.load(second).data == b"second"
    assert put(store, b"second") == second


def test_accepts_marker_form_and_rejects_garbage(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    ref_id = put(store, b"x")
    assert store.load("#ref:" + ref_id).data == b"x"
    assert parse_ref_id(" ctx_abcdef\n") == "abcdef"
    with pytest.raises(InputError):
        parse_ref_id("../../etc/passwd")
    with pytest.raises(RefNotFoundError):
        store.load("ctx_000000")


def test_flipped_byte_fails_loudly_naming_the_ref(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    ref_id = put(store, b"important bytes")
    obj = store.ref_path(ref_id)
    damaged = bytearray(obj.read_bytes())
    damaged[-3] ^= 0x01
    obj.write_bytes(bytes(damaged))
    with pytest.raises(StoreCorruptionError, match=ref_id):
        store.load(ref_id)


def test_put_and_reload_reports_a_ref_that_does_not_reload_exactly(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    meta = {"source": "test", "content_type": "text", "reason": "unit test"}
    ref_id, failure = store.put_and_reload(b"important bytes", **meta)
    assert (ref_id, failure) == (put(store, b"important bytes"), None)
    obj = store.ref_path(ref_id)
    for damaged in (obj.read_bytes()[:-1] + b"!", obj.read_bytes()[:-1], obj.read_bytes() + b"!"):
        obj.write_bytes(damaged)  # already written: put keeps the file, the reload finds it damaged
        again, failure = store.put_and_reload(b"important bytes", **meta)
        assert again == ref_id
        assert failure is not None and ref_id in failure


def test_truncated_ref_fails_loudly(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    ref_id = put(store, b"0123456789")
    obj = store.ref_path(ref_id)
    obj.write_bytes(obj.read_bytes()[:-5])
    with pytest.raises(StoreCorruptionError, match=ref_id):
        store.load(ref_id)


def test_corrupt_metadata_fails_loudly(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    ref_id = put(store, b"meta")
    store.ref_path(ref_id).write_bytes(b"{not json\nmeta")
    with pytest.raises(StoreCorruptionError, match=ref_id):
        store.load(ref_id)


def test_files_are_owner_only(tmp_path: Path) -> None:
    root = tmp_path / "store"
    store = FolderStore(root)
    ref_id = put(store, b"secret-ish")
    ref_file = store.ref_path(ref_id)
    assert stat.S_IMODE(ref_file.stat().st_mode) == 0o600
    for folder in (root, root / "v1", ref_file.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert not [p for p in root.rglob(".tmp-*")]


def test_resolve_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKENLAB_STORE", str(tmp_path / "env"))
    assert open_store(tmp_path / "flag").root == tmp_path / "flag"
    assert open_store().root == tmp_path / "env"
    monkeypatch.delenv("TOKENLAB_STORE")
    assert open_store().root == Path("var") / "context"
    assert os.getcwd()


def test_new_folders_and_acknowledged_refs_are_fsynced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tokenlab.store import folder as store_module

    synced: list[Path] = []
    monkeypatch.setattr(store_module, "_fsync_dir", synced.append)
    store = FolderStore(tmp_path / "deep" / "store")
    ref_id = store.put(b"payload", source="t", content_type="text", reason="r")
    shard = store.refs_dir / ref_id[len("ctx_") :][:2]
    # every folder created on the way, through the shard, has its entry made durable
    for created in (tmp_path / "deep", tmp_path / "deep" / "store", store.refs_dir, shard):
        assert created.parent in synced
    assert shard in synced  # the ref's own link
    synced.clear()
    assert store.put(b"payload", source="t", content_type="text", reason="r") == ref_id
    assert synced == [shard]  # written by someone else or earlier: made durable before acknowledging
