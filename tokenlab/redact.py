"""Secret masking for visible text.

Credentials must not reach a model. Each detected secret in visible text is cut out and
returned as an `Omission` whose reason names its kind (`secret:aws-access-key`); the
Optimize stage stores it in the owner-only store and shows `[secret:<kind> #ref:ctx_…]`.
For `key=value` style findings only the value is masked, so the key stays readable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tokenlab.optimizers import Omission

# Order matters only where patterns overlap: specific token formats before generic ones.
_PATTERNS: dict[str, str] = {
    "private-key": r"-----BEGIN[A-Z ]{0,20} PRIVATE KEY(?: BLOCK)?-----[\s\S]{1,20000}?-----END[A-Z ]{0,20} PRIVATE KEY(?: BLOCK)?-----",
    "aws-access-key": r"\b(?:AKIA|ASIA|AIDA|AROA)[0-9A-Z]{16}\b",
    "github-token": r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
    "gitlab-token": r"\bglpat-[A-Za-z0-9_\-]{20,}",
    "slack-token": r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    "slack-webhook": r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}",
    "stripe-key": r"\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}\b",
    "google-api-key": r"\bAIza[0-9A-Za-z_\-]{35}\b",
    "jwt": r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    "bearer-token": r"(?<=[Bb]earer )[A-Za-z0-9._~+/-]{16,}=*",
    "url-credentials": r"(?<=://)[^/\s:@'\"]{1,256}:(?P<url_password>[^/\s@'\"]{1,256})(?=@)",
    "assignment": (
        r"\b(?P<key>(?i:(?:aws_)?secret(?:_access)?(?:_key)?|password|passwd|pwd|api[_-]?key|apikey"
        r"|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key|token))\b"
        r"[\"']?\s*[:=]\s*(?P<quote>[\"']?)(?P<value>[^\s\"',;&}{]{4,})"
    ),
}
_SPECIFIC_RE = re.compile(
    "|".join(
        f"(?P<{kind.replace('-', '_')}>{body})"
        for kind, body in _PATTERNS.items()
        if kind not in ("assignment", "url-credentials", "bearer-token")
    )
)
_SECRET_RE = re.compile(
    "|".join(f"(?P<{kind.replace('-', '_')}>{body})" for kind, body in _PATTERNS.items())
)
# An unquoted value that reads like code (`password: str`, `$token = $this->find(`,
# `token = self.tokens`) is an expression, not a credential.
_CODE_LIKE_RE = re.compile(
    r"^[$@]|->|[()\[\]]|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$"
    r"|^(?:str|int|bytes|bool|float|string|String|char|number|boolean|object|dict|list|Any|None"
    r"|Optional|undefined|required|optional)$"
)
# Values that are already masked or are obvious placeholders are not secrets.
_PLACEHOLDER_RE = re.compile(
    r"(?i)^(?:\*+|x+|<[^>]*>|\$\{?[\w.]+\}?|%\(?\w+\)?s?|null|none|true|false|redacted|changeme|\[secret:.*)$"
)


def _span_and_kind(match: re.Match[str]) -> tuple[int, int, str] | None:
    kind = match.lastgroup or ""
    if kind == "url_credentials":
        start, end = match.span("url_password")
        value = match.group("url_password")
    elif kind == "assignment":
        start, end = match.span("value")
        value = match.group("value")
        specific = _SPECIFIC_RE.fullmatch(value)
        if not specific and not match.group("quote") and _CODE_LIKE_RE.search(value):
            return None
        kind = (specific.lastgroup or "") if specific else match.group("key").lower().replace("-", "_")
    else:
        start, end = match.span()
        value = match.group()
    if _PLACEHOLDER_RE.match(value):
        return None
    return start, end, kind.replace("_", "-")


# Every secret pattern contains one of these literals, and a match starts at most
# `_ANCHOR_LEAD` characters before it (`access_token`, `https://hooks…`) or right after it
# (`Bearer `, `://`). Scanning for them first is several times faster than trying the
# full pattern at every position, with the same matches.
_ANCHOR_RE = re.compile(
    r"-----BEGIN|A(?:KIA|SIA|IDA|ROA|Iza)|gh[pousr]_|github_pat_|glpat-|xox|[sr]k_(?:live|test)_"
    r"|eyJ|[Bb]earer |://|(?i:secret|passw|pwd|api|token|private)"
)
_ANCHOR_LEAD = 8


def secret_matches(text: str) -> Iterator[re.Match[str]]:
    """The matches `_SECRET_RE.finditer(text)` yields, tried only near anchor literals."""
    resume = 0
    for anchor in _ANCHOR_RE.finditer(text):
        if anchor.end() < resume:
            continue
        for start in range(max(resume, anchor.start() - _ANCHOR_LEAD), anchor.end() + 1):
            match = _SECRET_RE.match(text, start)
            if match:
                yield match
                resume = match.end()
                break


def redact(text: str) -> list[str | Omission]:
    """Split `text` into visible pieces and secret omissions, in order."""
    pieces: list[str | Omission] = []
    cursor = 0
    for match in secret_matches(text):
        found = _span_and_kind(match)
        if found is None:
            continue
        start, end, kind = found
        pieces.append(text[cursor:start])
        pieces.append(Omission(text[start:end].encode("utf-8", errors="surrogatepass"), f"secret:{kind}"))
        cursor = end
    if cursor == 0:
        return [text]
    pieces.append(text[cursor:])
    return [piece for piece in pieces if piece != ""]
