"""The HTTP interface: same answers as the CLI, confinement under the root, caps and the token."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
import typer
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tests.conftest import run_git
from tokenlab.cli.reads import register
from tokenlab.serve.http import create_app
from tokenlab.store import open_store

CODE = "".join(f"class Part{n}:\n    def run(self):\n        return {n}\n\n\n" for n in range(40))


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
    (root / "escape.txt").symlink_to(tmp_path / "secret.txt")
    (root / "pkg" / "inner.py").symlink_to(root / "pkg" / "parts.py")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def client(repo: Path) -> TestClient:
    return TestClient(create_app(repo))


def cli_json(*args: str) -> Any:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Throwaway app."""

    register(app)
    result = CliRunner().invoke(app, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("body", "cli"),
    [
        ({"path": "pkg/parts.py", "budget_tokens": 300}, ["read", "pkg/parts.py", "--budget", "300"]),
        (
            {"path": "pkg/parts.py", "view": "full", "budget_tokens": 100000},
            ["read", "pkg/parts.py", "--view", "full", "--budget", "100000"],
        ),
        (
            {"path": "pkg/parts.py", "section": "Part7.run"},
            ["read", "pkg/parts.py", "--section", "Part7.run"],
        ),
        ({"path": "README.md", "lines": "3-5"}, ["read", "README.md", "--lines", "3-5"]),
        (
            {"path": "pkg/parts.py", "view": "outline", "budget_tokens": 40},
            ["read", "pkg/parts.py", "--view", "outline", "--budget", "40"],
        ),
    ],
)
def test_read_answers_exactly_as_the_cli(client: TestClient, body: dict[str, Any], cli: list[str]) -> None:
    response = client.post("/v1/files/read", json=body)
    assert response.status_code == 200
    assert response.json() == cli_json(*cli)


def test_search_and_deref_answer_as_the_cli(client: TestClient, repo: Path) -> None:
    (repo / "escape.txt").unlink()  # the CLI would follow it: it is not confined to a root
    searched = client.post("/v1/search", json={"query": "run", "budget_tokens": 300})
    assert searched.status_code == 200
    assert searched.json() == cli_json("search", "run", "--budget", "300")
    pointer = searched.json()["evidence"][0]["pointer"]
    dereferenced = client.post(
        "/v1/deref", json={"pointer": pointer, "verify": searched.json()["evidence"][0]["sha256"]}
    )
    assert dereferenced.status_code == 200 and dereferenced.json()["verified"] is True
    expected = cli_json("deref", pointer)
    assert {**expected, "verified": True} == dereferenced.json()


def test_absolute_paths_inside_the_root_are_served(client: TestClient, repo: Path) -> None:
    response = client.post("/v1/files/read", json={"path": str(repo / "README.md"), "view": "full"})
    assert response.status_code == 200 and response.json()["content"].startswith("# Proj")


@pytest.mark.parametrize(
    "path",
    [
        "../secret.txt",
        "pkg/../../secret.txt",
        "pkg/../README.md",
        "/etc/passwd",
        "escape.txt",
        "%2e%2e/secret.txt",
        "..%2fsecret.txt",
        "%252e%252e%252fsecret.txt",
        "%2fetc%2fpasswd",
        "..\\secret.txt",
        "README.md\x00.txt",
    ],
)
def test_paths_outside_the_root_are_refused_with_403(client: TestClient, path: str) -> None:
    response = client.post("/v1/files/read", json={"path": path, "view": "full"})
    assert response.status_code == 403, response.text
    assert "hunter2" not in response.text and "root:" not in response.text
    assert response.json()["detail"]


def test_a_symlink_that_stays_inside_is_fine(client: TestClient) -> None:
    response = client.post(
        "/v1/files/read", json={"path": "pkg/inner.py", "view": "full", "budget_tokens": 100000}
    )
    assert response.status_code == 200 and response.json()["content"] == CODE


def test_missing_files_are_404(client: TestClient) -> None:
    response = client.post("/v1/files/read", json={"path": "nope.py"})
    assert response.status_code == 404 and "no such file" in response.json()["detail"]


def test_search_paths_are_confined_and_symlinks_out_are_skipped(client: TestClient) -> None:
    assert client.post("/v1/search", json={"query": "x", "paths": ["../"]}).status_code == 403
    response = client.post("/v1/search", json={"query": "hunter2"})
    assert response.status_code == 200 and response.json()["matches_total"] == 0


def test_deref_is_confined_and_reports_mismatches(client: TestClient, repo: Path) -> None:
    assert client.post("/v1/deref", json={"pointer": "/etc/hostname@worktree#L1-L1"}).status_code == 403
    assert client.post("/v1/deref", json={"pointer": "escape.txt@worktree#L1-L1"}).status_code == 403
    assert client.post("/v1/deref", json={"pointer": "../secret.txt@worktree"}).status_code == 422
    mismatch = client.post("/v1/deref", json={"pointer": "README.md@HEAD#L1-L1", "verify": "0" * 64})
    assert mismatch.status_code == 409 and "sha256 mismatch" in mismatch.json()["detail"]
    unknown = client.post("/v1/deref", json={"pointer": "README.md@deadbeef#L1-L1"})
    assert unknown.status_code == 404 and "unknown commit" in unknown.json()["detail"]


def test_deref_reads_the_commit_after_the_working_tree_changed(client: TestClient, repo: Path) -> None:
    read = client.post("/v1/files/read", json={"path": "README.md", "view": "full"}).json()
    (repo / "README.md").write_text("changed\n")
    evidence = read["evidence"][0]
    response = client.post("/v1/deref", json={"pointer": evidence["pointer"], "verify": evidence["sha256"]})
    assert response.status_code == 200 and response.json()["content"].startswith("# Proj")


def test_refs_come_from_the_store(client: TestClient, isolated_store: Path) -> None:
    store = open_store(None)
    text_id = store.put(b"kept out\n", source="t", content_type="log", reason="test")
    binary_id = store.put(b"\xff\x00\xfe", source="t", content_type="binary", reason="test")
    text = client.get(f"/v1/refs/{text_id}").json()
    assert text["data"] == "kept out\n" and text["encoding"] == "utf-8" and text["id"] == text_id
    binary = client.get(f"/v1/refs/{binary_id}").json()
    assert base64.b64decode(binary["data"]) == b"\xff\x00\xfe" and binary["encoding"] == "base64"
    assert client.get(f"/v1/refs/%23ref:{text_id}").status_code == 200
    assert client.get("/v1/refs/ctx_000000").status_code == 404
    assert client.get("/v1/refs/..%2F..%2Fetc").status_code in (404, 422)
    assert client.get("/v1/refs/notaref").status_code == 422


def test_oversized_requests_and_responses_are_refused(repo: Path) -> None:
    client = TestClient(create_app(repo, max_body_bytes=1000, max_response_bytes=2000))
    big = client.post("/v1/search", json={"query": "x" * 2000})
    assert big.status_code == 413 and "request body" in big.json()["detail"]
    large = client.post(
        "/v1/files/read", json={"path": "pkg/parts.py", "view": "full", "budget_tokens": 100000}
    )
    assert large.status_code == 413 and "budget_tokens" in large.json()["detail"]
    small = client.post("/v1/files/read", json={"path": "README.md", "view": "full"})
    assert small.status_code == 200


def test_a_chunked_body_without_length_is_still_capped(repo: Path) -> None:
    client = TestClient(create_app(repo, max_body_bytes=1000))

    def chunks() -> Any:
        yield b'{"query": "'
        yield b"x" * 5000
        yield b'"}'

    response = client.post("/v1/search", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_the_token_is_required_on_every_request(repo: Path) -> None:
    client = TestClient(create_app(repo, token="s3cret"))
    for method, url in (("post", "/v1/files/read"), ("get", "/openapi.json"), ("get", "/v1/refs/ctx_000000")):
        assert getattr(client, method)(url).status_code == 401
    wrong = client.post(
        "/v1/files/read", json={"path": "README.md"}, headers={"Authorization": "Bearer nope"}
    )
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
    right = client.post(
        "/v1/files/read", json={"path": "README.md"}, headers={"Authorization": "Bearer s3cret"}
    )
    assert right.status_code == 200


def test_loopback_servers_refuse_foreign_host_headers(repo: Path) -> None:
    client = TestClient(
        create_app(repo, allowed_hosts=("127.0.0.1", "localhost", "::1")), base_url="http://127.0.0.1:8765"
    )
    assert client.post("/v1/files/read", json={"path": "README.md"}).status_code == 200
    rebound = client.post("/v1/files/read", json={"path": "README.md"}, headers={"host": "evil.example:8765"})
    assert rebound.status_code == 403


def test_bad_bodies_are_422(client: TestClient) -> None:
    assert client.post("/v1/files/read", json={"path": "README.md", "budget_tokens": -1}).status_code == 422
    assert client.post("/v1/files/read", json={"path": "README.md", "view": "stub"}).status_code == 422
    assert client.post("/v1/files/read", json={"path": "README.md", "extra": 1}).status_code == 422
    assert client.post("/v1/files/read", json={"path": "README.md", "lines": "z"}).status_code == 422
    assert client.post("/v1/files/read", json={"path": "README.md", "lines": "5-3"}).status_code == 400


def test_the_openapi_schema_describes_every_route(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert set(schema["paths"]) == {"/v1/files/read", "/v1/search", "/v1/pack", "/v1/deref", "/v1/refs/{ref_id}"}
    read_schema = schema["paths"]["/v1/files/read"]["post"]["responses"]["200"]["content"][
        "application/json"
    ]["schema"]
    assert read_schema["$ref"].endswith("/ReadOut")


def test_a_root_below_the_repository_top_still_confines_pointers(repo: Path) -> None:
    client = TestClient(create_app(repo / "pkg"))
    read = client.post("/v1/files/read", json={"path": "parts.py", "section": "Part1"}).json()
    evidence = read["evidence"][0]
    assert "/proj/pkg/parts.py@" in evidence["pointer"]
    answer = client.post("/v1/deref", json={"pointer": evidence["pointer"], "verify": evidence["sha256"]})
    assert answer.status_code == 200
    outside = client.post("/v1/deref", json={"pointer": "README.md@HEAD#L1-L1"})
    assert outside.status_code == 403


def test_refs_drill_down_answers_as_the_cli(client: TestClient, isolated_store: Path) -> None:
    data = b"".join(b"line %d\n" % n for n in range(1, 200)) + b"ERROR at the end\n"
    ref_id = open_store(None).put(data, source="t", content_type="log", reason="test")
    answer = client.get(f"/v1/refs/{ref_id}", params={"grep": "ERROR", "context": 1}).json()
    assert answer["text"] == "L199- line 199\nL200: ERROR at the end\n" and answer["matches"] == 1
    cut = client.get(f"/v1/refs/{ref_id}", params={"lines": "1-", "budget_tokens": 20}).json()
    assert cut["truncated"] and cut["tokens"] <= 20 and cut["next_params"]["lines"].endswith("-200")
    more = client.get(f"/v1/refs/{ref_id}", params=cut["next_params"]).json()
    assert more["ranges"][0][0] == cut["ranges"][0][1] + 1
    assert client.get(f"/v1/refs/{ref_id}").json()["data"] == data.decode()
    assert client.get(f"/v1/refs/{ref_id}", params={"grep": "(("}).status_code == 400
    assert client.get(f"/v1/refs/{ref_id}", params={"json_path": "a"}).status_code == 400
    assert client.get(f"/v1/refs/{ref_id}", params={"head": 0}).status_code == 422
    assert client.get("/v1/refs/ctx_000000", params={"head": 1}).status_code == 404
    schema = client.get("/openapi.json").json()["paths"]["/v1/refs/{ref_id}"]["get"]
    params = {param["name"]: param for param in schema["parameters"]}
    names = {"lines", "grep", "context", "ignore_case", "json_path", "head", "tail", "budget_tokens"}
    assert names <= set(params)
    assert params["budget_tokens"]["schema"]["anyOf"][0]["minimum"] == 0


def test_every_answer_is_documented_with_its_body(repo: Path) -> None:
    schema = (
        TestClient(create_app(repo, token="s3cret"))
        .get("/openapi.json", headers={"Authorization": "Bearer s3cret"})
        .json()
    )
    expected = {
        "/v1/files/read": {"200", "400", "401", "403", "404", "413", "422", "500"},
        "/v1/deref": {"200", "400", "401", "403", "404", "409", "413", "422", "500"},
        "/v1/refs/{ref_id}": {"200", "400", "401", "404", "413", "422", "500"},
    }
    for path, codes in expected.items():
        (operation,) = schema["paths"][path].values()
        assert set(operation["responses"]) == codes
        assert operation["responses"]["404"]["content"]["application/json"]["schema"]["$ref"].endswith(
            "/ErrorOut"
        )
    assert schema["security"] == [{"bearer": []}]
    assert schema["components"]["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
    views = schema["components"]["schemas"]["ReadBody"]["properties"]["view"]["enum"]
    assert "summary" not in views  # this server has no summarizer


def test_fields_take_what_the_schema_says_and_nothing_else(client: TestClient) -> None:
    assert client.post("/v1/search", json={"query": "run", "context": False}).status_code == 422
    assert client.post("/v1/search", json={"query": "run", "regex": "yes"}).status_code == 422
    assert client.post("/v1/search", json={"query": "run", "context": 2.0}).status_code == 200
    assert client.post("/v1/files/read", json={"path": "  "}).status_code == 422
    assert client.post("/v1/files/read", json={"path": "README.md", "view": "section"}).status_code == 422
    assert client.post("/v1/files/read", json={"path": "README.md", "view": "summary"}).status_code == 422
    assert client.post("/v1/deref", json={"pointer": ""}).status_code == 422
    assert client.post("/v1/deref", json={"pointer": "README.md@HEAD", "verify": "x"}).status_code == 422
    inverted = client.post("/v1/deref", json={"pointer": "README.md@HEAD#L3-L1"})
    assert inverted.status_code == 400 and "start <= end" in inverted.json()["detail"]
    # An unknown ref is 404 whatever the drill-down options: the ref is looked up first.
    assert client.get("/v1/refs/ctx_000000", params={"head": 1, "tail": 1}).status_code == 404


def test_concurrent_first_requests_build_one_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    from tokenlab.counting import tokens

    built: list[object] = []

    def slow_build() -> object:
        time.sleep(0.05)  # long enough for every thread to arrive while the first builds
        built.append(object())
        return built[-1]

    monkeypatch.setattr(tokens, "new_encoding", slow_build)
    monkeypatch.setattr(tokens, "_never_free", lambda obj: None)
    tokens.encoding.cache_clear()
    tokens._shared_encoding.cache_clear()
    try:
        got: list[object] = []
        threads = [threading.Thread(target=lambda: got.append(tokens.encoding())) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(built) == 1 and all(encoder is built[0] for encoder in got)
    finally:
        tokens.encoding.cache_clear()
        tokens._shared_encoding.cache_clear()
