import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenlab.optimizers import Omission
from tokenlab.redact import (
    _ASCII_LETTER_TWINS,
    _PATTERNS,
    _SECRET_RE,
    _ascii_lowercase,
    can_cut_after,
    redact,
    secret_matches,
)

# Realistic-looking fake credentials (documented example values or random strings).
CASES = [
    ("key=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws-access-key"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws-secret-access-key"),
    ("GITHUB_TOKEN ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly123456", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly123456", "github-token"),
    ("glpat-AbCdEfGhIjKlMnOpQrSt12", "glpat-AbCdEfGhIjKlMnOpQrSt12", "gitlab-token"),
    ("slack xoxb-123456789012-abcdefghijkl", "xoxb-123456789012-abcdefghijkl", "slack-token"),
    ('{"password": "hunter2!x"}', "hunter2!x", "password"),
    ("DB_PASSWORD=hunter2-not-real", "hunter2-not-real", "password"),
    ("export API_TOKEN=abcd1234efgh5678", "abcd1234efgh5678", "token"),
    ("JWT_SECRET: 9f8e7d6c5b4a", "9f8e7d6c5b4a", "secret"),
    ("postgres://app:s3cretPass@db.internal:5432/app", "s3cretPass", "url-credentials"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "secret", "kind"), CASES, ids=[c[2] for c in CASES])
def test_masks_secret_and_keeps_it_exact(text: str, secret: str, kind: str) -> None:
    pieces = redact(text)
    omissions = [p for p in pieces if isinstance(p, Omission)]
    assert [o.data for o in omissions] == [secret.encode()]
    assert omissions[0].reason == f"secret:{kind}"
    visible = "".join(p for p in pieces if isinstance(p, str))
    assert secret not in visible


def test_private_key_block() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"
    pieces = redact(f"key:\n{block}\nafter")
    assert Omission(block.encode(), "secret:private-key") in pieces


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens: 500",
        "password: ${DB_PASS}",
        "password=****",
        "no secrets here",
        "PWD=/tmp/survey",
        "PWD=/root",
        "OLDPWD=/home/me",
        "DB_PASSWORD_FILE=/run/secrets/db",
        "TOKEN_COUNT=12345",
        "password_file: /etc/app/secret.txt",
    ],
)
def test_leaves_non_secrets(text: str) -> None:
    assert redact(text) == [text]


@pytest.mark.parametrize(
    "code",
    [
        "def encrypt(password: str) -> None:",
        "$token = $this->tokens->findValid($request);",
        "token = self.tokens",
        "password = get_password()",
        "password: Optional[str] = None",
    ],
)
def test_code_that_mentions_secrets_is_not_masked(code: str) -> None:
    assert redact(code) == [code]


FRAGMENTS = [
    "password", "=", "token", ": ", "AKIA", "IOSFODNN7EXAMPLE", "://", "user", ":", "pw", "@",
    "Bearer ", "eyJ", "abcdefghij", ".", "ghp_", "x" * 36, "-----BEGIN RSA PRIVATE KEY-----", "\n",
    "-----END RSA PRIVATE KEY-----", " ", '"', "secret", "api_key", "access_token", "client_secret",
    "https://hooks.slack.com/services/", "T0000/B0000/XXXXXXXXXXXXXXXXXXXX", "sk_live_",
    "0123456789abcdef0123", "xoxb-", "1234567890-abc", "$", "(", "str",
    # Case variants and key names whose anchor is not at their start.
    "PASSWD", "Api-Key", "APIKEY", "Private_Key", "AWS_SECRET_ACCESS_KEY", "clientsecret", "Client-Secret",
    "AUTH_TOKEN", "authtoken", "AccessToken", "access-token", "bearer ", "BEARER ", "AKIASIA", "xoxox", "ASIA",
    "rk_test_", "AIza", "github_pat_", "glpat-", "pwd", "PRIVATE",
    # Characters that `re.IGNORECASE` folds to ASCII letters, or that change length when lowercased.
    "\u0130", "\u0131", "\u212a", "\u017f", "\u017fecret", "to\u212aen", "p\u0131d", "ap\u0130_key", "\u00e9", "\u00df",
    "\ud800",
]  # fmt: skip
# Real-looking secrets, generated from the patterns themselves (those without lookarounds).
GENERATED_SECRETS = st.sampled_from([body for body in _PATTERNS.values() if "(?<" not in body]).flatmap(
    lambda body: st.from_regex(body, fullmatch=True)
)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), GENERATED_SECRETS), max_size=30).map("".join))
def test_anchor_scan_finds_exactly_what_the_full_pattern_finds(text: str) -> None:
    assert [m.span() for m in secret_matches(text)] == [m.span() for m in _SECRET_RE.finditer(text)]


@pytest.mark.parametrize(
    "text",
    [
        "\u017fecret=wJalrXUtnFEMI",
        "to\u212aen: s3cr3tValue",
        "ap\u0130_key=abcd1234",
        "pr\u0131vate_key = abcd1234",
        "\u0130\u0130\u0130 x AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI",
        "Client-Secret: abcd1234; AuthToken=efgh5678",
        "token=xoxb-123456789012-abcdefghijkl",
        "\u00e9\u00e9 https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXX",
        "Authorization: Bearer abcdefghijklmnop0123456789",
        "curl -H 'authorization: bearer abcdefghijklmnop0123456789=='",
        "\u00e9 eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    ],
)
def test_anchor_scan_handles_case_folding_and_non_ascii(text: str) -> None:
    expected = [m.span() for m in _SECRET_RE.finditer(text)]
    assert expected
    assert [m.span() for m in secret_matches(text)] == expected


def test_letter_twins_are_all_the_non_ascii_characters_ignorecase_folds_to_ascii_letters() -> None:
    non_ascii = "".join(map(chr, range(128, 0x110000)))
    twins = {
        found.group(): letter
        for letter in string.ascii_lowercase
        for found in re.finditer(f"(?i){letter}", non_ascii)
    }
    assert twins == _ASCII_LETTER_TWINS


def test_ascii_lowercase_keeps_every_position() -> None:
    text = "".join(map(chr, range(0x110000)))
    folded = _ascii_lowercase(text)
    assert len(folded) == len(text)
    assert folded[:128] == text[:128].lower().encode()
    assert {folded[ord(twin)] for twin in _ASCII_LETTER_TWINS} == {ord(letter) for letter in "iks"}


def _shown(pieces: list[str | Omission]) -> list[str | tuple[str, bytes]]:
    """Masked pieces with neighbouring texts joined: what the visible text shows of them."""
    shown: list[str | tuple[str, bytes]] = []
    for piece in pieces:
        if isinstance(piece, Omission):
            shown.append((piece.reason, piece.data))
        elif shown and isinstance(shown[-1], str):
            shown[-1] += piece
        else:
            shown.append(piece)
    return shown


_LINES = st.sampled_from([
    "    password =\n", "        hunter2hunter2\n", "  token:\n", "  'ghp_" + "a1B2c3D4e5" * 4 + "'\n",
    "-----BEGIN RSA PRIVATE KEY-----\n", "MIIEpAIBAAKCAQEA\n", "-----END RSA PRIVATE KEY-----\n",
    "    call(record)\n", "    done;\n", "}\n", "\n", "  \n", "Bearer\n", "abcdefghijklmnopqrstu\n",
])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, min_size=2, max_size=12), st.data())
def test_masking_in_two_parts_where_a_cut_is_allowed_finds_what_masking_them_joined_does(
    lines: list[str], data: st.DataObject
) -> None:
    cut = data.draw(st.integers(1, len(lines) - 1))
    before, after = "".join(lines[:cut]), "".join(lines[cut:])
    if can_cut_after(before):
        assert _shown(redact(before) + redact(after)) == _shown(redact(before + after))


@pytest.mark.parametrize(
    "before",
    ["x = 1\n    password =\n", "  token:\n\n", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n", "done;"],
)
def test_no_cut_after_what_a_secret_can_go_on_from(before: str) -> None:
    assert not can_cut_after(before)


def test_a_cut_after_a_closed_line_is_allowed() -> None:
    assert can_cut_after("    call(record)\n\n")
