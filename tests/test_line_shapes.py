"""line_shapes: whether a group line shows a line, with a shared folder named once."""

from __future__ import annotations

from tokenlab.optimizers.lines import shapes as line_shapes


def test_a_path_in_the_folder_named_once_counts_as_shown_by_its_name() -> None:
    visible = (
        "[log: 9 lines, 6 folded; locations in src/app/: #ref:ctx_1]\n"
        "[×3] {Service1.java:9 Service2.java:9 Service5.java:9}: error: cannot find symbol\n"
    )
    assert line_shapes.not_shown(("src/app/Service5.java",), visible) == ()
    assert line_shapes.not_shown(("src/app/Service7.java",), visible) == ("src/app/Service7.java",)


def test_a_path_under_a_folder_a_list_names_once_counts_as_shown() -> None:
    group_line = (
        "[×2] {in src/: mod807/file7.c:860:4 mod815/file2.c:4643:23}: error: '{v9327, v704}' "
        "undeclared (first use in this function)"
    )
    line = "src/mod815/file2.c:4643:23: error: 'v704' undeclared (first use in this function)"
    assert line_shapes.shown_by(line, group_line)
    assert not line_shapes.shown_by(line.replace("mod815", "mod816"), group_line)


def test_a_hit_shown_under_its_file_heading_counts_as_path_line_text() -> None:
    visible = (
        "[search results: 5 hits in 2 files]\n"
        "lib/Carp.pm (3 hits)\n"
        "292:sub confess { die longmess @_ }\n"
        "293-  # a context line\n"
        "[1 more hit: #ref:ctx_1]\n"
        "--\n"
        "lib/Other.pm\n"
        "12:confess('x')\n"
    )
    shown = ("lib/Carp.pm:292:sub confess { die longmess @_ }", "lib/Carp.pm:293:  # a context line")
    assert line_shapes.not_shown(shown, visible) == ()
    assert line_shapes.not_shown(("lib/Other.pm:12:confess('x')",), visible) == ()
    # The same line under another file's heading, or another line number, is not it.
    wrong = ("lib/Other.pm:292:sub confess { die longmess @_ }", "lib/Carp.pm:12:confess('x')")
    assert line_shapes.not_shown(wrong, visible) == wrong


def test_context_and_function_lines_under_a_heading_count_in_their_own_flat_form() -> None:
    """git grep -p/-W print the enclosing function as `path=N=text`, context as `path-N-text`."""
    visible = "click/core.py (2 hits)\n1542=class Group(Command):\n1946-    def resolve_command(\n1949:x\n"
    shown = ("click/core.py=1542=class Group(Command):", "click/core.py-1946-    def resolve_command(")
    assert line_shapes.not_shown(shown, visible) == ()
    wrong = ("click/core.py-1542-class Group(Command):", "click/core.py=1946=    def resolve_command(")
    assert line_shapes.not_shown(wrong, visible) == wrong


def test_a_value_said_by_a_columns_runs_counts_as_shown() -> None:
    shards = "[×22 more like the one above #ref:ctx_1] app: orders-shard-# {app: orders-shard-02–16,18–24}"
    expected = ("app: orders-shard-05", "app: orders-shard-17", "app: orders-shard-25", "app: orders-shard-5")
    assert line_shapes.not_shown(expected, shards) == expected[1:]
    steps = "[×21 more like the one above] gross(#, 'DE') {gross(10,17,…,150,}"
    assert line_shapes.not_shown(("gross(24, 'DE')", "gross(23, 'DE')"), steps) == ("gross(23, 'DE')",)


def test_a_count_after_its_noun_behind_an_info_sign_is_a_summary() -> None:
    assert line_shapes.is_summary("ℹ fail 24") and line_shapes.is_summary("# tests 10")
    assert not line_shapes.is_summary("ℹ duration_ms 757.26")
