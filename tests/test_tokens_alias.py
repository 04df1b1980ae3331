"""`tokenlab.tokens`, the old import path, is the counting package's tokenizer itself."""

import subprocess
import sys

from tokenlab.counting import tokens


def test_the_old_path_is_the_same_module() -> None:
    import tokenlab.tokens as old

    assert old is tokens
    assert old.encoding is tokens.encoding


def test_a_script_importing_the_old_name_counts_as_the_package_does() -> None:
    script = "from tokenlab.tokens import encoding; print(len(encoding().encode_ordinary('hello world')))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == str(tokens.count("hello world"))
