"""Long listings (`ls -l`, `ls -laR`) and `tree` drawings: recognised, summarised, restored."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Golden, render_preview
from tokenlab.classify import classify
from tokenlab.optimizers import ContentType, Granularity, OptimizerConfig
from tokenlab.optimizers.file_list.long_listing import (
    looks_like_counted_long_listing,
    looks_like_long_listing,
    looks_like_tree,
    optimize_long,
    tree_paths,
)
from tokenlab.optimizers.file_list.optimizer import optimize
from tokenlab.optimizers.text import optimizer as text
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import open_store

COARSE = OptimizerConfig(Granularity.COARSE)
FINE = OptimizerConfig(Granularity.FINE)


def _entry(mode: str, size: int, name: str, links: int = 1) -> str:
    return f"{mode} {links:2d} root root {size:6d} Apr 28  2025 {name}\n"


def _block(header: str | None, files: list[tuple[str, int]], folders: list[str], extra: str = "") -> str:
    lines = [f"{header}:\n"] if header is not None else []
    lines.append(f"total {sum(size for _name, size in files) // 1024}\n")
    lines += [_entry("drwxr-xr-x", 4096, "."), _entry("drwxr-xr-x", 4096, "..")]
    lines += [_entry("drwxr-xr-x", 4096, name, 2) for name in folders]
    lines += [_entry("-rw-r--r--", size, name) for name, size in files]
    return "".join(lines) + extra


def _ls_l_one_folder() -> bytes:
    files = [(f"module_{i:02d}.py", 1000 + 37 * i) for i in range(50)] + [("README.md", 812), ("big.db", 9_000_000)]
    extra = _entry("-rwxr-xr-x", 2048, "run.sh") + _entry("lrwxrwxrwx", 9, "latest -> big.db")
    return _block(None, files, ["docs", "tests", "__pycache__"], extra).encode()


def _ls_lar() -> bytes:
    blocks = [
        _block("/srv/app", [("Makefile", 900), ("pyproject.toml", 1200)], ["src", "docs"]),
        _block("/srv/app/docs", [(f"page_{i}.md", 3000 + i) for i in range(30)], []),
        _block("/srv/app/src", [("main.py", 5000)], ["pkg"]),
        _block("/srv/app/src/pkg", [(f"m{i}.py", 800 * i) for i in range(8)], []),
    ]
    return ("\n".join(blocks) + "ls: cannot open directory '/srv/app/secret': Permission denied\n").encode()


def test_golden_ls_l(golden: Golden) -> None:
    golden.check("long_listing/ls_l.txt", render_preview(optimize(_ls_l_one_folder(), FINE)))


def test_golden_ls_lar(golden: Golden) -> None:
    golden.check("long_listing/ls_laR.txt", render_preview(optimize(_ls_lar(), FINE)))


def test_ls_l_names_entries_largest_and_notable() -> None:
    text = render_preview(optimize(_ls_l_one_folder(), COARSE))
    assert text.startswith("ls -l listing: 3 folders, 53 files, 1 symlink,")
    assert "largest: big.db (8.6 MiB)" in text
    assert "README.md" in text and "run.sh" in text and "latest -> big.db" in text
    assert "module_49.py" in text  # 57 entries: all fit, so all are named
    assert "\ntotal 8882\n" in text  # one folder: ls's own total stays
    assert "root root" not in text and "Apr 28" not in text


def test_ls_lar_keeps_every_folder_header_and_error_lines() -> None:
    text = render_preview(optimize(_ls_lar(), COARSE))
    for header in ("/srv/app:", "/srv/app/docs:", "/srv/app/src:", "/srv/app/src/pkg:"):
        assert f"\n{header} " in text
    assert "ls: cannot open directory '/srv/app/secret': Permission denied\n" in text
    assert "/srv/app/src/pkg: 8 files, 21.9 KiB\n  m0.py, m1.py" in text
    assert "total " not in text and "root root" not in text


def test_folders_past_the_line_budget_are_named_together() -> None:
    data = "\n".join(_block(f"/d/f{i:03d}", [("a.txt", 10)], []) for i in range(150)).encode()
    text = render_preview(optimize(data, FINE))
    assert "other folders under /d/ (30, 30 entries):\n  f120, f121," in text
    assert text.count(" 1 file, 10 B") == 120


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_refs_cover_the_listing_exactly(granularity: Granularity) -> None:
    data = b"\n" + _ls_lar()
    result = optimize(data, OptimizerConfig(granularity))
    joined = sorted(omission.data for omission in result.omissions)
    if granularity is Granularity.COARSE:
        assert joined == [data]
    else:
        assert sum(len(part) for part in joined) == len(data)
        assert all(part in data for part in joined)


def test_classify_recognises_ls_l_and_tree_but_not_logs_or_text() -> None:
    assert classify(_ls_l_one_folder()).content_type is ContentType.FILELIST
    assert classify(_ls_lar()).content_type is ContentType.FILELIST
    assert classify(_tree()).content_type is ContentType.FILELIST
    log = b"".join(b"Apr 28 12:00:%02d host app[42]: request %d done\n" % (i % 60, i) for i in range(50))
    prose = b"Total 12 items were read.\nThe -rw-r--r-- mode means read-only for others.\n" * 10
    assert classify(log).content_type is not ContentType.FILELIST
    assert classify(prose).content_type is not ContentType.FILELIST
    assert not looks_like_long_listing(prose) and not looks_like_tree(prose)


def _tree() -> bytes:
    lines = ["/srv/app"]
    lines += ["├── Makefile", "├── docs"] + [f"│   ├── page_{i}.md" for i in range(20)] + ["│   └── index.md"]
    lines += ["├── src", "│   └── pkg"] + [f"│       ├── m{i}.py" for i in range(20)] + ["│       └── z.py"]
    lines += ["└── README.md", "", "3 directories, 44 files"]
    return ("\n".join(lines) + "\n").encode()


def test_tree_drawing_becomes_a_folder_tree() -> None:
    first, paths, last = tree_paths(_tree())
    assert (first, last) == (b"/srv/app", b"3 directories, 44 files")
    assert b"src/pkg/m3.py\n" in paths and b"docs\n" not in paths
    text = render_preview(optimize(_tree(), COARSE))
    assert text.startswith("tree of /srv/app\n44 files in 3 folders under ./")
    assert "src/pkg/ (21 files: m{0…19}.py, z.py)" in text
    assert "top-level files (2): Makefile, README.md" in text
    assert text.endswith("3 directories, 44 files\n")


@pytest.mark.parametrize("make", [_ls_l_one_folder, _ls_lar, _tree], ids=["ls_l", "ls_laR", "tree"])
@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_analyze_then_restore_is_byte_exact(make: object, granularity: Granularity) -> None:
    data = make().replace(b"\n", b"\r\n") if granularity is Granularity.FINE else make()  # type: ignore[operator]
    store = open_store()
    packet = analyze(data, source="listing", store=store, config=OptimizerConfig(granularity))
    assert packet.content_type is ContentType.FILELIST
    assert packet.recovery_status.value == "PASS", packet.recovery_failures
    assert restore(packet.visible.encode("utf-8"), store) == data


_LINE = st.sampled_from(
    ["total 8", "", "/a:", "/a/b:", "drwxr-xr-x 2 u g 4096 Jan  1 12:00 b",
     "-rwxr-xr-x 1 u g 12K 2024-01-01 12:00 x -> y", "crw-rw-rw- 1 u g 1, 3 Jan  1  2024 null",
     "ls: cannot access", "├── a", "│   └── b.py", "-rw-r--r-- 1 u g 5 Jan 1 12:00 é\r", ".:"]
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINE, min_size=40, max_size=120), st.sampled_from(list(Granularity)))
def test_generated_long_listings_never_raise_and_stay_covered(lines: list[str], granularity: Granularity) -> None:
    data = "\n".join(lines).encode()
    result = optimize(data, OptimizerConfig(granularity))
    render_preview(result)
    if data.count(b"\n") < 40:
        assert result.parts == (data.decode(),)
    elif granularity is Granularity.COARSE:
        assert [omission.data for omission in result.omissions] == [data]
    else:
        assert sum(len(omission.data) for omission in result.omissions) in (0, len(data))


def test_special_permissions_come_first_as_listed_and_symlinks_name_their_targets() -> None:
    rows = [f"-rwxr-xr-x  1 root root   {1000 + i:6} Apr  7  2025 \x1b[01;32mtool{i:03}\x1b[0m" for i in range(60)]
    rows[10] = "-rwsr-xr-x  1 root root    68248 Apr  7  2025 \x1b[37;41mpasswd\x1b[0m"
    rows[20] = "-rwxr-sr-x  1 root shadow  80376 Apr  7  2025 chage"
    rows[30] = "-rw-rw-rw-  1 root root      120 Apr  7  2025 notes.txt"
    rows[40] = "lrwxrwxrwx  1 root root       10 Apr  9  2023 \x1b[01;36mpython3\x1b[0m -> python3.11"
    data = ("total 9000\n" + "\n".join(rows) + "\n").encode()
    shown = render_preview(optimize(data, OptimizerConfig()))
    lines = shown.splitlines()
    special = lines.index("special permissions (setuid, setgid, world-writable):")
    assert lines[special + 1 : special + 4] == [
        "-rwsr-xr-x  1 root root    68248 Apr  7  2025 passwd",
        "-rwxr-sr-x  1 root shadow  80376 Apr  7  2025 chage",
        "-rw-rw-rw-  1 root root      120 Apr  7  2025 notes.txt",
    ]
    assert "python3 -> python3.11" in shown and "\x1b" not in shown


def _find_ls() -> bytes:
    """`find . -ls`: inode, blocks, mode, links, owner, group, size, date, path."""
    rows = [("drwxr-xr-x", 4096, "."), ("drwxr-xr-x", 4096, "./src"), ("-rw-r--r--", 260, "./src/lib.rs")]
    rows += [("-rw-r--r--", 2300 + i, f"./src/m{i:02d}.rs") for i in range(20)]
    rows += [("drwxr-xr-x", 4096, "./target"), ("drwxr-xr-x", 4096, "./target/debug")]
    rows += [("-rw-r--r--", 7000 + 13 * i, f"./target/debug/deps/obj_{i:x}{i * 7919:x}.o") for i in range(40)]
    rows += [("-rw-r--r--", 900, "./Cargo.toml"), ("-rw-r--r--", 12000, "./Cargo.lock")]
    return "".join(
        f"{3107000 + at:9d} {max(size // 1024, 4):6d} {mode} {1:3d} root     root     {size:8d} Dec  1 18:27 {path}\n"
        for at, (mode, size, path) in enumerate(rows)
    ).encode()


def test_rows_led_by_inode_and_blocks_are_a_long_listing_of_their_own() -> None:
    """`find -ls` and `ls -lis` rows: not the `ls -l` shape the file list sniffs, but read
    by the same summariser (through the text optimizer)."""
    ls_lis = b"".join(b"%8d %4d " % (100 + i, 4) + _entry("-rw-r--r--", 10 * i, f"f{i}.txt").encode() for i in range(5))
    for data in (_find_ls(), ls_lis):
        assert looks_like_counted_long_listing(data) and not looks_like_long_listing(data)
    assert not looks_like_counted_long_listing(_ls_l_one_folder())


def test_find_ls_names_each_folder_and_its_paths() -> None:
    view = render_preview(text.optimize(_find_ls(), COARSE))
    assert view.startswith("find -ls listing: 4 folders, 63 files")
    assert "./src: 21 files" in view and "./src/lib.rs" in view and "./src/m00.rs" in view
    assert "./Cargo.toml" in view and "./Cargo.lock" in view and "./target/debug" in view
    assert "./target/debug/deps: 40 files" in view and "largest: ./target/debug/deps/" in view
    assert "obj_0" not in view  # 40 hashed objects: only the largest are named
    assert len(view) < len(_find_ls()) * 0.3


def test_find_ls_blocks_gather_rows_apart_exactly() -> None:
    """A folder's rows are not contiguous in `find` output: its FINE ref holds them, in order."""
    data = _find_ls()
    refs = [omission.data for omission in optimize_long(data, FINE).omissions]
    src = b"".join(line + b"\n" for line in data.split(b"\n") if b" ./src/" in line)
    assert src in refs


def test_a_folder_whose_names_are_short_names_them_all() -> None:
    """Thirty short names cost less than three `largest` entries with their sizes."""
    block = _block("/srv/docs", [(f"p{i}.md", 100 + i) for i in range(30)], [])
    view = render_preview(optimize((block + _block("/srv", [("a", 1)], ["docs"])).encode(), COARSE))
    assert "p0.md" in view and "p29.md" in view


def test_find_ls_capture_shows_its_signals() -> None:
    name = Path(__file__).parent.parent / "fixtures/real/find_ls_cargo_project.txt"
    view = render_preview(text.optimize(name.read_bytes(), COARSE))
    signals = Path(f"{name}.signals").read_text().splitlines()
    assert [signal for signal in signals if signal not in view] == []


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_find_ls_analyze_then_restore_is_byte_exact(granularity: Granularity) -> None:
    store = open_store()
    packet = analyze(_find_ls(), source="find", store=store, config=OptimizerConfig(granularity))
    assert packet.recovery_status.value == "PASS", packet.recovery_failures
    assert restore(packet.visible.encode("utf-8"), store) == _find_ls()
