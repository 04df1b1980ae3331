"""aider's repo map for bench/pack_bench.py; runs in the peer venv (.venv-pack-peer), never in .venv.

Reads one job from stdin: {"root": folder, "files": [absolute paths], "questions":
[{"id", "identifiers", "budgets"}]}, and prints {"<id>": {"<budget>": map text}}. The map
is aider's own `RepoMap.get_ranked_tags_map` (PageRank over tree-sitter tags, the
question's identifiers as mentioned idents, no chat files) with `map_tokens` = the
budget. aider counts tokens with the model it is given: here o200k_base (TIKTOKEN_CACHE_DIR
must hold the vocabulary, which pack_bench.py writes, so nothing is downloaded).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import tiktoken
from aider.repomap import RepoMap


class O200kModel:
    """What RepoMap needs of aider's model: a token counter."""

    def __init__(self) -> None:
        self.encoding = tiktoken.get_encoding("o200k_base")

    def token_count(self, text: str) -> int:
        return len(self.encoding.encode(text, disallowed_special=()))


class QuietIO:
    """What RepoMap needs of aider's terminal: file reads and messages (kept off stdout)."""

    def read_text(self, filename: str, silent: bool = False) -> str | None:
        try:
            with open(filename, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except OSError:
            return None

    def tool_output(self, *args: Any, **kwargs: Any) -> None:
        pass

    def tool_warning(self, *args: Any, **kwargs: Any) -> None:
        print(*args, file=sys.stderr)

    def tool_error(self, *args: Any, **kwargs: Any) -> None:
        print(*args, file=sys.stderr)


def main() -> None:
    job = json.load(sys.stdin)
    answers: dict[str, dict[str, Any]] = {}
    model = O200kModel()
    for question in job["questions"]:
        maps: dict[str, Any] = {}
        for budget in question["budgets"]:
            repo_map = RepoMap(
                map_tokens=budget, root=job["root"], main_model=model, io=QuietIO(), refresh="always"
            )
            started = time.perf_counter()
            text = repo_map.get_ranked_tags_map(
                [], job["files"], budget, set(), set(question["identifiers"]), force_refresh=True
            )
            maps[str(budget)] = {"text": text or "", "seconds": time.perf_counter() - started}
            print(f"aider {question['id']} {budget}: {maps[str(budget)]['seconds']:.1f} s", file=sys.stderr)
        answers[question["id"]] = maps
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
