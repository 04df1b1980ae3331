"""Readability check (issue 24): packets for a reader who never sees the raw output.

Every capture under `fixtures/real/` that has a `<capture>.questions.md` sidecar holds a
reader's questions with the answers read from the raw output, written before anyone ran
tokenlab on it:

    - **Q:** How many packages are upgradable?
      **A:** 143 rows marked "upgradable to:".

For each such capture this writes, into OUT:

* `<capture>.visible`: what an agent reads, `tokens analyze` at the default granularity;
* `<capture>.questions`: the questions alone, answers left out;
* `answers/<capture>.answers.md`: the sidecar as it is, to score against afterwards.

A reader answers each question from `<capture>.visible` alone (never the raw file, never a
ref), writes the answers down, and only then opens `answers/`: match, partial, cannot tell
or wrong. OUT is made fresh; the analysis uses a temporary store.

Usage:
    .venv/bin/python bench/reader_packets.py --out /tmp/reader
    .venv/bin/python bench/reader_packets.py --out /tmp/reader --only apt_list,dpkg_l
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

from tokenlab.pipeline import analyze
from tokenlab.sources import QUESTIONS_SUFFIX, SIGNALS_SUFFIX, read_signals
from tokenlab.store import open_store

_QUESTION_RE = re.compile(r"^\s*- \*\*Q:\*\*\s*(.+)$")


def questions_of(text: str) -> list[str]:
    """The questions of a sidecar, in order, without their answers."""
    return [found[1].strip() for line in text.splitlines() if (found := _QUESTION_RE.match(line))]


def write_packets(fixtures: Path, out: Path, only: list[str]) -> int:
    if out.exists():
        shutil.rmtree(out)
    (out / "answers").mkdir(parents=True)
    written = 0
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(folder)
        for sidecar in sorted(fixtures.glob(f"*{QUESTIONS_SUFFIX}")):
            capture = sidecar.with_name(sidecar.name[: -len(QUESTIONS_SUFFIX)])
            if not capture.is_file() or (only and not any(name in capture.name for name in only)):
                continue
            text = sidecar.read_text(encoding="utf-8")
            questions = questions_of(text)
            if not questions:
                raise SystemExit(f"{sidecar}: no `- **Q:**` lines")
            signals_file = capture.with_name(capture.name + SIGNALS_SUFFIX)
            signals = read_signals(signals_file) if signals_file.is_file() else ()
            packet = analyze(capture.read_bytes(), source=capture.name, store=store, signals=signals)
            (out / f"{capture.name}.visible").write_text(packet.visible, encoding="utf-8")
            numbered = "".join(f"{at}. {question}\n" for at, question in enumerate(questions, 1))
            (out / f"{capture.name}.questions").write_text(numbered, encoding="utf-8")
            (out / "answers" / f"{capture.name}.answers.md").write_text(text, encoding="utf-8")
            written += 1
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=Path("fixtures/real"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", default="", help="comma-separated parts of capture names")
    args = parser.parse_args()
    only = [name for name in args.only.split(",") if name]
    count = write_packets(args.fixtures, args.out, only)
    print(f"{count} packets in {args.out}: read *.visible, answer *.questions, then open answers/")
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())
