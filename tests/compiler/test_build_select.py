"""Selection rules and indexing of the catalog build (no compiling here)."""

from __future__ import annotations

import re
from pathlib import Path

from compoworld.compiler._fetch import SourceSpec, index_directory
from compoworld.compiler._select import (
    MAX_TOOLS,
    TRIMMED,
    classify_operation,
    domain_of,
    select_services,
    service_name,
    trim_operations,
)

SPECS = Path(__file__).parent / "build_specs"
CRUD = ["GET /things", "POST /things", "GET /things/{id}", "PATCH /things/{id}",
        "DELETE /things/{id}"]


def _entry(path: str, provider: str, *, service: str | None = None, categories=(),
           ops: list[str] | None = None, docs: str | None = None, title: str = "") -> SourceSpec:
    lines = CRUD if ops is None else ops
    return SourceSpec(kind="openapi", path=path, provider=provider, service=service,
                      categories=list(categories), operations=len(lines), op_lines=lines,
                      docs_url=docs, title=title or provider)


def test_index_reads_provider_license_and_operations():
    entries = {e.path: e for e in index_directory(SPECS)}
    tasks = entries["google_tasks.json"]
    assert (tasks.kind, tasks.provider, tasks.service) == ("openapi", "googleapis.com", "tasks")
    assert tasks.license == "Creative Commons Attribution 3.0" and tasks.version == "v1"
    assert tasks.operations == 14 and "GET /tasks/v1/lists/{tasklist}/tasks" in tasks.op_lines
    assert entries["malformed.json"].error and "line" in entries["malformed.json"].error
    assert entries["notaspec.json"].kind == "unknown"


def test_google_apis_are_judged_by_their_docs_not_their_blanket_tags():
    tags = ["analytics", "media"]
    entries = [
        _entry("googleapis.com/calendar.json", "googleapis.com", service="calendar",
               categories=tags, docs="https://developers.google.com/google-apps/calendar/",
               title="Calendar API"),
        _entry("googleapis.com/compute.json", "googleapis.com", service="compute",
               categories=tags, docs="https://cloud.google.com/compute/"),
        _entry("somemedia.com.json", "somemedia.com", categories=tags),
        _entry("somehost.com.json", "somehost.com", categories=["hosting", "media"]),
    ]
    selection = select_services(entries)
    # media is judged on implementability like any API; infrastructure consoles are skipped
    assert [s.name for s in selection.selected] == ["google_calendar", "somemedia"]
    assert selection.selected[0].domain == "productivity"
    assert selection.skipped == {"googleapis.com/compute.json": "category cloud",
                                 "somehost.com.json": "category hosting"}


def test_size_and_estimate_rules():
    rpc_free = ["POST /#X-Amz-Target=Foo.Bar"] * 6
    entries = [_entry("tiny.com.json", "tiny.com", ops=CRUD[:2]),
               _entry("huge.com.json", "huge.com", ops=CRUD * 50),
               _entry("odd.com.json", "odd.com", ops=rpc_free),
               _entry("ok.com.json", "ok.com")]
    selection = select_services(entries)
    assert [s.name for s in selection.selected] == ["huge", "ok"]  # a big API is cut, not skipped
    assert selection.skipped["tiny.com.json"].startswith("2 operations")
    assert "estimated implementable share 0%" in selection.skipped["odd.com.json"]


def test_only_the_newest_release_of_an_api_is_kept_but_api_generations_all_are():
    entries = [_entry(f"github.com/ghes-{v}.json", "github.com", service=f"ghes-{v}")
               for v in ("2.18", "3.10", "3.8")]
    entries += [_entry(f"twilio.com/twilio_chat_{v}.json", "twilio.com",
                       service=f"twilio_chat_{v}") for v in ("v1", "v2")]
    selection = select_services(entries)
    assert [s.name for s in selection.selected] == ["github_ghes_3_10", "twilio_chat_v1",
                                                    "twilio_chat_v2"]
    assert selection.skipped["github.com/ghes-2.18.json"] == (
        "older release of 'ghes-3.10' (kept: github.com/ghes-3.10.json)")
    assert "github.com/ghes-3.8.json" in selection.skipped


def test_names_are_unique_snake_case_without_double_underscores():
    entries = [_entry("a.com/CRM--Api.json", "a.com", service="CRM--Api"),
               _entry("a.io/crm_api.json", "a.io", service="crm_api"),
               _entry("9lives.net.json", "9lives.net")]
    names = [s.name for s in select_services(entries).selected]
    assert names == ["api_9lives", "a_crm_api", "a_crm_api_2"]
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", n) and "__" not in n for n in names)
    assert service_name(_entry("x.com.json", "googleapis.com", service="gmail")) == "google_gmail"


def test_domains_from_keywords_then_categories():
    assert domain_of(_entry("x.json", "x.com", title="Payroll and HRIS API")) == "hr"
    assert domain_of(_entry("x.json", "x.com", categories=["ecommerce"])) == "commerce"
    assert domain_of(_entry("x.json", "x.com", categories=["nothing_known"])) == "developer"


def test_classify_operation():
    assert [classify_operation(line) for line in CRUD] == ["list", "create", "get", "update",
                                                            "delete"]
    assert classify_operation("POST /v1/{+name}:cancel") == "action"
    assert classify_operation("POST /invoices/{id}/void") == "action"
    assert classify_operation("GET /api/client/all") == "rpc"
    assert classify_operation("createPad") == "create" and classify_operation("send_email") == "action"


def test_tool_names_are_classified_by_the_compilers_verb_rules():
    # the estimator reads a tool name as the compiler does: namespaces of any length skipped
    # (notion's `API-get-user`, twilio's MCP names), noun-first names, no verb → other
    assert classify_operation("API-get-user") == "get"
    assert classify_operation("TwilioApiV2010--ListCallNotification") == "list"
    assert classify_operation("archival_memory_add") == "create"
    assert classify_operation("git_status") == "other"


def test_trim_prefers_resource_operations_and_is_deterministic():
    paths = {f"/x{i}:frobnicate": {"post": {}} for i in range(MAX_TOOLS)}
    paths.update({"/things": {"get": {}, "post": {}}, "/things/{id}": {"get": {}, "delete": {},
                                                                        "parameters": []}})
    doc = {"openapi": "3.0.0", "paths": paths}
    trimmed = trim_operations(doc, MAX_TOOLS)
    kept = [(p, m) for p, item in trimmed["paths"].items() for m, op in item.items()
            if m != "parameters" and TRIMMED not in op]
    assert len(kept) == MAX_TOOLS
    assert {("/things", "get"), ("/things", "post"), ("/things/{id}", "get"),
            ("/things/{id}", "delete")} <= set(kept)
    assert trimmed["paths"]["/things/{id}"]["parameters"] == []
    assert trim_operations(doc, MAX_TOOLS) == trimmed and len(doc["paths"]) == MAX_TOOLS + 2

