"""`tokens proxy` end to end on the loopback interface: the real `anthropic` and `openai` SDKs
point at the proxy, which points at a scripted upstream that records each request byte for
byte (`tests/proxy_upstream.py`)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import anthropic
import httpx
import openai
import pytest

from tests.proxy_upstream import Upstream
from tokenlab import ledger
from tokenlab.serve.proxy import ProxyServer, ProxySettings
from tokenlab.store import open_store

FIXTURE = Path(__file__).parent.parent / "fixtures" / "real" / "cargo_test_failures.log"
# Written from the raw log before looking at tokenlab's output: what a reader of this
# failing `cargo test` must still see.
SIGNALS = (
    "test tests::merges_adjacent ... FAILED",
    "test tests::total_of_disjoint ... FAILED",
    "panicked at src/lib.rs:66:9",
    "adjacent ranges should coalesce",
    "panicked at src/lib.rs:88:9",
    "test result: FAILED. 4 passed; 2 failed; 1 ignored",
    "error: test failed, to rerun pass `--lib`",
)
LOG = FIXTURE.read_text()
KEY = "sk-test-key-never-logged-0123456789"


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with Upstream() as server:
        yield server


@pytest.fixture
def proxy(upstream: Upstream, isolated_store: Path) -> Iterator[ProxyServer]:
    with open_store(str(isolated_store)) as store:
        server = ProxyServer(("127.0.0.1", 0), ProxySettings(upstream.url, upstream.url), store)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield server
        server.shutdown()
        server.server_close()


def claude(proxy: ProxyServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key=KEY, base_url=proxy.url, max_retries=0)


def gpt(proxy: ProxyServer) -> openai.OpenAI:
    return openai.OpenAI(api_key=KEY, base_url=proxy.url + "/v1", max_retries=0)


def anthropic_turn(n: int, output: str) -> list[dict]:
    return [
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": f"tu_{n}", "name": "Bash", "input": {"command": "cargo test"}}
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"tu_{n}", "content": output}]},
    ]


def restored(text: str, isolated_store: Path) -> bytes:
    from tokenlab.markers import parse_footer

    footer = parse_footer(text[text.rindex("[original") :])
    assert footer is not None
    with open_store(str(isolated_store)) as store:
        return store.load(footer[1]).data


def test_anthropic_tool_result_arrives_compressed_with_signals_and_ref(proxy, upstream, isolated_store):
    messages = [{"role": "user", "content": "run the tests"}, *anthropic_turn(1, LOG)]
    answer = claude(proxy).messages.create(model="claude-test", max_tokens=100, messages=messages)
    assert answer.content[0].text == "ok"
    (seen,) = upstream.seen
    sent = seen.json["messages"][2]["content"][0]["content"]
    assert len(sent) < len(LOG)
    assert [s for s in SIGNALS if s not in sent] == []
    assert "tokens show-ref" in sent and "expand_ref" in sent
    assert restored(sent, isolated_store) == FIXTURE.read_bytes()
    assert any(KEY in value for value in seen.headers.values())  # forwarded, never kept by the proxy
    (row,) = [r for r in ledger.records(isolated_store) if r.kind is ledger.Kind.PROXY]
    assert (row.host, row.event, row.model, row.source) == (
        "proxy",
        "anthropic-messages",
        "claude-test",
        "Bash",
    )
    assert row.visible_tokens < row.raw_tokens


def test_the_key_is_in_no_file_the_proxy_writes(proxy, upstream, isolated_store):
    claude(proxy).messages.create(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}, *anthropic_turn(1, LOG)]
    )
    assert upstream.seen
    for path in isolated_store.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_a_request_without_tool_results_arrives_byte_identical(proxy, upstream):
    body = b'{"model":"m",  "max_tokens": 5,\n "messages":[{"role":"user","content":"hi \\u00e9"}], "system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}]}'
    reply = httpx.post(
        proxy.url + "/v1/messages",
        content=body,
        headers={"x-api-key": KEY, "content-type": "application/json"},
    )
    assert reply.status_code == 200
    assert upstream.seen[-1].body == body


def test_small_results_and_everything_else_are_left_byte_identical(proxy, upstream):
    messages = [{"role": "user", "content": "go"}, *anthropic_turn(1, "3 files\n")]
    body = json.dumps({"model": "m", "max_tokens": 5, "messages": messages}, indent=2).encode()
    httpx.post(proxy.url + "/v1/messages", content=body, headers={"content-type": "application/json"})
    assert upstream.seen[-1].body == body


def test_only_the_tool_result_bytes_change(proxy, upstream):
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    messages = [{"role": "user", "content": "go"}, *anthropic_turn(1, LOG)]
    messages[2]["content"].append(image)
    body = {"model": "m", "max_tokens": 5, "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
            "tools": [{"name": "Bash", "input_schema": {"type": "object"}}], "messages": messages}  # fmt: skip
    raw = json.dumps(body, indent=3).encode()
    httpx.post(proxy.url + "/v1/messages", content=raw, headers={"content-type": "application/json"})
    sent = upstream.seen[-1].body
    start = raw.index(json.dumps(LOG).encode())
    end = start + len(json.dumps(LOG))
    assert sent[:start] == raw[:start]
    assert sent.endswith(raw[end:])
    assert json.loads(sent[start : len(sent) - len(raw) + end]) != LOG


def test_streamed_responses_reach_the_client_byte_identical(proxy, upstream):
    for path, body in (
        (
            "/v1/messages",
            {"model": "m", "max_tokens": 5, "stream": True, "messages": [{"role": "user", "content": "x"}]},
        ),
        (
            "/v1/chat/completions",
            {"model": "g", "stream": True, "messages": [{"role": "user", "content": "x"}]},
        ),
        ("/v1/responses", {"model": "g", "stream": True, "input": "x"}),
    ):
        with httpx.stream("POST", proxy.url + path, json=body) as reply:
            got = b"".join(reply.iter_raw())
        assert got == upstream.seen[-1].answer
        assert got.count(b"data: ") >= 3


def test_sdks_stream_through_the_proxy(proxy, upstream, isolated_store):
    with claude(proxy).messages.stream(
        model="m", max_tokens=5, messages=[{"role": "user", "content": "go"}, *anthropic_turn(1, LOG)]
    ) as stream:
        assert stream.get_final_text() == "ok"
    assert "#ref:ctx_" in upstream.seen[-1].json["messages"][2]["content"][0]["content"]
    chunks = gpt(proxy).chat.completions.create(
        model="g", stream=True, messages=[{"role": "user", "content": "x"}]
    )
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "ok"


def test_openai_chat_tool_message_is_compressed(proxy, upstream, isolated_store):
    messages = [
        {"role": "user", "content": "test it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": LOG},
    ]
    answer = gpt(proxy).chat.completions.create(model="gpt-test", messages=messages)
    assert answer.choices[0].message.content == "ok"
    sent = upstream.seen[-1].json["messages"][2]["content"]
    assert [s for s in SIGNALS if s not in sent] == []
    assert restored(sent, isolated_store) == FIXTURE.read_bytes()
    rows = [r for r in ledger.records(isolated_store) if r.kind is ledger.Kind.PROXY]
    assert [(r.model, r.source, r.event) for r in rows] == [("gpt-test", "shell", "openai-chat")]


def test_responses_function_call_output_is_compressed(proxy, upstream, isolated_store):
    items = [
        {"role": "user", "content": "test it"},
        {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": LOG},
    ]
    answer = gpt(proxy).responses.create(model="gpt-test", input=items)
    assert answer.output_text == "ok"
    sent = upstream.seen[-1].json["input"][2]["output"]
    assert [s for s in SIGNALS if s not in sent] == []
    assert restored(sent, isolated_store) == FIXTURE.read_bytes()


def test_ten_turns_resend_the_same_prefix(proxy, upstream):
    """Each request's messages up to the previous turn serialize to the bytes the previous
    request sent: the provider's cache prefix holds."""
    outputs = [LOG.replace("0.09s", f"0.{n:02d}s") if n % 2 else f"short output {n}\n" for n in range(10)]
    messages: list[dict] = [{"role": "user", "content": "work"}]
    client = claude(proxy)
    for n, output in enumerate(outputs):
        messages += anthropic_turn(n, output)
        client.messages.create(model="m", max_tokens=5, messages=messages)
    sent = [seen.json["messages"] for seen in upstream.seen]
    assert len(sent) == 10
    for before, after in pairwise(sent):
        prefix = json.dumps(before)
        assert json.dumps(after[: len(before)]) == prefix
    raw = [seen.body for seen in upstream.seen]
    for before, after in pairwise(raw):
        cut = before.rindex(b"]")  # the messages array's end: the rest of the body is the same
        assert after.startswith(before[:cut])
    compressed = [m["content"][0]["content"] for m in sent[-1][2::2]]
    assert sum("#ref:ctx_" in text for text in compressed) == 5


def test_an_unreachable_upstream_answers_in_the_apis_own_error_shape(isolated_store):
    with open_store(str(isolated_store)) as store:
        dead = "http://127.0.0.1:9"  # discard port: nothing listens
        server = ProxyServer(("127.0.0.1", 0), ProxySettings(dead, dead), store)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with pytest.raises(anthropic.APIStatusError) as raised:
                claude(server).messages.create(
                    model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}]
                )
            assert raised.value.status_code == 502
            assert raised.value.body == {
                "type": "error",
                "error": {"type": "api_error", "message": raised.value.body["error"]["message"]},
            }
            with pytest.raises(openai.APIStatusError) as failed:
                gpt(server).chat.completions.create(model="g", messages=[{"role": "user", "content": "x"}])
            assert failed.value.status_code == 502
            assert "unreachable" in failed.value.message
        finally:
            server.shutdown()
            server.server_close()


def test_other_paths_pass_through(proxy, upstream):
    listing = gpt(proxy).models.list()
    assert list(listing) == []
    assert upstream.seen[-1].path == "/v1/models"
    assert upstream.seen[-1].headers["authorization"] == f"Bearer {KEY}"


def test_a_loopback_proxy_refuses_other_host_names(proxy, upstream):
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
    refused = httpx.post(proxy.url + "/v1/messages", json=body, headers={"Host": "evil.example:8787"})
    assert refused.status_code == 403
    assert refused.json()["error"]["type"] == "api_error"
    assert upstream.seen == []
    assert (
        httpx.post(proxy.url + "/v1/messages", json=body, headers={"Host": "localhost:1"}).status_code == 200
    )


def test_the_command_serves_until_stopped(upstream, isolated_store):
    """`tokens proxy` as a user starts it: its own process, the store named by --store."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [sys.executable, "-m", "tokenlab", "proxy", "--listen", f"127.0.0.1:{port}"]
    argv += ["--upstream-anthropic", upstream.url, "--store", str(isolated_store)]
    process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        started = process.stderr.readline()
        assert started == f"tokens: proxy on http://127.0.0.1:{port} (all results, over 500 tokens)\n"
        messages = [{"role": "user", "content": "go"}, *anthropic_turn(1, LOG)]
        client = anthropic.Anthropic(api_key=KEY, base_url=f"http://127.0.0.1:{port}", max_retries=0)
        client.messages.create(model="m", max_tokens=5, messages=messages)
        sent = upstream.seen[-1].json["messages"][2]["content"][0]["content"]
        assert restored(sent, isolated_store) == FIXTURE.read_bytes()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_one_client_connection_keeps_one_upstream_connection(proxy, upstream):
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
    with httpx.Client() as client:
        for _ in range(3):
            assert client.post(proxy.url + "/v1/messages", json=body).status_code == 200
    assert len({seen.peer for seen in upstream.seen}) == 1


def test_an_upstream_connection_closed_while_idle_is_replaced(proxy, upstream):
    upstream.state.drop_idle = True
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
    with httpx.Client() as client:
        for _ in range(3):
            assert client.post(proxy.url + "/v1/messages", json=body).status_code == 200
    assert len({seen.peer for seen in upstream.seen}) == 3
