"""How long a pack takes: the first (empty cache, every file parsed) and the second (cached).

    .venv/bin/python bench/pack_speed.py TREE [--query TEXT] [--budget 8000]

Each run is a fresh process (`tokens pack --json`), as an agent would call it, with a
fresh store folder for the first run and the same one for the second. Prints the
candidates, the tokens used and the wall time of each run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOKENS = Path(sys.executable).with_name("tokens")


def run(tree: Path, query: str | None, budget: int, store: Path) -> tuple[float, dict[str, object]]:
    command = [str(TOKENS), "pack", str(tree), "--budget", str(budget), "--store", str(store), "--json"]
    if query:
        command += ["--query", query]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=True)
    return time.perf_counter() - started, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("tree", type=Path)
    parser.add_argument("--query", default=None)
    parser.add_argument("--budget", type=int, default=8000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pack-speed-") as folder:
        store = Path(folder)
        for label in ("first", "second"):
            seconds, result = run(args.tree, args.query, args.budget, store)
            print(
                f"{label}: {seconds:.2f} s, {result['candidates']:,} candidates, "
                f"{len(result['chosen'])} shown, {result['tokens']:,}/{result['budget_tokens']:,} tokens"  # type: ignore[arg-type]
            )


if __name__ == "__main__":
    main()
