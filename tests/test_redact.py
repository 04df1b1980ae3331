import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenlab.optimizers import Omission
from tokenlab.redact import _SECRET_RE, redact, secret_matches

# Realistic-looking fake credentials (documented example values or random strings).
CASES = [
    ("key=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws-access-key"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws-secret-access-key"),
    ("GITHUB_TOKEN ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly123456", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly123456", "github-token"),
    ("glpat-AbCdEfGhIjKlMnOpQrSt12", "glpat-AbCdEfGhIjKlMnOpQrSt12", "gitlab-token"),
    ("slack xoxb-123456789012-abcdefghijkl", "xoxb-123456789012-abcdefghijkl", "slack-token"),
    ('{"password": "hunter2!x"}', "hunter2!x", "password"),
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
    "text", ["max_tokens: 500", "password: ${DB_PASS}", "password=****", "no secrets here"]
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
]  # fmt: skip


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join))
def test_anchor_scan_finds_exactly_what_the_full_pattern_finds(text: str) -> None:
    assert [m.span() for m in secret_matches(text)] == [m.span() for m in _SECRET_RE.finditer(text)]
