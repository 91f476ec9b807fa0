"""Parameters a tool accepts beyond its record (``compiler._accepted``): paging by page number
or cursor, and options with no effect on state — each on real fragments (the MCP development
corpus ``tests/compiler/mcp_corpus`` and the OpenAPI samples of ``tests/compiler/specs``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compoworld.compiler import compile_mcp, compile_openapi, verify_spec
from compoworld.compiler._accepted import first_page, no_effect, paging_role
from compoworld.service import Environment, Provenance, ToolSpec, build_service

HERE = Path(__file__).parent


def _compile(server: str, *tools: str) -> tuple[dict[str, ToolSpec], Environment]:
    doc = json.loads((HERE / "mcp_corpus" / f"{server}.json").read_text())
    doc = {**doc, "tools": [t for t in doc["tools"] if t["name"] in tools]}
    assert {t["name"] for t in doc["tools"]} == set(tools)
    verified = verify_spec(compile_mcp(doc, name=server, domain="developer",
                                       provenance=Provenance(source=f"{server}.json")).spec)
    env = Environment([build_service(verified.spec)], seed=0)
    return {t.source or t.name: t for t in verified.spec.tools}, env


def _ids(envelope: dict[str, Any]) -> list[str]:
    assert envelope["success"], envelope
    return [item["id"] for item in envelope["data"]["items"]]


def test_a_page_number_pages_the_list():
    # github list_commits(owner, repo, sha, page, per_page): "Page number for pagination"
    tools, env = _compile("github", "list_commits")
    commits = tools["list_commits"]
    assert not commits.simulated, commits.simulated_reason
    roles = {p.name: p.role for p in commits.params}
    assert roles["page"] == "page" and roles["per_page"] == "limit"
    scope = {"owner": "octo", "repo": "hello"}
    db = env.db("github")
    seeded = {k: v for k, v in db.select("commit", limit=1)[0].items() if k != "id"}
    for _ in range(5):
        db.insert("commit", **{**seeded, **scope})
    whole = _ids(env.call("github__list_commits", {**scope, "per_page": 100}))
    assert len(whole) >= 5
    assert _ids(env.call("github__list_commits", {**scope, "per_page": 2, "page": 1})) == whole[:2]
    assert _ids(env.call("github__list_commits", {**scope, "per_page": 2, "page": 2})) == whole[2:4]
    refused = env.call("github__list_commits", {**scope, "page": 0})  # pages count from 1
    assert refused["error"]["code"] == 400


def test_a_cursor_continues_where_the_previous_page_ended():
    # notion API-get-users(start_cursor, page_size): "a page of results starting after the
    # cursor provided"; slack_list_channels(limit, cursor)
    tools, env = _compile("notion", "API-get-users")
    users = tools["API-get-users"]
    assert not users.simulated, users.simulated_reason
    assert {p.name: p.role for p in users.params} == {"start_cursor": "cursor",
                                                      "page_size": "limit"}
    first = env.call("notion__api_get_users", {"page_size": 3})
    assert first["success"] and first["data"]["next_offset"] == 3
    whole = _ids(env.call("notion__api_get_users", {"page_size": 100}))
    after = env.call("notion__api_get_users", {"page_size": 3, "start_cursor": "3"})
    assert _ids(after) == whole[3:6]
    bad = env.call("notion__api_get_users", {"start_cursor": "not-a-cursor"})
    assert bad["error"]["code"] == 400 and "start_cursor" in bad["error"]["message"]
    tools, _ = _compile("slack", "slack_list_channels")
    assert {p.name: p.role for p in tools["slack_list_channels"].params}["cursor"] == "cursor"


def test_openapi_page_tokens_are_accepted_by_lists():
    # Google Tasks' tasks.tasks.list(pageToken, maxResults): the token was left out of the
    # surface before; now a call passing it is honoured
    doc = json.loads((HERE / "specs" / "openapi_google_tasks.json").read_text())
    verified = verify_spec(compile_openapi(doc, name="tasks", domain="productivity",
                                           provenance=Provenance(source="google tasks")).spec)
    tool = next(t for t in verified.spec.tools if t.name == "list_tasklists")
    assert {p.name: p.role for p in tool.params} == {"max_results": "limit",
                                                     "page_token": "cursor"}
    assert tool.name in verified.implemented


@pytest.mark.parametrize(("name", "schema", "role"), [
    ("page", {"type": "number", "description": "Page number for pagination (default: 1)"},
     "page"),
    ("start_cursor", {"type": "string"}, "cursor"),
    ("after", {"type": "string", "description": "Paging cursor token for retrieving the next "
                                                "page of results"}, "cursor"),
    ("pageToken", {"type": "string"}, "cursor"),
    ("page", {"type": "string"}, None),  # firecrawl's monitor page: a URL, not a number
    ("ending_before", {"type": "string"}, None),  # backwards: no offset answers it
])
def test_paging_roles(name, schema, role):
    assert paging_role(name, schema) == role


def test_first_page_number():
    assert first_page({"type": "integer"}) == 1
    assert first_page({"type": "integer", "minimum": 0}) == 0
    assert first_page({"type": "integer", "description": "Zero-based page index"}) == 0


@pytest.mark.parametrize(("name", "description", "op", "accepted"), [
    # real descriptions of the corpus
    ("include_images", "Include a list of query-related images in the response", "search", True),
    ("with_labels_details", "Return more details for each label", "list", True),
    ("stats", "Include commit stats", "get", True),
    ("unidiff", "Present diffs in the unified diff format. Default is false.", "list", True),
    ("full_response", "If true, return the complete updated issue object. Default returns a "
                      "slim confirmation", "update", True),
    ("with_issues_enabled", "Filter projects with issues feature enabled", "list", False),
    ("includeHidden", "Whether to include hidden properties in the response.", "list", False),
    ("include_inheritance", "Include inherited members. Defaults to false.", "list", False),
    ("include_subgroups", "Include projects from subgroups", "list", False),
    ("full_diff", "Whether to return the full diff or only first page (default: false)", "get",
     False),
    ("include_in_menu", "", "create", False),  # a write's flag may be a stored field
])
def test_boolean_options_add_to_the_answer_never_choose_records(name, description, op, accepted):
    assert no_effect(name, {"type": "boolean", "description": description}, op) is accepted


def test_projections_formats_and_retry_tokens():
    fields = {"type": "array", "items": {"type": "string"},
              "description": "A list of the properties to be returned in the response."}
    assert no_effect("properties", fields, "list")  # hubspot-list-objects
    assert not no_effect("properties", fields, "create")  # a write's properties are its values
    assert no_effect("detailLevel", {"type": "string", "enum": ["full"]}, "get")
    assert not no_effect("format", {"type": "string"}, "create")
    assert no_effect("client_token", {"type": "string"}, "delete")
    assert not no_effect("client_token", {"type": "string"}, "create")  # a retry creates nothing
    assert not no_effect("request_id", {"type": "string"}, "delete")  # taskmanager's: a scope


def test_options_are_declared_typed_and_change_nothing():
    # gitlab get_commit(project_id, sha, stats) and get_issue(..., full_response)
    tools, env = _compile("gitlab_zereight", "get_commit", "list_branches")
    commit = tools["get_commit"]
    assert not commit.simulated, commit.simulated_reason
    assert {p.name: p.role for p in commit.params}["stats"] == "option"
    record = next(r for r in env.db("gitlab_zereight").select("commit", limit=100)
                  if r["project_id"] and r["sha"])
    key = {"project_id": record["project_id"], "sha": record["sha"]}
    plain = env.call("gitlab_zereight__get_commit", key)
    assert plain["success"], plain
    assert env.call("gitlab_zereight__get_commit", {**key, "stats": True}) == plain
    wrong = env.call("gitlab_zereight__get_commit", {**key, "stats": "yes please"})
    assert wrong["error"]["code"] == 400  # still checked against its declared type
    # a list with a text query is a search, never equality on an invented `search` field
    branches = tools["list_branches"]  # list_branches(project_id, search, page, per_page)
    assert branches.op == "search" and not branches.simulated
    assert {p.name: p.role for p in branches.params}["search"] == "query"
