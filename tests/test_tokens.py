import hashlib
import os
import subprocess
import sys
import threading
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenlab.counting import tokens


def test_counts_known_text() -> None:
    assert tokens.count("") == 0
    assert tokens.count("hello world") == 2


def test_estimate_is_bytes_over_four_rounded_up() -> None:
    assert tokens.estimate(0) == 0
    assert tokens.estimate(1) == 1
    assert tokens.estimate(8) == 2
    assert tokens.estimate(9) == 3


def test_our_encoding_matches_tiktokens_registered_o200k(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken's own constructor, fed the same vocabulary through its cache, agrees with ours."""
    from tiktoken_ext import openai_public

    cache_key = hashlib.sha1(tokens._VOCAB_ADDRESS.encode()).hexdigest()
    (tmp_path / cache_key).write_bytes(tokens.vocabulary_bytes())
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    reference = openai_public.o200k_base()
    ours = tokens.encoding()
    assert reference["pat_str"] == ours._pat_str
    assert reference["special_tokens"] == ours._special_tokens
    assert reference["mergeable_ranks"] == ours._mergeable_ranks


def test_prefers_a_valid_user_cache_and_ignores_a_corrupt_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_key = hashlib.sha1(tokens._VOCAB_ADDRESS.encode()).hexdigest()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    (tmp_path / cache_key).write_bytes(b"corrupt")
    bundled = tokens.vocabulary_bytes()
    assert hashlib.sha256(bundled).hexdigest() == tokens._VOCAB_SHA256


def test_missing_vocabulary_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tokens, "_bundled_vocabulary", lambda: None)
    monkeypatch.setattr(tokens, "_user_cache_candidates", list)
    with pytest.raises(tokens.TokenizerUnavailableError, match="o200k_base"):
        tokens.vocabulary_bytes()


def test_a_prefetched_vocabulary_is_read_on_its_own_thread_and_taken_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With no ranks cache, the prefetch reads the vocabulary; the ranks parsed from it
    are then cached."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    readers: list[str] = []
    read = tokens._read_vocabulary

    def noted() -> bytes:
        readers.append(threading.current_thread().name)
        return read()

    monkeypatch.setattr(tokens, "_read_vocabulary", noted)
    tokens.prefetch_vocabulary()
    assert tokens.mergeable_ranks() == tokens._ranks(read())
    assert readers == ["tokenlab-vocabulary"]
    assert hashlib.sha256(tokens.vocabulary_bytes()).hexdigest() == tokens._VOCAB_SHA256
    assert readers == ["tokenlab-vocabulary", threading.current_thread().name]


def test_a_prefetch_reads_the_cached_ranks_on_its_own_thread_and_no_vocabulary(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    ranks = tokens.mergeable_ranks()  # parsed, and cached
    readers: list[str] = []
    read_payload = tokens._cached_ranks_payload

    def noted() -> bytes | None:
        readers.append(threading.current_thread().name)
        return read_payload()

    monkeypatch.setattr(tokens, "_cached_ranks_payload", noted)
    monkeypatch.setattr(tokens, "_read_vocabulary", lambda: pytest.fail("the vocabulary was read"))
    tokens.prefetch_vocabulary()
    assert tokens.mergeable_ranks() == ranks
    assert readers == ["tokenlab-vocabulary"]


def test_a_failed_prefetch_is_read_again_and_reported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no cached ranks either
    monkeypatch.setattr(tokens, "_bundled_vocabulary", lambda: None)
    monkeypatch.setattr(tokens, "_user_cache_candidates", list)
    tokens.prefetch_vocabulary()
    with pytest.raises(tokens.TokenizerUnavailableError, match="o200k_base"):
        tokens.mergeable_ranks()


PIECES = ["a", "Z", "7", " ", "\n", "\n\n", "/", "\t", "é", "日本", "!", "'s", "  \n", "\r\n", "-", "\u00a0", "\u2028", "\x85", "#ref:ctx_"]


@given(st.lists(st.sampled_from(PIECES), max_size=120), st.binary(max_size=4))
def test_counts_of_pieces_cut_at_every_safe_cut_add_up(pieces: list[str], junk: bytes) -> None:
    data = "".join(pieces).encode() + junk + "".join(reversed(pieces)).encode()
    cuts = [0, *(found.end() for found in tokens.SAFE_CUT_RE.finditer(data)), len(data)]
    pieces_counted = [tokens.count(data[a:b].decode("utf-8", errors="replace")) for a, b in pairwise(cuts)]
    assert sum(pieces_counted) == tokens.count(data.decode("utf-8", errors="replace"))


def test_fits_agrees_with_the_count_at_the_boundary() -> None:
    text = "hello world " * 50
    exact = tokens.count(text)
    assert tokens.fits(text, exact) and not tokens.fits(text, exact - 1)
    assert not tokens.fits("x" * (tokens.max_chars_per_token() * 3 + 1), 3)  # surely too long, not counted


def test_an_empty_input_is_analysed_and_run_without_building_the_tokenizer(tmp_path: Path) -> None:
    """Building o200k_base costs about 0.2 s, most of a cold `tokens run` of a command that
    prints nothing; its counts are all zero without it. In a fresh process: this one's
    tokenizer may be built already."""
    script = (
        "import sys\n"
        "from tokenlab.counting import tokens\n"
        "from tokenlab.entry import run\n"
        f"store = {str(tmp_path / 'store')!r}\n"
        "codes = [run(['run', '--store', store, '--', 'true']), run(['run', '--store', store, '--split', '--', 'true'])]\n"
        "codes.append(run(['analyze', '/dev/null', '--store', store]))\n"
        "assert tokens.count('') == 0\n"
        "sys.stderr.write(f'{codes} {tokens._shared_encoding.cache_info().currsize}')\n"
    )
    environment = {**os.environ, "TOKENLAB_WORKER": "0"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment, check=True)
    assert done.stderr.endswith("[0, 0, 0] 0")
