"""File-list optimizer: tree shape, named files, full coverage by refs, hostile input."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Golden, render_preview
from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, OptimizeResult
from tokenlab.optimizers.file_list import parse as file_list_parse
from tokenlab.optimizers.file_list.folders import FolderTable
from tokenlab.optimizers.file_list.optimizer import (
    DEFAULT_LIMITS,
    FileListConfig,
    looks_like_file_list,
    optimize,
)

FIXTURES = Path(__file__).parent.parent / "fixtures"
COARSE = OptimizerConfig(Granularity.COARSE)
FINE = OptimizerConfig(Granularity.FINE)


def _listing(paths: list[str], prefix: str = "", newline: str = "\n") -> bytes:
    return "".join(f"{prefix}{path}{newline}" for path in paths).encode()


def _project(count: int = 60) -> list[str]:
    paths = ["README.md", "pyproject.toml", "Makefile", ".gitignore"]
    paths += [f"src/pkg/module_{i}.py" for i in range(count)]
    paths += [f"tests/test_{i}.py" for i in range(count // 2)]
    paths += [f"docs/page_{i}.md" for i in range(10)] + ["docs/conf.py"]
    paths += [".github/workflows/ci.yml", "deploy/docker/Dockerfile"]
    return paths


def _omitted_lines(result: OptimizeResult) -> Counter[bytes]:
    lines: Counter[bytes] = Counter()
    for omission in result.omissions:
        lines.update(omission.data.splitlines())
    return lines


def _assert_fine_covers(data: bytes, result: OptimizeResult) -> None:
    """Every original line is in exactly one FINE ref or, outside every ref, shown as
    printed; each ref in original order."""
    lines = Counter(data.splitlines())
    omitted = _omitted_lines(result)
    assert not omitted - lines, "a ref holds a line the listing does not"
    shown = Counter(render_preview(result).splitlines())
    assert all(shown[line.decode("utf-8", "replace")] >= count for line, count in (lines - omitted).items())
    for omission in result.omissions:
        remaining = iter(data.splitlines())
        assert all(line in remaining for line in omission.data.splitlines()), "out of listing order"
    if omitted == lines:
        assert b"".join(omission.data for omission in result.omissions).count(b"\n") == data.count(b"\n")


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_golden_fixture(golden: Golden, granularity: Granularity) -> None:
    data = (FIXTURES / "files.txt").read_bytes()
    result = optimize(data, OptimizerConfig(granularity))
    golden.check(f"file_list/files_{granularity.value}.txt", render_preview(result))


@pytest.mark.parametrize(
    "case,paths,prefix,newline",
    [
        ("git_ls_files", _project(), "", "\n"),
        ("find_dot_crlf", _project(), "./", "\r\n"),
        ("absolute_root", _project(), "/srv/app/", "\n"),
    ],
)
def test_golden_small_trees(golden: Golden, case: str, paths: list[str], prefix: str, newline: str) -> None:
    data = _listing(paths, prefix, newline)
    golden.check(f"file_list/{case}.txt", render_preview(optimize(data, FINE)))


def test_fixture_signals_survive_both_granularities() -> None:
    for name in (
        "files.txt",
        "real/find_listing.txt",
        "real/tsc_listfiles.log",
        "real/tree_L3_js_project.txt",
    ):
        data = (FIXTURES / name).read_bytes()
        signals = (FIXTURES / f"{name}.signals").read_text().splitlines()
        for config in (COARSE, FINE):
            text = render_preview(optimize(data, config))
            assert [signal for signal in signals if signal not in text] == []


def test_notable_files_keep_their_full_path_and_skip_vendored_ones() -> None:
    paths = _project() + [f"node_modules/lib{i}/package.json" for i in range(30)]
    text = render_preview(optimize(_listing(paths, "./"), COARSE))
    for notable in (
        "./README.md",
        "./pyproject.toml",
        "./.github/workflows/ci.yml",
        "./deploy/docker/Dockerfile",
    ):
        assert f"  {notable}\n" in text
    assert "node_modules/lib3/package.json" not in text
    assert "node_modules/ (30 files: 30 .json)" in text


def test_counts_per_folder_and_extension() -> None:
    counts_only = FileListConfig(max_named_chars=0)  # names said only where no longer than counts
    text = render_preview(optimize(_listing(_project()), COARSE, counts_only))
    assert text.startswith("107 files in 8 folders under ./ (91 .py, 11 .md, 3 no ext, 1 .toml, 1 .yml)")
    assert "src/pkg/ (60 files: 60 .py)" in text
    assert "docs/ (11 files: 10 .md, 1 .py)" in text
    assert "top-level files (4): .gitignore, Makefile, README.md, pyproject.toml\n" in text


def _stdlib_like(top: int) -> list[str]:
    """A listing in `find` order: top-level modules between package folders."""
    paths = []
    for i in range(top):
        paths.append(f"mod_{i:03d}.py")
        if i % 10 == 0:
            paths += [f"pkg{i}/__init__.py", f"pkg{i}/__pycache__/__init__.cpython-311.pyc"]
    return paths


@pytest.mark.parametrize("prefix", ["./", ""], ids=["dot_slash", "bare"])
def test_all_top_level_files_are_named_sorted_when_they_fit(prefix: str) -> None:
    paths = list(reversed(_stdlib_like(169)))
    text = render_preview(optimize(_listing(paths, prefix), COARSE))
    assert f"top-level files (169): {prefix}mod_000.py, {prefix}mod_001.py, {prefix}mod_002.py," in text
    named = re.findall(r"(?:\./)?mod_\d{3}\.py", text[text.index("top-level files") :])
    assert named == [f"{prefix}mod_{i:03d}.py" for i in range(169)]  # as the tool printed them
    assert max(len(line) for line in text.splitlines()[:-1]) <= 110  # several names a line


@pytest.mark.parametrize("prefix", ["./", ""], ids=["dot_slash", "bare"])
def test_too_many_top_level_files_name_the_first_and_count_the_rest(prefix: str) -> None:
    text = render_preview(optimize(_listing(_stdlib_like(250), prefix), FINE))
    line = text[text.index("top-level files") :]
    assert line.startswith(f"top-level files (250): {prefix}mod_000.py, {prefix}mod_001.py,")
    assert f"{prefix}mod_019.py, … 230 more #ref:ctx_" in line
    assert "mod_020.py" not in line


def test_folder_entries_from_find_are_not_counted_as_files() -> None:
    paths = [".", "./src", "./src/pkg"] + [f"./src/pkg/m{i}.py" for i in range(50)]
    text = render_preview(optimize(_listing(paths), COARSE))
    assert text.startswith("50 files in 0 folders under src/pkg/ (50 .py)")


def test_coarse_puts_the_whole_listing_behind_one_ref() -> None:
    data = (FIXTURES / "files.txt").read_bytes()
    result = optimize(data, COARSE)
    assert [omission.data for omission in result.omissions] == [data]


def test_fine_gives_one_ref_per_folded_folder_covering_every_line() -> None:
    data = (FIXTURES / "files.txt").read_bytes()
    result = optimize(data, FINE)
    assert sum(1 for _ in result.omissions) > 20
    _assert_fine_covers(data, result)
    text = render_preview(result)
    assert "apps/web/src/components/ (500 files: 394 .tsx, 106 .ts) #ref:ctx_" in text


def test_fine_covers_blank_lines_folder_entries_and_missing_final_newline() -> None:
    data = b"./\n.\n\n./src\n" + _listing([f"src/a{i}.c" for i in range(60)], "./") + b"  \n./b/x.h"
    result = optimize(data, FINE)
    _assert_fine_covers(data, result)
    assert "lines outside the tree: #ref:ctx_" in render_preview(result)


def test_small_listing_stays_verbatim() -> None:
    data = _listing(["a/b.py", "c/d.py", "README.md"])
    assert optimize(data, COARSE).parts == (data.decode(),)
    assert optimize(b"", COARSE).parts == ()


def test_big_listing_saves_most_of_its_size() -> None:
    data = (FIXTURES / "files.txt").read_bytes()
    assert len(render_preview(optimize(data, COARSE))) < len(data) / 20


def test_limits_are_configurable() -> None:
    data = (FIXTURES / "files.txt").read_bytes()
    tight = FileListConfig(max_tree_lines=10, max_notable=3, max_depth=1)
    text = render_preview(optimize(data, COARSE, tight))
    assert text.count("\n") < 30
    assert "more notable files" in text


HOSTILE = {
    "invalid_utf8": b"".join(b"src/\xff\xfe%d.py\n" % i for i in range(60)),
    "latin1": "".join(f"données/café_{i}.txt\n" for i in range(60)).encode("latin-1"),
    "nul_bytes": b"".join(b"a\x00/b%d\x00.c\n" % i for i in range(60)),
    "ansi": b"".join(b"\x1b[34msrc/\x1b[0mf%d.py\n" % i for i in range(60)),
    "crlf_only": b"\r\n" * 100,
    "slashes_only": b"/\n" * 100 + b"//\n" * 50,
    "dots": b".\n..\n./\n../\n" * 30,
    "deep_path": b"\n".join([b"a/" * 100_000 + b"x.py"] * 45),
    "huge_line": b"x" * 5_000_000 + b"\n" + b"a/b.c\n" * 50,
    "huge_line_no_newline": b"a/b.c\n" * 50 + b"y/" * 1_000_000,
    "dotted_line": b"a." * 1_000_000 + b"\n" * 50,
}


@pytest.mark.parametrize("name", HOSTILE)
@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_hostile_input_never_raises_and_stays_covered(name: str, granularity: Granularity) -> None:
    data = HOSTILE[name]
    result = optimize(data, OptimizerConfig(granularity))
    text = render_preview(result)
    assert isinstance(text, str)
    if granularity is Granularity.FINE and data.count(b"\n") >= 40:
        _assert_fine_covers(data, result)
    if granularity is Granularity.COARSE and data.count(b"\n") >= 40:
        assert [omission.data for omission in result.omissions] == [data]


_SEGMENT = st.sampled_from(["src", "lib", "a", ".git", "node_modules", "x.y", "README.md", "", "..", "é"])
_PATH = st.lists(_SEGMENT, min_size=1, max_size=6).map("/".join)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_PATH, min_size=40, max_size=120),
    st.sampled_from(["", "./", "/root/"]),
    st.sampled_from(["\n", "\r\n"]),
)
def test_generated_listings_are_fully_covered(paths: list[str], prefix: str, newline: str) -> None:
    data = _listing(paths, prefix, newline)
    _assert_fine_covers(data, optimize(data, FINE))
    assert [omission.data for omission in optimize(data, COARSE).omissions] == [data]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=4000), st.sampled_from(list(Granularity)))
def test_optimize_never_raises_on_arbitrary_bytes(data: bytes, granularity: Granularity) -> None:
    result = optimize(data, OptimizerConfig(granularity))
    assert all(isinstance(part, str | Omission) for part in result.parts)
    looks_like_file_list(data)


def test_looks_like_file_list_accepts_listings() -> None:
    assert looks_like_file_list((FIXTURES / "files.txt").read_bytes())
    assert looks_like_file_list((FIXTURES / "real/find_listing.txt").read_bytes())
    assert looks_like_file_list(_listing(_project(), "", "\r\n"))
    assert looks_like_file_list(_listing(["My Documents/report final.docx"] * 3 + ["a/b.txt"] * 5))


@pytest.mark.parametrize(
    "data",
    [
        b"2024-05-01 12:00:00 INFO request handled in 12ms\n" * 20,
        b"The quick brown fox jumps over the lazy dog.\nIt was a sunny day.\n" * 10,
        b'{"id": 1, "status": "ok"}\n' * 10,
        b"diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
        b"name,age,city\nalice,30,paris\nbob,25,rome\ncarol,41,oslo\ndave,33,lima\n",
        b"1\n2\n3\n4\n5\n6\n7\n8\n",
        b"a/b.py\nc/d.py\n",
        b"",
    ],
    ids=["log", "prose", "json_lines", "diff", "csv", "numbers", "too_short", "empty"],
)
def test_looks_like_file_list_rejects_other_content(data: bytes) -> None:
    assert not looks_like_file_list(data)


def _notable_by_pattern(data: bytes, limits: FileListConfig) -> list[tuple[int, int]]:
    """The definition of a notable line as one regex: slow on big listings, plain to read."""
    names = b"|".join(re.escape(name.encode()) for name in limits.notable_names)
    prefixes = b"|".join(re.escape(prefix.encode()) for prefix in limits.notable_prefixes)
    workflow = rb"\.github/workflows/[^/\n]+"
    pattern = re.compile(
        rb"(?:^|(?<=[/\n]))(?:" + names + rb"|(?:" + prefixes + rb")[^/\n]*|" + workflow + rb")\r?$",
        re.MULTILINE,
    )
    spans = []
    for match in pattern.finditer(data):
        line_start = data.rfind(b"\n", 0, match.start()) + 1
        if not spans or spans[-1][0] != line_start:
            spans.append((line_start, match.end()))
    return spans


_PATH_PART = st.sampled_from(
    ["src", "a", "README.md", "README", "Makefile", "Makefile\r", "LICENSE", ".github/workflows",
     ".github", "workflows", "ci.yml", "node_modules", "package.json", "x.py", "docker-compose.yml",
     "", "\r", ".", "requirements-dev.txt"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(_PATH_PART, min_size=1, max_size=5).map("/".join), max_size=40),
    st.sampled_from(["", "./"]),
    st.integers(min_value=1, max_value=64),
)
def test_notable_lines_are_those_the_pattern_defines(paths: list[str], prefix: str, chunk_bytes: int) -> None:
    data = "\n".join(prefix + path for path in paths).encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(file_list_parse, "_CHUNK_BYTES", chunk_bytes)  # many slices, cut between lines
        found, _entries = file_list_parse._scan_lines(data, FolderTable(), DEFAULT_LIMITS)
    assert found == _notable_by_pattern(data, DEFAULT_LIMITS)


REAL_LISTINGS = ["tsc_listfiles.log", "tree_L3_js_project.txt"]


@pytest.mark.parametrize("name", REAL_LISTINGS)
@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_golden_real_listings(golden: Golden, name: str, granularity: Granularity) -> None:
    data = (FIXTURES / "real" / name).read_bytes()
    result = optimize(data, OptimizerConfig(granularity))
    golden.check(f"file_list/{name.partition('.')[0]}_{granularity.value}.txt", render_preview(result))
    if granularity is Granularity.FINE:
        _assert_fine_covers(data, result)


def _own_and_vendored(own: list[str]) -> list[str]:
    """A project's own files among 300 paths of tool state, vendored and built files."""
    paths = [f"node_modules/pkg{i}/lib/index{j}.js" for i in range(40) for j in range(5)]
    paths += [f".git/objects/{i:02x}/obj" for i in range(60)] + [f"dist/out{i}.js" for i in range(40)]
    return paths[:150] + own + paths[150:]


def test_few_own_lines_are_shown_as_printed_and_set_aside_runs_folded() -> None:
    own = ["ts/m1.ts", "ts/m2.ts", "src/calc.js", "package.json"]
    data = _listing(_own_and_vendored(own), "./")
    result = optimize(data, FINE)
    text = render_preview(result)
    for path in own:
        assert f"\n./{path}\n" in text
    assert "./node_modules/ (150 paths: 150 .js) #ref:ctx_" in text
    assert "./.git/objects/ (60 paths: 60 no ext) #ref:ctx_" in text
    assert "./dist/ (40 paths: 40 .js) #ref:ctx_" in text
    assert "pkg3" not in text and "out7.js" not in text
    _assert_fine_covers(data, result)
    assert [omission.data for omission in optimize(data, COARSE).omissions] == [data]


def test_many_own_lines_fall_back_to_the_summary() -> None:
    own = [f"src/module_{i}.py" for i in range(DEFAULT_LIMITS.max_tree_lines + 1)]
    text = render_preview(optimize(_listing(_own_and_vendored(own)), COARSE))
    assert "src/module_1.py" not in text
    assert "src/ (61 files: module_{0…60}.py)" in text
    assert "node_modules/ (200 files: 200 .js)" in text


def test_own_lines_are_not_shown_when_set_aside_folders_hold_little() -> None:
    own = [f"src/m{i}.py" for i in range(30)] + [f"lib/{word}.py" for word in ("a", "b", "c", "d", "e")]
    paths = own + [f"node_modules/x/f{i}.js" for i in range(20)]
    text = render_preview(optimize(_listing(paths), COARSE))
    assert "tree (files counted recursively" in text and "\nsrc/m1.py\n" not in text


def test_a_folder_names_its_files_when_they_say_as_briefly_as_its_counts() -> None:
    paths = [f"src/pkg/module_{i}.py" for i in range(80)] + [f"ts/m{i}.ts" for i in range(1, 7)]
    paths += ["docs/index.md", "docs/guide.md", "docs/conf.py"]
    paths += [f"data/{word * 3}_{word}.csv" for word in ("alpha", "beta", "gamma", "delta", "epsilon")]
    text = render_preview(optimize(_listing(paths), COARSE))
    assert "  ts/ (6 files: m{1…6}.ts)\n" in text
    assert "  src/pkg/ (80 files: module_{0…79}.py)\n" in text
    assert "  docs/ (3 files: conf.py, guide.md, index.md)\n" in text
    assert "  data/ (5 files: 5 .csv)\n" in text  # the names would take over 80 characters


def test_set_aside_folders_keep_their_counts() -> None:
    paths = [f"src/module_{i}.py" for i in range(70)] + ["node_modules/left-pad/index.js"]
    paths += ["dist/app.js", "dist/app.css", ".cache/x.bin", "venv/bin/python", ".github/workflows/ci.yml"]
    text = render_preview(optimize(_listing(paths), COARSE))
    assert "  node_modules/left-pad/ (1 file: 1 .js)\n" in text
    assert "  dist/ (2 files: 1 .css, 1 .js)\n" in text
    assert "  .cache/ (1 file: 1 .bin)\n" in text
    assert "  venv/bin/ (1 file: 1 no ext)\n" in text
    assert "  .github/workflows/ (1 file: ci.yml)\n" in text  # the project's own configuration


def test_files_directly_in_an_expanded_folder_are_named() -> None:
    paths = [f"app/src/m{i}.py" for i in range(60)] + ["app/README.md", "app/setup.cfg"]
    paths += [f"app/tests/t{i}.py" for i in range(10)] + ["docs/index.md"]
    text = render_preview(optimize(_listing(paths), COARSE))
    assert "(2 files directly in app/: README.md, setup.cfg)" in text


def test_folder_entries_printed_by_find_are_not_named_as_files() -> None:
    paths = [".", "./src", "./src/pkg", "./src/pkg/sub"] + [f"./src/pkg/m{i}.py" for i in range(50)]
    paths += ["./src/pkg/sub/a.py", "./lib", "./lib/b.py"]
    text = render_preview(optimize(_listing(paths), COARSE))
    assert "src/pkg/sub/ (1 file: a.py)" in text
    assert "(50 files directly in src/pkg/: m{0…49}.py)" in text  # not "sub"
    assert "lib/ (1 file: b.py)" in text


def _drawing(entries: list[tuple[int, str]], ascii_only: bool = False) -> bytes:
    """A `tree` drawing of (depth, name) entries, every entry drawn as a middle child."""
    indent, connector = ("|   ", "|-- ") if ascii_only else ("│   ", "├── ")
    lines = ["."] + [indent * depth + connector + name for depth, name in entries]
    return ("\n".join(lines) + "\n\n3 directories, 9 files\n").encode()


@pytest.mark.parametrize("ascii_only", [False, True], ids=["unicode", "ascii"])
def test_a_drawing_keeps_its_own_entries_and_folds_set_aside_folders(ascii_only: bool) -> None:
    vendored = [(1, f"pkg{i}") for i in range(30)] + [(2, f"index{i}.js") for i in range(30)]
    entries = [(0, "node_modules"), *vendored, (0, "src"), (1, "calc.js"), (0, "tsconfig.json")]
    data = _drawing(entries, ascii_only)
    result = optimize(data, FINE)
    text = render_preview(result)
    connector = "|-- " if ascii_only else "├── "
    for name in ("node_modules", "src", "tsconfig.json"):
        assert f"\n{connector}{name}\n" in text
    assert f"{connector}calc.js\n" in text and "pkg3" not in text
    assert "… 60 entries folded (30 no ext, 30 .js) #ref:ctx_" in text
    assert text.endswith("\n3 directories, 9 files\n")
    _assert_fine_covers(data, result)


@given(st.lists(st.sampled_from([b"", b" ", b"\t \r", b"\r", b"\r\r", b"a", b" a", b"src/a.c\r"]), max_size=30), st.data())
def test_blank_lines_are_counted_in_any_line_aligned_slice(lines: list[bytes], draw: st.DataObject) -> None:
    data = b"\n".join(lines)
    starts = [0] + [at + 1 for at, byte in enumerate(data) if byte == ord("\n")]
    start = draw.draw(st.sampled_from(starts))
    end = draw.draw(st.integers(start, len(data)))
    blank = sum(1 for line in data[start:end].split(b"\n") if re.fullmatch(rb"[ \t]*\r?", line))
    assert file_list_parse._blank_lines(data, start, end) == blank
