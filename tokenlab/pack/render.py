"""The packed document and its `--json` shape.

The document is one text: a first line naming the pack, then per chosen file its views'
text (each span behind a `>>> path@rev#La-Lb view sha256=…` header, then the exact
lines), then a last line counting what was left out and naming the most relevant files
that were. `PackResult.as_dict()` is the stable `--json` object (also the HTTP and MCP
answer): the budget and the tokens used, per chosen file its view, tokens, relevance and
evidence, and every file left out with its reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tokenlab.counting import tokens
from tokenlab.pack.candidates import LeftOut
from tokenlab.pack.choices import PackView
from tokenlab.reads.ladder import cut_to_fit
from tokenlab.reads.symbols import plural, shorten

LEFT_OUT_NAMES = 12


@dataclass(frozen=True)
class Chosen:
    """A candidate shown, the view chosen for it, and its full pointer(s)."""

    path: str
    relevance: float
    view: PackView

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "view": self.view.view,
            "detail": self.view.detail,
            "tokens": self.view.tokens,
            "relevance": round(self.relevance, 6),
            "evidence": [item.as_dict() for item in self.view.evidence],
        }


@dataclass(frozen=True)
class PackResult:
    query: str | None
    budget_tokens: int
    tokens: int
    candidates: int
    content: str
    chosen: tuple[Chosen, ...]
    left_out: tuple[LeftOut, ...]
    cache_hits: int = 0
    cache_misses: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "budget_tokens": self.budget_tokens,
            "tokens": self.tokens,
            "candidates": self.candidates,
            "chosen": [item.as_dict() for item in self.chosen],
            "left_out": [item.as_dict() for item in self.left_out],
            "content": self.content,
        }

    @property
    def header(self) -> str:
        """The one line the CLI prints on stderr."""
        views = Counter(item.view.view for item in self.chosen)
        shown = ", ".join(f"{count} {view}" for view, count in views.most_common())
        return (
            f"pack: {len(self.chosen)} of {self.candidates:,} files shown ({shown or 'none'}), "
            f"{self.tokens:,}/{self.budget_tokens:,} tokens; {len(self.left_out):,} left out"
        )


def preamble(candidates: int, query: str | None) -> str:
    about = f' for "{shorten(query, 100)}"' if query else ""
    return f"pack of {plural(candidates, 'file')}{about}; each span: >>> pointer view sha256\n"


def footer(left_out: Sequence[LeftOut], limit: int) -> str:
    """The last line: what was left out, by reason, and the most relevant names, within `limit` tokens."""
    if not left_out:
        return ""
    reasons = Counter(item.reason for item in left_out)
    by_reason = ", ".join(f"{count:,} {reason}" for reason, count in reasons.most_common())
    line = f"left out: {plural(len(left_out), 'file')} ({by_reason})"
    names: list[str] = []
    for item in left_out[:LEFT_OUT_NAMES]:
        attempt = f"{line}; next: {', '.join([*names, item.path])}\n"
        if tokens.count(attempt) > limit:
            break
        names.append(item.path)
    text = f"{line}; next: {', '.join(names)}\n" if names else line + "\n"
    return text if tokens.count(text) <= limit else cut_to_fit(text, limit)


def document(head: str, views: Sequence[PackView], tail: str) -> str:
    return head + "".join(view.text for view in views) + tail
