"""A hook for any of the three hosts that records its input and gives a scripted answer.

Usage (as the hook's command): `python record_hook.py LOG ANSWERS`. It appends the JSON it
reads on stdin to LOG (one line per call) and prints the first matching answer from ANSWERS,
a JSON list of `{"event": …, "when": …, "answer": …}`:

- `event` is the `hook_event_name` it must match;
- `when` (optional) is a string that must occur in the call's `tool_input` as JSON;
- `tail: true` matches only Gemini tail calls (those with `original_request_name`), which
  are otherwise never answered: answering them again would loop;
- `answer` is printed as JSON; `{"exit": N, "stderr": "…"}` exits with N instead.

No match prints nothing, which every host reads as "no opinion".
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def pick(rules: list[dict[str, Any]], data: dict[str, Any]) -> dict[str, Any] | None:
    event = data.get("hook_event_name")
    tool_input = json.dumps(data.get("tool_input"))
    tail = bool(data.get("original_request_name"))
    for rule in rules:
        if rule.get("event") != event or bool(rule.get("tail")) != tail:
            continue
        if rule.get("when") is not None and rule["when"] not in tool_input:
            continue
        return rule
    return None


def main() -> None:
    log, answers = Path(sys.argv[1]), Path(sys.argv[2])
    raw = sys.stdin.read()
    try:
        data = json.loads(raw)
    except ValueError:
        data = {"_unparsed": raw}
    with log.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(data) + "\n")
    rules = json.loads(answers.read_text(encoding="utf-8")) if answers.exists() else []
    rule = pick(rules, data) if isinstance(data, dict) else None
    if rule is None:
        return
    if "exit" in rule:
        sys.stderr.write(rule.get("stderr", ""))
        sys.exit(int(rule["exit"]))
    sys.stdout.write(json.dumps(rule["answer"]))


if __name__ == "__main__":
    main()
