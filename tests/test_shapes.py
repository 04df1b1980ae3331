"""One schema per response: every `--json` object is its model in `serve/shapes.py`, field for
field, and `tokens serve` and `tokens mcp` declare those very models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from tests.conftest import run_git
from tokenlab.cli import app
from tokenlab.serve import shapes

CODE = "".join(f"class Part{n}:\n    def run(self):\n        return {n}\n\n\n" for n in range(40))
LOG = "".join(f"INFO step {n} done in {n % 7}ms\n" for n in range(300)) + "ERROR step 300 failed\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "parts.py").write_text(CODE)
    (root / "README.md").write_text("# Proj\n\n## Usage\n\nRun parts.\n")
    (root / "build.log").write_text(LOG)
    run_git(root, "init", "-q")
    run_git(root, "add", ".")
    run_git(root, "commit", "-qm", "first")
    (root / "pkg" / "parts.py").write_text(CODE.replace("return 7", "return 70"))
    monkeypatch.chdir(root)
    return root


def printed(*args: str) -> Any:
    result = CliRunner().invoke(app, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)


def assert_is(model: type[BaseModel], payload: dict[str, Any]) -> None:
    """`payload` has exactly the model's fields, nested ones too, with values it accepts:
    validating and dumping it gives it back unchanged (a missing or extra field differs)."""
    assert model.model_validate(payload).model_dump(mode="json") == payload


def test_every_json_object_is_its_model(repo: Path) -> None:
    read = printed("read", "pkg/parts.py", "--budget", "200")
    assert read["view"] == "outline" and read["outline"]
    assert_is(shapes.ReadOut, read)
    assert_is(shapes.ReadOut, printed("read", "README.md"))
    search = printed("search", "Part7")
    assert search["snippets"]
    assert_is(shapes.SearchOut, search)
    assert_is(shapes.DerefOut, {**printed("deref", search["snippets"][0]["pointer"]), "verified": None})
    assert_is(shapes.ChangesOut, printed("changes", "pkg", "--since", "HEAD"))
    assert_is(shapes.PackOut, printed("pack", "pkg", "--query", "run"))
    analysed = printed("analyze", "build.log")
    assert analysed["refs"]
    assert_is(shapes.CompressOut, analysed)
    ref_id = analysed["refs"][0]["id"]
    assert_is(shapes.RefViewOut, printed("show-ref", ref_id, "--lines", "1-3"))
    assert_is(shapes.RunOut, printed("run", "--shell", "cat build.log"))


def test_the_servers_declare_these_models() -> None:
    from fastapi.routing import APIRoute

    from tokenlab.serve import http, mcp

    routes = [route for route in http.create_app(Path(".")).routes if isinstance(route, APIRoute)]
    declared = {route.path: route.responses[200]["model"] for route in routes}
    assert declared["/v1/files/read"] is shapes.ReadOut
    assert declared["/v1/search"] is shapes.SearchOut
    assert declared["/v1/deref"] is shapes.DerefOut
    assert declared["/v1/pack"] is shapes.PackOut
    outputs = {
        name: get_args(get_type_hints(getattr(mcp.Tools, name), include_extras=True)["return"])[1]
        for name, _ in (*mcp.TOOLS, mcp.RUN_TOOL)
    }
    assert outputs == {
        "read_file": shapes.ReadOut,
        "search": shapes.SearchOut,
        "pack": shapes.PackOut,
        "deref": shapes.DerefOut,
        "changes": shapes.ChangesOut,
        "expand_ref": shapes.RefViewOut,
        "compress": shapes.CompressOut,
        "run_command": shapes.RunOut,
    }


def test_the_proxys_own_errors_are_their_models() -> None:
    from tokenlab.agent.proxy_rewrite import Api
    from tokenlab.serve.proxy import upstream_error

    assert_is(shapes.ProxyAnthropicErrorOut, upstream_error(Api.ANTHROPIC, "unreachable"))
    for api in (Api.CHAT, Api.RESPONSES, None):
        assert_is(shapes.ProxyOpenAIErrorOut, upstream_error(api, "unreachable"))
