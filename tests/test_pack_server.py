"""`POST /v1/pack` and the MCP `pack` tool answer exactly as `tokens pack --json`, confined to the root."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from typer.testing import CliRunner

from tests.conftest import run_git
from tokenlab.serve.http import create_app

CODE = "".join(f"class Part{n}:\n    def run(self):\n        return {n}\n\n\n" for n in range(40))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("TOKENLAB_NODE", "testnode")
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "parts.py").write_text(CODE)
    (root / "pkg" / "other.py").write_text(
        "from pkg.parts import Part7\n\n\ndef use():\n    return Part7().run()\n"
    )
    (root / "README.md").write_text("# Proj\n\n## Usage\n\nRun parts.\n")
    run_git(root, "init", "-q")
    run_git(root, "add", ".")
    run_git(root, "commit", "-qm", "first")
    (tmp_path / "secret.txt").write_text("password=hunter2\n")
    (root / "escape.txt").symlink_to(tmp_path / "secret.txt")
    monkeypatch.chdir(root)
    return root


def cli_json(*args: str) -> Any:
    from tokenlab.cli import app

    result = CliRunner().invoke(app, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_the_endpoint_answers_as_the_cli(repo: Path) -> None:
    client = TestClient(create_app(repo))
    response = client.post("/v1/pack", json={"paths": ["pkg"], "query": "Part7 run", "budget_tokens": 400})
    assert response.status_code == 200, response.text
    assert response.json() == cli_json("pack", "pkg", "--query", "Part7 run", "--budget", "400")
    assert response.json()["tokens"] <= 400


def test_the_endpoint_never_reads_outside_the_root(repo: Path) -> None:
    client = TestClient(create_app(repo))
    whole = client.post("/v1/pack", json={"budget_tokens": 3000}).json()
    named = {item["path"] for item in whole["chosen"]} | {item["path"] for item in whole["left_out"]}
    assert not any("secret" in path for path in named) and "escape.txt" not in named
    assert "password" not in whole["content"]
    for path in ("../secret.txt", "/etc", "escape.txt"):
        assert client.post("/v1/pack", json={"paths": [path]}).status_code == 403
    assert client.post("/v1/pack", json={"paths": ["nope"]}).status_code == 404
    assert client.post("/v1/pack", json={"budget_tokens": -1}).status_code == 422


def test_the_mcp_tool_answers_as_the_cli(repo: Path) -> None:
    names = ("TOKENLAB_STORE", "TOKENLAB_NODE", "TOKENLAB_WORKER", "GIT_CONFIG_GLOBAL", "PATH", "HOME")
    env = {name: os.environ[name] for name in names if name in os.environ}
    args = ["-m", "tokenlab", "mcp", "--root", str(repo), "--store", os.environ["TOKENLAB_STORE"]]
    server = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(repo))
    answers: list[Any] = []

    async def main() -> None:
        async with Client(server, mode="legacy", read_timeout_seconds=60) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools["pack"].input_schema["properties"]) == {"paths", "query", "budget_tokens"}
            result = await client.call_tool(
                "pack", {"paths": ["pkg"], "query": "Part7", "budget_tokens": 300}
            )
            assert not result.is_error
            answers.append(result.structured_content)
            answers.append("\n".join(block.text for block in result.content))
            refused = await client.call_tool("pack", {"paths": ["../secret.txt"]})
            assert refused.is_error

    anyio.run(main)
    assert answers[0] == cli_json("pack", "pkg", "--query", "Part7", "--budget", "300")
    assert answers[1].startswith("pack: ") and ">>> pkg/" in answers[1]
