"""bench/reader_packets.py: a reader's packet holds the visible text and the questions,
never the answers, which wait in their own folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOG = b"".join(b"2026-12-02T10:00:%02dZ INFO worker ok request=%d\n" % (i % 60, i) for i in range(400))
LOG += b"2026-12-02T10:07:00Z ERROR PaymentService timed out after 30s\n"
QUESTIONS = (
    "# Questions: service.log\n\n"
    "- **Q:** What failed?\n  **A:** PaymentService timed out after 30s.\n\n"
    "- **Q:** How many lines are INFO?\n  **A:** 400.\n"
)


def run(fixtures: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TOKENLAB_WORKER": "0"}
    command = [sys.executable, str(ROOT / "bench" / "reader_packets.py"), "--fixtures", str(fixtures), "--out", str(out)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_packets_hold_visible_text_and_questions_and_keep_answers_apart(tmp_path: Path) -> None:
    fixtures = tmp_path / "real"
    fixtures.mkdir()
    (fixtures / "service.log").write_bytes(LOG)
    (fixtures / "service.log.questions.md").write_text(QUESTIONS, encoding="utf-8")
    (fixtures / "other.log").write_bytes(LOG)  # no questions: no packet
    result = run(fixtures, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    questions = (tmp_path / "out" / "service.log.questions").read_text(encoding="utf-8")
    assert questions == "1. What failed?\n2. How many lines are INFO?\n"
    visible = (tmp_path / "out" / "service.log.visible").read_text(encoding="utf-8")
    assert "ERROR PaymentService timed out after 30s" in visible and len(visible) < len(LOG)
    assert (tmp_path / "out" / "answers" / "service.log.answers.md").read_text(encoding="utf-8") == QUESTIONS
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [
        "answers",
        "service.log.questions",
        "service.log.visible",
    ]


def test_a_sidecar_without_questions_is_an_error_not_an_empty_packet(tmp_path: Path) -> None:
    fixtures = tmp_path / "real"
    fixtures.mkdir()
    (fixtures / "service.log").write_bytes(LOG)
    (fixtures / "service.log.questions.md").write_text("What failed? PaymentService.\n", encoding="utf-8")
    result = run(fixtures, tmp_path / "out")
    assert result.returncode != 0
    assert "no `- **Q:**` lines" in result.stderr
