"""The marker grammar: how refs appear in visible text, and how input text is kept apart.

`#ref:ctx_<hex>` is ours. Text in the *input* that looks like a marker is rewritten to
`#ref(literal):ctx_<hex>` in the visible text, so every real marker in visible text was
written by tokenlab and an agent can see the difference. Nothing is unescaped on restore:
the original bytes come from the store, never from the visible text.

Visible text that differs from the input ends with one footer line naming the ref that
holds the whole original; `tokens restore` needs only that line and the store. Text that
differs only by masked secrets needs no footer: each `[secret:<kind> #ref:ctx_…]` names
the bytes it stands for, and every `#ref:ctx_` in it is ours (a look-alike in the input
would have been escaped, and escaping keeps the footer). When
something was folded, the footer also says once how to open any ref in part (a reader
that has never seen tokenlab learns the way back from the text itself); text that was
only masked or escaped, or shown whole, has nothing to open and gets the short footer.
"""

from __future__ import annotations

import re

MARKER_RE = re.compile(r"#ref:(ctx_[0-9a-f]{6,64})")
_LITERAL_MARKER_RE = re.compile(r"#ref:(?=ctx_)")
LITERAL_MARKER = "#ref(literal):"
# A masked secret as visible text shows it: `[secret:<kind> #ref:ctx_…]`.
SECRET_MARKER_RE = re.compile(rb"\[secret:[a-z0-9-]+ #ref:(ctx_[0-9a-f]{6,64})\]")
_FOOTER_RE = re.compile(r"\[original ([0-9,]+) bytes: #ref:(ctx_[0-9a-f]{6,64})(?:; [^\]\n]*)?\]\n?\Z")
# How to open a ref in part, said once in the footer.
EXPAND_HINT = "open a ref in part: tokens show-ref ID --grep RE | --lines A-B"
_HINTED_END = f"; {EXPAND_HINT}]"
_HINT_START, _, _HINT_TAIL = EXPAND_HINT.partition("tokens")


def marker(ref_id: str) -> str:
    return f"#ref:{ref_id}"


def escape_literal_markers(text: str) -> str:
    """Neutralise marker look-alikes that came from the input."""
    return _LITERAL_MARKER_RE.sub(LITERAL_MARKER, text) if "#ref:" in text else text


def footer(original_bytes: int, ref_id: str, *, folded: bool) -> str:
    hint = f"; {EXPAND_HINT}" if folded else ""
    return f"[original {original_bytes:,} bytes: {marker(ref_id)}{hint}]\n"


def parse_footer(visible: str) -> tuple[int, str] | None:
    """(byte count, ref id) of the original, if the text ends with our footer."""
    match = _FOOTER_RE.search(visible[-200:])
    if not match:
        return None
    return int(match.group(1).replace(",", "")), match.group(2)


def has_expand_hint(visible: str) -> bool:
    """Whether the footer (not the content above it) says how to open a ref, naming tokenlab
    in whichever form."""
    if parse_footer(visible) is None:
        return False
    footer = visible.rstrip("\n").rpartition("\n")[2]
    return footer.endswith(_HINT_TAIL + "]") and f"; {_HINT_START}" in footer


def with_opener(visible: str, opener: str) -> str:
    """`visible` with its footer's hint naming tokenlab as `opener` (`tokens`, or the absolute
    form an agent without `tokens` on its PATH can run). The footer stays one parseable line,
    so an opener holding `]` or a newline leaves it as it is."""
    if opener == "tokens" or "]" in opener or "\n" in opener:
        return visible
    if parse_footer(visible) is None or not visible.rstrip("\n").endswith(_HINTED_END):
        return visible
    body = visible.rstrip("\n")
    hint = EXPAND_HINT.replace("tokens show-ref", f"{opener} show-ref")
    return body[: -len(_HINTED_END)] + f"; {hint}]" + visible[len(body) :]


def find_markers(visible: str) -> list[str]:
    return MARKER_RE.findall(visible)
