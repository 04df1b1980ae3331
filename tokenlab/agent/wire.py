"""What the warm worker and its short-lived clients say to each other over the store's Unix
socket: one request, one answer, per connection.

A `tokens run` answered by the worker pays for every module its process loads, and
`json` (with `re` and `enum` under it) and `struct` cost more than its whole request. So
a request's header is the `repr` of a dict of plain values (str, int, float, bool, None,
lists), which the client writes with no import at all and the worker reads back with
`ast.literal_eval` (literals only, never code); sizes are fixed-width big-endian integers.
An answer is a fixed binary header: kind, exit code and the lengths of stdout and stderr.

Versions. Both sides of this protocol are 2; protocol 1 framed a JSON header and its
payload as `!IQ` (header length, payload length), in both directions. A request opens
with `PREAMBLE`, which a protocol-1 worker reads as a whole request of its own: one with
no code stamp, which it answers `stale` before it leaves the store and exits. A worker
reads the preamble first and serves only requests that open with its own; any other
(a protocol-1 client's JSON header, a later protocol's preamble) is answered with
`OTHER_PROTOCOL`, the protocol-1 frame of a `stale` answer, and the worker leaves as it
does for a stale stamp. A client takes an answer that does not open with `ANSWER_MAGIC`
for a worker of another protocol, which has left (or fails), and runs the command
in-process. No side ever reads the other's fields under its own layout.

Nothing in a request's payload or an answer's output is read as anything but bytes.
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from typing import Any, Protocol

    class Connection(Protocol):
        """A connected stream socket (`socket.socket`, or `_socket.socket` in a client)."""

        def sendall(self, data: bytes, /) -> None: ...

        def recv(self, size: int, /) -> bytes: ...


VERSION = 2
# A protocol-1 frame: header length (4 bytes), payload length (8 bytes), JSON header.
_PREAMBLE_HEADER = b'{"protocol": %d}' % VERSION
PREAMBLE = len(_PREAMBLE_HEADER).to_bytes(4, "big") + bytes(8) + _PREAMBLE_HEADER
_STALE_HEADER = b'{"stale": true}'
OTHER_PROTOCOL = len(_STALE_HEADER).to_bytes(4, "big") + bytes(8) + _STALE_HEADER
ANSWER_MAGIC = b"TLW" + bytes([VERSION])

# An answer's kind.
ANSWERED = b"A"  # the command's exit code and output follow
FALLBACK = b"F"  # not served here: the client runs the command in-process
STALE = b"S"  # another tokenlab's worker, now gone: the client runs in-process and starts one

# Far above any command line, signals file or drill-down's options; a header is read whole
# before it is parsed.
MAX_HEADER = 16 << 20
_SIZE = 8  # bytes of a length
_ANSWER_SIZE = len(ANSWER_MAGIC) + 1 + 4 + 2 * _SIZE


def send_request(sock: Connection, header: dict[str, Any], payload: bytes) -> None:
    """A client's request: `header`'s values plain literals, `payload` the input's bytes."""
    encoded = repr(header).encode()  # `repr` escapes surrogates: always valid UTF-8
    sizes = len(encoded).to_bytes(_SIZE, "big") + len(payload).to_bytes(_SIZE, "big")
    sock.sendall(PREAMBLE + sizes + encoded)
    if payload:  # nothing more to send: the other side may have answered and closed already
        sock.sendall(payload)


def receive_request(sock: Connection) -> tuple[dict[str, Any] | None, bytes] | None:
    """A request's header and payload, with None for a header that is not a dict of
    literals (answer it `FALLBACK`); None for a client of another protocol (answer it
    `OTHER_PROTOCOL`). A connection that ends early raises `ConnectionError`."""
    envelope = len(PREAMBLE) - len(_PREAMBLE_HEADER)  # a protocol-1 frame's sizes: read those first
    if receive_exactly(sock, envelope) != PREAMBLE[:envelope]:
        return None
    if receive_exactly(sock, len(_PREAMBLE_HEADER)) != _PREAMBLE_HEADER:
        return None
    header_size = int.from_bytes(receive_exactly(sock, _SIZE), "big")
    payload_size = int.from_bytes(receive_exactly(sock, _SIZE), "big")
    if header_size > MAX_HEADER:
        raise ValueError("a request's header is too large")
    encoded = receive_exactly(sock, header_size)
    payload = receive_exactly(sock, payload_size)
    return _literal_dict(encoded), payload


def _literal_dict(encoded: bytes) -> dict[str, Any] | None:
    import ast  # the worker's side only

    try:
        header = ast.literal_eval(encoded.decode("utf-8"))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return header if isinstance(header, dict) else None


def answer_bytes(kind: bytes, exit_code: int = 0, stdout: bytes = b"", stderr: bytes = b"") -> bytes:
    """The worker's answer of `kind`; for `ANSWERED`, the command's exit code and output."""
    sizes = len(stdout).to_bytes(_SIZE, "big") + len(stderr).to_bytes(_SIZE, "big")
    return ANSWER_MAGIC + kind + exit_code.to_bytes(4, "big", signed=True) + sizes + stdout + stderr


def receive_answer(sock: Connection) -> tuple[bytes, int, bytes, bytes] | None:
    """(kind, exit code, stdout, stderr) of the worker's answer; None from a worker of
    another protocol (see the module's docstring)."""
    magic = receive_exactly(sock, len(ANSWER_MAGIC))
    if magic != ANSWER_MAGIC:
        return None
    head = receive_exactly(sock, _ANSWER_SIZE - len(ANSWER_MAGIC))
    kind, exit_code = head[:1], int.from_bytes(head[1:5], "big", signed=True)
    stdout_size = int.from_bytes(head[5 : 5 + _SIZE], "big")
    stderr_size = int.from_bytes(head[5 + _SIZE :], "big")
    output = receive_exactly(sock, stdout_size + stderr_size)
    return kind, exit_code, output[:stdout_size], output[stdout_size:]


def receive_exactly(sock: Connection, size: int) -> bytes:
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise ConnectionError("the other side closed the connection")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)
