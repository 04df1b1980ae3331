"""Git log optimizer: real histories in every form, subjects and paths visible, exact refs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Golden, render_preview, run_git
from tokenlab.classify import classify
from tokenlab.optimizers import ContentType, Granularity, Omission, OptimizerConfig, OptimizeResult
from tokenlab.optimizers.git_log.optimizer import GitLogLimits, optimize, optimize_git_log
from tokenlab.packet import Status
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import FolderStore, open_store

COARSE = OptimizerConfig(Granularity.COARSE)
FINE = OptimizerConfig(Granularity.FINE)
CONFIGS = pytest.mark.parametrize("config", [COARSE, FINE], ids=["coarse", "fine"])
UNICODE_AUTHOR = "Zoë Ångström <zoe@example.com>"
AREAS = ("parser", "store", "cli", "docs", "render", "pipeline")
WORDS = (
    "handle", "empty", "input", "keep", "order", "when", "reading", "large",
    "files", "and", "report", "the", "missing", "entry", "clearly",
)  # fmt: skip

# The forms a log comes in: `git` arguments after `log`/`show`, on the small history.
FORMS = {
    "plain": ("log",),
    "stat": ("log", "--stat"),
    "patch": ("log", "-p"),
    "oneline_stat": ("log", "--oneline", "--stat"),
    "fuller": ("log", "--format=fuller", "--stat"),
    "name_status": ("log", "--name-status"),
    "show": ("show", "HEAD~2"),
    "show_stat_patch": ("show", "--stat", "-p", "HEAD~3"),
}


def commit(
    repo: Path, n: int, subject: str, body: str = "", author: str = "", files: dict[str, str] | None = None
) -> None:
    """One commit on a fixed date (day `n`), so that hashes and goldens never change."""
    for name, text in (files or {}).items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    hour, minute = 12 + len(subject) % 8, len(subject) % 60
    date = f"2024-{1 + n // 28 % 12:02d}-{1 + n % 28:02d}T{hour}:{minute:02d}:00+02:00"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GIT_AUTHOR_DATE", date)
        env.setenv("GIT_COMMITTER_DATE", date)
        run_git(repo, "add", "-A")
        args = ["commit", "-q", "--allow-empty", "-m", subject] + (["-m", body] if body else [])
        run_git(repo, *args, *(["--author", author] if author else []))


def small_history(repo: Path) -> Path:
    """Bodies, a rename, a binary file, a merge, a unicode author and an empty commit."""
    run_git(repo, "init", "-q", "-b", "main")
    lines = "".join(f"line {i} of the parser module\n" for i in range(40))
    commit(
        repo,
        1,
        "Add the parser",
        "It reads tokens one at a time\nand never backtracks.",
        files={"src/parser.py": lines},
    )
    commit(repo, 2, "Add docs and a logo", files={"docs/guide.md": "# Guide\n", "docs/logo.png": "\x00PNG"})
    commit(
        repo,
        3,
        "parser: handle empty input",
        "Empty input used to raise IndexError.\n\nFixes #12.",
        files={"src/parser.py": lines.replace("line 20", "line twenty")},
    )
    run_git(repo, "mv", "src/parser.py", "src/lexer.py")
    commit(repo, 4, "Rename the parser to lexer")
    run_git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, 5, "Add a CLI flag", author=UNICODE_AUTHOR, files={"src/cli.py": "flag = True\n"})
    run_git(repo, "checkout", "-q", "main")
    commit(repo, 6, "Tune the guide", files={"docs/guide.md": "# Guide\n\nUse it.\n"})
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GIT_AUTHOR_DATE", "2024-01-07T09:00:00+02:00")
        env.setenv("GIT_COMMITTER_DATE", "2024-01-07T09:00:00+02:00")
        run_git(repo, "merge", "-q", "--no-ff", "feature", "-m", "Merge branch 'feature'")
    run_git(repo, "tag", "v1")
    commit(repo, 8, "Release notes for v1 — café", author=UNICODE_AUTHOR, files={"NOTES.md": "v1\n"})
    for n, subject in enumerate(
        ("lexer: keep the line number of every token", "lexer: report where a string ends"), 9
    ):
        body = "The error message names the line and the column,\nso that editors can jump to it."
        commit(
            repo, n, subject, body, files={"src/lexer.py": lines.replace(f"line {n}", f"line {n}, column 1")}
        )
    commit(
        repo,
        11,
        "docs: explain the line numbers",
        files={"docs/guide.md": "# Guide\n\nLines count from 1.\n"},
    )
    commit(repo, 12, "Bump the version", files={"VERSION": "1.1\n", "NOTES.md": "v1\nv1.1\n"})
    return repo


def realistic_history(repo: Path, count: int) -> Path:
    """`count` commits in the shape of a working project's: three a day, a subject, often a
    body, one to three files, a second author now and then."""
    run_git(repo, "init", "-q", "-b", "main")
    for n in range(count):
        area = AREAS[n % len(AREAS)]
        subject = f"{area}: " + " ".join(WORDS[(n * 3 + k) % len(WORDS)] for k in range(5 + n % 7))
        body = "\n".join(
            " ".join(WORDS[(n + line * 5 + k) % len(WORDS)] for k in range(11)) for line in range(n % 4 * 2)
        )
        files = {
            f"{folder}/{area}_{(n + k) % 5}.py": "".join(
                f"value_{n}_{i} = {i * n}\n" for i in range(3 + n % 9)
            )
            for k, folder in enumerate(("src/tokenlab", "tests", "docs")[: 1 + n % 3])
        }
        commit(
            repo,
            n // 3,
            subject,
            body,
            author="Test <test@example.com>" if n % 5 else UNICODE_AUTHOR,
            files=files,
        )
    return repo


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_history(tmp_path_factory.mktemp("small"))


@pytest.fixture(scope="module")
def realistic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return realistic_history(tmp_path_factory.mktemp("realistic"), 120)


def git_output(repo: Path, *args: str) -> bytes:
    return (run_git(repo, "-c", "core.pager=cat", *args) + "\n").encode("utf-8")


def subjects(repo: Path, *rev: str) -> list[str]:
    return run_git(repo, "log", "--format=%s", *rev).splitlines()


def omissions(result: OptimizeResult) -> list[Omission]:
    return list(result.omissions)


def assert_lines_in_order(data: bytes, omission: Omission) -> None:
    """An omission is the input's lines, some of them, in input order (a slice is a special case)."""
    raw = iter(data.splitlines(keepends=True))
    for line in omission.data.splitlines(keepends=True):
        assert any(candidate == line for candidate in raw), f"not an input line in order: {line!r}"


def analyzed(data: bytes, tmp_path: Path, config: OptimizerConfig = COARSE) -> str:
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source="git", store=store, config=config)
    assert packet.content_type is ContentType.GIT_LOG
    assert restore(packet.visible.encode("utf-8"), store) == data
    assert packet.signal_status is not Status.FAIL, packet.missing_signals  # declared subjects, paths
    return packet.visible


# --- goldens and what must stay visible ---------------------------------------------------


@CONFIGS
@pytest.mark.parametrize("form", sorted(FORMS))
def test_golden(form: str, config: OptimizerConfig, small: Path, golden: Golden) -> None:
    """Rendered as if the small history were large: tiny inputs are otherwise shown as they are."""
    result = optimize_git_log(
        git_output(small, *FORMS[form]), config.granularity, GitLogLimits(verbatim_bytes=0)
    )
    golden.check(f"git_log/{form}.{config.granularity.value}.txt", render_preview(result))


@CONFIGS
@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_subject_visible_and_every_byte_recoverable(
    form: str, config: OptimizerConfig, small: Path, tmp_path: Path
) -> None:
    data = git_output(small, *FORMS[form])
    result = optimize(data, config)
    shown = render_preview(result)
    wanted = subjects(small, "-1", FORMS[form][-1]) if form.startswith("show") else subjects(small)
    for subject in wanted:
        assert subject in shown
    for omission in omissions(result):
        assert_lines_in_order(data, omission)
    visible = analyzed(data, tmp_path, config)
    for subject in wanted:
        assert subject in visible


@CONFIGS
def test_log_refs_hold_each_commit_exactly(config: OptimizerConfig, small: Path) -> None:
    data = git_output(small, "log", "--stat")
    held = omissions(optimize(data, config))
    assert b"".join(omission.data for omission in held) == data
    if config is FINE:
        assert len(held) == len(subjects(small))
        assert all(omission.data.startswith(b"commit ") for omission in held)
    else:
        assert len(held) == 1


def test_log_line_names_hash_date_author_and_changes(small: Path) -> None:
    data = git_output(small, "log", "--stat", "--decorate")
    shown = render_preview(optimize_git_log(data, Granularity.COARSE, GitLogLimits(detail_share=1.0)))
    head = run_git(small, "rev-parse", "HEAD")
    assert shown.startswith("[git log: 12 commits, 2024-01-02 .. 2024-01-13; every commit in full: #ref:ctx_")
    assert (
        f"2024-01-13:\ncommit {head} (HEAD -> main) Test: Bump the version [2 files changed, 2 insertions(+): NOTES.md, VERSION]\n"
        in shown
    )
    assert "Zoë Ångström: Release notes for v1 — café [1 file changed, 1 insertion(+): NOTES.md]" in shown
    assert "Test: parser: handle empty input … [1 file changed, 1 insertion(+), 1 deletion(-): src/parser.py]" in shown
    assert "Rename the parser to lexer [1 file changed, 0 insertions(+), 0 deletions(-): src/{parser.py => lexer.py}]" in shown
    assert "[2 files changed, 1 insertion(+): docs/guide.md, docs/logo.png]" in shown  # the binary logo counts as a file


def test_merge_commit_is_one_line(small: Path) -> None:
    shown = render_preview(optimize(git_output(small, "log", "--stat", "--decorate"), COARSE))
    merge = run_git(small, "rev-parse", "v1^{commit}")
    assert f"commit {merge} (tag: v1) Test: Merge branch 'feature'\n" in shown


# --- a single commit: message and every path -----------------------------------------------


def test_show_keeps_message_and_every_path(small: Path, tmp_path: Path) -> None:
    data = git_output(small, "show", "--stat", "-p", "HEAD~8")
    shown = analyzed(data, tmp_path)
    assert "    Empty input used to raise IndexError.\n" in shown
    assert "src/parser.py" in shown
    assert "Fixes #12." in shown


@pytest.fixture(scope="module")
def huge_commit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("huge")
    run_git(repo, "init", "-q", "-b", "main")
    commit(repo, 1, "Start", files={"README.md": "start\n"})
    files = {f"pkg{n % 7}/module_{n:04d}.py": f"x = {n}\n" for n in range(1500)}
    commit(repo, 2, "Vendor 1,500 modules at once", "Generated by the importer.", files=files)
    commit(repo, 3, "Follow-up fix", files={"README.md": "fixed\n"})
    return repo


def test_show_stat_of_1500_files_keeps_subject_first_and_every_path(
    huge_commit: Path, tmp_path: Path
) -> None:
    data = git_output(huge_commit, "show", "--stat=200", "HEAD~1")
    shown = analyzed(data, tmp_path)
    assert shown.index("Vendor 1,500 modules at once") < shown.index("module_")
    assert " 1500 files changed, 1500 insertions(+)\n" in shown
    # Every path is named: its folder's line says the family once, `module_{0000,0007,…}.py`.
    folders = {line.split(":")[0].strip(): line for line in shown.splitlines() if line.startswith("  pkg")}
    for n in range(1500):
        line = folders[f"pkg{n % 7}"]
        assert "module_{" in line and f"{n:04d}" in line.split("{", 1)[1].split("}", 1)[0].split(",")
    assert len(shown) < 0.7 * len(data)  # the stat graph and the header are behind refs


@CONFIGS
def test_log_stat_with_a_1500_file_commit_shows_every_subject(
    config: OptimizerConfig, huge_commit: Path, tmp_path: Path
) -> None:
    data = git_output(huge_commit, "log", "--stat")
    shown = analyzed(data, tmp_path, config)
    for subject in subjects(huge_commit):
        assert subject in shown
    assert "[1500 files changed, 1500 insertions(+): pkg0/, pkg1/, pkg2/ …]" in shown
    assert "module_0000.py" not in shown


def test_show_patch_names_every_file(huge_commit: Path, tmp_path: Path) -> None:
    data = git_output(huge_commit, "show", "HEAD~1")
    shown = analyzed(data, tmp_path)
    assert "Vendor 1,500 modules at once" in shown
    for n in range(0, 1500, 7):
        assert f"module_{n:04d}.py" in shown


# --- how much is saved ------------------------------------------------------------------


def test_120_commit_stat_log_saves_80_percent_with_every_subject(realistic: Path, tmp_path: Path) -> None:
    data = git_output(realistic, "log", "--stat")
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source="git-log-stat", store=store)
    assert packet.content_type is ContentType.GIT_LOG
    for subject in subjects(realistic):
        assert subject in packet.visible
    print(f"saved {packet.saved_pct:.1f}%")
    assert packet.saved_pct >= 80.0, packet.saved_pct
    assert restore(packet.visible.encode("utf-8"), store) == data


@pytest.mark.parametrize(
    "args", [("log",), ("log", "-p"), ("log", "--format=fuller")], ids=["plain", "patch", "fuller"]
)
def test_120_commit_logs_keep_every_subject(args: tuple[str, ...], realistic: Path, tmp_path: Path) -> None:
    data = git_output(realistic, *args)
    shown = analyzed(data, tmp_path)
    for subject in subjects(realistic):
        assert subject in shown


def test_oneline_log_is_shown_as_it_is(realistic: Path) -> None:
    data = git_output(realistic, "log", "--oneline", "--decorate")
    assert classify(data).content_type is ContentType.GIT_LOG
    assert render_preview(optimize(data, COARSE)) == data.decode("utf-8")


def test_a_few_commits_are_shown_as_they_are(small: Path) -> None:
    data = git_output(small, "log", "-2")
    assert render_preview(optimize(data, COARSE)) == data.decode("utf-8")


# --- hostile and unusual input --------------------------------------------------------------


@CONFIGS
def test_crlf_log(config: OptimizerConfig, small: Path, tmp_path: Path) -> None:
    data = git_output(small, "log", "--stat").replace(b"\n", b"\r\n")
    shown = analyzed(data, tmp_path, config)
    for subject in subjects(small):
        assert subject + " " in shown or subject + "\n" in shown
    assert "\r" not in shown


@CONFIGS
@pytest.mark.parametrize("cut", [0.33, 0.5, 0.77, 0.99])
def test_log_cut_off_mid_commit(cut: float, config: OptimizerConfig, realistic: Path, tmp_path: Path) -> None:
    full = git_output(realistic, "log", "--stat", "-30")
    data = full[: int(len(full) * cut)]
    result = optimize(data, config)
    for omission in omissions(result):
        assert omission.data in data
    shown = analyzed(data, tmp_path, config)
    complete = data[: data.rfind(b"\ncommit ")].decode("utf-8", errors="replace")
    for subject in subjects(realistic, "-30"):
        if "\n    " + subject + "\n" in complete:
            assert subject in shown


@pytest.mark.parametrize(
    "data",
    [
        b"commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A <a@b>\n",
        b"commit 0123456789abcdef0123456789abcdef01234567\n" * 200,
        b"commit 0123456789abcdef0123456789abcdef01234567\nAuthor: \xff\xfe <x>\nDate: nonsense\n\n    \xc3\n"
        * 100,
        b"0123abc \n" * 500,
        b"commit 0123456789abcdef0123456789abcdef01234567\nDate:   yesterday\n\n    s\n\n diff --git x\n"
        * 50,
    ],
    ids=["headers-only", "bare-commit-lines", "undecodable", "empty-subjects", "odd-tail"],
)
def test_odd_input_never_raises_and_round_trips(data: bytes, tmp_path: Path) -> None:
    for config in (COARSE, FINE):
        result = optimize(data, config)
        for omission in omissions(result):
            assert omission.data in data
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source="odd", store=store)
    assert restore(packet.visible.encode("utf-8"), store) == data


# --- classification -------------------------------------------------------------------------


@pytest.mark.parametrize("form", sorted(FORMS))
def test_forms_classify_as_git_log(form: str, small: Path) -> None:
    data = git_output(small, *FORMS[form])
    assert classify(data).content_type is ContentType.GIT_LOG


def test_oneline_patch_and_raw_classify_as_git_log(small: Path) -> None:
    for args in (("log", "--oneline", "-p"), ("log", "--format=raw"), ("show", "--oneline", "HEAD~3")):
        assert classify(git_output(small, *args)).content_type is ContentType.GIT_LOG, args


def test_plain_diff_is_still_a_diff(small: Path) -> None:
    data = git_output(small, "diff", "HEAD~8", "HEAD")
    assert classify(data).content_type is ContentType.DIFF


def not_git_logs() -> Iterator[bytes]:
    yield b"".join(b"%064x  dist/file_%d.tar.gz\n" % (n * 7919, n) for n in range(50))  # sha256sum
    yield b"".join(
        b"%08x (Test 2024-01-01 12:00:00 +0000 %3d) x = %d\n" % (n * 7919 + 0xA0, n, n) for n in range(50)
    )
    yield b"We reverted commit 0123456789abcdef0123456789abcdef01234567 last week.\nIt broke the build.\n" * 5
    yield b"".join(b"%d total items in batch\n" % (1234567 + n) for n in range(50))
    # nm --size-sort: address, size, type, symbol
    yield b"".join(b"%016x %016x T symbol_%d\n" % (0x24F6D0 + 16 * n, n + 1, n) for n in range(50))
    # a table of objects: hash, type word, then only numbers and hashes (sizes, offset, base)
    yield b"".join(
        b"%040x %-6s %d %d %d%s\n"
        % (n * 0x9E3779B97F4A7C15, (b"commit", b"tree", b"blob")[n % 3], 100 + n, 90 + n, 12 + 200 * n,
           b" 1 %040x" % (n * 7919) if n % 4 == 0 else b"")
        for n in range(1, 60)
    ) + b"non delta: 40 objects\nchain length = 1: 15 objects\npack-1.pack: ok\n"
    # a content-addressed store's listing: short digest, kind, entries, bytes
    yield b"".join(b"%08x index %d %d\n" % (0xABC0123 + n * 7919, n, 4096 * n) for n in range(1, 40))


@pytest.mark.parametrize(
    "data", list(not_git_logs()), ids=["sha256sum", "blame", "prose", "numbers", "nm", "object table", "digest table"]
)
def test_lookalikes_are_not_git_logs(data: bytes) -> None:
    assert classify(data).content_type is not ContentType.GIT_LOG


def test_dates_in_other_formats(small: Path) -> None:
    for args in (
        ("log", "--date=iso"),
        ("log", "--date=rfc"),
        ("log", "--format=raw"),
        ("log", "--date=short"),
    ):
        shown = render_preview(optimize(git_output(small, *args), COARSE))
        assert "2024-01-02 .. 2024-01-13" in shown, args
    relative = render_preview(optimize(git_output(small, "log", "--date=relative"), COARSE))
    assert re.search(r"^\d+ \w+(?:, \d+ \w+)? ago:$", relative, re.MULTILINE)


def test_show_of_a_40_file_commit_names_every_path(tmp_path: Path) -> None:
    repo = tmp_path / "forty"
    repo.mkdir()
    run_git(repo, "init", "-q", "-b", "main")
    commit(repo, 1, "Start", files={"README.md": "start\n"})
    files = {f"lib/{'xy'[n % 2]}/module_{n:02d}.py": f"x = {n}\ny = {n}\n" for n in range(40)}
    commit(repo, 2, "Add 40 library modules", files=files)
    for args in (("show",), ("show", "--stat"), ("show", "--name-status"), ("show", "--stat", "-p")):
        shown = analyzed(git_output(repo, *args), tmp_path)
        missing = [name for name in files if name.rsplit("/", 1)[1] not in shown]
        assert missing == [], args


# --- signals: what the SIGNAL stage checks --------------------------------------------------

REAL_LOGS = sorted(
    path
    for path in (Path(__file__).parent.parent / "fixtures" / "real").glob("git_*.txt")
    if classify(path.read_bytes()).content_type is ContentType.GIT_LOG
)


def signal_pass(data: bytes, config: OptimizerConfig = COARSE) -> tuple[str, ...]:
    """The automatic signals of a full run, which must all be visible."""
    packet = analyze(data, source="git", store=open_store(), config=config)
    assert packet.content_type is ContentType.GIT_LOG
    assert packet.automatic_signals
    assert packet.signal_status is Status.PASS, packet.missing_signals
    assert not packet.missing_signals
    return packet.automatic_signals


@CONFIGS
@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_subject_is_a_signal(form: str, config: OptimizerConfig, small: Path) -> None:
    data = git_output(small, *FORMS[form])
    wanted = subjects(small, "-1", FORMS[form][-1]) if form.startswith("show") else subjects(small)
    for limits in (GitLogLimits(), GitLogLimits(verbatim_bytes=0)):  # as it is, and rendered
        signals = optimize_git_log(data, config.granularity, limits).signals
        assert [s for s in signals if s in wanted] == list(dict.fromkeys(wanted))
    assert set(wanted) <= set(signal_pass(data, config))


@pytest.mark.parametrize(
    "args",
    [("show", "--stat", "-p", "HEAD~3"), ("show", "--name-status", "HEAD~4"), ("show", "HEAD~8")],
    ids=["stat_patch", "name_status", "patch"],
)
def test_show_declares_every_path_of_its_listing_and_patch(args: tuple[str, ...], small: Path) -> None:
    data = git_output(small, *args)
    paths = run_git(small, "show", "--name-status", "--format=", args[-1]).splitlines()
    named = [name for line in paths for name in line.split("\t")[1:]]
    assert named
    for limits in (GitLogLimits(), GitLogLimits(verbatim_bytes=0)):
        signals = optimize_git_log(data, Granularity.COARSE, limits).signals
        assert signals[0] == subjects(small, "-1", args[-1])[0]
        for name in named:
            assert any(name in signal for signal in signals[1:]), (name, signals)
    signal_pass(data)


def test_show_of_a_40_file_commit_declares_what_each_form_keeps(tmp_path: Path) -> None:
    repo = tmp_path / "forty"
    repo.mkdir()
    run_git(repo, "init", "-q", "-b", "main")
    commit(repo, 1, "Start", files={"README.md": "start\n"})
    files = {f"lib/{'xy'[n % 2]}/module_{n:02d}.py": f"x = {n}\ny = {n}\n" for n in range(40)}
    commit(repo, 2, "Add 40 library modules", files=files)
    # Listings of over 40 lines are shown by folder (`lib/x: module_00.py, …`): a path is not
    # shown whole there, so only the stat's summary line, if any, is declared.
    stat = signal_pass(git_output(repo, "show", "--stat"))
    assert stat == ("Add 40 library modules", "40 files changed, 80 insertions(+)")
    names = signal_pass(git_output(repo, "show", "--name-status"))
    assert names == ("Add 40 library modules",)
    few = signal_pass(git_output(repo, "show", "--name-status", "--", "lib/x"))  # 20 lines: as printed
    assert few == ("Add 40 library modules", *(name for name in files if name.startswith("lib/x/")))
    patch = signal_pass(git_output(repo, "show"))
    assert patch == ("Add 40 library modules", *sorted(files))  # in the order git prints them


def test_huge_show_declares_its_subject_and_stat_summary(huge_commit: Path) -> None:
    signals = signal_pass(git_output(huge_commit, "show", "--stat=200", "HEAD~1"))
    assert signals == ("Vendor 1,500 modules at once", "1500 files changed, 1500 insertions(+)")
    patch = signal_pass(git_output(huge_commit, "show", "HEAD~1"))
    assert len(patch) == 1 + 1500 and patch[1] == "pkg0/module_0000.py"


@CONFIGS
def test_long_log_signals_pass_and_are_capped(config: OptimizerConfig, realistic: Path) -> None:
    data = git_output(realistic, "log", "-p")
    assert set(signal_pass(data, config)) == set(subjects(realistic))
    capped = optimize_git_log(data, config.granularity, GitLogLimits(max_signals=5)).signals
    assert capped == tuple(subjects(realistic)[:5])


def test_commits_without_a_message_declare_nothing_for_them() -> None:
    data = b"commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A <a@b>\n\n" * 100
    assert optimize(data, COARSE).signals == ()


@pytest.mark.parametrize("path", REAL_LOGS, ids=[path.name for path in REAL_LOGS])
def test_real_logs_pass_the_signal_stage(path: Path) -> None:
    signals = signal_pass(path.read_bytes())
    expected = {
        "git_diff_stat.txt": 9,  # the summary, 5 largest changes, 3 files only removed from
        "git_diff_stat_110_files.txt": 7,  # the summary, 5 largest changes, 1 file only removed from
        "git_diff_stat_scratch_long_paths.txt": 7,  # the summary, 5 largest changes, 1 file only removed from
        "git_log.txt": 86,
        "git_log_oneline.txt": 86,
        "git_log_p_4.txt": 4,
        "git_log_graph_all.txt": 58,  # every commit subject, as printed
        "git_log_stat.txt": 86,
        "git_log_stat_1500_files.txt": 7,  # subject, summary, 5 largest changes
        "git_show.txt": 4,
        "git_show_stat_1500_files.txt": 7,
        "git_diff_stat_deep_long_paths.txt": 12,  # the summary, the largest changes, the renames
        "git_log_format_trunc_click_400.txt": 299,  # every distinct line, as printed
        "git_log_stat_tokenlab_40.txt": 40,  # every commit subject
        "git_log_stat_80_commits.txt": 80,
    }
    assert len(signals) == expected[path.name], signals


def test_a_stat_listing_alone_is_shown_by_folder_with_its_summary() -> None:
    rows = "".join(f" src/pkg{i % 4}/module_{i:03}.py | {i % 9 + 1} +{'-' * (i % 3)}\n" for i in range(120))
    data = (rows + " 120 files changed, 600 insertions(+), 120 deletions(-)\n").encode()
    assert classify(data).content_type is ContentType.GIT_LOG
    result = optimize(data, COARSE)
    shown = render_preview(result)
    assert " 120 files changed, 600 insertions(+), 120 deletions(-)" in shown
    assert "src/pkg3: " in shown and "module_119.py 3±" in shown  # each file's count, compactly
    assert result.signals[0] == "120 files changed, 600 insertions(+), 120 deletions(-)"
    largest = [line for line in result.signals[1:] if "| 9 +" in line]
    assert len(largest) == 5 and all(line in shown for line in largest)


def test_a_long_stat_listing_shows_removals_and_the_largest_changes_as_printed() -> None:
    rows = [f" src/gen/g{i}.py | {i * 3 + 1} {'+' * min(i, 50)}\n" for i in range(60)]
    rows.insert(3, " docs/README.md |  28 -------\n")
    rows.append(" old/{a.py => b.py} | 0\n")
    data = ("".join(rows) + " 62 files changed, 5370 insertions(+), 28 deletions(-)\n").encode()
    shown = render_preview(optimize(data, COARSE))
    assert " docs/README.md |  28 -------" in shown  # a file only removed from
    assert " old/{a.py => b.py} | 0" in shown  # a rename
    assert f" src/gen/g59.py | 178 {'+' * 50}" in shown  # the largest change
    assert "src/gen (" not in shown and "g1.py 4+, g2.py 7+" in shown  # counts differ: each given


def test_names_git_cut_short_are_opaque_rows_under_the_folder_they_show() -> None:
    tails = ["CustomerIdentityHandler.java", "InvoiceRepository.java", "StockSnapshot.java"]
    rows = [f" ...{tails[i % 3]} | {i + 10} {'+' * 8}--\n" for i in range(30)]
    rows += [f" .../internal/{tails[i % 3]} | {i + 50} {'+' * 9}-\n" for i in range(12)]
    rows += [f" src/app/module_{i}.py | 3 +++\n" for i in range(10)]
    data = ("".join(rows) + " 52 files changed, 900 insertions(+), 60 deletions(-)\n").encode()
    shown = render_preview(optimize(data, COARSE))
    cut_before_folders = next(line for line in shown.splitlines() if line.startswith("  (cut by git): "))
    # Ten rows end in the same cut name: ten files, the name said once before each one's count.
    counts = " ".join(f"{i + 10}±" for i in range(0, 30, 3))
    assert f"...CustomerIdentityHandler.java ×10: {counts}," in cut_before_folders
    assert "  .../internal: " in shown and "InvoiceRepository.java ×4: 51± 54± 57± 60±" in shown
    assert " ...CustomerIdentityHandler.java | 10 ++++++++--\n" in shown  # where the listing begins
    assert "  ...: " not in shown and "  .: ..." not in shown  # `...` is no folder
    assert "src/app (3+ each unless noted): module_{0…9}.py" in shown


def test_a_log_names_cut_paths_as_printed_not_as_a_folder() -> None:
    stat = "".join(f" .../internal/InvoiceRepository{i}Test.java | 7 +++++++\n" for i in range(10))
    log = (
        "commit 28de77a6dbb771713730a45f2d15d634fb7c69ee\nAuthor: Dana <d@x>\nDate:   Wed Dec 2 10:00:00 2026 +0000\n\n"
        "    Follow-up fixes\n\n"
        + "    A body line that says what changed and why, at some length.\n" * 12
        + f"\n{stat} 10 files changed, 70 insertions(+)\n\n"
    )
    shown = render_preview(optimize((log * 5).encode(), COARSE))
    assert "[10 files changed, 70 insertions(+): .../internal/InvoiceRepository0Test.java, .../internal/InvoiceRepository1Test.java" in shown
    assert ": .../]" not in shown


def test_a_log_commit_keeps_its_summary_and_largest_changes_as_printed() -> None:
    sizes = [3, 3, 3, 3, 3, 3, 3, 3, 3, 21, 17]
    stat = "".join(f" src/pkg/module_{i:02d}.py | {n:2d} {'+' * n}\n" for i, n in enumerate(sizes))
    stat = stat.replace(" src/pkg/module_03.py |  3 +++", " ...=> module_03.py} |  0", 1)  # a rename git cut
    log = "".join(
        f"commit {n:040x}\nAuthor: Dana <d@x>\nDate:   Wed Dec 2 10:00:00 2026 +0000\n\n"
        f"    Change {n}\n\n{stat} 11 files changed, 62 insertions(+)\n\n"
        for n in range(1, 6)
    )
    shown = render_preview(optimize_git_log(log.encode(), Granularity.COARSE, GitLogLimits(max_paths=4, detail_share=1.0)))
    assert shown.count("[11 files changed, 62 insertions(+): src/") == 5  # the summary as printed
    largest = f"\n src/pkg/module_09.py | 21 {'+' * 21}\n src/pkg/module_10.py | 17 {'+' * 17}\n"
    assert shown.count(largest) == 5  # each commit's two largest rows, largest first
    assert shown.count(f"{largest} ...=> module_03.py}} |  0\n") == 5  # then its renames
    assert "module_00.py | " not in shown


def test_a_graph_log_is_a_git_log_and_keeps_every_merge_and_branch_tip() -> None:
    data = (Path(__file__).parent.parent / "fixtures" / "real" / "git_log_graph_all.txt").read_bytes()
    assert classify(data).content_type is ContentType.GIT_LOG
    shown = render_preview(optimize(data, OptimizerConfig(Granularity.COARSE)))
    assert "| *   a5c43ae Merge branch 'fix/db-timeout'" in shown
    assert "| | * 74e909c (origin/fix/db-timeout, fix/db-timeout) db-timeout: work item 3" in shown


def test_a_decoration_naming_one_branch_is_a_decoration() -> None:
    lines = [f"{n:07x}a (feature/x) step {n}" for n in range(1, 5)]
    assert classify(("\n".join(lines) + "\n").encode()).content_type is ContentType.GIT_LOG


def test_oneline_subjects_that_start_with_a_number_are_still_commits() -> None:
    data = b"".join(b"%07x %d small fixes in module %d\n" % (0xA1B2C3D + n * 7919, n % 5 + 1, n) for n in range(20))
    assert classify(data).content_type is ContentType.GIT_LOG


def test_a_short_log_shows_every_full_hash_a_long_one_its_ends_and_notable_changes() -> None:
    data = (Path(__file__).parent.parent / "fixtures" / "real" / "git_log_stat_80_commits.txt").read_bytes()
    shown = render_preview(optimize(data, COARSE))
    full = [line.split()[1] for line in shown.splitlines() if line.startswith("commit ")]
    # The newest and the oldest commit, and the two changes of about 1,000 lines.
    assert full == [
        "50c7f339a32283d721d0960e4ed619b5f72fc630",
        "f8a79d2d8cf37dd4ad6bf47e1a22226eb04e617d",
        "fc6c866b83c309d3670e0e7aed11f4a28b777b14",
        "5b53283c8ffc4360a339563c093fc42bed0c841c",
    ]
    assert "\n15b9b86 Add app handling (step 79) [2 files +35 -7]\n" in shown
    short = optimize_git_log(data, Granularity.COARSE, GitLogLimits(full_hashes=80))
    assert sum(line.startswith("commit ") for line in render_preview(short).splitlines()) == 80
