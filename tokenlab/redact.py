"""Secret masking for visible text.

Credentials must not reach a model. Each detected secret in visible text is cut out and
returned as an `Omission` whose reason names its kind (`secret:aws-access-key`); the
Optimize stage stores it in the owner-only store and shows `[secret:<kind> #ref:ctx_…]`.
For `key=value` style findings only the value is masked, so the key stays readable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tokenlab.patterns import compile_on_use

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
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
        r"(?<![A-Za-z0-9])(?P<key>(?i:(?:aws_)?secret(?:_access)?(?:_key)?|password|passwd|pwd|api[_-]?key|apikey"
        r"|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key|token))\b"
        r"[\"']?\s*[:=]\s*(?P<quote>[\"']?)(?P<value>[^\s\"',;&}{]{4,})"
    ),
}
_SPECIFIC_RE = compile_on_use(
    "|".join(
        f"(?P<{kind.replace('-', '_')}>{body})"
        for kind, body in _PATTERNS.items()
        if kind not in ("assignment", "url-credentials", "bearer-token")
    )
)
_SECRET_RE = compile_on_use("|".join(f"(?P<{kind.replace('-', '_')}>{body})" for kind, body in _PATTERNS.items()))
# An unquoted value that reads like code (`password: str`, `$token = $this->find(`,
# `token = self.tokens`) is an expression, not a credential.
_CODE_LIKE_RE = compile_on_use(
    r"^[$@]|->|[()\[\]]|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$"
    r"|^(?:str|int|bytes|bool|float|string|String|char|number|boolean|object|dict|list|Any|None"
    r"|Optional|undefined|required|optional)$"
)
# Values that are already masked, obvious placeholders, access levels (`id-token: write`
# in a CI config's permissions) or paths of two or more parts (`PWD=/home/me/app`, the
# working folder; `DB_PASSWORD_FILE`-style settings name where a secret lives) are not
# secrets.
_PLACEHOLDER_RE = compile_on_use(
    r"(?i)^(?:\*+|x+|<[^>]*>|\$\{?[\w.]+\}?|%\(?\w+\)?s?|null|none|true|false|redacted|changeme|\[secret:.*"
    r"|read|write|read-?only|write-?only|read-?write|(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]*)+)$"
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
        if match.group("key").lower() == "pwd" and value.startswith(("/", "~")):
            return None  # the shell's working folder, as `env` and `set` print it
        kind = (specific.lastgroup or "") if specific else match.group("key").lower().replace("-", "_")
    else:
        start, end = match.span()
        value = match.group()
    if _PLACEHOLDER_RE.match(value):
        return None
    return start, end, kind.replace("_", "-")


# Every secret match starts at a fixed offset from a literal in or just before it: for each
# literal, the offsets at which a match can start. Trying `_SECRET_RE` only there finds the
# same matches as scanning every position, many times faster (a new pattern needs its
# literal here). The token formats are case-sensitive, so their literals are looked for in
# the text as it is, on rare bytes where one serves (the `J` of `eyJ`, `BEGIN`); the key
# names are case-insensitive, so theirs are looked for in an ASCII-lowercased copy.
_EXACT_ANCHORS: dict[bytes, tuple[int, ...]] = {
    b"BEGIN": (-5,),  # -----BEGIN
    **dict.fromkeys((b"AKIA", b"ASIA", b"AIDA", b"AROA", b"AIza"), (0,)),
    **dict.fromkeys((b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_", b"github_pat_", b"glpat-"), (0,)),
    b"xox": (0,),
    **dict.fromkeys((b"k_live_", b"k_test_"), (-1,)),  # [sr]k_live_
    b"J": (-2,),  # eyJ
    b"earer ": (6,),  # the token follows "Bearer "
    b"://": (-5, 3),  # "https://hooks…"; the password follows "://"
}
_FOLDED_ANCHORS: dict[bytes, tuple[int, ...]] = {
    b"secret": (0, -4, -6, -7),  # aws_secret, clientsecret, client_secret
    b"token": (0, -4, -5, -6, -7),  # authtoken, auth_token, accesstoken, access_token
    **dict.fromkeys((b"passw", b"pwd", b"api", b"private"), (0,)),
}
Scanner = tuple[re.Pattern[bytes], tuple[int, ...]]


def _anchor_scanners(anchors: dict[bytes, tuple[int, ...]]) -> list[Scanner]:
    """One scanner per first byte of the literals, with the offsets of all its literals.

    Python's `re` searches a pattern that begins with a literal far faster than an
    alternation without one, and checks a whole literal prefix without entering its
    matching engine. Where literals share a first byte, or a literal can overlap itself
    (`xoxox`), a match consumes only that byte, so overlapping occurrences are all found.
    """
    by_first: dict[bytes, list[bytes]] = {}
    for literal in anchors:
        by_first.setdefault(literal[:1], []).append(literal)
    scanners = []
    for first, literals in by_first.items():
        offsets = tuple(sorted({offset for literal in literals for offset in anchors[literal]}))
        if len(literals) == 1 and not _overlaps_itself(literals[0]):
            scanners.append((compile_on_use(re.escape(literals[0])), offsets))
            continue
        ahead = b"|".join(re.escape(literal[1:]) for literal in literals)
        scanners.append((compile_on_use(re.escape(first) + b"(?=" + ahead + b")"), offsets))
    return scanners


def _overlaps_itself(literal: bytes) -> bool:
    return any(literal[:size] == literal[-size:] for size in range(1, len(literal)))


_EXACT_SCANNERS = _anchor_scanners(_EXACT_ANCHORS)
_FOLDED_SCANNERS = _anchor_scanners(_FOLDED_ANCHORS)
# The non-ASCII characters that `re.IGNORECASE` equates with an ASCII letter, so that the
# key names also match as "ſecret" or "toKen".
_ASCII_LETTER_TWINS = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}


def _ascii(text: str) -> bytes:
    """`text` as ASCII, one byte per character so positions agree: letter twins become their
    letter, other non-ASCII characters `?`."""
    for twin, letter in _ASCII_LETTER_TWINS.items():
        text = text.replace(twin, letter)
    return text.encode("ascii", errors="replace")


def _ascii_lowercase(text: str) -> bytes:
    """`text` with its letters ASCII-lowercased, one byte per character so positions agree.

    `str.lower()` would not do: it turns "İ" into two characters.
    """
    return _ascii(text).lower()


def _candidate_starts(text: str) -> list[int]:
    """Every position where a secret match can start, in order (and some where none can)."""
    exact = _ascii(text)
    starts: list[int] = []
    for scanners, haystack in ((_EXACT_SCANNERS, exact), (_FOLDED_SCANNERS, exact.lower())):
        for scanner, offsets in scanners:
            positions = [found.start() for found in scanner.finditer(haystack)]
            for offset in offsets:
                starts.extend([position + offset for position in positions])
    return sorted(set(starts))


def secret_matches(text: str) -> Iterator[re.Match[str]]:
    """The matches `_SECRET_RE.finditer(text)` yields, tried only where one can start."""
    resume = 0
    for start in _candidate_starts(text):
        if start < resume:
            continue
        match = _SECRET_RE.match(text, start)
        if match:
            yield match
            resume = match.end()


def redact(text: str) -> list[str | Omission]:
    """Split `text` into visible pieces and secret omissions, in order."""
    pieces: list[str | Omission] = []
    cursor = 0
    for match in secret_matches(text):
        found = _span_and_kind(match)
        if found is None:
            continue
        # Imported only once a secret is found: a command line masked for the ledger
        # (`ledger.masked`) seldom holds one, and the registry's imports cost a silent
        # `tokens run` (`agent/run_here.py`) more than all its other imports together.
        from tokenlab.optimizers import Omission

        start, end, kind = found
        pieces.append(text[cursor:start])
        pieces.append(Omission(text[start:end].encode("utf-8", errors="surrogatepass"), f"secret:{kind}"))
        cursor = end
    if cursor == 0:
        return [text]
    pieces.append(text[cursor:])
    return [piece for piece in pieces if piece != ""]


# Where a long text may be masked in parts (`can_cut_after`). Only two patterns can match
# across a line break: a private key (its match starts at most this many characters before
# it ends) and an assignment whose `:`/`=` or value is on a later line than its key.
CUT_LOOKBEHIND = 20_100
# What the part before the cut may end with, trailing whitespace aside: none of these can
# end the first part of an assignment's match (a key name, a quote, `:` or `=`).
_QUIET_LINE_ENDS = frozenset(")]}>;,.!?*/\\|`#&%$@^~([{<+")


def can_cut_after(text: str) -> bool:
    """Whether masking a text in two parts, cut after `text` (the first part's last
    `CUT_LOOKBEHIND` characters at least), finds what masking them joined does: no secret's
    match can cross the cut. The cut follows a line break, so no other pattern crosses it,
    and the patterns' look-behinds and word boundaries see the same there."""
    if not text.endswith("\n"):
        return False
    line_end = text.rstrip()[-1:]
    return line_end in _QUIET_LINE_ENDS and "BEGIN" not in text[-CUT_LOOKBEHIND:]
