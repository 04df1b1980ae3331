"""The worker's wire protocol: every header and answer comes back as sent, and a client or
worker of protocol 1 (a JSON header framed as `!IQ`) meets a protocol-2 peer without either
side misreading the other: the worker leaves, the client runs the command in-process."""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenlab import code_stamp
from tokenlab.agent import client, wire
from tokenlab.agent.worker import Worker

_OLD_FRAME = struct.Struct("!IQ")  # protocol 1: header length, payload length


def _old_send(sock: socket.socket, header: dict[str, Any], payload: bytes) -> None:
    encoded = json.dumps(header).encode()
    sock.sendall(_OLD_FRAME.pack(len(encoded), len(payload)) + encoded + payload)


def _old_receive(sock: socket.socket) -> tuple[dict[str, Any], bytes]:
    header_size, payload_size = _OLD_FRAME.unpack(wire.receive_exactly(sock, _OLD_FRAME.size))
    header = json.loads(wire.receive_exactly(sock, header_size))
    return header, wire.receive_exactly(sock, payload_size)


TEXT = st.text(alphabet=st.characters(codec=None), max_size=40)  # surrogates included
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), TEXT,
    st.lists(TEXT, max_size=5), st.lists(st.tuples(TEXT, st.integers(0, 1 << 40)).map(list), max_size=3),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(TEXT, VALUES, max_size=8), st.binary(max_size=2000))
def test_a_request_arrives_as_sent(header: dict[str, Any], payload: bytes) -> None:
    left, right = socket.socketpair()
    with left, right:
        wire.send_request(left, header, payload)
        assert wire.receive_request(right) == (header, payload)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([wire.ANSWERED, wire.FALLBACK, wire.STALE]), st.integers(-(1 << 31), (1 << 31) - 1),
       st.binary(max_size=3000), st.binary(max_size=3000))  # fmt: skip
def test_an_answer_arrives_as_sent(kind: bytes, code: int, stdout: bytes, stderr: bytes) -> None:
    left, right = socket.socketpair()
    with left, right:
        left.sendall(wire.answer_bytes(kind, code, stdout, stderr))
        assert wire.receive_answer(right) == (kind, code, stdout, stderr)


def test_a_header_that_is_not_plain_literals_is_read_as_none() -> None:
    """An infinite `--timeout` has no literal: the worker answers FALLBACK, the client runs it."""
    for header in ({"timeout": float("inf")}, {"f": print}):
        left, right = socket.socketpair()
        with left, right:
            wire.send_request(left, header, b"out")
            assert wire.receive_request(right) == (None, b"out")


@pytest.fixture
def old_worker(short_store: str) -> Iterator[list[dict[str, Any]]]:
    """A protocol-1 worker at `short_store`'s socket, as it handled a request: a stamp not
    its own is answered `stale`, and it leaves. Yields the headers it read."""
    address = os.path.join(short_store, client.SOCKET_NAME)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen()
    seen: list[dict[str, Any]] = []

    def serve_one() -> None:
        connection, _ = listener.accept()
        with connection:
            header, _ = _old_receive(connection)
            seen.append(header)
            if header.get("stamp") != "old-stamp":
                os.unlink(address)
                _old_send(connection, {"stale": True}, b"")

    thread = threading.Thread(target=serve_one)
    thread.start()
    yield seen
    thread.join(30)
    listener.close()


def test_a_protocol_1_worker_reads_a_stale_request_and_the_client_runs_in_process(
    short_store: str, old_worker: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr(client, "start_worker", started.append)
    header = {"op": "analyze", "store": short_store, "label": "x", "signals": [], "granularity": "coarse",
              "redact": True, "as_json": False}  # fmt: skip
    assert client._ask(short_store, header, b"INFO served\n" * 100) is None
    assert old_worker == [{"protocol": 2}]  # the preamble: a request with no stamp, nothing else
    assert started == [short_store]  # the old worker left; a fresh one takes the store


@pytest.mark.parametrize("opening", ["protocol-1 client", "protocol-3 client"])
def test_a_client_of_another_protocol_sees_a_stale_worker_which_leaves(
    serving: Worker, opening: str
) -> None:
    address = os.path.join(serving.root, client.SOCKET_NAME)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(address)
        if opening == "protocol-1 client":
            _old_send(sock, {"op": "analyze", "store": serving.root, "stamp": code_stamp()}, b"data")
        else:
            sock.sendall(wire.PREAMBLE.replace(b'"protocol": 2', b'"protocol": 3') + bytes(16))
        assert _old_receive(sock) == ({"stale": True}, b"")
    assert not os.path.exists(address)


def test_a_request_of_this_protocol_is_served(serving: Worker, monkeypatch: pytest.MonkeyPatch) -> None:
    log = Path("input.log")
    log.write_bytes(b"2024-05-01 INFO served req=1\n" * 50)
    started: list[str] = []
    monkeypatch.setattr(client, "start_worker", started.append)
    arguments = {"source": str(log), "granularity": "coarse", "signals": None, "redact": True,
                 "store": serving.root, "as_json": False}  # fmt: skip
    answer = client.analyze(arguments)
    assert answer is not None and answer[0] == 0 and b"INFO served" in answer[1]
    assert started == []
