"""`tokens run`: exit status, output order, every byte, timeouts, memory, quoting."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from tokenlab import ledger
from tokenlab.agent.capture import Limits, capture_output
from tokenlab.agent.run import Command
from tokenlab.agent.run import run as run_command
from tokenlab.store import FolderStore

PY = sys.executable


def tokens(
    *args: str, input: bytes | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """`tokens ARGS` as its own process, as an agent runs it."""
    return subprocess.run(
        [PY, "-m", "tokenlab", *args],
        check=False,
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        env=os.environ | {"TOKENLAB_WORKER": "0"},
        timeout=timeout,
    )


def restored(visible: bytes) -> bytes:
    done = tokens("restore", "-", input=visible)
    assert done.returncode == 0, done.stderr
    return done.stdout


def python(code: str) -> list[str]:
    return [PY, "-c", code]


LOG_CHILD = """
import sys
for i in range(3000):
    print(f"INFO request {i} served in {i % 97} ms")
print("ERROR PaymentService failed: card declined")
sys.exit(2)
"""


def test_exit_status_closing_line_and_byte_exact_restore() -> None:
    done = tokens("run", "--", *python(LOG_CHILD))
    assert done.returncode == 2
    text = done.stdout.decode()
    assert "ERROR PaymentService failed: card declined" in text
    lines = text.splitlines()
    assert lines[-1].startswith("[original ")  # the footer stays last: restore finds it
    assert lines[-2].startswith("[exit 2: ") and "python" in lines[-2]
    assert len(done.stdout) < 20_000
    expected = subprocess.run(python(LOG_CHILD), check=False, capture_output=True).stdout
    assert restored(done.stdout) == expected


def test_interleaved_stdout_and_stderr_keep_their_order() -> None:
    child = "import sys\nfor i in range(40):\n    s = sys.stdout if i % 3 else sys.stderr\n    s.write(f'line {i}\\n'); s.flush()"
    done = tokens("run", "--", *python(child))
    assert done.returncode == 0
    expected = "".join(f"line {i}\n" for i in range(40)).encode()
    assert restored(done.stdout) == expected
    assert done.stderr == b""


def test_split_keeps_the_streams_apart() -> None:
    child = "import sys\nprint('to out'); sys.stdout.flush(); print('to err', file=sys.stderr); sys.exit(1)"
    done = tokens("run", "--split", "--", *python(child))
    assert done.returncode == 1
    assert done.stdout.startswith(b"to out\n") and b"[exit 1: " in done.stdout
    assert done.stderr == b"to err\n"
    assert restored(done.stdout) == b"to out\n"


def test_binary_output_restores_byte_for_byte() -> None:
    data = bytes(range(256)) * 400 + b"\x00\xff\xfe"
    child = "import sys; sys.stdout.buffer.write(bytes(range(256)) * 400 + b'\\x00\\xff\\xfe')"
    done = tokens("run", "--", *python(child))
    assert done.returncode == 0
    assert b"binary" in done.stdout and len(done.stdout) < 400
    assert restored(done.stdout) == data


def test_no_output() -> None:
    quiet = tokens("run", "--", "true")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")
    failed = tokens("run", "--", "false")
    assert failed.returncode == 1
    assert failed.stdout.decode().splitlines()[0] == "[exit 1: false]"
    assert restored(failed.stdout) == b""


def test_output_shown_unchanged_still_restores_when_the_command_fails() -> None:
    done = tokens("run", "--shell", "printf 'no newline at the end'; exit 7")
    assert done.returncode == 7
    assert done.stdout.decode().splitlines()[:2] == [
        "no newline at the end",
        "[exit 7: printf 'no newline at the end'; exit 7]",
    ]
    assert restored(done.stdout) == b"no newline at the end"


def test_shell_line_runs_chains_and_pipes_as_one_unit() -> None:
    done = tokens("run", "--shell", 'echo a && echo b | tr b c; echo "$((1 + 2))"')
    assert done.returncode == 0
    assert done.stdout == b"a\nc\n3\n"


def test_arguments_reach_the_command_exactly() -> None:
    args = ["a b", "it's", '"quoted"', "$HOME", "x;y && z", "line1\nline2", "--json", "-", "*"]
    done = tokens("run", "--", *python("import json, sys; print(json.dumps(sys.argv[1:]))"), *args)
    assert done.returncode == 0
    assert json.loads(restored(done.stdout)) == args


def test_options_end_at_the_command() -> None:
    done = tokens("run", "echo", "--json", "--timeout", "1")
    assert done.stdout == b"--json --timeout 1\n"


def test_stdin_is_passed_through() -> None:
    done = tokens("run", "--", "cat", input=b"from stdin\n")
    assert (done.returncode, done.stdout) == (0, b"from stdin\n")


def test_timeout_ends_the_process_group_and_says_so(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    started = time.monotonic()
    done = tokens(
        "run", "--timeout", "0.5", "--shell", f"sleep 30 & echo $! > {pid_file}; echo started; wait"
    )
    assert time.monotonic() - started < 10
    assert done.returncode == 124
    text = done.stdout.decode()
    assert text.startswith("started\n")
    assert "[timeout after 0.5 s: process group sent SIGTERM; exit 124: " in text
    assert restored(done.stdout) == b"started\n"
    background = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):  # the backgrounded grandchild went with the group
        for _ in range(50):
            os.kill(background, 0)
            time.sleep(0.05)


def test_timeout_kills_a_command_that_ignores_sigterm(tmp_path: Path) -> None:
    child = "import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(30)"
    limits = Limits(timeout=1.0, kill_grace=0.2)
    started = time.monotonic()
    capture = capture_output(Command.of_args(python(child)).argv, str(tmp_path), limits)
    try:
        assert time.monotonic() - started < 10
        assert (capture.status, capture.timed_out, capture.killed) == (124, True, True)
        assert capture.read("output") == b"ready\n"
    finally:
        capture.close()


def test_a_signal_death_reads_as_a_shell_would(tmp_path: Path) -> None:
    result = run_command(Command.of_shell("kill -KILL $$"), FolderStore(tmp_path / "store"))
    assert result.status == 128 + signal.SIGKILL
    assert "[exit 137 (SIGKILL): kill -KILL $$]" in result.streams[0].visible


def test_command_not_found_exits_127() -> None:
    done = tokens("run", "--", "no-such-command-tokenlab")
    assert done.returncode == 127
    assert done.stderr.decode().strip() == "tokens: command not found: no-such-command-tokenlab"


@pytest.mark.parametrize(
    "args", [["run"], ["run", "--shell", "true", "--", "true"], ["run", "--timeout", "0", "true"]]
)
def test_bad_usage_exits_2(args: list[str]) -> None:
    done = tokens(*args)
    assert done.returncode == 2
    assert done.stderr.decode().startswith("tokens: ")


def test_a_failure_shows_at_least_what_a_success_shows() -> None:
    body = "import sys\nfor i in range(400):\n    print(f'step {i % 7} took {i} ms')\n    print(f'fetch item {i}')\n"
    ok = json.loads(tokens("run", "--json", "--", *python(body)).stdout)
    failed = json.loads(tokens("run", "--json", "--", *python(body + "sys.exit(3)")).stdout)
    assert (ok["exit_status"], failed["exit_status"]) == (0, 3)
    assert len(failed["refs"]) > len(ok["refs"])  # fine granularity: one ref per folded group
    # A fine view may name a line's ref on the line itself (`step 1 took 1 ms … #ref:…`).
    unmarked = re.compile(r" ?\(?(?:full section: )?#ref:ctx_[0-9a-f]+\)?")
    shown = {unmarked.sub("", line) for line in failed["visible"]["text"].splitlines()}
    for line in ok["visible"]["text"].splitlines():
        if not line.startswith("[original "):
            assert unmarked.sub("", line) in shown


def test_json_carries_the_run_and_the_analysis() -> None:
    payload = json.loads(tokens("run", "--json", "--", *python(LOG_CHILD)).stdout)
    assert payload["exit_status"] == 2 and payload["timed_out"] is False
    assert payload["command"].startswith(PY.rsplit("/", 1)[-1]) or PY in payload["command"]
    assert payload["raw"]["tokens"] > payload["visible"]["tokens"] > 0
    assert payload["visible"]["text"].splitlines()[-2].startswith("[exit 2: ")
    assert payload["trace"][0]["stage"] == "RUN"


def test_capture_memory_stays_flat_on_a_large_output(tmp_path: Path) -> None:
    child = "import sys\nline = b'x' * 1023 + b'\\n'\nfor _ in range(60 * 1024):\n    sys.stdout.buffer.write(line)"
    tracemalloc.start()
    try:
        capture = capture_output(Command.of_args(python(child)).argv, str(tmp_path), Limits())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    try:
        assert capture.spools["output"].seek(0, os.SEEK_END) == 60 << 20
        assert peak < 4 << 20  # chunks pass through; 60 MB never sit in memory
    finally:
        capture.close()


def test_a_50_mb_run_stays_within_the_log_optimizers_bound(tmp_path: Path) -> None:
    """Whole `tokens run` process: peak RSS under twice the output plus 150 MB (the log
    optimizer's bound) plus the interpreter's own baseline."""
    size = 50 << 20
    child = (
        "import sys\nw = sys.stdout.buffer.write\n"
        f"for i in range({size // 64}):\n    w(b'INFO worker %6d processed batch in %4d ms........\\n' % (i % 999999, i % 9999))"
    )
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)\n"
        "print(done.returncode, len(done.stdout), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    measured = subprocess.run(
        [PY, "-c", probe, PY, "-m", "tokenlab", "run", "--", PY, "-c", child],
        check=True,
        capture_output=True,
        env=os.environ | {"TOKENLAB_WORKER": "0"},
        timeout=600,
    )
    code, shown, max_rss_kb = map(int, measured.stdout.split())
    assert code == 0 and 0 < shown < 100_000
    assert max_rss_kb * 1024 < 2 * size + (150 << 20) + (120 << 20)


def test_the_same_run_again_printing_the_same_is_shown_unmodified(isolated_store: Path) -> None:
    # The agent asked again: the visible text was not enough. Its next ask is compressed
    # again only if the output changed; either way the repeat is counted.
    expected = subprocess.run(python(LOG_CHILD), check=False, capture_output=True).stdout
    first = tokens("run", "--", *python(LOG_CHILD))
    again = tokens("run", "--", *python(LOG_CHILD))
    assert len(first.stdout) < 20_000
    assert (again.returncode, again.stdout) == (2, expected)
    changed = tokens("run", "--", *python(LOG_CHILD.replace("card declined", "card expired")))
    assert len(changed.stdout) < 20_000 and b"card expired" in changed.stdout
    rows = ledger.records(isolated_store)
    assert [row.rerun for row in rows] == [False, True, False]
    assert rows[1].visible_tokens == rows[1].raw_tokens  # nothing saved on the repeat
    assert len({row.fingerprint.partition(".")[0] for row in rows if row.fingerprint}) == 2


def test_a_run_names_the_agent_host_it_runs_under(isolated_store: Path) -> None:
    done = subprocess.run(
        [PY, "-m", "tokenlab", "run", "--", "true"],
        check=False,
        capture_output=True,
        env={key: value for key, value in os.environ.items() if not key.startswith(("CLAUDECODE", "CODEX_"))}
        | {"TOKENLAB_WORKER": "0", "GEMINI_CLI": "1"},
    )
    assert done.returncode == 0
    assert [row.host for row in ledger.records(isolated_store)] == ["gemini"]


def test_without_tokens_on_the_path_the_footer_names_tokenlab_by_absolute_path(tmp_path: Path) -> None:
    # The agent's shell may not find `tokens` (the hook names tokenlab by absolute path for
    # that reason); the way back to the ref must then be runnable as well.
    env = os.environ | {"TOKENLAB_WORKER": "0", "PATH": str(tmp_path)}
    done = subprocess.run(
        [PY, "-m", "tokenlab", "run", "--", *python(LOG_CHILD)], check=False, capture_output=True, env=env
    )
    footer = done.stdout.decode().splitlines()[-1]
    assert f"{shlex.join([PY, '-m', 'tokenlab'])} show-ref ID --grep RE" in footer, footer
    ref = re.search(r"#ref:(ctx_[0-9a-f]+)", footer)
    assert ref is not None
    opener = footer.split("open a ref in part: ")[1].split(" show-ref")[0]
    opened = subprocess.run(
        [*shlex.split(opener), "show-ref", ref[1], "--raw"], check=True, capture_output=True, env=env
    )
    assert opened.stdout == subprocess.run(python(LOG_CHILD), check=False, capture_output=True).stdout
    (bin_folder := tmp_path / "bin").mkdir()
    (bin_folder / "tokens").symlink_to(Path(PY).parent / "tokens")
    again = subprocess.run(
        [PY, "-m", "tokenlab", "run", "--", *python(LOG_CHILD.replace("declined", "expired"))],
        check=False, capture_output=True, env=env | {"PATH": str(bin_folder)},
    )  # fmt: skip
    plain = "; open a ref in part: tokens show-ref ID --grep RE | --lines A-B]"
    assert again.stdout.decode().splitlines()[-1].endswith(plain)


@pytest.mark.parametrize(
    "child",
    [
        LOG_CHILD,
        "import sys; print('one line shown as it is'); sys.exit(1)",
        "import sys; sys.stdout.write('x' * 40); sys.exit(3)",
    ],
    ids=["folded", "unchanged", "no-newline"],
)
def test_the_closing_line_and_the_opener_keep_the_count_exact(child: str, isolated_store: Path) -> None:
    # Only the last line changes, so only it is counted again: the total must be what
    # counting the whole text gives.
    from tokenlab.agent.run import _name_opener
    from tokenlab.counting.tokens import count

    with FolderStore(isolated_store) as store:
        result = run_command(Command.of_args(python(child)), store)
    packet = result.streams[0].packet
    assert packet.visible.splitlines()[-2].startswith("[exit ")
    assert packet.visible_measure is not None
    assert packet.visible_measure.tokens == count(packet.visible)
    assert packet.visible_measure.bytes == len(packet.visible.encode())
    hinted = "tokens show-ref" in packet.visible.splitlines()[-1]  # only when something was folded
    _name_opener(packet, f"{PY} -m tokenlab")
    assert (f"{PY} -m tokenlab show-ref" in packet.visible.splitlines()[-1]) is hinted
    assert packet.visible_measure.tokens == count(packet.visible)
