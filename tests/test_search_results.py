"""Tests for the search results optimizer: each tool's form classified, files named with
their counts, definitions before uses and sources before tests, hits folded by file, and
every byte restorable."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Golden, render_preview
from tokenlab.classify import classify
from tokenlab.optimizers import ContentType, Granularity, Omission, OptimizerConfig
from tokenlab.optimizers.lines.shown import folder_list, located_files, not_shown
from tokenlab.optimizers.search_results.names import (
    Definitions,
    Kind,
    SearchedName,
    Strength,
    kind_of,
    searched_name,
)
from tokenlab.optimizers.search_results.optimizer import optimize, optimize_search_results
from tokenlab.optimizers.search_results.parse import Form, SearchLimits, form_of, lines_of, parse
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import open_store

REAL = Path(__file__).parent.parent / "fixtures" / "real"
COARSE = OptimizerConfig()
CAPTURES = sorted(
    path.name
    for path in [*REAL.glob("*.txt"), *REAL.glob("*.json")]
    if path.name.startswith(("grep_", "git_grep_", "rg_", "ack_", "cscope_"))
)
# Hits of `parse_config` in a small tree: one definition among uses, tests and docs.
TREE = [
    ("tests/test_config.py", "from app.config import parse_config"),
    ("tests/test_config.py", "    assert parse_config('x') == {}"),
    ("README.md", "Call `parse_config(path)` to read the file."),
    ("app/cli.py", "from app.config import parse_config"),
    ("app/cli.py", "    settings = parse_config(args.config)"),
    ("app/config.py", "def parse_config(path: str) -> dict:"),
    ("app/config.py", "    return parse_config_text(open(path).read())"),
    ("tests/test_config.py", "def parse_config_stub():"),
]


def grep_n(hits: list[tuple[str, str]], *, repeat: int = 1) -> bytes:
    lines = [f"{path}:{10 * at + 1}:{text}" for _ in range(repeat) for at, (path, text) in enumerate(hits)]
    return ("\n".join(lines) + "\n").encode()


ALWAYS = SearchLimits(verbatim_bytes=0)  # short inputs too


def preview(data: bytes, limits: SearchLimits = ALWAYS) -> str:
    return render_preview(optimize_search_results(data, limits))


# --- classification -------------------------------------------------------------------


RG_HEADING = b"""app/config.py
12:def parse_config(path: str) -> dict:
40:    return parse_config(path)

tests/test_config.py
3:from app.config import parse_config
9:    assert parse_config('x') == {}
"""
GREP_CONTEXT = b"""app/config.py-11-
app/config.py:12:def parse_config(path: str) -> dict:
app/config.py-13-    text = read(path)
--
app/my-cli.py-4-import sys
app/my-cli.py:5:from app.config import parse_config
app/my-cli.py-6-
app/my-cli.py:7:settings = parse_config(sys.argv[1])
"""
GREP_COUNTS = b"app/config.py:2\napp/cli.py:0\ntests/test_config.py:3\nREADME.md:0\n"
# `rg --color=always -n` and `grep --color=always -rn`, as printed.
COLOURED = (
    b"\x1b[0m\x1b[35mtests/test_text.py\x1b[0m:\x1b[0m\x1b[32m43\x1b[0m:"
    b"    t = \x1b[1m\x1b[31mrender_preview\x1b[0m(r)\n"
    b"\x1b[0m\x1b[35mtests/test_text.py\x1b[0m:\x1b[0m\x1b[32m85\x1b[0m:"
    b"    u = \x1b[1m\x1b[31mrender_preview\x1b[0m(r)\n"
    b"\x1b[35m\x1b[Ktests/conftest.py\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[32m\x1b[K42\x1b[m\x1b[K\x1b[36m\x1b[K:"
    b"\x1b[m\x1b[K\x1b[01;31m\x1b[Kdef render_preview\x1b[m\x1b[K(result: OptimizeResult) -> str:\n"
)
GREP_PLAIN = b"app/config.py:def parse_config(p):\napp/cli.py:s = parse_config(a)\nt/t.py:parse_config(1)\n"
# `git grep -n -W`: the enclosing function as context, its first line marked `=`, far from the hit.
GIT_GREP_W = (
    b"app/cli.py=3=def main(argv):\n"
    + b"".join(f"app/cli.py-{n}-    step_{n}()\n".encode() for n in range(4, 40))
    + b"app/cli.py:40:    settings = parse_config(argv[1])\n"
    + b"".join(f"app/cli.py-{n}-    after_{n}()\n".encode() for n in range(41, 60))
    + b"--\napp/config.py:12:def parse_config(path: str) -> dict:\napp/config.py-13-    return {}\n"
)

# `cscope -L -0 X`: `path scope line text`, the scope an enclosing function or `<global>`.
CSCOPE = (
    b"include/app.h <global> 12 typedef struct app_config AppConfig;\n"
    b"src/main.c main 40 AppConfig *config = load(argv[1]);\n"
    b"src/main.c run 77 static void run(AppConfig *config)\n"
    b"tests/test_load.c test_load 9 AppConfig *c = load(\"x\");\n"
)


def rg_message(kind: str, path: str, number: int = 0, text: str = "") -> str:
    if kind in ("begin", "end"):
        return '{"type":"%s","data":{"path":{"text":"%s"}}}' % (kind, path)
    return (
        '{"type":"%s","data":{"path":{"text":"%s"},"lines":{"text":"%s\\n"},"line_number":%d,'
        '"absolute_offset":0,"submatches":[]}}' % (kind, path, text, number)
    )


RG_JSON = (
    "\n".join(
        [
            rg_message("begin", "app/config.py"),
            rg_message("match", "app/config.py", 12, "def parse_config(path: str) -> dict:"),
            rg_message("context", "app/config.py", 13, "    return {}"),
            rg_message("end", "app/config.py"),
            rg_message("begin", "tests/test_config.py"),
            *(rg_message("match", "tests/test_config.py", n, "    assert parse_config('x') == {}") for n in range(3, 30)),
            rg_message("end", "tests/test_config.py"),
            '{"data":{"stats":{"matched_lines":28,"matches":28,"searches":2,"searches_with_match":2}},"type":"summary"}',
        ]
    )
    + "\n"
).encode()


@pytest.mark.parametrize(
    ("data", "form"),
    [
        (grep_n(TREE), Form.NUMBERED),
        (RG_HEADING, Form.HEADING),
        (GREP_CONTEXT, Form.NUMBERED),
        (GREP_COUNTS, Form.COUNTS),
        (GREP_PLAIN, Form.PLAIN),
        (COLOURED, Form.NUMBERED),
        (
            b"app/a.py:3:5:def parse_config(p):\napp/b.py:9:13:  x = parse_config(1)\nt.py:2:1:f(3)\n",
            Form.COLUMNS,
        ),
        (
            b"grep: a.pyc: binary file matches\n" + grep_n(TREE) + b"Binary file b.pyc matches\n",
            Form.NUMBERED,
        ),
        (GIT_GREP_W, Form.NUMBERED),
        (RG_JSON, Form.MESSAGES),
        (CSCOPE, Form.SCOPED),
    ],
    ids=[
        "grep-n",
        "rg-heading",
        "grep-C",
        "grep-c",
        "grep-no-n",
        "colours",
        "rg-vimgrep",
        "binary-notices",
        "git-grep-W",
        "rg-json",
        "cscope-L",
    ],
)
def test_each_form_classifies_as_search_results(data: bytes, form: Form) -> None:
    assert classify(data).content_type is ContentType.SEARCH_RESULTS
    assert form_of([text for _, text in lines_of(data)]) is form


@pytest.mark.parametrize(
    "data",
    [
        b"src/a.c:3:5: error: 'x' undeclared\nsrc/a.c:4:1: warning: unused\nsrc/b.c:9:2: note: here\n",
        b"app/a.py:12: error: Incompatible types\napp/a.py:14: note: see\napp/b.py:3: error: Name\n",
        b"2024/01/01 12:00:00 starting\n2024/01/01 12:00:01 listening on :8080\n2024/01/01 12:00:02 ok\n",
        b"tests/a.py::test_one PASSED\ntests/a.py::test_two PASSED\ntests/a.py::test_three FAILED\n",
        b"app/config.py\napp/cli.py\ntests/test_config.py\n",
        b'{"level":"info","msg":"start"}\n{"level":"info","msg":"ready"}\n{"level":"error","msg":"x"}\n',
        # `path-12-` lines whose path no hit names are no context, however many.
        b"app/cli.py:40:x = 1\n" + b"".join(f"lib/other.py-{n}-y\n".encode() for n in range(30)),
        (
            b"app/a.py:3: [C0301(line-too-long), ] Line too long (120/100)\n"
            b"app/a.py:16: [C0301(line-too-long), ] Line too long (104/100)\n"
            b"app/b.py:59: [R0913(too-many-arguments), load] Too many arguments (6/5)\n"
        ),
    ],
    ids=["gcc", "mypy", "go-log", "pytest-ids", "grep-l", "json-log", "dashes-of-another-file", "pylint"],
)
def test_other_outputs_are_not_search_results(data: bytes) -> None:
    assert classify(data).content_type is not ContentType.SEARCH_RESULTS


@pytest.mark.parametrize("name", CAPTURES)
def test_real_captures_classify_as_search_results(name: str) -> None:
    assert classify((REAL / name).read_bytes()).content_type is ContentType.SEARCH_RESULTS


# --- the searched name and its definitions ------------------------------------------------


def test_the_searched_name_is_the_longest_word_in_nearly_every_hit() -> None:
    texts = ["x = socket.getaddrinfo(h, p)", "socket.getaddrinfo(host)", "getaddrinfo = socket.getaddrinfo"]
    assert searched_name(texts) == SearchedName("getaddrinfo", ignore_case=False)
    assert searched_name(["SemVer(x)", "const semver = 1", "SEMVER_RE"]) == SearchedName(
        "SemVer", ignore_case=True
    )
    assert searched_name(["alpha beta", "gamma delta", "epsilon zeta"]) is None


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("def parse_config(path):", "a.py"),
        ("    async def parse_config(self):", "a.py"),
        ("class parse_config(Base):", "a.py"),
        ("parse_config = make()", "a.py"),
        ("parse_config: Callable = make()", "a.py"),
        ("export default function parse_config() {", "a.ts"),
        ("export { parse_config } from './x'", "a.ts"),
        ("var parse_config;", "a.go"),
        ("  parse_config(text) {", "a.js"),
        ("pub fn parse_config(s: &str) -> Config {", "a.rs"),
        ("func (c *Loader) parse_config(path string) error {", "a.go"),
        ("#define parse_config(p) load(p)", "a.h"),
        ("static inline int parse_config(const char *p)", "a.c"),
        ("typedef struct parse_config {", "a.h"),
        ("sub parse_config { die longmess @_ }", "a.pm"),
        ("our @EXPORT    = qw(confess parse_config carp);", "a.pm"),
        ("module.exports = parse_config", "a.js"),
    ],
)
def test_definitions_in_many_languages(text: str, path: str) -> None:
    assert Definitions.of(SearchedName("parse_config", False)).defines(text, path)


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("    return parse_config(path)", "a.c"),
        ("x = parse_config(path)", "a.py"),
        ("parse_config == other", "a.py"),
        ("from app.config import parse_config", "a.py"),
        ("def parse_config_stub():", "a.py"),
        ("parse_config(path)", "a.py"),
        ("    throw new parse_config(x);", "a.java"),
        ("\tdefer parse_config(path)", "a.go"),
        ("    wrap(parse_config(op), index, parse_config(value))", "a.h"),
    ],
)
def test_uses_are_not_definitions(text: str, path: str) -> None:
    assert not Definitions.of(SearchedName("parse_config", False)).defines(text, path)


IMPORTS = [
    ("const parse_config = require('./config')", "src/a.js"),
    ("const { load, parse_config } = require('../config')", "src/a.js"),
    ("import { parse_config } from './config'", "src/a.ts"),
    ("import parse_config from '../config.js';", "src/a.mjs"),
    ("from app.config import parse_config", "app/a.py"),
    ("from .config import load, parse_config as parse", "app/a.py"),
    ("use crate::config::parse_config;", "src/a.rs"),
    ("pub use crate::config::{load, parse_config};", "src/a.rs"),
    ("import com.example.config.parse_config;", "src/A.java"),
    ('\t"example.com/config/parse_config"', "cmd/a.go"),
    ('\tcfg "example.com/config/parse_config"', "cmd/a.go"),
    ("parse_config = importlib.import_module('app.config')", "app/a.py"),
]


@pytest.mark.parametrize(("text", "path"), IMPORTS)
def test_imports_in_many_languages(text: str, path: str) -> None:
    assert Definitions.of(SearchedName("parse_config", False)).strength(text, path) is Strength.IMPORT


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("class StrictConfig(parse_config):", "a.py"),
        ("    def load(self, parser=parse_config):", "a.py"),
        ("sub wrapped { goto &parse_config }", "a.pm"),
    ],
)
def test_declarations_that_mention_the_name_rank_between_uses_and_definitions(text: str, path: str) -> None:
    strength = Definitions.of(SearchedName("parse_config", False)).strength(text, path)
    assert Strength.USE < strength < Strength.BINDING


def test_a_subclass_is_shown_before_plain_uses_of_its_base() -> None:
    uses = [("lib/paths.py", f"    if cls is PurePath and flag_{i}:") for i in range(60)]
    subclasses = [("lib/paths.py", f"class Pure{i}Path(PurePath):") for i in range(3)]
    shown = preview(grep_n([("lib/paths.py", "class PurePath(object):"), *uses, *subclasses]))
    assert all(f"class Pure{i}Path(PurePath):" in shown for i in range(3))
    assert "flag_59" not in shown


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("app/config.py", Kind.SOURCE),
        ("docs/conf.py", Kind.SOURCE),
        ("tests/unit/a.py", Kind.TEST),
        ("./test/test_urllib.py", Kind.TEST),
        ("pkg/loader_test.go", Kind.TEST),
        ("src/__tests__/a.js", Kind.TEST),
        ("src/app.spec.ts", Kind.TEST),
        ("src/main/FooTest.java", Kind.TEST),
        ("README.md", Kind.DOC),
        ("man/man1/npm-init.1", Kind.DOC),
    ],
)
def test_kinds_of_paths(path: str, kind: Kind) -> None:
    assert kind_of(path) is kind


# --- ordering and folding -------------------------------------------------------------------


def test_definitions_come_first_then_sources_tests_docs() -> None:
    shown = preview(grep_n(TREE)).split("\n", 1)[1]  # under the header, which names the first files printed
    order = [
        shown.index(needle) for needle in ("app/config.py", "app/cli.py", "[tests]", "[docs]", "README.md")
    ]
    assert order == sorted(order)
    assert shown.index("def parse_config(path: str)") < shown.index("return parse_config_text")
    assert shown.index("tests/test_config.py") < shown.index("README.md")


def test_a_file_shows_its_lines_in_line_order_and_the_header_names_the_first_file_printed() -> None:
    hits = [
        ("docs/guide.md", "Call parse_config(path) first."),
        ("app/config.py", "    return parse_config_text(text)"),
        ("app/config.py", "def parse_config(path):"),
    ]
    lines = [f"{path}:{number}:{text}" for number, (path, text) in zip((4, 12, 30), hits)]
    shown = preview(("\n".join(lines) + "\n").encode())
    # The first two, where hits began.
    assert re.search(r"printed first: docs/guide\.md, app/config\.py[;\]]", shown)
    assert shown.index("12:    return parse_config_text") < shown.index("30:def parse_config(path):")
    assert shown.index("\napp/config.py") < shown.index("[docs]\ndocs/guide.md")  # sources before docs


def test_spare_budget_shows_more_of_the_first_files() -> None:
    hits = [
        (f"src/f{i:02}.py", f"    total += parse_config(item_{j}) * {i}") for i in range(60) for j in range(6)
    ]
    shown = preview(grep_n([("src/config.py", "def parse_config(path):"), *hits]))
    first, last = shown.index("src/f00.py (6 hits)\n"), shown.index("f59.py (6)")
    assert "    total += parse_config(item_0) * 0" in shown[first:last]
    assert "* 59" not in shown


def test_a_declaration_comes_before_bindings_of_the_name() -> None:
    hits = [(f"lib/f{i}.js", "const SemVer = require('../classes/semver')") for i in range(5)]
    shown = preview(
        grep_n([*hits, ("lib/classes/semver.js", "class SemVer {"), ("lib/x.js", "new SemVer(v)")])
    )
    assert shown.index("class SemVer {") < shown.index("const SemVer = require")
    assert "defined on 6 lines" in shown


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_a_long_list_folds_by_file_and_names_every_file_with_its_count(granularity: Granularity) -> None:
    hits = [
        (f"pkg/mod{i}/file{i}.py", f"    value = parse_config(item_{j})") for i in range(40) for j in range(8)
    ]
    data = grep_n([("pkg/core/config.py", "def parse_config(path):"), *hits])
    result = optimize(data, OptimizerConfig(granularity))
    shown = render_preview(result)
    assert "def parse_config(path):" in shown
    for i in range(40):
        path = f"pkg/mod{i}/file{i}.py"
        assert path in shown
        assert re.search(re.escape(path) + r"(:\d+)? \(8 hits[,)]", shown)  # a heading, or a place of a shared line
    omissions = list(result.omissions)
    if granularity is Granularity.FINE:  # one ref per file, each with that file's hits only
        assert len(omissions) == 40
        for omission in omissions:
            assert len({line.split(":", 1)[0] for line in omission.data.decode().splitlines()}) == 1
    else:  # one ref for the listing: every hit not shown, as printed, in input order
        assert len(omissions) == 1 and shown.startswith("[search results:")
        assert "hits not shown: #ref:" in shown.splitlines()[0]
        behind = omissions[0].data.decode().splitlines()
        shown_hits = [line for line in shown.splitlines() if re.match(r"\d+:", line)]
        shown_hits += [name for line in shown.splitlines() for name in (located_files(line) or ("", []))[1]]
        assert len(behind) + len(shown_hits) == data.count(b"\n")
        assert behind == [line for line in data.decode().splitlines() if line in set(behind)]
        assert len(shown) < 0.25 * len(data)


def test_neighbouring_files_that_show_nothing_share_a_folder_line() -> None:
    hits = [(f"lib/util/f{i}.py", f"x = parse_config({j}) + {'y' * 40}") for i in range(30) for j in range(5)]
    tight = SearchLimits(verbatim_bytes=0, budget_floor=0, budget_share=0.01)
    shown = preview(grep_n([("lib/config.py", "def parse_config(p):"), *hits]), tight)
    listed = [found for line in shown.splitlines() if (found := folder_list(line))]
    assert listed and listed[0][0] == "lib/util/"
    assert sorted(listed[0][1]) == sorted(f"f{i}.py" for i in range(30))
    assert not not_shown(tuple(f"lib/util/f{i}.py" for i in range(30)), shown)


def test_files_that_show_nothing_and_share_no_folder_share_one_line_with_one_ref() -> None:
    tops = ("alpha", "beta", "gamma")
    hits = [(f"{top}/m.py", f"total = parse_config({j}) + value_{j}") for top in tops for j in range(5)]
    data = grep_n([("lib/config.py", "def parse_config(p):"), *hits])
    tight = SearchLimits(verbatim_bytes=0, budget_floor=0, budget_share=0.01)
    shown = preview(data, tight)
    assert "\n[3 files, 15 hits, none shown] alpha/m.py (5), beta/m.py (5), gamma/m.py (5)\n" in shown
    assert not not_shown(("alpha/m.py", "beta/m.py", "gamma/m.py"), shown)
    own_refs = preview(data, replace(tight, ref_per_file=True))
    for top in tops:
        assert re.search(rf"\n{top}/m\.py \(5 hits\): #ref:ctx_\w+\n", own_refs)


def _importing_tree(import_line: str, extension: str, files: int) -> bytes:
    """`files` files that import `parse_config` alike (on lines 1 to 3) and call it, and
    the one file that defines it."""
    lines = [f"pkg/config.{extension}:40:def parse_config(path):"]
    for i in range(files):
        path = f"pkg/commands/cmd{i:02}.{extension}"
        lines.append(f"{path}:{1 + i % 3}:{import_line}")
        lines += [f"{path}:{20 + j}:    value_{j} = parse_config(args[{j}])" for j in range(1 + i % 4)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize(
    ("import_line", "extension"),
    [
        ("const parse_config = require('../config')", "js"),
        ("import { parse_config } from '../config'", "ts"),
        ("from pkg.config import parse_config", "py"),
        ("use crate::config::parse_config;", "rs"),
        ("import pkg.config.parse_config;", "java"),
    ],
)
def test_imports_alike_in_many_files_are_shown_once_per_line(import_line: str, extension: str) -> None:
    data = _importing_tree(import_line, extension, files=30)
    result = optimize_search_results(data, ALWAYS)
    shown = render_preview(result)
    assert "def parse_config(path):" in shown
    assert "`parse_config` imported in 30 files; each import line once]" in shown
    for number in (1, 2, 3):
        assert shown.count(f"{number}:{import_line}") == 1
        assert f"{number}:{import_line}  (10 files)" in shown
    assert shown.index("def parse_config(path):") < shown.index("imported in 30 files")
    assert not not_shown(tuple(f"pkg/commands/cmd{i:02}.{extension}" for i in range(30)), shown)
    behind = b"".join(omission.data for omission in result.omissions)
    assert behind.count(import_line.encode()) == 30  # each file's own import, behind its ref


def test_few_imports_stay_under_their_files() -> None:
    shown = preview(_importing_tree("const parse_config = require('../config')", "js", files=4))
    assert "imported in" not in shown
    for i in range(4):
        assert f"pkg/commands/cmd{i:02}.js" in shown
    assert shown.count("const parse_config = require('../config')") == 4


def test_imports_that_differ_in_every_file_stay_in_place() -> None:
    lines = [f"lib/f{i}.js:{i + 1}:const parse_config = require('./v{i}')" for i in range(12)]
    lines += [f"lib/f{i}.js:{i + 30}:parse_config(x)" for i in range(12)]
    shown = preview(("\n".join(lines) + "\n").encode())
    assert "imported in" not in shown
    assert all(f"const parse_config = require('./v{i}')" in shown for i in range(12))


def test_context_lines_stay_with_their_hit() -> None:
    shown = preview(GREP_CONTEXT)
    assert "12:def parse_config(path: str) -> dict:\n13-    text = read(path)\n" in shown
    assert "app/my-cli.py (2 hits)\n4-import sys\n5:from app.config import parse_config\n" in shown


def test_a_hit_shows_its_near_context_and_enclosing_function_and_the_rest_behind_its_ref() -> None:
    result = optimize_search_results(GIT_GREP_W, ALWAYS)
    shown = render_preview(result)
    assert "app/cli.py (1 hit; the ref has 1 hit with all context)\n" in shown
    assert "\n3=def main(argv):\n37-    step_37()\n" in shown
    assert "40:    settings = parse_config(argv[1])\n41-    after_41()\n42-    after_42()\n43-    after_43()\n" in shown
    assert "step_36" not in shown and "after_44" not in shown
    behind = b"".join(omission.data for omission in result.omissions)
    assert b"app/cli.py-20-    step_20()\n" in behind and b"app/cli.py-59-    after_59()\n" in behind
    assert not not_shown(("app/cli.py=3=def main(argv):", "app/cli.py-37-    step_37()"), shown)


def test_json_messages_show_hits_as_printed_and_the_summary() -> None:
    result = optimize_search_results(RG_JSON, ALWAYS)
    shown = render_preview(result)
    definition = rg_message("match", "app/config.py", 12, "def parse_config(path: str) -> dict:")
    assert shown.index(definition) < shown.index("tests/test_config.py (27 hits; the ref has ")
    assert '"matched_lines":28' in shown.splitlines()[1]
    assert rg_message("begin", "app/config.py") not in shown
    assert "app/config.py (1 hit; the ref has the file's begin and end messages)" in shown
    assert result.signals == (definition,)


def test_a_message_cut_short_is_other_output_not_a_failure() -> None:
    cut = RG_JSON + rg_message("match", "app/x.py", 3, "parse_config(1)")[:40].encode() + b"\n"
    shown = render_preview(optimize_search_results(cut, ALWAYS))
    assert rg_message("match", "app/x.py", 3, "parse_config(1)")[:40] in shown


def test_scoped_hits_show_scope_and_number_under_their_file_and_a_typedef_defines() -> None:
    shown = preview(CSCOPE)
    assert "`AppConfig` defined on 1 line" in shown
    assert "include/app.h\n<global> 12 typedef struct app_config AppConfig;\n" in shown
    assert "src/main.c (2 hits)\nmain 40 AppConfig *config = load(argv[1]);\n" in shown
    flat = ("include/app.h <global> 12 typedef struct app_config AppConfig;", "src/main.c run 77 static void run(")
    assert not_shown(flat, shown) == ()
    assert not_shown(("src/main.c main 77 static void run(",), shown) != ()


def test_counts_keep_files_with_hits_and_fold_the_rest() -> None:
    data = b"".join(f"src/m{i}.py:0\n".encode() for i in range(300)) + GREP_COUNTS
    result = optimize(data, COARSE)
    shown = render_preview(result)
    assert shown.index("app/config.py:2") < shown.index("tests/test_config.py:3")
    assert "app/cli.py:0" not in shown and "[302 files with no hit:" in shown
    assert b"app/cli.py:0\n" in next(result.omissions).data


def test_a_column_stays_with_its_line_number() -> None:
    hits = [(f"src/f{i}.py", f"    y = parse_config({i})") for i in range(40)]
    data = b"".join(f"{path}:{i + 1}:9:{text}\n".encode() for i, (path, text) in enumerate(hits))
    shown = preview(data + b"src/config.py:7:5:def parse_config(p):\n")
    assert "src/config.py\n7:5:def parse_config(p):\n" in shown
    assert "defined on 1 line" in shown


def test_colours_are_read_through_and_left_out() -> None:
    shown = preview(COLOURED)
    assert "tests/conftest.py\n42:def render_preview(result: OptimizeResult) -> str:\n" in shown
    assert "\x1b" not in shown


def test_binary_notices_are_summarised_by_folder() -> None:
    notices = b"".join(f"grep: lib/__pycache__/m{i}.pyc: binary file matches\n".encode() for i in range(20))
    shown = preview(grep_n(TREE, repeat=3) + notices)
    assert "[binary file matches: 20 files in lib/__pycache__/ (20); as printed: #ref:ctx_" in shown


def test_without_a_searched_name_every_file_is_still_named() -> None:
    hits = [
        (f"src/f{i}.py", f"{word} = {i}") for i, word in enumerate(["alpha", "beta", "gamma", "delta"] * 30)
    ]
    shown = preview(grep_n(hits))
    assert "no searched name found" in shown
    assert not not_shown(tuple(f"src/f{i}.py" for i in range(120)), shown)


def test_a_long_hit_is_a_window_around_the_name_and_whole_behind_the_ref() -> None:
    line = "var a=" + "x" * 5000 + ";function parse_config(){return 1}" + "y" * 5000
    data = grep_n(
        [
            ("dist/app.min.js", line),
            ("src/config.js", "function parse_config() {"),
            ("src/b.js", "parse_config()"),
        ]
    )
    result = optimize_search_results(data, SearchLimits(verbatim_bytes=0))
    shown = render_preview(result)
    assert "…" in shown and len(shown) < 2000
    assert any(line.encode() in omission.data for omission in result.omissions)


# --- lines printed alike -------------------------------------------------------------------


def flat(hits: list[tuple[str, int, str]]) -> bytes:
    """`path:12:text` per hit, as grep -rn, git grep -n and ack (piped) print them."""
    return "".join(f"{path}:{number}:{text}\n" for path, number, text in hits).encode()


def headed(hits: list[tuple[str, int, str]], *, blank: bool = True) -> bytes:
    """A heading per file, then its `12:text` hits: rg --heading and ack --group end each
    file with a blank line, git grep --heading does not."""
    out: list[str] = []
    for path, number, text in hits:
        if not out or out[-1] != path:
            out += [""] if out and blank else []
            out.append(path)
        out.append(f"{number}:{text}")
    return ("\n".join(out) + "\n").encode()


SHAPES = {
    "grep -rn": flat,
    "git grep -n": flat,
    "ack": flat,
    "rg --heading": headed,
    "ack --group": headed,
    "git grep --heading": lambda hits: headed(hits, blank=False),
}
STUB = "    def parse_config(self, path: str, strict: bool = False) -> dict[str, object]: ..."
# The name defined once in its source, alike in five stubs, and called from many files.
STUBBED = [
    ("app/config.py", 30, "def parse_config(path: str, strict: bool = False) -> dict[str, object]:"),
    *((f"typings/app/stubs/{name}.pyi", line, STUB) for name, line in zip("abcde", [12, 7, 40, 9, 3])),
    *(
        (f"app/commands/cmd{i:02}.py", 10 + j, f"    settings_{j} = parse_config(args.path_{j}, strict={i % 2})")
        for i in range(20)
        for j in range(6)
    ),
]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_files_that_print_the_same_one_line_share_a_line_that_lists_them(shape: str) -> None:
    data = SHAPES[shape](STUBBED)
    result = optimize(data, COARSE)
    shown = render_preview(result)
    assert f"{{in typings/app/stubs/: a.pyi:12 b.pyi:7 c.pyi:40 d.pyi:9 e.pyi:3}}:{STUB}\n" in shown
    assert shown.count(STUB) == 1
    paths = tuple(dict.fromkeys(path for path, _, _ in STUBBED))
    assert not not_shown(paths, shown)  # every file still named
    assert not not_shown(tuple(f"{path}:{line}:{text}" for path, line, text in STUBBED[:6]), shown)
    assert not not_shown(result.signals, shown) and len(result.signals) == 6


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_listings_one_ref_reads_as_the_tool_printed_the_hits_not_shown(shape: str) -> None:
    data = SHAPES[shape](STUBBED)
    (omission,) = optimize(data, COARSE).omissions
    behind = omission.data.decode().splitlines()
    printed = data.decode().splitlines()
    remaining = iter(printed)
    assert all(line in remaining for line in behind)  # lines as printed, in input order
    folded = [path for path in dict.fromkeys(path for path, _, _ in STUBBED) if "/commands/" in path]
    assert folded
    for path in folded:  # each file's folded hits name their file: on each line, or after its heading
        if SHAPES[shape] is flat:
            assert any(line.startswith(f"{path}:") for line in behind)
        else:
            assert re.match(r"\d+:", behind[behind.index(path) + 1])


MOCKED = [
    ("app/net.py", 20, "def resolve(host, port):"),
    ("app/net.py", 41, "    return resolve(host, port)"),
    *(("tests/test_net.py", line, "        def resolve(*args, **kw):") for line in (104, 131, 158, 202)),
    ("tests/test_net.py", 170, "        async def resolve(host, *args):"),
    *(("tests/test_net.py", 300 + 3 * j, f"    hosts.append(resolve('h{j}', {j}))") for j in range(120)),
]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_hits_printed_alike_in_one_file_show_once_with_every_line_number(shape: str) -> None:
    shown = preview(SHAPES[shape](MOCKED))
    assert "\ntests/test_net.py (125 hits)\n" in shown
    alike = "\n{104 131 158 202}:        def resolve(*args, **kw):\n170:        async def resolve(host, *args):\n"
    assert alike in shown
    assert not not_shown(tuple(f"{path}:{line}:{text}" for path, line, text in MOCKED[:7]), shown)


# One definition copied into two modules that the tool prints apart, each with calls, and
# many files that call it.
COPIED = [
    ("lib/net/resolve.py", 12, "async def resolve(host, port, *, family=0):"),
    *(("lib/net/resolve.py", 40 + j, f"    return await resolve(h{j}, {j})") for j in range(30)),
    *((f"app/cmd{i:02}.py", 20 + j, f"    found_{j} = resolve(args.host_{j}, port={i})") for i in range(60) for j in range(8)),
    ("lib/web/client.py", 8, "def resolve(host, port):"),
    *(("lib/web/client.py", 50 + j, f"    return resolve(p{j}, {j})") for j in range(30)),
    ("vendor/net/resolve.py", 12, "async def resolve(host, port, *, family=0):"),
    *(("vendor/net/resolve.py", 40 + j, f"    return await resolve(v{j}, {j})") for j in range(30)),
]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_files_apart_that_show_the_same_one_line_share_it_and_say_their_counts(shape: str) -> None:
    # A budget too small for any hit besides definitions: the copies show one line each.
    result = optimize_search_results(SHAPES[shape](COPIED), SearchLimits(budget_share=0.0, budget_floor=200))
    shown = render_preview(result)
    copy = "async def resolve(host, port, *, family=0):"
    assert f"{{lib/net/resolve.py:12 (31 hits), vendor/net/resolve.py:12 (31 hits)}}:{copy}\n" in shown
    assert shown.count(copy) == 1
    assert "lib/web/client.py (31 hits)\n8:def resolve(host, port):\n" in shown
    assert not not_shown(tuple(f"{path}:{line}:{text}" for path, line, text in COPIED if "def " in text), shown)


def test_a_shared_line_with_counts_is_read_as_each_of_its_hits() -> None:
    line = "{in a/: b.py:3 (2 hits), c/d.py:9}:    x = f(1, {2})"
    assert located_files(line) == ("a/", ["b.py", "c/d.py"])
    assert not not_shown(("a/b.py:3:    x = f(1, {2})", "a/c/d.py:9:    x = f(1, {2})"), line)
    assert not_shown(("a/b.py:4:    x = f(1, {2})",), line)


SUBCLASSED = [
    ("lib/paths.py", 10, "class PortablePath(object):"),
    *(("lib/paths.py", 20 + j, f"        if isinstance(other{j}, PortablePath):") for j in range(12)),
    ("lib/paths.py", 80, "class Posix(PortablePath):"),
    ("lib/paths.py", 90, "class Windows(PortablePath):"),
    *((f"tests/test_p{i}.py", 5 + j, f"    assert isinstance(make({j}), PortablePath)") for i in range(6) for j in range(5)),
]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_header_says_when_every_declaration_naming_the_name_is_shown(shape: str) -> None:
    data = SHAPES[shape](SUBCLASSED)
    shown = preview(data, SearchLimits(verbatim_bytes=0, budget_floor=len(data) // 3))
    assert "class Posix(PortablePath):" in shown and "class Windows(PortablePath):" in shown and "#ref:" in shown
    assert "; all 2 declarations naming it shown; " in shown.splitlines()[0]
    tight = preview(data, SearchLimits(verbatim_bytes=0, budget_share=0.0, budget_floor=100))
    assert "class Posix(PortablePath):" not in tight  # behind the ref: not said to be shown
    assert "declaration" not in tight.splitlines()[0]


def test_hits_with_context_lines_or_unlike_texts_are_not_merged() -> None:
    data = (
        b"app/a.py-11-@cache\napp/a.py:12:def parse_config(p):\n--\n"
        b"app/b.py-11-@cache\napp/b.py:12:def parse_config(p):\n--\n"
        b"app/c.py:12:def parse_config(p, q):\n"
        b"app/d.py:12:def parse_config(p, q):\n"
    )
    shown = preview(data)
    assert "app/a.py\n11-@cache\n12:def parse_config(p):\n" in shown
    assert "app/b.py\n11-@cache\n12:def parse_config(p):\n" in shown
    assert "{in app/: c.py:12 d.py:12}:def parse_config(p, q):\n" in shown


# --- goldens and real captures --------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "grep_rn_urlopen_stdlib.txt",
        "rg_heading_getaddrinfo_stdlib.txt",
        "grep_rn_C2_make_archive_stdlib.txt",
        "git_grep_n_W_read_input_tokenlab.txt",
        "rg_json_open_store_tokenlab.json",
        "cscope_L0_X509_STORE_CTX_openssl.txt",
    ],
)
@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_capture_goldens(name: str, granularity: Granularity, golden: Golden) -> None:
    shown = render_preview(optimize((REAL / name).read_bytes(), OptimizerConfig(granularity)))
    golden.check(f"search_results/{name}.{granularity.value}.txt", shown)


@pytest.mark.parametrize("name", CAPTURES)
def test_real_captures_name_every_file_and_show_every_definition(name: str) -> None:
    data = (REAL / name).read_bytes()
    result = optimize(data, COARSE)
    shown = render_preview(result)
    listing = parse(
        data, form_of(data[: 64 * 1024].decode(errors="replace").splitlines()[:400]) or Form.NUMBERED
    )
    paths = [found.path for found in listing.files] + [
        notice.text for notice in listing.counts if notice.count
    ]
    assert not not_shown(tuple(paths), shown)
    assert not not_shown(result.signals, shown)


@pytest.mark.parametrize("name", CAPTURES)
def test_every_printed_line_is_shown_or_behind_a_ref(name: str) -> None:
    data = (REAL / name).read_bytes()
    result = optimize(data, COARSE)
    shown = render_preview(result)
    behind = b"".join(omission.data for omission in result.omissions)
    form = form_of(data[: 64 * 1024].decode(errors="replace").splitlines()[:400])
    assert form is not None
    for found in parse(data, form).files:
        for hit in found.hits:
            for line in hit.printed:
                start, end = line.span
                # Lines printed alike show once (`{3 9}:text`): as a flat listing names them.
                flat = f"{found.path}{line.mark}{line.number}{line.mark}{line.text}"
                shown_once = line.shown in shown or (line.number and not not_shown((flat,), shown))
                assert shown_once or data[start:end] in behind, (found.path, line.shown)


# --- restore, byte for byte ------------------------------------------------------------------

_paths = st.sampled_from(["a.py", "src/b.py", "tests/test_c.py", "docs/d.md", "x/y/z.go", "a b/c.py"])
_texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=60)
_hit_lines = st.tuples(_paths, st.integers(1, 999), st.sampled_from([":", "-", "="]), _texts).map(
    lambda hit: f"{hit[0]}{hit[2]}{hit[1]}{hit[2]}parse_config {hit[3]}"
)
_outputs = st.lists(
    st.one_of(_hit_lines, st.just("--"), st.just("grep: a.pyc: binary file matches"), _texts),
    min_size=1,
    max_size=120,
).map(lambda lines: "\n".join(lines).encode("utf-8", errors="surrogatepass"))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(_outputs, st.booleans())
def test_every_omission_is_the_input_bytes_it_names(data: bytes, crlf: bool) -> None:
    data = data.replace(b"\n", b"\r\n") if crlf else data
    for omission in optimize_search_results(data, SearchLimits(verbatim_bytes=0, budget_floor=0)).omissions:
        assert isinstance(omission, Omission)
        assert omission.data == b"".join(data[start:end] for start, end in omission.source)


_messages = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["match", "context", "begin", "end"]), _paths, st.integers(1, 999)).map(
            lambda message: rg_message(message[0], message[1], message[2], "parse_config here")
        ),
        _texts,
    ),
    min_size=3,
    max_size=80,
).map(lambda lines: ("\n".join([rg_message("match", "a.py", 1, "parse_config"), *lines]) + "\n").encode())


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(_messages)
def test_every_omission_of_json_messages_is_the_input_bytes_it_names(data: bytes) -> None:
    for omission in optimize_search_results(data, SearchLimits(verbatim_bytes=0, budget_floor=0)).omissions:
        assert omission.data == b"".join(data[start:end] for start, end in omission.source)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(_outputs)
def test_analysis_restores_the_input_byte_for_byte(tmp_path: Path, data: bytes) -> None:
    store = open_store(str(tmp_path / "store"))
    packet = analyze(data * 20, source="<grep>", store=store)
    assert restore(packet.visible.encode("utf-8"), store) == data * 20


@pytest.mark.parametrize(
    "name",
    [
        "grep_rn_urlopen_stdlib.txt",
        "rg_heading_getaddrinfo_stdlib.txt",
        "git_grep_n_W_read_input_tokenlab.txt",
        "rg_json_open_store_tokenlab.json",
    ],
)
def test_real_captures_restore_byte_for_byte(tmp_path: Path, name: str) -> None:
    data = (REAL / name).read_bytes()
    store = open_store(str(tmp_path / "store"))
    packet = analyze(data, source=name, store=store)
    assert packet.content_type is ContentType.SEARCH_RESULTS
    assert restore(packet.visible.encode("utf-8"), store) == data


@pytest.mark.parametrize(
    "text",
    [
        "    module (CVE-2024-2961).  Closes: #1069191.",  # a changelog's lines found by zgrep
        "    result = parse_config(settings_path)  # the second call",  # a call found by grep
    ],
)
def test_a_small_search_whose_hits_fit_the_floor_with_a_little_slack_shows_every_hit(text: str) -> None:
    hits = [(f"share/doc/pkg{i}/changelog", f"{text} {j}") for i in range(9) for j in range(3)]
    data = grep_n(hits)
    whole = len(preview(data, SearchLimits(verbatim_bytes=0, budget_floor=len(data))))
    floor = int(whole / 1.1)  # every hit takes a little more than the floor
    shown = preview(data, SearchLimits(verbatim_bytes=0, budget_floor=floor))
    assert "#ref:" not in shown  # nothing folded: every hit is shown
    assert not not_shown(tuple(f"{path}:{10 * at + 1}:{text}" for at, (path, text) in enumerate(hits)), shown)
    assert "#ref:" in preview(data, SearchLimits(verbatim_bytes=0, budget_floor=floor, floor_slack=0.0))


def test_the_header_counts_the_inputs_lines_when_context_lines_make_them_more_than_its_hits() -> None:
    context_lines = GREP_CONTEXT.count(b"\n")
    assert preview(GREP_CONTEXT).split(";", 1)[0].endswith(f" files, {context_lines} lines")
    function_lines = GIT_GREP_W.count(b"\n")
    header = render_preview(optimize_search_results(GIT_GREP_W, ALWAYS)).split(";", 1)[0]
    assert header == f"[search results: 2 hits in 2 files, {function_lines} lines"


def test_the_header_gives_no_line_count_when_every_line_is_a_hit() -> None:
    lines = [f"app/m{n}.py:{n}:    parse_config(x)" for n in range(1, 9)]
    assert preview(("\n".join(lines) + "\n").encode()).startswith("[search results: 8 hits in 8 files; ")


def test_the_header_names_the_second_file_printed_after_the_folder_it_shares_with_the_first() -> None:
    """rg --heading, grep -rn alike: once sorted by kind, where the hits began is said here only."""
    hits = [
        ("docs/cmd/npm-install.html", "<code>satisfies</code>"),
        ("docs/cmd/npm-update.html", "<code>satisfies</code>"),
        ("lib/semver.js", "const satisfies = (version, range) => {"),
    ]
    lines = [f"{path}:{number}:{text}" for number, (path, text) in zip((4, 12, 30), hits)]
    shown = preview(("\n".join(lines) + "\n").encode())
    assert re.search(r"printed first: docs/cmd/npm-install\.html, npm-update\.html[;\]]", shown)
