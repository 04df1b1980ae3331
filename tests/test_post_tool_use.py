"""Claude Code's PostToolUse path: which tool outputs are replaced, in what shape, and the hook entry."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tokenlab import ledger, markers
from tokenlab.agent import claude_hook, post_tool_use
from tokenlab.agent.hook_io import read_file
from tokenlab.agent.claude_settings import Change, hook_command, install, uninstall
from tokenlab.agent.post_tool_use import HOST_CAP, Replacement, decide, numbered
from tokenlab.cli import app
from tokenlab.counting import tokens
from tokenlab.optimizers import OptimizerConfig
from tokenlab.packet import ContextPacket
from tokenlab.pipeline import analyze
from tokenlab.store import Store

runner = CliRunner()
BUILD_LOG = "".join(f"INFO worker {i} compiled module_{i}.o in 12ms\n" for i in range(1, 3001))
BUILD_LOG += "WARNING deprecated flag -fold used by module_17\nBUILD OK: 3000 modules\n"
SIGNALS = ("WARNING deprecated flag -fold used by module_17", "BUILD OK: 3000 modules")


def answer(hook_input: dict[str, Any], store: Store) -> Replacement | None:
    def analyse(data: bytes, label: str) -> ContextPacket:
        return analyze(data, source=label, store=store, config=OptimizerConfig())

    return decide(hook_input, read_file, analyse)


def post(tool: str, tool_input: dict[str, Any], response: Any, event: str = "PostToolUse") -> dict[str, Any]:
    """Claude Code's PostToolUse input for one finished tool call."""
    return {
        "session_id": "abc123",
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_response": response,
        "tool_use_id": "toolu_01",
        "duration_ms": 12,
    }


def bash(stdout: str, command: str = "sh build.sh", **extra: Any) -> dict[str, Any]:
    response = {
        "stdout": stdout,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    return post("Bash", {"command": command, "description": "build"}, {**response, **extra})


def restored(visible: str, store: Store) -> bytes:
    footer = markers.parse_footer(visible)
    assert footer is not None, visible
    return store.load(footer[1]).data


def test_bash_output_becomes_the_visible_text_in_the_same_shape(store: Store) -> None:
    small = BUILD_LOG[-20_000:]
    replacement = answer(bash(small), store)
    assert replacement is not None
    output = replacement.as_dict()["hookSpecificOutput"]
    assert output["hookEventName"] == "PostToolUse"
    new = output["updatedToolOutput"]
    assert set(new) == {"stdout", "stderr", "interrupted", "isImage", "noOutputExpected"}
    assert len(new["stdout"]) < len(small) // 10
    assert all(signal in new["stdout"] for signal in SIGNALS)
    assert "tokens show-ref" in new["stdout"]
    assert restored(new["stdout"], store) == small.encode()
    assert replacement.visible_tokens < replacement.host_tokens


def test_a_persisted_output_is_read_whole_and_the_persisted_fields_dropped(
    store: Store, tmp_path: Path
) -> None:
    whole = tmp_path / "tool-results" / "b3utq5shp.txt"
    whole.parent.mkdir()
    whole.write_bytes(BUILD_LOG.encode())
    data = bash(BUILD_LOG[:HOST_CAP], persistedOutputPath=str(whole), persistedOutputSize=len(BUILD_LOG))
    replacement = answer(data, store)
    assert replacement is not None
    new = replacement.output
    assert "persistedOutputPath" not in new and "persistedOutputSize" not in new
    assert all(signal in new["stdout"] for signal in SIGNALS)  # both printed after the first 30,000
    assert restored(new["stdout"], store) == BUILD_LOG.encode()
    # What Claude Code would have shown: its notice and 2 KB preview, without the last lines.
    assert 400 < replacement.host_tokens < 1000


def test_a_persisted_file_that_is_not_this_output_is_not_used(store: Store, tmp_path: Path) -> None:
    other = tmp_path / "other.txt"
    other.write_text("something else\n" * 5000)
    assert answer(bash(BUILD_LOG[:HOST_CAP], persistedOutputPath=str(other)), store) is None
    assert answer(bash(BUILD_LOG[:HOST_CAP], persistedOutputPath=str(tmp_path / "gone")), store) is None


@pytest.mark.parametrize(
    "command",
    [
        "tokens run --shell 'sh build.sh'",
        "/home/u/.venv/bin/tokens run -- make",
        "tokens analyze build.log",
        "'/home/u/my env/bin/python3' -m tokenlab run --shell 'sh build.sh'",
    ],
)
def test_output_of_tokens_itself_is_left_alone(command: str, store: Store) -> None:
    assert answer(bash(BUILD_LOG[-20_000:], command=command), store) is None


def test_output_ending_in_our_footer_is_left_alone(store: Store) -> None:
    first = answer(bash(BUILD_LOG[-20_000:]), store)
    assert first is not None
    assert answer(bash(first.output["stdout"], command="cat saved.txt"), store) is None
    as_json = json.dumps({"visible": first.output["stdout"], "records": JSON_DATA})
    assert answer(post("mcp__tokenlab__read_file", {"path": "build.log"}, as_json), store) is None


@pytest.mark.parametrize(
    "extra", [{"interrupted": True}, {"isImage": True}, {"stderr": "separate"}], ids=lambda e: next(iter(e))
)
def test_interrupted_images_and_unmeasured_shapes_are_left_alone(extra: dict[str, Any], store: Store) -> None:
    assert answer(bash(BUILD_LOG[-20_000:], **extra), store) is None


def test_no_saving_or_no_success_means_no_answer(store: Store) -> None:
    assert answer(bash("hello\n"), store) is None
    assert answer(bash(""), store) is None
    failure = bash(BUILD_LOG[-20_000:])
    failure["hook_event_name"] = "PostToolUseFailure"
    assert answer(failure, store) is None


def test_a_visible_text_over_the_hosts_cap_is_not_sent(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(post_tool_use, "HOST_CAP", 100)
    assert answer(bash(BUILD_LOG[-20_000:]), store) is None


def test_marker_look_alikes_in_the_output_stay_literal(store: Store) -> None:
    noisy = "".join(f"INFO step {i} wrote #ref:ctx_deadbeef{i % 7}\n" for i in range(2000))
    replacement = answer(bash(noisy), store)
    assert replacement is not None
    visible = replacement.output["stdout"]
    assert "#ref:ctx_deadbeef" not in visible
    assert restored(visible, store) == noisy.encode()


def read_post(path: Path, content: str, **file_extra: Any) -> dict[str, Any]:
    lines = content.count("\n") + 1
    file = {"filePath": str(path), "content": content, "numLines": lines, "startLine": 1, "totalLines": lines}
    return post("Read", {"file_path": str(path)}, {"type": "text", "file": {**file, **file_extra}})


JSON_DATA = json.dumps(
    {"items": [{"id": i, "name": f"item-{i}", "status": "ok", "tags": ["a", "b"]} for i in range(400)]},
    indent=2,
)


def test_read_of_data_is_replaced_in_reads_shape(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text(JSON_DATA + "\n")
    replacement = answer(read_post(path, JSON_DATA), store)
    assert replacement is not None
    new = replacement.output
    assert new["type"] == "text"
    assert new["file"]["filePath"] == str(path)
    assert new["file"]["startLine"] == 1
    assert new["file"]["numLines"] == new["file"]["content"].count("\n")
    assert len(new["file"]["content"]) < len(JSON_DATA) // 2
    assert restored(new["file"]["content"], store) == path.read_bytes()  # the file, byte for byte
    # Both counts as Claude Code shows a Read: each line after its number.
    assert replacement.visible_tokens == tokens.count(numbered(new["file"]["content"]))
    assert replacement.host_tokens == tokens.count(numbered(JSON_DATA))


def test_read_cut_by_the_token_cap_shows_the_whole_file(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text(JSON_DATA)
    shown = "\n".join(JSON_DATA.split("\n")[:500])
    replacement = answer(read_post(path, shown, totalLines=2000, truncatedByTokenCap=True), store)
    assert replacement is not None
    assert "truncatedByTokenCap" not in replacement.output["file"]
    assert replacement.output["file"]["content"].startswith(
        f"[tokenlab: the whole file, {JSON_DATA.count(chr(10)) + 1:,} lines"
    )
    assert restored(replacement.output["file"]["content"], store) == JSON_DATA.encode()


CSV = "id,name,status,size\n" + "".join(f"{i},record-{i},ok,{1024 + i}\n" for i in range(800))
PACKAGE_LOCK = json.dumps(
    {
        "name": "app",
        "lockfileVersion": 3,
        "packages": {
            f"node_modules/pkg-{i}": {
                "version": f"1.{i}.0",
                "resolved": f"https://registry.npmjs.org/pkg-{i}/-/pkg-{i}-1.{i}.0.tgz",
                "integrity": f"sha512-{i:064x}",
            }
            for i in range(300)
        },
    },
    indent=2,
)
LISTING = "".join(f"-rw-r--r-- 1 u u {1000 + i:>6} Nov 30 12:00 file_{i}.dat\n" for i in range(600))


@pytest.mark.parametrize(
    ("name", "text"),
    [("data.csv", CSV), ("package-lock.json", PACKAGE_LOCK), ("listing.txt", LISTING)],
    ids=["csv", "lockfile", "listing"],
)
def test_read_of_tables_lockfiles_and_listings_is_replaced(
    name: str, text: str, store: Store, tmp_path: Path
) -> None:
    path = tmp_path / name
    path.write_text(text)
    replacement = answer(read_post(path, text.rstrip("\n")), store)
    assert replacement is not None
    assert len(replacement.output["file"]["content"]) < len(text) // 2
    assert restored(replacement.output["file"]["content"], store) == text.encode()


def test_read_of_source_code_or_of_a_part_is_left_alone(store: Store, tmp_path: Path) -> None:
    code = tmp_path / "module.py"
    source = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(600))
    code.write_text(source)
    assert answer(read_post(code, source), store) is None
    data = tmp_path / "data.json"
    data.write_text(JSON_DATA)
    part = read_post(data, JSON_DATA, startLine=10)
    part["tool_input"]["offset"] = 10
    assert answer(part, store) is None


def test_read_of_plain_prose_is_left_alone(store: Store, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    prose = "".join(
        f"Paragraph {i} says something different about the design, in words.\n" for i in range(400)
    )
    notes.write_text(prose)
    assert answer(read_post(notes, prose), store) is None


def test_grep_content_and_file_lists_keep_their_shapes(store: Store) -> None:
    content = "".join(f'data.json:{i}:      "name": "item-{i}",\n' for i in range(250))
    grep = {"mode": "content", "numFiles": 0, "filenames": [], "content": content, "numLines": 250}
    replacement = answer(post("Grep", {"pattern": "item-"}, grep), store)
    assert replacement is not None
    assert {**replacement.output, "content": content} == grep
    assert restored(replacement.output["content"], store) == content.encode()

    names = [f"src/pkg/module_{i}/handler_{i}.py" for i in range(800)]
    glob = {"filenames": names, "durationMs": 5, "numFiles": 800, "truncated": False}
    replacement = answer(post("Glob", {"pattern": "**/*.py"}, glob), store)
    assert replacement is not None
    assert replacement.output["numFiles"] == 800
    assert len(replacement.output["filenames"]) < 100
    count = {"mode": "count", "numFiles": 3, "filenames": [], "content": "a:1\nb:2\n"}
    assert answer(post("Grep", {"pattern": "x"}, count), store) is None


def test_mcp_results_as_a_string_or_text_blocks(store: Store) -> None:
    replacement = answer(post("mcp__files__read", {"path": "data.json"}, JSON_DATA), store)
    assert replacement is not None
    assert isinstance(replacement.output, str) and len(replacement.output) < len(JSON_DATA) // 2
    blocks = [{"type": "text", "text": JSON_DATA}]
    replacement = answer(post("mcp__files__read", {}, blocks), store)
    assert replacement is not None
    assert [block["type"] for block in replacement.output] == ["text"]
    wrapped = json.dumps({"result": BUILD_LOG[-20_000:]})  # a tool's string as structured content
    replacement = answer(post("mcp__svc__log", {}, wrapped), store)
    assert replacement is not None
    assert all(signal in replacement.output for signal in SIGNALS)
    assert restored(replacement.output, store) == BUILD_LOG[-20_000:].encode()
    image = [{"type": "image", "data": "…"}]
    assert answer(post("mcp__files__read", {}, image), store) is None


def test_webfetch_result_is_replaced_in_its_field(store: Store) -> None:
    response = {
        "bytes": 9000,
        "code": 200,
        "codeText": "OK",
        "result": BUILD_LOG[-20_000:],
        "url": "https://x",
    }
    url = "https://x/?access_token=ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly123456"
    replacement = answer(post("WebFetch", {"url": url, "prompt": "p"}, response), store)
    assert replacement is not None
    assert (
        replacement.packet.source.startswith("WebFetch https://x/")
        and "ghp_" not in replacement.packet.source
    )
    assert {k: v for k, v in replacement.output.items() if k != "result"} == {
        k: v for k, v in response.items() if k != "result"
    }


def test_other_tools_and_malformed_input_are_left_alone(store: Store) -> None:
    assert answer(post("Edit", {"file_path": "x"}, {"ok": True}), store) is None
    assert answer(post("Bash", {"command": "ls"}, "a bare string"), store) is None
    assert answer({"hook_event_name": "PostToolUse"}, store) is None


# --- the hook entry -----------------------------------------------------------------------------


def run_entry(data: Any, *args: str) -> str:
    out = io.StringIO()
    stdin = io.BytesIO(data if isinstance(data, bytes) else json.dumps(data).encode())
    assert claude_hook.run(list(args), stdin=stdin, stdout=out, env={}) == 0
    return out.getvalue()


def test_entry_answers_and_records_the_three_counts(isolated_store: Path) -> None:
    printed = run_entry(bash(BUILD_LOG[-20_000:]))
    answered = json.loads(printed)["hookSpecificOutput"]["updatedToolOutput"]
    assert "BUILD OK: 3000 modules" in answered["stdout"]
    (row,) = ledger.records(isolated_store)
    assert row.kind is ledger.Kind.HOOK and row.source == "sh build.sh"
    assert row.visible_tokens < row.raw_tokens
    assert row.host_tokens is not None and row.host_tokens >= row.raw_tokens - 5


def test_entry_keeps_credentials_out_of_the_answer_and_the_ledger(isolated_store: Path) -> None:
    token = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly123456"
    log = BUILD_LOG[:10_000] + f"DEBUG using GITHUB_TOKEN {token}\n" + BUILD_LOG[-10_000:]
    printed = run_entry(bash(log, command=f"GITHUB_TOKEN={token} sh build.sh"))
    assert printed and token not in printed
    (row,) = ledger.records(isolated_store)
    assert token not in row.source
    files = list(isolated_store.glob(ledger.LEDGER_NAME + "*"))  # the database and its WAL
    assert files and all(token.encode() not in f.read_bytes() for f in files)


def test_entry_leaves_excluded_commands_alone() -> None:
    assert run_entry(bash(BUILD_LOG[-20_000:]), "--exclude", "sh build*") == ""


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1]", b'{"hook_event_name": "PostToolUse"}'])
def test_entry_answers_nothing_for_what_it_cannot_use(stdin: bytes) -> None:
    assert run_entry(stdin) == ""


def test_entry_survives_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(post_tool_use, "decide", broken)
    assert run_entry(bash(BUILD_LOG[-20_000:])) == ""


# --- install -------------------------------------------------------------------------------------


def test_install_covers_the_chosen_tools_and_uninstall_removes_both(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = b'{\n  "model": "opus"\n}\n'
    path.write_bytes(original)
    assert install(path, hook_command(), ("Bash", "Read")) is Change.ADDED
    hooks = json.loads(path.read_text())["hooks"]
    assert [group["matcher"] for group in hooks["PostToolUse"]] == ["Bash|Read"]
    assert install(path, hook_command(), ("Bash", "Read")) is Change.UNCHANGED
    assert install(path, hook_command(), ("Bash",)) is Change.UPDATED
    assert [group["matcher"] for group in json.loads(path.read_text())["hooks"]["PostToolUse"]] == ["Bash"]
    assert install(path, hook_command(), ()) is Change.UPDATED
    assert "PostToolUse" not in json.loads(path.read_text())["hooks"]
    assert uninstall(path) is Change.REMOVED
    assert path.read_bytes() == original


def test_cli_install_takes_tools(tmp_path: Path) -> None:
    result = runner.invoke(app, ["hook", "install", "claude-code", "--tools", "Bash,mcp__.*"])
    assert result.exit_code == 0, result.output
    assert "PostToolUse hook for Bash, mcp__.*" in result.stdout
    hooks = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]
    assert hooks["PostToolUse"][0]["matcher"] == "Bash|mcp__.*"


def test_the_same_call_again_with_the_same_output_is_left_to_the_host(isolated_store: Path) -> None:
    # Asked again for the same thing: the visible text was not enough, so the host's own
    # output goes through; a changed output is replaced again.
    first, again = run_entry(bash(BUILD_LOG[-20_000:])), run_entry(bash(BUILD_LOG[-20_000:]))
    changed = run_entry(bash(BUILD_LOG[-20_000:] + "BUILD OK again\n"))
    assert first and again == "" and changed
    rows = ledger.records(isolated_store)
    assert [row.rerun for row in rows] == [False, True, True]
    assert rows[1].visible_tokens == rows[1].host_tokens
    assert {row.host for row in rows} == {"claude-code"} and {row.event for row in rows} == {"PostToolUse"}
