"""`tokens mcp` end to end, through the SDK's own client: the same answers as the CLI's
`--json`, refs as resources, confinement under the root, one-line tool errors, a server
that survives bad input, and the HTTP transport behind the bearer token."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2  # the SDK's HTTP client
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from typer.testing import CliRunner

from tests.conftest import run_git

CODE = "".join(f"class Part{n}:\n    def run(self):\n        return {n}\n\n\n" for n in range(40))
LOG = "".join(f"INFO step {n} done in {n % 7}ms\n" for n in range(300)) + "ERROR step 300 failed\n"
TOOLS = {"read_file", "search", "pack", "deref", "changes", "expand_ref", "compress"}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("TOKENLAB_NODE", "testnode")
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "parts.py").write_text(CODE)
    (root / "README.md").write_text("# Proj\n\n## Usage\n\nRun parts.\n")
    run_git(root, "init", "-q")
    run_git(root, "add", ".")
    run_git(root, "commit", "-qm", "first")
    (tmp_path / "secret.txt").write_text("password=hunter2\n")
    monkeypatch.chdir(root)
    return root


def server_env() -> dict[str, str]:
    names = ("TOKENLAB_STORE", "TOKENLAB_NODE", "TOKENLAB_WORKER", "GIT_CONFIG_GLOBAL", "PATH", "HOME")
    return {name: os.environ[name] for name in names if name in os.environ}


def stdio(repo: Path, *options: str) -> StdioServerParameters:
    args = ["-m", "tokenlab", "mcp", "--root", str(repo), "--store", os.environ["TOKENLAB_STORE"], *options]
    return StdioServerParameters(command=sys.executable, args=args, env=server_env(), cwd=str(repo))


def session(server: Any, body: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(server, mode="legacy", read_timeout_seconds=60) as client:
            await body(client)

    anyio.run(main)


def cli_json(*args: str, stdin: str | None = None) -> Any:
    from tokenlab.cli import app

    result = CliRunner().invoke(app, [*args, "--json"], input=stdin, catch_exceptions=False)
    assert result.exit_code in (0, 3), result.stderr
    return json.loads(result.stdout)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def test_tools_are_listed_with_input_and_output_schemas(repo: Path) -> None:
    async def body(client: Client) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == TOOLS  # no run_command without --allow-run
        for tool in tools.values():
            assert tool.description and len(tool.description) > 60
            assert tool.input_schema["type"] == "object"
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        read = tools["read_file"]
        assert read.input_schema["required"] == ["path"]
        assert set(read.input_schema["properties"]) == {"path", "budget_tokens", "view", "section", "lines"}
        assert read.input_schema["properties"]["path"]["maxLength"] == 4096
        assert {"content", "evidence", "view", "tokens"} <= set(read.output_schema["properties"])
        assert tools["read_file"].annotations.read_only_hint is True
        assert set(tools["expand_ref"].input_schema["properties"]) >= {"id", "lines", "grep", "json_path"}
        assert set(tools["changes"].input_schema["required"]) == {"path", "since"}

    session(stdio(repo), body)


def test_every_tool_answers_as_the_cli(repo: Path) -> None:
    (repo / "pkg" / "parts.py").write_text(CODE.replace("return 7\n", "return 70\n"))
    answers: dict[str, Any] = {}

    async def call(client: Client, name: str, arguments: dict[str, Any]) -> Any:
        result = await client.call_tool(name, arguments)
        assert not result.is_error, text_of(result)
        answers.setdefault(name, []).append(result)
        return result.structured_content

    async def body(client: Client) -> None:
        await call(client, "read_file", {"path": "pkg/parts.py", "budget_tokens": 300})
        await call(
            client, "read_file", {"path": "pkg/parts.py", "budget_tokens": 4000, "section": "Part7.run"}
        )
        await call(client, "read_file", {"path": "README.md", "budget_tokens": 100, "lines": "3-5"})
        found = await call(client, "search", {"query": "run", "budget_tokens": 300})
        evidence = found["evidence"][0]
        await call(client, "deref", {"pointer": evidence["pointer"], "verify_sha256": evidence["sha256"]})
        await call(client, "changes", {"path": "pkg/parts.py", "since": "HEAD", "budget_tokens": 500})
        compressed = await call(client, "compress", {"text": LOG, "source": "<stdin>"})
        ref = compressed["refs"][0]["id"]
        await call(client, "expand_ref", {"id": ref, "grep": "step 29", "budget_tokens": 60})
        await call(client, "expand_ref", {"id": f"#ref:{ref}", "lines": "10-12"})

    session(stdio(repo), body)
    structured = {
        name: [result.structured_content for result in results] for name, results in answers.items()
    }
    assert structured["read_file"] == [
        cli_json("read", "pkg/parts.py", "--budget", "300"),
        cli_json("read", "pkg/parts.py", "--section", "Part7.run"),
        cli_json("read", "README.md", "--budget", "100", "--lines", "3-5"),
    ]
    assert structured["search"] == [cli_json("search", "run", "--budget", "300")]
    pointer, sha = structured["deref"][0]["pointer"], structured["deref"][0]["sha256"]
    assert structured["deref"] == [cli_json("deref", pointer, "--verify", sha)]
    assert structured["changes"] == [
        cli_json("changes", "pkg/parts.py", "--since", "HEAD", "--budget", "500")
    ]
    assert structured["compress"] == [cli_json("analyze", "-", stdin=LOG)]
    ref = structured["compress"][0]["refs"][0]["id"]
    assert structured["expand_ref"] == [
        cli_json("show-ref", ref, "--grep", "step 29", "--budget", "60"),
        cli_json("show-ref", ref, "--lines", "10-12"),
    ]
    # The text content is what the command prints without --json: header, then content.
    read = answers["read_file"][0]
    assert text_of(read).startswith("pkg/parts.py: ")
    assert read.structured_content["content"] in text_of(read)
    assert text_of(answers["compress"][0]).startswith(structured["compress"][0]["visible"]["text"])
    assert "ERROR step 300 failed" in text_of(answers["compress"][0])


def test_run_command_needs_allow_run_and_answers_as_the_cli(repo: Path) -> None:
    line = "printf 'built a\\nbuilt b\\n'; cat; echo 'error: b failed'; exit 3"

    async def body(client: Client) -> None:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == TOOLS | {"run_command"}
        result = await client.call_tool("run_command", {"command": line, "timeout_s": 60})
        assert not result.is_error, text_of(result)
        answers.append(result.structured_content)
        assert "error: b failed" in text_of(result) and "[exit 3: " in text_of(result)

    answers: list[Any] = []
    session(stdio(repo, "--allow-run"), body)
    expected = cli_json("run", "--shell", line)

    def timeless(payload: dict[str, Any]) -> dict[str, Any]:
        trace = [entry for entry in payload["trace"] if entry["stage"] != "RUN"]
        return {**payload, "duration_s": None, "trace": trace}

    assert timeless(answers[0]) == timeless(expected)
    assert answers[0]["exit_status"] == 3


def test_refs_are_resources(repo: Path) -> None:
    async def body(client: Client) -> None:
        templates = (await client.list_resource_templates()).resource_templates
        assert [template.uri_template for template in templates] == ["tokenlab://ref/{ref_id}"]
        compressed = (await client.call_tool("compress", {"text": LOG})).structured_content
        listed = {resource.uri: resource for resource in (await client.list_resources()).resources}
        for ref in compressed["refs"]:
            assert f"tokenlab://ref/{ref['id']}" in listed
        original = compressed["refs"][-1]["id"]
        contents = (await client.read_resource(f"tokenlab://ref/{original}")).contents
        assert contents[0].text == LOG
        with pytest.raises(MCPError, match="ctx_000000"):
            await client.read_resource("tokenlab://ref/ctx_000000")
        with pytest.raises(MCPError):
            await client.read_resource("tokenlab://ref/not-a-ref")

    session(stdio(repo), body)


BAD_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "../secret.txt"}),
    ("read_file", {"path": "pkg/../../secret.txt"}),
    ("read_file", {"path": "%2e%2e/secret.txt"}),
    ("read_file", {"path": "escape.txt"}),
    ("read_file", {"path": "pkg/inner"}),
    ("read_file", {"path": "/etc/passwd"}),
    ("read_file", {"path": "nope.py"}),
    ("read_file", {"path": "x" * 5000}),
    ("read_file", {}),
    ("read_file", {"path": "README.md", "budget_tokens": -1}),
    ("search", {"query": "password", "paths": ["../"]}),
    ("search", {"query": "password", "paths": ["escape.txt"]}),
    ("search", {"query": "q" * 5000}),
    ("deref", {"pointer": "/etc/hostname@worktree#L1-L1"}),
    ("deref", {"pointer": "escape.txt@worktree#L1-L1"}),
    ("deref", {"pointer": "README.md@HEAD#L1-L1", "verify_sha256": "0" * 64}),
    ("changes", {"path": "../secret.txt", "since": "HEAD"}),
    ("expand_ref", {"id": "ctx_000000"}),
    ("expand_ref", {"id": "not a ref"}),
    ("expand_ref", {"id": "ctx_000000", "head": 1, "tail": 1}),
    ("compress", {"text": 7}),
    ("run_command", {"command": "cat /etc/passwd"}),
    ("no_such_tool", {}),
]


def test_errors_are_one_line_tool_errors_and_nothing_leaks(repo: Path) -> None:
    (repo / "escape.txt").symlink_to(repo.parent / "secret.txt")
    (repo / "pkg" / "inner").symlink_to(repo.parent)

    async def body(client: Client) -> None:
        for tool, arguments in BAD_CALLS:
            result = await client.call_tool(tool, arguments)
            message = text_of(result)
            assert result.is_error, (tool, arguments, message)
            assert "\n" not in message and message, (tool, arguments, message)
            assert "hunter2" not in message and "root:x:" not in message, (tool, arguments, message)
        assert (await client.call_tool("read_file", {"path": "README.md"})).structured_content is not None

    session(stdio(repo), body)


def _send(process: subprocess.Popen[bytes], message: dict[str, Any] | bytes) -> None:
    assert process.stdin is not None
    raw = message if isinstance(message, bytes) else json.dumps(message).encode()
    process.stdin.write(raw + b"\n")
    process.stdin.flush()


def _answer(process: subprocess.Popen[bytes], request_id: int) -> dict[str, Any]:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        assert line, "the server closed its output"
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == request_id:
            return message


def test_malformed_requests_do_not_kill_the_server(repo: Path) -> None:
    args = ["-m", "tokenlab", "mcp", "--root", str(repo)]
    with subprocess.Popen(
        [sys.executable, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as process:
        watchdog = threading.Timer(60, process.kill)  # a missing answer fails instead of hanging
        watchdog.start()
        try:
            hello = {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            }
            _send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
            assert _answer(process, 1)["result"]["serverInfo"]["name"] == "tokenlab"
            _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            _send(process, b"this is not json")
            _send(process, b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "oops"}')
            _send(process, b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 7}}')
            _send(process, {"jsonrpc": "2.0", "id": 3, "method": "no/such/method"})
            assert _answer(process, 3)["error"]["code"] == -32601
            big = {"name": "read_file", "arguments": {"path": "README.md", "section": "s" * 100_000}}
            _send(process, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": big})
            assert _answer(process, 4)["result"]["isError"] is True
            read = {"name": "read_file", "arguments": {"path": "README.md", "budget_tokens": 50}}
            _send(process, {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": read})
            answer = _answer(process, 5)["result"]
            assert answer["structuredContent"]["content"].startswith("# Proj")
        finally:
            watchdog.cancel()
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def http_server(repo: Path) -> Iterator[str]:
    port = _free_port()
    args = ["-m", "tokenlab", "mcp", "--http", "--port", str(port), "--token", "s3cret", "--root", str(repo)]
    process = subprocess.Popen([sys.executable, *args], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_http_transport_needs_the_token_and_a_loopback_host(http_server: str) -> None:
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    accept = {"accept": "application/json, text/event-stream"}
    assert httpx.post(http_server, json=hello, headers=accept).status_code == 401
    wrong = {**accept, "authorization": "Bearer nope"}
    assert httpx.post(http_server, json=hello, headers=wrong).status_code == 401
    rebound = {**accept, "authorization": "Bearer s3cret", "host": "evil.example"}
    assert httpx.post(http_server, json=hello, headers=rebound).status_code == 403

    async def body(client: Client) -> None:
        result = await client.call_tool("read_file", {"path": "README.md", "budget_tokens": 50})
        assert not result.is_error and result.structured_content["content"].startswith("# Proj")

    async def main() -> None:
        headers = {"authorization": "Bearer s3cret"}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            transport = streamable_http_client(http_server, http_client=http)
            async with Client(transport, mode="legacy") as client:
                await body(client)

    anyio.run(main)


def test_without_the_extra_it_says_how_to_install(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    from tokenlab.cli import app

    monkeypatch.setitem(sys.modules, "tokenlab.serve.mcp", None)  # import fails
    result = CliRunner().invoke(app, ["mcp", "--root", str(repo)])
    assert result.exit_code == 2
    assert "pip install 'tokenlab[mcp]'" in result.stderr
