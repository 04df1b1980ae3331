"""line_shown: whether a visible text shows a line: group lines, a folder named once, search headings."""

from __future__ import annotations

from tokenlab.optimizers.lines import shown as line_shown


def test_a_path_in_the_folder_named_once_counts_as_shown_by_its_name() -> None:
    visible = (
        "[log: 9 lines, 6 folded; locations in src/app/: #ref:ctx_1]\n"
        "[×3] {Service1.java:9 Service2.java:9 Service5.java:9}: error: cannot find symbol\n"
    )
    assert line_shown.not_shown(("src/app/Service5.java",), visible) == ()
    assert line_shown.not_shown(("src/app/Service7.java",), visible) == ("src/app/Service7.java",)


def test_a_path_under_a_folder_a_list_names_once_counts_as_shown() -> None:
    group_line = (
        "[×2] {in src/: mod807/file7.c:860:4 mod815/file2.c:4643:23}: error: '{v9327, v704}' "
        "undeclared (first use in this function)"
    )
    line = "src/mod815/file2.c:4643:23: error: 'v704' undeclared (first use in this function)"
    assert line_shown.shown_by(line, group_line)
    assert not line_shown.shown_by(line.replace("mod815", "mod816"), group_line)


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
    assert line_shown.not_shown(shown, visible) == ()
    assert line_shown.not_shown(("lib/Other.pm:12:confess('x')",), visible) == ()
    # The same line under another file's heading, or another line number, is not it.
    wrong = ("lib/Other.pm:292:sub confess { die longmess @_ }", "lib/Carp.pm:12:confess('x')")
    assert line_shown.not_shown(wrong, visible) == wrong


def test_context_and_function_lines_under_a_heading_count_in_their_own_flat_form() -> None:
    """git grep -p/-W print the enclosing function as `path=N=text`, context as `path-N-text`."""
    visible = "click/core.py (2 hits)\n1542=class Group(Command):\n1946-    def resolve_command(\n1949:x\n"
    shown = ("click/core.py=1542=class Group(Command):", "click/core.py-1946-    def resolve_command(")
    assert line_shown.not_shown(shown, visible) == ()
    wrong = ("click/core.py-1542-class Group(Command):", "click/core.py=1946=    def resolve_command(")
    assert line_shown.not_shown(wrong, visible) == wrong


def test_a_value_said_by_a_columns_runs_counts_as_shown() -> None:
    shards = "[×22 more like the one above #ref:ctx_1] app: orders-shard-# {app: orders-shard-02–16,18–24}"
    expected = ("app: orders-shard-05", "app: orders-shard-17", "app: orders-shard-25", "app: orders-shard-5")
    assert line_shown.not_shown(expected, shards) == expected[1:]
    steps = "[×21 more like the one above] gross(#, 'DE') {gross(10 to 150 step 7,}"
    assert line_shown.not_shown(("gross(24, 'DE')", "gross(23, 'DE')"), steps) == ("gross(23, 'DE')",)


def test_a_group_line_of_records_differing_in_a_name_shows_each_name_in_its_line() -> None:
    group = "[×3 more like the one above] - apiVersion: v1 … name: # {name: #: catalog search shipping}"
    assert line_shown.shown_by("name: search", group)
    assert not line_shown.shown_by("name: billing", group)  # a name the group does not list
    assert not line_shown.shown_by("kind: search", group)  # a line the group has no template of
    assert not line_shown.shown_by("name: sea", group)  # a name is read whole


def test_a_value_said_by_its_difference_from_the_one_compared_with_it_is_shown() -> None:
    cents = "[×3 more like the one above] E assert # == # {test_rate[1–3]; assert # == #+0.01: 23.0 64.4 == 64.41000000000001 9.2}"
    assert line_shown.shown_by("E  assert 23.0 == 23.01", cents)
    assert line_shown.shown_by("E  assert 64.4 == 64.41000000000001", cents)  # listed as printed
    assert not line_shown.shown_by("E  assert 23.0 == 23.02", cents)
    checks = "[×2 more like the one above] size # != # {size # != #-3: 16 36}"
    assert line_shown.shown_by("  size 36 != 33", checks)
    assert not line_shown.shown_by("  size 36 != 39", checks)
    # Without a comparison before it, `#+1` is no difference (`cache-#+1` names nothing).
    assert not line_shown.shown_by("assert 5 == 6", "[×2] assert # == # {slot cache-#+1: 5 7}")


def test_a_group_line_listing_whole_ids_shows_each_line_with_that_id_only() -> None:
    group = "[×2] FAILED t.py::test_rate[{EUR-10, GBP-25}] - boom"
    assert line_shown.shown_by("FAILED t.py::test_rate[GBP-25] - boom", group)
    assert not line_shown.shown_by("FAILED t.py::test_rate[CHF-40] - boom", group)
    assert not line_shown.shown_by("FAILED t.py::test_cost[GBP-25] - boom", group)
    # Listed with their brackets (a word summarised whole), as a log's regions are.
    regions = "[×2] 09:00:{01, 02} INFO {[eu-west-1], [us-east-2]} sync finished"
    assert line_shown.shown_by("09:00:02 INFO [us-east-2] sync finished", regions)
    assert not line_shown.shown_by("09:00:02 INFO [ap-south-1] sync finished", regions)


def test_a_line_of_failures_told_above_shows_each_by_its_shape_and_the_values_above_it() -> None:
    told = f"[×2] FAILED t.py::test_rate[#] - assert 0 {{{line_shown.TOLD_ABOVE}}}"
    above = "___ test_rate[EUR-10] ___\n[×1 more like the one above] ___ test_rate[#] ___ {GBP-25}\n"
    listed = ("FAILED t.py::test_rate[EUR-10] - assert 0", "FAILED t.py::test_rate[GBP-25] - assert 0")
    assert line_shown.not_shown(listed, above + told + "\n") == ()
    # A value read nowhere above it, or only below it, is not shown; nor is another shape.
    assert line_shown.not_shown(listed, "___ test_rate[EUR-10] ___\n" + told + "\nGBP-25\n") == listed[1:]
    assert line_shown.not_shown(("ERROR t.py::test_rate[EUR-10] - assert 0",), above + told + "\n") != ()
