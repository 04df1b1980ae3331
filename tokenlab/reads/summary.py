"""Generated summaries: an external command's description of a file, cached by content hash.

The summarizer is any command (`--summarizer CMD`, or `$TOKENLAB_SUMMARIZER`) that reads a
file on stdin and prints its summary; tokenlab never ships or calls a model itself. The
command is split like a shell would but never run through one, and it gets the file's
path in `$TOKENLAB_PATH`.

Summaries are cached by (command, sha256 of the file), so an unchanged file is summarized
once. The latest summary of each path is remembered too: when the file has changed and
the summarizer cannot run (it fails, or the caller asked for cached summaries only), the
old summary is returned marked `stale`. Summaries are model output, so every response
that carries one says `generated: true`.

Cache layout (version 1), in `$TOKENLAB_SUMMARY_CACHE` or `./var/summaries`:

    v1/by-content/<sha256(command NUL file-sha256)>.json
    v1/by-path/<sha256(command NUL tree NUL path)>.json      the latest summary of a path

Each entry is `{"command", "path", "sha256", "created", "text"}`; files are owner-only.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

from tokenlab.errors import InputError, TokenlabError
from tokenlab.reads.pointers import SourceFile, sha256_hex

DEFAULT_LOCATION = Path("var") / "summaries"
DEFAULT_TIMEOUT_SECONDS = 300.0


class SummaryError(TokenlabError):
    """The summarizer could not produce a summary (exit 1)."""

    exit_code = 1


@dataclass(frozen=True)
class Summary:
    text: str
    stale: bool
    note: str = ""


def default_cache_dir() -> Path:
    return Path(os.environ.get("TOKENLAB_SUMMARY_CACHE") or DEFAULT_LOCATION)


class Summarizer:
    def __init__(
        self,
        command: str,
        cache_dir: Path | None = None,
        *,
        cached_only: bool = False,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
    ) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise InputError(f"cannot parse the summarizer command {command!r}: {error}") from error
        if not self.argv:
            raise InputError("the summarizer command is empty")
        self.command = command
        self.base = (cache_dir or default_cache_dir()) / "v1"
        self.cached_only = cached_only
        self.timeout_seconds = timeout_seconds

    def summarize(self, source: SourceFile) -> Summary:
        """A fresh summary from the cache or the command; a stale one only if neither can."""
        digest = sha256_hex(source.data)
        fresh = self._load(self._content_entry(digest))
        if fresh is not None:
            return Summary(str(fresh["text"]), stale=False)
        reason = "cached summaries only were asked for"
        if not self.cached_only:
            try:
                text = self._run(source)
            except SummaryError as error:
                reason = str(error)
            else:
                self._save(source, digest, text)
                return Summary(text, stale=False)
        previous = self._load(self._path_entry(source))
        if previous is None:
            raise SummaryError(f"no summary of {source.display_path}: {reason}")
        made = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(str(previous["created"]))))
        note = f"stale: summarizes the file as it was at {made} ({reason})"
        return Summary(str(previous["text"]), stale=True, note=note)

    def _key(self, *parts: str) -> str:
        return hashlib.sha256("\0".join((self.command, *parts)).encode()).hexdigest()

    def _content_entry(self, digest: str) -> Path:
        return self.base / "by-content" / f"{self._key(digest)}.json"

    def _path_entry(self, source: SourceFile) -> Path:
        return self.base / "by-path" / f"{self._key(source.location.tree, source.location.relpath)}.json"

    def _run(self, source: SourceFile) -> str:
        env = {**os.environ, "TOKENLAB_PATH": source.display_path}
        try:
            result = subprocess.run(
                self.argv,
                input=source.data,
                capture_output=True,
                env=env,
                timeout=self.timeout_seconds,
                check=False,
            )
        except FileNotFoundError as error:
            raise SummaryError(f"summarizer not found: {self.argv[0]}") from error
        except subprocess.TimeoutExpired as error:
            raise SummaryError(f"summarizer took longer than {self.timeout_seconds:g}s") from error
        if result.returncode != 0:
            lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = f": {lines[-1]}" if lines else ""
            raise SummaryError(f"summarizer exited with {result.returncode}{detail}")
        text = result.stdout.decode("utf-8", "replace")
        if not text.strip():
            raise SummaryError("summarizer printed nothing")
        return text

    def _load(self, path: Path) -> dict[str, object] | None:
        try:
            entry = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return None
        return entry if isinstance(entry, dict) and isinstance(entry.get("text"), str) else None

    def _save(self, source: SourceFile, digest: str, text: str) -> None:
        entry = orjson.dumps(
            {
                "command": self.command,
                "path": source.display_path,
                "sha256": digest,
                "created": time.time(),
                "text": text,
            }
        )
        _write_atomic(self._content_entry(digest), entry)
        _write_atomic(self._path_entry(source), entry)


def _write_atomic(path: Path, data: bytes) -> None:
    """Temp file in the same folder, fsync, rename: readers see the old entry or the new one."""
    missing = [folder for folder in (path.parent, *path.parent.parents) if not folder.exists()]
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
