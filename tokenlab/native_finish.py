"""A front door of its own: the end of a `tokens run` whose command the native client
(`native/tokens_client.c`) ran, when the warm worker did not analyse its output (it fell
back, was stale or of another protocol, the connection failed, or the output was over
`client.LARGE_INPUT`). The command must not run twice, so the client hands on what it
captured rather than the command line alone.

Run as `<python> -P -c '…main(sys.argv[2:])' ROOT STATUS DURATION SPOOL SPOOL -- ARGS…`:
the command's exit status and run time, the descriptors of its spooled output (`-` for a
second stream it did not split off), and the `tokens` arguments as the client got them,
read again here by `entry.plain_run`. What it prints is what the Python client prints for
the same run analysed in-process (`entry._run_command`).
"""

from __future__ import annotations

import os
import sys

from tokenlab.agent import client
from tokenlab.agent.capture import Capture
from tokenlab.entry import plain_run
from tokenlab.errors import TokenlabError, error_line


def main(argv: list[str]) -> None:
    status, duration, first, second, separator, *args = argv
    arguments = plain_run(args)
    if separator != "--" or arguments is None:  # the native client read these arguments as plain
        sys.stderr.write("tokens: the native client handed on arguments that are not a plain run\n")
        os._exit(2)
    names = ("stdout", "stderr") if arguments["split"] else ("output",)
    spools = {name: os.fdopen(int(fd), "r+b", buffering=0) for name, fd in zip(names, (first, second))}
    capture = Capture(spools, int(status), float(duration))
    try:
        store = client.store_root(arguments["store"])  # type: ignore[arg-type]
        code, out, err = client.finish_here(arguments, capture, store)
    except TokenlabError as error:
        sys.stderr.write(error_line(error) + "\n")
        code, out, err = error.exit_code, b"", b""
    finally:
        capture.close()
    if isinstance(out, bytes):
        sys.stdout.buffer.write(out)
    else:
        with out:
            out.write_to(sys.stdout.buffer)
    try:
        sys.stdout.flush()
        sys.stderr.buffer.write(err)
        sys.stderr.flush()
    except OSError:  # the reader went away, as with `| head`
        code = 120
    os._exit(code)
