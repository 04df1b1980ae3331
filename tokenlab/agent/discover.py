"""`tokens discover`: what tokenlab would have saved on past Claude Code sessions.

Claude Code keeps each session as a JSONL transcript, one JSON object a line, under
`~/.claude/projects/<project>/<session>.jsonl` (`$CLAUDE_CONFIG_DIR/projects` when that
is set; sub-agents' sessions in folders beside them). Entries of `type` `assistant` carry
`message.content` blocks of type `tool_use` (`id`, `name`, `input`; a Bash call's
`input.command`); entries of `type` `user` carry `tool_result` blocks (`tool_use_id`,
`content` as a string or a list of `{"type": "text", "text": …}` blocks, `is_error`).
Other entries and blocks (text, thinking, images, summaries) are ignored, as is any line
that is not JSON: the format is Claude Code's own and may grow.

Each result is paired with its call and its text (the text blocks joined by newlines, as
the model read them) goes through the same pipeline as `tokens analyze`, a failed call's
(`is_error`) at fine granularity as `tokens run` would, with a scratch store held in
memory and dropped afterwards: nothing is kept. A result seen twice (a resumed session
repeats its history in a new file) counts once. Figures are exact o200k_base tokens,
the same as `analyze --json` reports for that text.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tokenlab.errors import InputError
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.store import ID_PREFIX, MIN_ID_DIGITS, RefRecord, Store
from tokenlab.tallies import Tally, command_key, tally, total


def default_location() -> Path:
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(config) if config else Path.home() / ".claude") / "projects"


@dataclass(frozen=True)
class ToolResult:
    tool: str
    command: str | None  # a Bash call's command line
    text: str
    is_error: bool


@dataclass(frozen=True)
class Finding:
    """One tool result measured: raw and visible tokens as `analyze --json` counts them, and
    the tokens Claude Code showed (the transcript's text: for an output over its cap, a
    preview naming the file that holds the whole output, which is then the raw input)."""

    tool: str
    command: str | None
    raw_tokens: int
    visible_tokens: int
    host_tokens: int


@dataclass(frozen=True)
class Report:
    transcripts: int
    skipped_lines: int
    findings: tuple[Finding, ...]

    @property
    def by_tool(self) -> list[Tally]:
        return tally((f.tool, f.raw_tokens, f.visible_tokens) for f in self.findings)

    @property
    def by_command(self) -> list[Tally]:
        return tally(
            (command_key(f.command), f.raw_tokens, f.visible_tokens)
            for f in self.findings
            if f.command is not None
        )

    @property
    def totals(self) -> Tally:
        return total(self.by_tool)

    @property
    def host_tokens(self) -> int:
        return sum(f.host_tokens for f in self.findings)

    def as_dict(self) -> dict[str, object]:
        totals = self.totals
        return {
            "transcripts": self.transcripts,
            "tool_results": len(self.findings),
            "skipped_lines": self.skipped_lines,
            "totals": totals.as_dict() | {"key": None},
            "against_host": {
                "host_tokens": self.host_tokens,
                "visible_tokens": totals.visible_tokens,
                "saved_vs_host_tokens": self.host_tokens - totals.visible_tokens,
            },
            "by_tool": [row.as_dict() for row in self.by_tool],
            "by_command": [row.as_dict() for row in self.by_command],
        }


def discover(path: Path) -> Report:
    """Measure every tool result in the transcript `path`, or in the `.jsonl` files under it."""
    from tokenlab.counting import tokens
    from tokenlab.pipeline import analyze

    files = transcript_files(path)
    skipped = [0]
    findings = []
    with tempfile.TemporaryDirectory(prefix="tokenlab-discover-") as scratch:
        store = ScratchStore(Path(scratch))
        for result in tool_results(files, skipped):
            granularity = Granularity.FINE if result.is_error else Granularity.COARSE
            shown_by_host = result.text.encode("utf-8", errors="surrogatepass")
            packet = analyze(
                persisted_output(result.text, default_location()) or shown_by_host,
                source=f"{result.tool} result",
                store=store,
                config=OptimizerConfig(granularity=granularity),
            )
            raw = packet.raw_measure.tokens if packet.raw_measure else 0
            shown = packet.visible_measure.tokens if packet.visible_measure else 0
            host = raw if packet.raw == shown_by_host else tokens.count(result.text)
            findings.append(Finding(result.tool, result.command, raw, shown, host))
            store.clear()
    return Report(len(files), skipped[0], tuple(findings))


# Claude Code's notice for an output over its cap: the whole output is in the file it names.
_PERSISTED_RE = re.compile(r"<persisted-output>\nOutput too large \([^)\n]*\)\. Full output saved to: ([^\n]+)\n")


def persisted_output(text: str, projects: Path) -> bytes | None:
    """The whole output a capped tool result names, while its file is still there. The
    text is data: only a file in a `tool-results` folder under `projects` (Claude Code's
    transcripts) is read, whatever path it names."""
    found = _PERSISTED_RE.match(text)
    if found is None:
        return None
    try:
        path = Path(found[1]).resolve()
        if not path.is_relative_to(projects.resolve()) or "tool-results" not in path.parts:
            return None
        with open(path, "rb") as handle:
            return handle.read()
    except (OSError, ValueError):
        return None


def transcript_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError(f"no Claude Code transcripts at {path} (a .jsonl file or a folder of them)")
    return sorted(path.rglob("*.jsonl"))


def tool_results(files: list[Path], skipped: list[int]) -> Iterator[ToolResult]:
    """Each tool result with its call, once per `tool_use_id`; `skipped[0]` counts bad lines."""
    seen: set[str] = set()
    for file in files:
        calls: dict[str, dict[str, Any]] = {}
        for entry in _entries(file, skipped):
            for block in _blocks(entry):
                if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                    calls[block["id"]] = block
                elif block.get("type") == "tool_result":
                    found = _paired(block, calls, seen)
                    if found is not None:
                        yield found


def _entries(file: Path, skipped: list[int]) -> Iterator[dict[str, Any]]:
    try:
        with open(file, "rb") as handle:
            lines = list(handle)
    except OSError as error:
        raise InputError(f"cannot read {file}: {error.strerror or error}") from None
    for line in lines:
        if not line.strip():
            continue
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            skipped[0] += 1
            continue
        if isinstance(entry, dict) and entry.get("type") in ("user", "assistant"):
            yield entry


def _blocks(entry: dict[str, Any]) -> list[dict[str, Any]]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _paired(block: dict[str, Any], calls: dict[str, dict[str, Any]], seen: set[str]) -> ToolResult | None:
    use_id = block.get("tool_use_id")
    if not isinstance(use_id, str) or use_id in seen:
        return None
    seen.add(use_id)
    call = calls.get(use_id, {})
    name = str(call.get("name") or "unknown")
    arguments = call.get("input")
    command = arguments.get("command") if isinstance(arguments, dict) else None
    return ToolResult(
        tool=name,
        command=command if isinstance(command, str) else None,
        text=result_text(block.get("content")),
        is_error=block.get("is_error") is True,
    )


def result_text(content: object) -> str:
    """A tool result's text as the model read it: the string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "\n".join(texts)
    return ""


class ScratchStore(Store):
    """The store interface the pipeline uses, held in memory: same ids, nothing written.

    Ids follow the store's scheme (the shortest unique prefix of the sha256, at least six
    digits), so markers, and their token counts, are what a real store would give.
    """

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._refs: dict[str, tuple[bytes, dict[str, str]]] = {}

    def clear(self) -> None:
        self._refs.clear()

    def put(self, data: bytes, *, source: str, content_type: str, reason: str) -> str:
        sha = hashlib.sha256(data).hexdigest()
        for digits in range(MIN_ID_DIGITS, len(sha) + 1):
            held = self._refs.setdefault(
                sha[:digits], (data, {"source": source, "type": content_type, "reason": reason, "sha": sha})
            )
            if held[1]["sha"] == sha:
                return ID_PREFIX + sha[:digits]
        raise AssertionError("unreachable: the full sha256 is unique")

    def put_and_reload(
        self, data: bytes, *, source: str, content_type: str, reason: str
    ) -> tuple[str, str | None]:
        return self.put(data, source=source, content_type=content_type, reason=reason), None

    def load(self, ref_id: str) -> RefRecord:
        hex_id = ref_id.removeprefix("#ref:").removeprefix(ID_PREFIX)
        data, meta = self._refs[hex_id]
        return RefRecord(
            ID_PREFIX + hex_id,
            meta["sha"],
            meta["source"],
            meta["type"],
            meta["reason"],
            len(data),
            0.0,
            data,
        )

    def holds(self, ref_id: str, data: bytes) -> bool:
        return self.load(ref_id).data == data

    def check(self, ref_id: str) -> None:
        self.load(ref_id)
