"""Diff optimizer: every change stays visible, everything folded is in a ref, hostile input."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from unidiff.patch import PatchSet

from tests.conftest import Golden, render_preview
from tokenlab.counting import tokens
from tokenlab.optimizers import Excerpt, Granularity, Omission, OptimizerConfig, OptimizeResult, visible
from tokenlab.optimizers.diff import optimizer as diff_module
from tokenlab.optimizers.diff import repeats as repeats_module
from tokenlab.optimizers.diff.optimizer import DiffConfig, optimize, optimize_diff
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import open_store

FIXTURES = Path(__file__).parent.parent / "fixtures"
DIFF_FIXTURES = ("auth_guard.diff", "real/release.diff")
COARSE = OptimizerConfig(Granularity.COARSE)
FINE = OptimizerConfig(Granularity.FINE)


def _function(name: str, body_lines: int) -> list[str]:
    return [f"def {name}(value):"] + [f"    step_{i} = transform_{i}(value)" for i in range(body_lines)]


def _hunk(old_start: int, before: list[str], removed: list[str], added: list[str], after: list[str]) -> str:
    old = len(before) + len(removed) + len(after)
    new = len(before) + len(added) + len(after)
    lines = [f"@@ -{old_start},{old} +{old_start},{new} @@ class Service:"]
    lines += [f" {line}" for line in before] + [f"-{line}" for line in removed]
    lines += [f"+{line}" for line in added] + [f" {line}" for line in after]
    return "\n".join(lines) + "\n"


GIT_HEADER = "diff --git a/app/service.py b/app/service.py\nindex 3b18e51..a5c2f0d 100644\n"
PATHS = "--- a/app/service.py\n+++ b/app/service.py\n"
# One mechanical edit, as it recurs across the files it was applied to.
LICENCE_HUNK = """\
@@ -1,5 +1,5 @@
-# Copyright 2023 Acme Corp.
-# Licensed under the MIT licence.
+# Copyright 2024 Acme Corp.
+# SPDX-License-Identifier: Apache-2.0
 import os
 import sys
 import logging
"""


def _files(*files: tuple[str, str]) -> bytes:
    """A git diff of each (path, hunks) in turn."""
    return "".join(
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n{hunks}"
        for path, hunks in files
    ).encode()


CASES: dict[str, bytes] = {
    "long_context": (
        GIT_HEADER
        + PATHS
        + _hunk(
            10,
            _function("load", 8),
            ["    return step_7"],
            ["    return step_7 or None"],
            _function("save", 8),
        )
    ).encode(),
    "middle_context": (
        GIT_HEADER
        + PATHS
        + _hunk(1, ["import os"], ["import sys"], ["import io"], _function("run", 6) + ["    return 0"])[:-1]
        + "\n-    return 1\n+    return 2\n"
    )
    .replace("@@ -1,10 +1,10 @@", "@@ -1,11 +1,11 @@")
    .encode(),
    "rename_mode_binary": b"""\
diff --git a/old/name.py b/new/name.py
similarity index 100%
rename from old/name.py
rename to new/name.py
diff --git a/bin/run b/bin/run
old mode 100644
new mode 100755
diff --git a/logo.png b/logo.png
index 1111111..2222222 100644
Binary files a/logo.png and b/logo.png differ
diff --git a/empty.txt b/empty.txt
new file mode 100644
index 0000000..e69de29
diff --git a/tool.sh b/tool.sh
new file mode 100755
index 0000000..1234567
--- /dev/null
+++ b/tool.sh
@@ -0,0 +1 @@
+echo hi
""",
    "git_binary_patch": b"""\
diff --git a/img.gif b/img.gif
index 0000000..1111111 100644
GIT binary patch
literal 43
zcmZ?wbhEHbWMp7uXkdT>#h)yUTnvm1Iv@s!0Ro7bfw|ky@!W(Qe

literal 0
HcmV?d00001

diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1 +1 @@
-old
+new
""",
    "no_newline_markers": b"""\
diff --git a/VERSION b/VERSION
index 1111111..2222222 100644
--- a/VERSION
+++ b/VERSION
@@ -1 +1 @@
-1.0.0
\\ No newline at end of file
+1.0.1
\\ No newline at end of file""",
    "truncated": (
        GIT_HEADER
        + PATHS
        + _hunk(10, _function("load", 8), ["    x = 1"], ["    x = 2"], _function("save", 8))
    )[:-130].encode(),
    "sql_removed_comments": b"""\
--- a/schema.sql\t2024-01-01 10:00:00
+++ b/schema.sql\t2024-01-02 10:00:00
@@ -1,4 +1,3 @@
-- users
--- grant admin to everyone
-+++ temporary
 CREATE TABLE users (id int);
--- a/other.sql
+++ b/other.sql
@@ -1 +1 @@
-DROP TABLE x;
+DROP TABLE y;
""",
    "combined": b"""\
diff --cc src/app.c
index 1111111,2222222..3333333
--- a/src/app.c
+++ b/src/app.c
@@@ -1,8 -1,8 +1,9 @@@
  int main(void)
  {
  \tsetup_logging();
  \tsetup_signals();
  \tload_config();
- \tstart_v1();
 -\tstart_v2();
++\tstart_v3();
++\tmonitor();
  \treturn 0;
""",
    "crlf": (
        GIT_HEADER
        + PATHS
        + _hunk(10, _function("load", 6), ["    a = 1"], ["    a = 2"], _function("save", 6))
    )
    .replace("\n", "\r\n")
    .encode(),
    "lockfile_generated_minified": b"""\
diff --git a/yarn.lock b/yarn.lock
index 1111111..2222222 100644
--- a/yarn.lock
+++ b/yarn.lock
@@ -10,3 +10,3 @@
 left-pad@^1.3.0:
-  version "1.3.0"
+  version "1.3.1"
diff --git a/api/service_pb2.py b/api/service_pb2.py
index 1111111..2222222 100644
--- a/api/service_pb2.py
+++ b/api/service_pb2.py
@@ -20 +20 @@
-_X = 1
+_X = 2
diff --git a/web/bundle.js b/web/bundle.js
index 1111111..2222222 100644
--- a/web/bundle.js
+++ b/web/bundle.js
@@ -1 +1 @@
-MINIFIED_A
+MINIFIED_B
diff --git a/gen/client.go b/gen/client.go
index 1111111..2222222 100644
--- a/gen/client.go
+++ b/gen/client.go
@@ -1,3 +1,3 @@
 // Code generated by protoc-gen-go. DO NOT EDIT.
 package gen
-const V = 1
+const V = 2
""".replace(b"MINIFIED_A", b"var a=1;" * 100).replace(b"MINIFIED_B", b"var b=2;" * 100),
    "repeated_hunks": _files(
        ("app/a.py", LICENCE_HUNK), ("app/b.py", LICENCE_HUNK), ("app/c.py", LICENCE_HUNK)
    ),
}


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


def _assert_covers(data: bytes, result: OptimizeResult) -> None:
    """Every original line is either shown or inside some omission; file refs are exact spans."""
    shown: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    spans: list[tuple[int, int]] = []
    for part in result.parts:
        if isinstance(part, Omission):
            hidden.update(_lines(visible(part.data)))
            assert b"".join(data[start:end] for start, end in part.source) == part.data, part.reason
            spans += part.source
        elif isinstance(part, Excerpt):
            shown.update(_lines(part.text))
            encoded = part.text.encode()
            for at, start, length in part.runs:
                assert encoded[at : at + length] == data[start : start + length]
                spans.append((start, start + length))
        else:
            shown.update(_lines(part))
    missing = Counter(_lines(visible(data))) - shown - hidden
    assert not +missing, f"lines neither shown nor stored: {list(missing)[:5]}"
    for omission in result.omissions:
        if "concatenated" not in omission.reason:
            assert omission.data in data, omission.reason
    ends = [0] + [end for _, end in sorted(spans)]
    assert all(start >= end for (start, _), end in zip(sorted(spans), ends)), "mapped twice"
    if spans and visible(data).encode() == data:  # valid UTF-8: every byte is mapped once
        assert [start for start, _ in sorted(spans)] == ends[:-1] and ends[-1] == len(data)


def _folded_labels(text: str) -> dict[str, str]:
    """`[path: kind, +A -R lines]` labels of whole-file folds, by path."""
    labels = {}
    for line in text.splitlines():
        if line.startswith("[") and " lines] #ref:ctx_" in line:
            path, _, rest = line[1:].partition(": ")
            labels[path.split(" → ")[-1]] = rest
    return labels


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_golden_cases(golden: Golden, case: str, granularity: Granularity) -> None:
    result = optimize(CASES[case], OptimizerConfig(granularity))
    _assert_covers(CASES[case], result)
    # The golden files are read with universal newlines: spell carriage returns out.
    text = render_preview(result).replace("\r", "\\r")
    golden.check(f"diff/{case}_{granularity.value}.txt", text)


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_golden_auth_guard_fixture(golden: Golden, granularity: Granularity) -> None:
    data = (FIXTURES / "auth_guard.diff").read_bytes()
    golden.check(
        f"diff/auth_guard_{granularity.value}.txt",
        render_preview(optimize(data, OptimizerConfig(granularity))),
    )


@pytest.mark.parametrize("name", DIFF_FIXTURES)
@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_fixture_signals_survive_and_everything_is_covered(name: str, granularity: Granularity) -> None:
    data = (FIXTURES / name).read_bytes()
    result = optimize(data, OptimizerConfig(granularity))
    text = render_preview(result)
    signals = (FIXTURES / f"{name}.signals").read_text(encoding="utf-8").splitlines()
    assert [signal for signal in signals if signal not in text] == []
    _assert_covers(data, result)


@pytest.mark.parametrize("name", DIFF_FIXTURES)
def test_every_change_of_unfolded_files_and_every_file_name_stays_visible(name: str) -> None:
    """unidiff is the oracle: its per-file line counts and changed lines must match ours."""
    data = (FIXTURES / name).read_bytes()
    text = render_preview(optimize(data, COARSE))
    lines = set(text.splitlines())
    labels = _folded_labels(text)
    for patched in PatchSet(data.decode("utf-8")):
        path = (patched.target_file if patched.target_file != "/dev/null" else patched.source_file)[2:]
        assert path in text
        if path in labels:
            assert f"+{patched.added} -{patched.removed} lines" in labels[path]
            continue
        for hunk in patched:
            for line in hunk:
                if line.is_added or line.is_removed:
                    assert f"{line.line_type}{line.value}".rstrip("\n") in lines, (path, line.value)


def test_auth_guard_fixture_folds_lockfile_and_asset_but_shows_the_removed_check() -> None:
    text = render_preview(optimize((FIXTURES / "auth_guard.diff").read_bytes(), COARSE))
    labels = _folded_labels(text)
    assert set(labels) == {"composer.lock", "public/build/app.min.js"}
    assert labels["composer.lock"].startswith("lockfile, +133 -133 lines")
    assert "-        if (!$this->isAuthenticated($user)) {\n" in text
    assert "index " not in text and "diff --git a/src" not in text


def _saved(data: bytes, config: OptimizerConfig) -> float:
    raw = tokens.count(visible(data))
    return 1 - tokens.count(render_preview(optimize(data, config))) / raw


def test_savings_on_the_fixtures() -> None:
    auth_guard = (FIXTURES / "auth_guard.diff").read_bytes()
    release = (FIXTURES / "real/release.diff").read_bytes()
    assert _saved(auth_guard, COARSE) >= 0.24
    assert _saved(auth_guard, FINE) >= 0.24
    assert _saved(release, COARSE) >= 0.20
    assert _saved(release, FINE) >= 0.15


def test_context_beside_each_change_stays_and_longer_runs_fold() -> None:
    text = render_preview(optimize(CASES["long_context"], COARSE))
    assert "\n… 8 lines\n     step_7 = transform_7(value)\n-    return step_7\n" in text
    assert "+    return step_7 or None\n def save(value):\n… 8 lines\n" in text
    assert text.startswith("[diff: git metadata in #ref:ctx_")


def test_coarse_groups_all_context_in_one_ref_and_fine_gives_one_per_run() -> None:
    data = (FIXTURES / "auth_guard.diff").read_bytes()
    coarse = [o for o in optimize(data, COARSE).omissions if "context" in o.reason]
    fine = [o for o in optimize(data, FINE).omissions if "context" in o.reason]
    assert len(coarse) == 1
    assert len(fine) > 10
    assert sum(o.data.count(b"\n") for o in fine) <= coarse[0].data.count(b"\n")
    assert all(o.data in data for o in fine)


def test_git_metadata_goes_to_one_ref_in_original_order() -> None:
    data = (FIXTURES / "auth_guard.diff").read_bytes()
    (meta,) = [o for o in optimize(data, COARSE).omissions if "metadata" in o.reason]
    assert meta.data.startswith(b"diff --git a/CHANGELOG.md b/CHANGELOG.md\nindex ")
    assert (
        b"similarity index 86%\nrename from src/Util/Money.php\nrename to src/Support/Money.php\n"
        in meta.data
    )
    assert b"old mode" not in meta.data  # a mode change is a real change


def test_a_removed_line_starting_with_dashes_is_not_a_file_header() -> None:
    text = render_preview(optimize(CASES["sql_removed_comments"], COARSE))
    assert "\n--- grant admin to everyone\n-+++ temporary\n" in text
    assert "--- a/other.sql\n+++ b/other.sql\n" in text


@pytest.mark.parametrize(
    "path,removed",
    [
        ("dist/auth.min.js", "-var x=1;"),
        ("vendor/acme/security/Firewall.php", "-$x = 1;"),
        ("public/build/app.min.js", "-if (!user.isAuthenticated()) { return deny(); }"),
        ("app/models_pb2.py", "-    verify=False,"),
    ],
)
def test_security_relevant_files_are_never_folded_as_generated(path: str, removed: str) -> None:
    data = (
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -1,2 +1,1 @@\n // @generated DO NOT EDIT\n{removed}\n"
    ).encode()
    text = render_preview(optimize(data, COARSE))
    assert f"{removed}\n" in text
    assert f"+++ b/{path}\n" in text


def test_generated_banner_minified_and_lockfiles_fold_with_counts() -> None:
    labels = _folded_labels(render_preview(optimize(CASES["lockfile_generated_minified"], COARSE)))
    assert labels == {
        "yarn.lock": "lockfile, +1 -1 lines] #ref:ctx_" + labels["yarn.lock"].split("#ref:ctx_")[1],
        "api/service_pb2.py": "generated, +1 -1 lines] #ref:ctx_"
        + labels["api/service_pb2.py"].split("#ref:ctx_")[1],
        "web/bundle.js": "minified, +1 -1 lines] #ref:ctx_" + labels["web/bundle.js"].split("#ref:ctx_")[1],
        "gen/client.go": "generated, +1 -1 lines] #ref:ctx_" + labels["gen/client.go"].split("#ref:ctx_")[1],
    }


def test_lockfile_folds_even_when_it_mentions_auth_packages() -> None:
    data = (
        b"diff --git a/services/auth/package-lock.json b/services/auth/package-lock.json\n"
        b"--- a/services/auth/package-lock.json\n+++ b/services/auth/package-lock.json\n"
        b'@@ -1 +1 @@\n-    "passport-oauth2": "1.6.0",\n+    "passport-oauth2": "1.8.0",\n'
    )
    assert "[services/auth/package-lock.json: lockfile, +1 -1 lines] #ref:ctx_" in render_preview(
        optimize(data, COARSE)
    )


def test_nothing_to_fold_returns_the_text_unchanged() -> None:
    data = b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    assert optimize(data, COARSE).parts == (data.decode(),)
    assert optimize(b"", COARSE).parts == ()


def test_limits_are_configurable() -> None:
    wide = optimize_diff(CASES["long_context"], Granularity.COARSE, DiffConfig(context_keep=3))
    text = render_preview(wide)
    assert "… 6 lines" in text and "     step_5 = transform_5(value)\n" in text


HOSTILE = {
    "empty": b"",
    "invalid_utf8": (
        b"diff --git a/\xff b/\xff\n--- a/\xff\n+++ b/\xff\n@@ -1,3 +1,3 @@\n \xfe\xfe\n-\xc3\n+\x80\n \xff\n"
    ),
    "latin1": "--- a/café\n+++ b/café\n@@ -1 +1 @@\n-données\n+résumé\n".encode("latin-1"),
    "nul_bytes": b"diff --git a/x b/x\n--- a/x\x00\n+++ b/x\x00\n@@ -1 +1 @@\n-\x00\n+\x00\x00\n",
    "ansi": b"\x1b[1mdiff --git a/x b/x\x1b[m\n\x1b[31m-a\x1b[m\n\x1b[32m+b\x1b[m\n",
    "huge_line": b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-" + b"x" * 5_000_000 + b"\n+y\n",
    "huge_line_no_newline": b"y" * 5_000_000,
    "hunk_counts_too_big": b"--- a/x\n+++ b/x\n@@ -1,900 +1,900 @@\n a\n-b\n+c\n",
    "hunk_counts_too_small": b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-b\n+c\n d\n e\n f\n g\n-h\n",
    "bad_hunk_header": b"--- a/x\n+++ b/x\n@@ nonsense @@\n a\n b\n c\n d\n-e\n",
    "binary_patch_truncated": b"diff --git a/x b/x\nGIT binary patch\nliteral 9",
    "only_headers": b"diff --git a/x b/x\n" * 1000,
    "orphan_hunks": b"@@ -1,3 +1,3 @@\n a\n b\n c\n" * 100,
}


@pytest.mark.parametrize("name", HOSTILE)
@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_hostile_input_never_raises_and_stays_covered(name: str, granularity: Granularity) -> None:
    data = HOSTILE[name]
    result = optimize(data, OptimizerConfig(granularity))
    assert all(isinstance(part, str | Excerpt | Omission) for part in result.parts)
    _assert_covers(data, result)


_DIFF_LINE = st.sampled_from(
    [
        b"diff --git a/x.py b/x.py",
        b"diff --git a/yarn.lock b/yarn.lock",
        b"diff --cc x.c",
        b"index 83db48f..bf269f4 100644",
        b"index 1,2..3",
        b"--- a/x.py",
        b"+++ b/x.py",
        b"--- /dev/null",
        b"+++ /dev/null",
        b"@@ -1,3 +1,4 @@",
        b"@@ -10 +10,2 @@ def f():",
        b"@@@ -1,2 -1,2 +1,3 @@@",
        b" context line",
        b"  combined context",
        b"",
        b"\r",
        b"+added",
        b"-removed",
        b"++both",
        b"-+mixed",
        b"--- sql comment",
        b"\\ No newline at end of file",
        b"Binary files a/x and b/x differ",
        b"GIT binary patch",
        b"rename from a",
        b"rename to b",
        b"new file mode 100644",
        b"old mode 100644",
        b"similarity index 90%",
        b"+" + b"x" * 600,
        b" \xff\xfe",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(_DIFF_LINE, st.binary(max_size=12)), max_size=80),
    st.sampled_from([b"\n", b"\r\n"]),
)
def test_generated_diffs_never_raise_and_stay_covered(lines: list[bytes], newline: bytes) -> None:
    data = newline.join(lines)
    for config in (COARSE, FINE):
        _assert_covers(data, optimize(data, config))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=4000), st.sampled_from(list(Granularity)))
def test_optimize_never_raises_on_arbitrary_bytes(data: bytes, granularity: Granularity) -> None:
    result = optimize(data, OptimizerConfig(granularity))
    assert all(isinstance(part, str | Excerpt | Omission) for part in result.parts)


def _planned_in_segments(
    data: bytes, segment_bytes: int, sections_per_batch: int = 1
) -> list[OptimizeResult]:
    """Planned with segments and batches growing from the sizes given to four times them."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(diff_module, "_FIRST_SEGMENT_BYTES", segment_bytes)
        patch.setattr(diff_module, "_SEGMENT_BYTES", 4 * segment_bytes)
        patch.setattr(diff_module, "_FIRST_SECTIONS_PER_BATCH", sections_per_batch)
        patch.setattr(diff_module, "_SECTIONS_PER_BATCH", 4 * sections_per_batch)
        return [optimize(data, config) for config in (COARSE, FINE)]


@pytest.mark.parametrize("name", DIFF_FIXTURES)
@pytest.mark.parametrize("segment_bytes", [0, 1, 100, 1000])
def test_fixtures_planned_segment_by_segment_plan_the_same_as_whole(name: str, segment_bytes: int) -> None:
    data = (FIXTURES / name).read_bytes()
    assert _planned_in_segments(data, segment_bytes) == _planned_in_segments(
        data, len(data) + 1, len(data) + 1
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(_DIFF_LINE, st.binary(max_size=12)), max_size=80),
    st.sampled_from([b"\n", b"\r\n"]),
    st.integers(min_value=0, max_value=200),
)
def test_planning_segment_by_segment_plans_the_same_as_the_whole(
    lines: list[bytes], newline: bytes, segment_bytes: int
) -> None:
    data = newline.join(lines)
    assert _planned_in_segments(data, segment_bytes) == _planned_in_segments(
        data, len(data) + 1, len(data) + 1
    )


def test_a_combined_diff_keeps_its_diff_cc_line_and_every_conflict_marker() -> None:
    data = CASES["combined"].replace(
        b"++\tstart_v3();\n", b"++<<<<<<< HEAD\n +\tstart_v3();\n++=======\n+ \tstart_v4();\n++>>>>>>> main\n"
    )
    shown = render_preview(optimize(data, COARSE))
    assert shown.splitlines()[1] == "diff --cc src/app.c"  # says the file is mid-merge
    for line in ("++<<<<<<< HEAD", " +\tstart_v3();", "++=======", "+ \tstart_v4();", "++>>>>>>> main"):
        assert line in shown.splitlines()


def _round_trip(data: bytes, granularity: Granularity) -> None:
    store = open_store()
    packet = analyze(data, source="test", store=store, config=OptimizerConfig(granularity))
    assert packet.recovery_status.value == "PASS", packet.recovery_failures
    assert restore(packet.visible.encode("utf-8"), store) == data


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_a_hunk_repeated_in_later_files_names_where_it_was_shown_and_restores_exactly(
    granularity: Granularity,
) -> None:
    data = CASES["repeated_hunks"]
    result = optimize(data, OptimizerConfig(granularity))
    text = render_preview(result)
    body = LICENCE_HUNK.split("\n", 1)[1]
    assert text.count(body) == 1  # shown in app/a.py only
    label = "[same 7 lines as the hunk above in app/a.py, line 1]"
    for path in ("app/b.py", "app/c.py"):
        assert f"+++ b/{path}\n@@ -1,5 +1,5 @@\n{label} #ref:ctx_" in text
    repeats = [o for o in result.omissions if o.reason.startswith("hunk body")]
    assert [o.data for o in repeats] == [body.encode()] * 2
    _assert_covers(data, result)
    _round_trip(data, granularity)


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_a_hunk_repeated_in_the_same_file_names_its_line_and_keeps_context_folds_apart(
    granularity: Granularity,
) -> None:
    hunk = _hunk(10, _function("load", 8), ["    return step_7"], ["    return None"], _function("save", 8))
    data = (GIT_HEADER + PATHS + hunk + hunk.replace("@@ -10,19 +10,19 @@", "@@ -80,19 +80,19 @@")).encode()
    result = optimize(data, OptimizerConfig(granularity))
    text = render_preview(result)
    label = "[same 20 lines as the hunk above in app/service.py, line 10]"
    assert f"@@ -80,19 +80,19 @@ class Service:\n{label} #ref:ctx_" in text
    assert text.count("-    return step_7\n") == 1
    _assert_covers(data, result)
    _round_trip(data, granularity)


@pytest.mark.parametrize(
    "hunk",
    ["@@ -3,0 +4 @@\n+import logging\n", "@@ -7 +7 @@\n-VERSION = (1, 4, 2)\n+VERSION = (1, 5, 0)\n"],
    ids=["one_line", "two_lines"],
)
def test_a_repeated_body_shorter_than_its_label_stays_visible(hunk: str) -> None:
    data = _files(("app/a.py", hunk), ("app/b.py", hunk), ("app/c.py", hunk))
    text = render_preview(optimize(data, FINE))
    assert "[same " not in text
    assert text.count(hunk) == 3


def test_hunks_that_differ_by_one_byte_fold_as_near_repeats_showing_that_line() -> None:
    changed = LICENCE_HUNK.replace("2024", "2025")
    data = _files(("app/a.py", LICENCE_HUNK), ("app/b.py", changed), ("app/c.py", LICENCE_HUNK))
    text = render_preview(optimize(data, COARSE))
    assert (
        "+++ b/app/b.py\n@@ -1,5 +1,5 @@\n[same 7 lines as the hunk above in app/a.py, line 1, except:] "
        "#ref:ctx_"
    ) in text
    assert "\n[+3] +# Copyright 2025 Acme Corp.\n" in text
    assert text.count("[same 7 lines as the hunk above in app/a.py, line 1]") == 1  # app/c.py only
    assert "+++ b/app/c.py\n@@ -1,5 +1,5 @@\n[same " in text


def test_bodies_whose_hashes_collide_are_compared_byte_for_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repeats_module, "hash", lambda body: 0, raising=False)  # every body collides
    changed = LICENCE_HUNK.replace("2024", "2025").replace("os", "re").replace("sys", "io")  # 3 lines
    data = _files(("app/a.py", LICENCE_HUNK), ("app/b.py", changed), ("app/c.py", LICENCE_HUNK))
    text = render_preview(optimize(data, COARSE))
    assert f"+++ b/app/b.py\n{changed}" in text
    assert "+++ b/app/c.py\n@@ -1,5 +1,5 @@\n[same 7 lines as the hunk above in app/a.py, line 1]" in text


def test_repeats_are_found_among_the_first_bodies_shown_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repeats_module, "_MAX_BODIES", 1)
    later = LICENCE_HUNK.replace("2024", "2025").replace("os", "re").replace("sys", "io")  # 3 lines
    data = _files(
        ("app/a.py", LICENCE_HUNK), ("app/b.py", later), ("app/c.py", LICENCE_HUNK), ("app/d.py", later)
    )
    text = render_preview(optimize(data, COARSE))
    assert "+++ b/app/c.py\n@@ -1,5 +1,5 @@\n[same 7 lines as the hunk above in app/a.py, line 1]" in text
    assert f"+++ b/app/d.py\n{later}" in text  # app/b.py's body was not recorded: shown again
    assert "in app/b.py" not in text


def test_a_body_first_seen_in_a_folded_file_is_shown_where_it_recurs() -> None:
    data = _files(("dist/app.py", LICENCE_HUNK), ("app/a.py", LICENCE_HUNK))
    text = render_preview(optimize(data, COARSE))
    assert "[dist/app.py: generated, +2 -2 lines] #ref:ctx_" in text
    assert "[same " not in text and text.count(LICENCE_HUNK) == 1


def test_a_combined_diff_names_files_without_their_a_b_prefixes() -> None:
    data = CASES["combined"] + CASES["combined"].replace(b"src/app.c", b"src/cli.c")
    text = render_preview(optimize(data, COARSE))
    assert "[same 10 lines as the hunk above in src/app.c, line 1] #ref:ctx_" in text
    assert text.count(" -\tstart_v2();\n") == 1


@pytest.mark.parametrize("segment_bytes", [0, 1, 100])
def test_repeated_hunks_planned_segment_by_segment_plan_the_same_as_whole(segment_bytes: int) -> None:
    data = CASES["repeated_hunks"]
    assert _planned_in_segments(data, segment_bytes) == _planned_in_segments(
        data, len(data) + 1, len(data) + 1
    )


def _module(number: int, lines: int = 40, ops: str = "+") -> str:
    """A new file's hunk, like one file's share of a mechanical edit: line 4 says which file,
    and the operator on line 8 (when `ops` is given one per file) may differ too."""
    body = [f"+def f{line}(x):\n" if line % 2 else f"+    return x + {line}\n" for line in range(lines)]
    body[3] = f"+VERSION = {number}\n"
    body[7] = f"+    return x {ops} 7\n"
    return f"@@ -0,0 +1,{lines} @@\n" + "".join(body)


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_a_nearly_repeated_body_shows_its_differing_lines_with_their_places_and_restores_exactly(
    granularity: Granularity,
) -> None:
    later = _module(2, ops="*")
    data = _files(("src/mod1.py", _module(1)), ("src/mod2.py", later))
    result = optimize(data, OptimizerConfig(granularity))
    text = render_preview(result)
    label = "[same 40 lines as the hunk above in src/mod1.py, line 1, except:] #ref:ctx_"
    assert f"+++ b/src/mod2.py\n@@ -0,0 +1,40 @@\n{label}" in text
    after = text.split(label, 1)[1].split("\n", 1)[1]
    assert after == "[+4] +VERSION = 2\n[+8] +    return x * 7\n"  # exactly the two, as in mod2
    near = [o for o in result.omissions if o.reason.startswith("hunk body")]
    assert [o.data for o in near] == [later.split("\n", 1)[1].encode()]
    _assert_covers(data, result)
    _round_trip(data, granularity)


def test_a_body_differing_in_more_lines_than_the_limit_is_shown_in_full() -> None:
    later = _module(2, ops="*").replace("+def f9(x):", "+def g9(x):")  # 3 lines of 40 differ
    data = _files(("src/mod1.py", _module(1)), ("src/mod2.py", later))
    text = render_preview(optimize(data, COARSE))
    assert "[same " not in text
    assert "+VERSION = 2\n" in text and "+def g9(x):\n" in text and "+    return x * 7\n" in text
    assert text.count("+def f11(x):\n") == 2


def test_bodies_with_different_line_counts_are_not_compared() -> None:
    data = _files(("src/mod1.py", _module(1)), ("src/mod2.py", _module(1, lines=41)))
    text = render_preview(optimize(data, COARSE))
    assert "[same " not in text and text.count("+VERSION = 1\n") == 2


def test_a_near_repeat_is_compared_only_with_bodies_shown_in_full() -> None:
    second = _module(2)
    data = _files(("src/mod1.py", _module(1)), ("src/mod2.py", second), ("src/mod3.py", second))
    text = render_preview(optimize(data, COARSE))
    assert "in src/mod2.py" not in text  # mod3 repeats mod2 exactly, but mod2 was folded
    assert text.count("[same 40 lines as the hunk above in src/mod1.py, line 1, except:]") == 2
    assert text.count("[+4] +VERSION = 2\n") == 2
