"""The flat folder table of file listings: lookups, deep paths and counts by extension."""

from __future__ import annotations

from tokenlab.optimizers.file_list.folders import MAX_DEPTH, Folder, FolderTable


def test_a_folder_is_found_again_after_the_table_grows() -> None:
    table = FolderTable()
    ids = {f"src/m{n}/".encode(): table.folder_id(f"src/m{n}/".encode(), {}) for n in range(5000)}
    assert len(set(ids.values())) == 5000
    assert all(table.folder_id(path, {}, create=False) == node for path, node in ids.items())
    assert all(table.path(node) == path for path, node in ids.items())
    assert table.folder_id(b"src/none/", {}, create=False) == -1
    assert len(table) == 5002  # the top, src/ and its 5,000 folders


def test_names_below_the_depth_limit_stay_joined_in_the_last() -> None:
    table = FolderTable(b"root/")
    deep = b"root/" + b"d/" * (MAX_DEPTH + 10)
    node = table.folder_id(deep, {})
    assert table.capped
    assert table.depth(node) == MAX_DEPTH + 1
    assert table.name(node) == b"/".join([b"d"] * 10)
    assert table.path(node) == deep.removeprefix(b"root/")
    assert table.folder_id(b"elsewhere/", {}) == -1  # not under the base


def test_extensions_are_counted_directly_and_below_only_where_asked() -> None:
    table = FolderTable()
    src, lib = table.folder_id(b"src/", {}), table.folder_id(b"src/lib/", {})
    table.add(src, b".py", 2)
    table.add(lib, b".py", 3)
    table.add(lib, b".ts", 1)
    table.add(lib, b".ts", -1)  # a folder entry taken out again
    table.total()
    top = Folder(table, 0, 0)
    assert table.files[0] == 5 and top.folders_below() == 2
    assert Folder(table, src, 0).extensions() == {b".py": 5}
    assert Folder(table, src, 0).direct == {b".py": 2}
    assert Folder(table, lib, 0).direct == {b".py": 3}
    assert table.extensions() == {b".py": 5}
    assert list(top.children) == [b"src"] and top.collapsed().path == b"src/"
