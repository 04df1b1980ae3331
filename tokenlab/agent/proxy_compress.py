"""The proxy's answer for one tool result: its visible text, the same bytes every time.

A provider caches a conversation's prefix; a tool result that reads differently on the next
request breaks that cache from its position on. So the answer for a text is decided once
and kept in the store folder, keyed by a digest of the text and of everything that shapes
the answer (tokenlab's version, the pipeline's settings, the threshold):

    <store root>/proxy/v1/<first two hex digits>/<sha256 hex>

The file holds the visible text (UTF-8), or nothing for "leave this result as it is". The
key format is a contract: changing what goes into it changes every answer once, which a
provider sees as one cache miss per conversation. A text asked for again is read from its
file, so the pipeline never runs twice on the same input, in this process or after a
restart. When an answer's refs are gone (`tokens store gc`), the pipeline runs again: it is
deterministic, so the visible text is the same and its refs are stored again.

Which results are compressed:
- a result under `min_tokens` is left alone (little to save, and no file is written);
- with `only_newest`, a result the provider has already seen is compressed only if it was
  compressed before (its answer is on file), so it reads as it did; one never compressed
  (the proxy was started mid-conversation) stays as the provider saw it;
- tokenlab's own visible text (from a hook or `tokens run`) is left alone. That is known by
  its footer naming a ref of this store with the footer's byte count, not by the footer's
  look: a look-alike in a tool's output names no such ref, and the pipeline escapes it.

A pipeline failure leaves the result as it is and is logged by tool name and error type
only (never the content). Each result compressed for the first time is one ledger row
(`host="proxy"`, the API as its event, the tool and the model).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from tokenlab import markers
from tokenlab.agent.post_tool_use import with_line_before_footer
from tokenlab.agent.proxy_rewrite import Api, ToolResult

if TYPE_CHECKING:
    from tokenlab.packet import ContextPacket
    from tokenlab.store import Store

LOG = logging.getLogger("tokenlab.proxy")
DEFAULT_MIN_TOKENS = 500
MAPPING_VERSION = "v1"
# The way back, without adding a tool to the request (that would change the cached prefix).
OPEN_HINT = "[open a ref: `tokens show-ref ID --raw | --grep RE | --lines A-B` in a shell, or expand_ref on tokenlab's MCP server]"
_LEAVE = b""
# tokenlab's footer anywhere in a text (`post_tool_use.OUR_FOOTER`), with its byte count and ref.
_FOOTER = re.compile(r"\[original ([0-9,]+) bytes: #ref:(ctx_[0-9a-f]{6,64})")


class ResultCompressor:
    """`compressor(result, model)`: the visible text for a tool result, or None to leave it."""

    def __init__(self, store: Store, api: Api, *, only_newest: bool, min_tokens: int = DEFAULT_MIN_TOKENS):
        self.store = store
        self.api = api
        self.only_newest = only_newest
        self.min_tokens = min_tokens
        self._folder = Path(store.root) / "proxy" / MAPPING_VERSION

    def __call__(self, result: ToolResult, model: str) -> str | None:
        if len(result.text) < self.min_tokens:  # a token is at least one character
            return None
        key = mapping_key(result.text, self.min_tokens)
        with _LOCK:  # one pipeline run per text, whichever request asks first
            known = self._known(key)
            if known is not None:
                return known.decode("utf-8") if known != _LEAVE else None
            if self.only_newest and not result.newest:
                return None
            try:
                visible = self._compress(result, model)
            except _PipelineFailedError:
                return None  # not remembered: tried again next time
            self._remember(key, _LEAVE if visible is None else visible.encode("utf-8"))
            return visible

    def _known(self, key: str) -> bytes | None:
        try:
            answer = (self._folder / key[:2] / key).read_bytes()
        except OSError:
            return None
        if answer != _LEAVE and not all(
            _ref_is_here(self.store, ref) for ref in markers.find_markers(answer.decode("utf-8"))
        ):
            return None  # its refs were collected: compute again (the same text)
        return answer

    def _compress(self, result: ToolResult, model: str) -> str | None:
        """The visible text, or None when it is not worth sending."""
        from tokenlab.counting import tokens

        if self._ours(result.text) or tokens.count(result.text) < self.min_tokens:
            return None
        try:
            packet = self._analyse(result)
        except Exception as error:  # noqa: BLE001 - a failure leaves the result as it is
            LOG.warning(
                "tokenlab proxy: %s result left as it is: the pipeline failed (%s)",
                result.tool or "a tool",
                type(error).__name__,
            )
            raise _PipelineFailedError from None
        visible = with_line_before_footer(packet.visible, OPEN_HINT)
        raw_tokens = packet.raw_measure.tokens if packet.raw_measure else 0
        visible_tokens = tokens.count(visible)
        if markers.parse_footer(visible) is None or visible_tokens >= raw_tokens:
            return None
        self._record(packet, result, model, visible_tokens)
        return visible

    def _analyse(self, result: ToolResult) -> ContextPacket:
        from tokenlab.optimizers import OptimizerConfig
        from tokenlab.pipeline import analyze

        data = result.text.encode("utf-8", errors="surrogatepass")
        label = f"proxy {result.tool}" if result.tool else "proxy"
        return analyze(data, source=label, store=self.store, config=OptimizerConfig(), redact_secrets=True)

    def _ours(self, text: str) -> bool:
        """Whether `text` holds tokenlab's visible text: a footer whose ref is in this store, as long as it says."""
        for match in _FOOTER.finditer(text):
            if _ref_length(self.store, match.group(2)) == int(match.group(1).replace(",", "")):
                return True
        return False

    def _record(self, packet: ContextPacket, result: ToolResult, model: str, visible_tokens: int) -> None:
        from tokenlab import ledger

        row = ledger.packet_record(packet, ledger.Kind.PROXY, source=result.tool or "-")._replace(
            visible_tokens=visible_tokens,
            host="proxy",
            event=self.api.value,
            model=model or None,
        )
        problem = ledger.record(self.store.root, row)
        if problem:
            LOG.warning("tokenlab proxy: %s", problem)

    def _remember(self, key: str, answer: bytes) -> None:
        """Write the answer atomically: a reader sees the whole file or none."""
        folder = self._folder / key[:2]
        folder.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(answer)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, folder / key)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


_LOCK = threading.Lock()


class _PipelineFailedError(Exception):
    """The pipeline raised on a result (logged where it happened)."""


def mapping_key(text: str, min_tokens: int) -> str:
    """The digest naming a text's answer: tokenlab's version, the settings, then the text."""
    from tokenlab import __version__
    from tokenlab.optimizers import OptimizerConfig

    settings = f"tokenlab {__version__}\0{OptimizerConfig()!r}\0redact\0{OPEN_HINT}\0min {min_tokens}\0"
    digest = hashlib.sha256(settings.encode("utf-8"))
    digest.update(text.encode("utf-8", errors="surrogatepass"))
    return digest.hexdigest()


def _ref_length(store: Store, ref: str) -> int | None:
    try:
        info = next(iter(store.refs([ref])), None)
    except Exception:  # noqa: BLE001 - a ref that cannot be read is not there
        return None
    return None if info is None else info.length


def _ref_is_here(store: Store, ref: str) -> bool:
    return _ref_length(store, ref) is not None
