"""The packer against its peers: answer-line recall and budget adherence at 2k, 4k and 8k tokens.

Questions (bench/pack_questions/questions.json) ask about code none of us wrote: a copy of
this machine's CPython standard library and a few npm packages' sources. Each answer is a
definition; its lines are found with `ast` (Python) or the tree-sitter grammar (JS).

Per question and budget, each tool gets the corpus folder and the same budget:
- tokenlab: `tokens pack CORPUS --query QUESTION --budget B` (in process);
- aider: its repo map (`RepoMap.get_ranked_tags_map`, the question's identifiers as
  mentioned idents), run in .venv-pack-peer by bench/pack_peer_aider.py, counting o200k_base;
- repomix: `repomix --compress --style plain` over the corpus once (it takes no query),
  cut to the first B tokens where it does not fit.

Metrics, all counted with o200k_base:
- recall (full): the answer's lines all appear, in order, in the output under that file;
- located: the answer's definition line appears under that file (aider's map shows
  signatures, tokenlab's outline names the symbol with its lines);
- adherence: tokens of the output / budget (mean, max, and answers over budget).

The greedy knapsack's gap to the exact optimum is measured on the packer's own inputs.

    .venv/bin/python bench/pack_bench.py [--work /tmp/pack-bench] [--budgets 2000,4000,8000]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokenlab.counting import tokens
from tokenlab.pack import PackRequest, pack
from tokenlab.pack.knapsack import exact, greedy, total
from tokenlab.pack.packer import plan
from tokenlab.reads.pointers import parse_pointer

HERE = Path(__file__).parent
QUESTIONS = HERE / "pack_questions" / "questions.json"
PEER_PYTHON = HERE.parent / ".venv-pack-peer" / "bin" / "python"
REPOMIX = Path(os.environ.get("REPOMIX", "/tmp/npm-pack-peer/node_modules/.bin/repomix"))
NPM_ROOT = Path(os.environ.get("NPM_ROOT", "/tmp/npm-pack-peer/node_modules"))
SKIP = shutil.ignore_patterns("__pycache__", "node_modules", "site-packages", "dist-packages", "*.pyc")


@dataclass
class Answer:
    path: str
    symbol: str
    start: int
    end: int
    lines: list[str]

    @property
    def definition(self) -> str:
        """The line with the name (after any decorators)."""
        name = self.symbol.rsplit(".", 1)[-1]
        for line in self.lines:
            if re.search(rf"\b{re.escape(name)}\b", line):
                return line.strip()
        return self.lines[0].strip()


@dataclass
class Score:
    ids: list[str] = field(default_factory=list)
    full: list[bool] = field(default_factory=list)
    located: list[bool] = field(default_factory=list)
    used: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


# --- corpora and answers -----------------------------------------------------------------


def prepare(work: Path, corpora: dict[str, Any]) -> dict[str, Path]:
    roots = {}
    for name, spec in corpora.items():
        root = work / name
        if not root.exists():
            if spec["source"] == "stdlib":
                shutil.copytree(sysconfig.get_paths()["stdlib"], root, ignore=SKIP, symlinks=True)
            else:
                for package in spec["packages"]:
                    shutil.copytree(NPM_ROOT / package, root / package, ignore=SKIP, symlinks=True)
        roots[name] = root
    return roots


def locate_answer(root: Path, path: str, symbol: str) -> Answer:
    text = (root / path).read_text(encoding="utf-8")
    if path.endswith(".py"):
        start, end = _python_span(text, symbol)
    else:
        from tokenlab.reads.outline import find_section, outline

        found = find_section(outline(path, text), symbol)
        if found is None:
            raise SystemExit(f"no {symbol} in {path}")
        start, end = found.start_line, found.end_line
    lines = text.split("\n")[start - 1 : end]
    return Answer(path, symbol, start, end, lines)


def _python_span(text: str, symbol: str) -> tuple[int, int]:
    """The lines of `name` or `Class.method`: the first definition of that name, at any depth
    (a definition inside `try:` or `if` counts, as `posixpath.normpath`'s does)."""
    node: ast.AST = ast.parse(text)
    for part in symbol.split("."):
        found = next(
            (item for item in ast.walk(node)
             if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and item.name == part),
            None,
        )  # fmt: skip
        if found is None:
            raise SystemExit(f"no {symbol}")
        node = found
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    return node.lineno, node.end_lineno or node.lineno


# --- judging an output -------------------------------------------------------------------


def contains_in_order(block: list[str], wanted: list[str]) -> bool:
    """All non-blank wanted lines appear in `block`, in order (elision marks may sit between)."""
    wanted = [line.rstrip() for line in wanted if line.strip()]
    position = 0
    for line in block:
        if position < len(wanted) and line.rstrip() == wanted[position]:
            position += 1
    return position == len(wanted)


def aider_blocks(text: str) -> dict[str, list[str]]:
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.split("\n"):
        if line and not line.startswith(("│", "⋮")) and line.endswith(":"):
            current = blocks.setdefault(line[:-1], [])
        elif current is not None and line.startswith("│"):
            current.append(line[1:])
    return blocks


def repomix_blocks(text: str) -> dict[str, list[str]]:
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith("File: ") and index and lines[index - 1].startswith("====="):
            current = blocks.setdefault(line[len("File: ") :].strip(), [])
        elif current is not None and not line.startswith("====="):
            current.append(line)
    return blocks


def judge_blocks(blocks: dict[str, list[str]], answer: Answer) -> tuple[bool, bool]:
    block = blocks.get(answer.path, [])
    located = any(line.strip() == answer.definition for line in block)
    return contains_in_order(block, answer.lines), located


def judge_tokenlab(result: dict[str, Any], answer: Answer, root: Path) -> tuple[bool, bool]:
    name = answer.symbol.rsplit(".", 1)[-1]
    for chosen in result["chosen"]:
        if not (root / answer.path).samefile(_pointer_path(chosen["evidence"][0]["pointer"], root)):
            continue
        if chosen["view"] in ("full", "section"):
            for evidence in chosen["evidence"]:
                start, end = _range(evidence["pointer"])
                if start <= answer.start and answer.end <= end:
                    return True, True
        if chosen["view"] == "outline" and re.search(rf"\b{re.escape(name)} \(L", _block_of(result, chosen)):
            return False, True
        if chosen["view"] == "section" and name in chosen["detail"].split(", "):
            return False, True
    return False, False


def _pointer_path(pointer: str, root: Path) -> Path:
    path = Path(parse_pointer(pointer).path)
    return path if path.is_absolute() else root / path


def _range(pointer: str) -> tuple[int, int]:
    parsed = parse_pointer(pointer)
    return (parsed.start or 0, parsed.end or 0)


def _block_of(result: dict[str, Any], chosen: dict[str, Any]) -> str:
    """The text one chosen file shows inside the document: from its header to the next."""
    content: str = result["content"]
    at = content.find(f">>> {parse_pointer(chosen['evidence'][0]['pointer']).short} ")
    if at < 0:
        return ""
    following = content.find("\n>>> ", at)
    return content[at : following if following >= 0 else len(content)]


# --- the tools ---------------------------------------------------------------------------


def run_tokenlab(
    root: Path, question: dict[str, Any], budget: int, cache: Path
) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    result = pack(PackRequest((root,), question["query"], budget), cache)
    return result.as_dict(), time.perf_counter() - started


def run_aider(root: Path, questions: list[dict[str, Any]], budgets: list[int], work: Path) -> dict[str, Any]:
    if not PEER_PYTHON.exists():
        return {"error": f"{PEER_PYTHON} missing: make bench-pack installs aider-chat there"}
    cache_dir = work / "tiktoken-cache"
    cache_dir.mkdir(parents=True, exist_ok=True)
    for candidate in tokens._user_cache_candidates():  # the file name tiktoken looks for
        (cache_dir / candidate.name).write_bytes(tokens.vocabulary_bytes())
        break
    files = sorted(
        str(Path(folder) / name)
        for folder, folders, names in os.walk(root)
        for name in names
        if not name.startswith(".")
    )
    job = {
        "root": str(root),
        "files": files,
        "questions": [
            {"id": q["id"], "identifiers": q["identifiers"], "budgets": budgets} for q in questions
        ],
    }
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache_dir), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [str(PEER_PYTHON), str(HERE / "pack_peer_aider.py")],
        input=json.dumps(job), stdout=subprocess.PIPE, text=True, env=env, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return {"error": f"the aider runner exited {done.returncode} (its stderr is above)"}
    answers: dict[str, Any] = json.loads(done.stdout)
    return answers


def run_repomix(root: Path, work: Path) -> tuple[str, float] | str:
    if not REPOMIX.exists():
        return f"{REPOMIX} missing: `npm install repomix` into /tmp/npm-pack-peer"
    out = work / f"repomix-{root.name}.txt"
    started = time.perf_counter()
    done = subprocess.run(
        [str(REPOMIX), "--compress", "--style", "plain", "--no-security-check", "--quiet", "-o", str(out), "."],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0 or not out.exists():
        return f"repomix failed: {(done.stderr or done.stdout).strip()[-300:]}"
    return out.read_text(encoding="utf-8", errors="replace"), time.perf_counter() - started


def cut(text: str, budget: int) -> str:
    encoded = tokens.encoding().encode(text, disallowed_special=())
    if len(encoded) <= budget:
        return text
    piece = tokens.encoding().decode(encoded[:budget])
    while tokens.count(piece) > budget:
        piece = piece[:-1]
    return piece


# --- the run -----------------------------------------------------------------------------


def knapsack_gap(root: Path, question: dict[str, Any], budget: int, cache: Path) -> float:
    planned = plan(PackRequest((root,), question["query"], budget), cache)
    groups = planned.groups
    best = total(groups, exact(groups, planned.room))[1]
    found = total(groups, greedy(groups, planned.room))[1]
    return 0.0 if best == 0 else (best - found) / best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/pack-bench"))
    parser.add_argument("--budgets", default="2000,4000,8000")
    parser.add_argument("--gap-budgets", default="2000,4000")
    parser.add_argument("--out", type=Path, default=HERE / "pack_results.json")
    parser.add_argument("--tools", default="tokenlab,aider,repomix")
    parser.add_argument("--corpora", default="stdlib,npm")
    parser.add_argument(
        "--max-per-corpus", type=int, default=0, help="Only the first N questions of each corpus."
    )
    args = parser.parse_args()
    tools = set(args.tools.split(","))
    budgets = [int(value) for value in args.budgets.split(",")]
    spec = json.loads(QUESTIONS.read_text())
    args.work.mkdir(parents=True, exist_ok=True)
    roots = prepare(args.work, spec["corpora"])
    cache = args.work / "tokenlab-cache"
    scores: dict[tuple[str, int], Score] = {}
    notes: list[str] = []
    gaps: dict[int, list[float]] = {}
    for corpus, root in roots.items():
        if corpus not in args.corpora.split(","):
            continue
        questions = [q for q in spec["questions"] if q["corpus"] == corpus]
        questions = questions[: args.max_per_corpus or None]
        answers = {
            q["id"]: locate_answer(root, q["answer"]["path"], q["answer"]["symbol"]) for q in questions
        }
        aider = run_aider(root, questions, budgets, args.work) if "aider" in tools else {"error": "not run"}
        if "error" in aider:
            notes.append(f"aider on {corpus}: {aider['error']}")
        repomix = run_repomix(root, args.work) if "repomix" in tools else "not run"
        if isinstance(repomix, str):
            notes.append(f"repomix on {corpus}: {repomix}")
        else:
            notes.append(
                f"repomix on {corpus}: {tokens.count(repomix[0]):,} tokens uncut, {repomix[1]:.1f} s"
            )
        for question in questions:
            answer = answers[question["id"]]
            for budget in budgets:
                if "tokenlab" in tools:
                    result, seconds = run_tokenlab(root, question, budget, cache)
                    verdict = judge_tokenlab(result, answer, root)
                    _add(scores, question["id"], "tokenlab", budget, verdict, result["content"], seconds)
                if "error" not in aider:
                    text = aider[question["id"]][str(budget)]["text"]
                    took = aider[question["id"]][str(budget)]["seconds"]
                    _add(
                        scores,
                        question["id"],
                        "aider",
                        budget,
                        judge_blocks(aider_blocks(text), answer),
                        text,
                        took,
                    )
                if not isinstance(repomix, str):
                    text = cut(repomix[0], budget)
                    _add(
                        scores,
                        question["id"],
                        "repomix",
                        budget,
                        judge_blocks(repomix_blocks(text), answer),
                        text,
                        0.0,
                    )
            for budget in (int(value) for value in args.gap_budgets.split(",") if value):
                gaps.setdefault(budget, []).append(knapsack_gap(root, question, budget, cache))
    report(scores, budgets, gaps, notes, args.out)


def _add(scores: dict[tuple[str, int], Score], question: str, tool: str, budget: int,
         verdict: tuple[bool, bool], text: str, seconds: float) -> None:  # fmt: skip
    score = scores.setdefault((tool, budget), Score())
    score.ids.append(question)
    score.full.append(verdict[0])
    score.located.append(verdict[1] or verdict[0])
    score.used.append(tokens.count(text) / budget)
    score.seconds.append(seconds)


def report(
    scores: dict[tuple[str, int], Score],
    budgets: list[int],
    gaps: dict[int, list[float]],
    notes: list[str],
    out: Path,
) -> None:
    rows = [
        "| tool | budget | recall (full) | located | adherence mean | adherence max | over budget | s/answer |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    payload: dict[str, Any] = {"notes": notes, "rows": [], "gaps": {}}
    for tool in ("tokenlab", "aider", "repomix"):
        for budget in budgets:
            score = scores.get((tool, budget))
            if score is None:
                continue
            row = {
                "tool": tool, "budget": budget, "questions": len(score.full),
                "recall": sum(score.full) / len(score.full), "located": sum(score.located) / len(score.located),
                "adherence_mean": statistics.mean(score.used), "adherence_max": max(score.used),
                "over_budget": sum(1 for used in score.used if used > 1.0),
                "seconds": statistics.mean(score.seconds),
            }  # fmt: skip
            payload["rows"].append(row)
            payload.setdefault("answers", []).extend(
                {"tool": tool, "budget": budget, "id": ident, "full": full, "located": located, "used": used}
                for ident, full, located, used in zip(
                    score.ids, score.full, score.located, score.used, strict=True
                )
            )
            rows.append(
                f"| {tool} | {budget:,} | {row['recall']:.2f} ({sum(score.full)}/{len(score.full)}) | "
                f"{row['located']:.2f} | {row['adherence_mean']:.3f} | {row['adherence_max']:.3f} | "
                f"{row['over_budget']} | {row['seconds']:.2f} |"
            )
    for budget, values in sorted(gaps.items()):
        payload["gaps"][str(budget)] = {
            "mean": statistics.mean(values),
            "max": max(values),
            "cases": len(values),
        }
        rows.append(
            f"\ngreedy vs exact at {budget:,}: mean gap {statistics.mean(values):.4%}, "
            f"max {max(values):.4%} over {len(values)} packs"
        )
    print("\n".join(rows))
    for note in notes:
        print(f"- {note}")
    out.write_text(json.dumps(payload, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
