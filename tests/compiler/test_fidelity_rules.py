"""Mapping rules that survive reading, each on a real fragment of the MCP development corpus
(``tests/compiler/mcp_corpus``: ``tools/list`` of real servers, see its README)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compoworld.compiler import compile_mcp, compile_openapi, infer_semantic, verify_spec
from compoworld.compiler._param_reading import range_bound
from compoworld.compiler._rules import identifier, split_verb
from compoworld.service import Environment, Provenance, ToolSpec, build_service

CORPUS = Path(__file__).parent / "mcp_corpus"


def _server(name: str, *tools: str) -> dict[str, Any]:
    doc = json.loads((CORPUS / f"{name}.json").read_text())
    if tools:
        doc = {**doc, "tools": [t for t in doc["tools"] if t["name"] in tools]}
        assert {t["name"] for t in doc["tools"]} == set(tools)
    return doc


def _compile(name: str, *tools: str) -> tuple[dict[str, ToolSpec], Any]:
    result = compile_mcp(_server(name, *tools), name=name, domain="developer",
                         provenance=Provenance(source=f"{name}.json"))
    verified = verify_spec(result.spec)
    return {t.source or t.name: t for t in verified.spec.tools}, verified


def test_namespace_prefixes_of_any_length_are_skipped():
    assert split_verb("TwilioApiV2010--ListCallNotification") == ("list", ["call",
                                                                          "notification"])
    assert split_verb("hubspot-batch-create-objects") == ("create", ["objects"])
    assert split_verb("API-get-block-children") == ("get", ["block", "children"])
    assert split_verb("slack_post_message") == ("post", ["message"])
    # a noun-verb inside the name yields to a verb ending it
    assert split_verb("blog_post_comments_list") == ("list", ["blog", "post", "comments"])
    tools, _ = _compile("hubspot", "hubspot-batch-create-objects", "hubspot-get-workflow")
    assert "bulk" in tools["hubspot-batch-create-objects"].simulated_reason
    tools, _ = _compile("git", "git_status")
    assert tools["git_status"].simulated_reason == (
        "the name 'git_status' holds no verb the rules know")


def test_a_required_input_is_never_dropped_from_a_write():
    # slack_post_message(channel_id, text): `text` is a query word elsewhere, here the message
    tools, verified = _compile("slack", "slack_post_message", "slack_list_channels",
                               "slack_get_users")
    post = tools["slack_post_message"]
    assert post.op == "create" and not post.simulated
    assert {p.name: (p.role, p.required) for p in post.params} == {
        "channel_id": ("field", True), "text": ("field", True)}
    env = Environment([build_service(verified.spec)], seed=0)
    # channel_id names a channel slack_list_channels lists: a Ref, so it must exist
    assert env.call("slack__slack_post_message", {"channel_id": "C1", "text": "hi"})[
        "error"]["code"] == 404
    channel = env.call("slack__slack_list_channels", {})["data"]["items"][0]["id"]
    sent = env.call("slack__slack_post_message", {"channel_id": channel, "text": "hi"})
    assert sent["success"] and sent["data"]["text"] == "hi"


def test_a_declared_parameter_without_a_role_simulates_the_tool_with_that_reason():
    # read_file(path, head, tail): a get has no role for head / tail
    tools, _ = _compile("filesystem", "read_text_file", "get_file_info")
    assert tools["read_text_file"].simulated
    assert tools["read_text_file"].simulated_reason.startswith("declared parameters")
    assert "'head'" in tools["read_text_file"].simulated_reason
    assert not tools["get_file_info"].simulated
    # a flag choosing which records answer is no option: hubspot's includeHidden
    tools, _ = _compile("hubspot", "hubspot-list-properties")
    assert "'includeHidden'" in tools["hubspot-list-properties"].simulated_reason
    # every implemented tool of the corpus accepts every declared parameter
    for path in sorted(CORPUS.glob("*.json")):
        doc = json.loads(path.read_text())
        spec = compile_mcp(doc, name=path.stem, domain="developer",
                           provenance=Provenance(source=path.name)).spec
        declared = {t["name"]: set((t.get("inputSchema") or {}).get("properties") or {})
                    for t in doc["tools"]}
        for tool in spec.tools:
            if tool.simulated:
                continue
            accepted = {p.name for p in tool.params}
            assert {identifier(n, "p") for n in declared[tool.source or ""]} <= accepted, (
                path.name, tool.name)


def test_lists_by_answer_and_name_and_keys_that_name_one_record():
    tools, _ = _compile("notion", "API-get-block-children", "API-get-user")
    children = tools["API-get-block-children"]
    # a list by its plural noun, paged by its cursor (`start_cursor`)
    assert "+ plural block_children → list" in (children.rule or "")
    assert children.op == "list" and not children.simulated
    assert {p.name: p.role for p in children.params}["start_cursor"] == "cursor"
    assert tools["API-get-user"].op == "get"
    tools, verified = _compile("github", "get_issue")
    issue = tools["get_issue"]  # owner + repo + issue_number name one issue together
    assert issue.op == "get" and [p.name for p in issue.params] == ["owner", "repo",
                                                                    "issue_number"]
    assert issue.name in verified.implemented
    tools, _ = _compile("github", "create_or_update_file")
    assert "upsert" in tools["create_or_update_file"].simulated_reason
    tools, _ = _compile("taskmanager", "mark_task_done")
    done = tools["mark_task_done"]
    assert done.action is not None and done.action.effect == "transition"
    assert done.action.set == {"status": "done"}


@pytest.mark.parametrize(("name", "schema", "bound"), [
    ("min_price", {"type": "number"}, ("price", "gte")),
    ("price_max", {"type": "number"}, ("price", "lte")),
    ("MessageDate>", {"type": "string"}, ("message_date", "gt")),
    ("MessageDate<", {"type": "string"}, ("message_date", "lt")),
    ("created_after", {"type": "string"}, ("created_at", "gt")),
    ("updated_since", {"type": "string"}, ("updated_at", "gte")),
    ("since", {"type": "string"}, ("created_at", "gte")),
    ("after", {"type": "string", "description": "Return events created after this date "
                                                "(YYYY-MM-DD)"}, ("created_at", "gt")),
    ("after", {"type": "string", "description": "Cursor for the next page"}, None),
    ("from_address", {"type": "string"}, None),
    ("start_index", {"type": "integer"}, None),
])
def test_range_and_time_window_filters(name, schema, bound):
    assert range_bound(name, schema) == bound


def test_range_filters_compile_to_comparisons_and_keep_their_own_names():
    # twilio's `MessageDate<` / `MessageDate>` are two bounds of one field, never merged
    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {"/Messages": {
        "get": {"operationId": "ListMessage", "parameters": [
            {"name": "DateSent", "in": "query", "schema": {"type": "string",
                                                            "format": "date-time"}},
            {"name": "DateSent<", "in": "query", "schema": {"type": "string",
                                                             "format": "date-time"}},
            {"name": "DateSent>", "in": "query", "schema": {"type": "string",
                                                             "format": "date-time"}},
            {"name": "min_price", "in": "query", "schema": {"type": "number"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"type": "array", "items": {"type": "object", "properties": {
                    "sid": {"type": "string"}, "price": {"type": "number"},
                    "date_sent": {"type": "string", "format": "date-time"}}}}}}}}}}}}
    spec = compile_openapi(doc, name="t", domain="x", provenance=Provenance(source="t")).spec
    (tool,) = spec.tools
    ops = {p.name: (p.field, p.op) for p in tool.params if p.role == "filter"}
    assert ops == {"date_sent": ("date_sent", "eq"), "date_sent_lt": ("date_sent", "lt"),
                   "date_sent_gt": ("date_sent", "gt"), "min_price": ("price", "gte")}
    verified = verify_spec(spec)
    assert tool.name in verified.implemented


def test_refs_between_tools_of_one_server():
    # notion: API-retrieve-a-block reads a block; the children list filters by `block_id`
    tools, verified = _compile("notion", "API-get-block-children", "API-retrieve-a-block",
                               "API-delete-a-block")
    child = tools["API-get-block-children"]
    entity = next(e for e in verified.spec.entities if e.name == child.entity)
    block_id = next(f for f in entity.fields if f.name == "block_id")
    assert (block_id.type, block_id.ref) == ("Ref", "block")


@pytest.mark.parametrize(("name", "schema", "description", "expected"), [
    # github / gitlab MCP fragments
    ("created_by", {"type": "string"}, "Username of the creator", "Username"),
    ("assignee", {"type": "string"}, "GitHub username to assign", "Username"),
    ("assignee_username", {"type": "string"}, "", "Username"),
    ("owner", {"type": "string"}, "Repository owner (username or organization)", None),
    ("share_count", {"type": "number"}, "Total number of shares", None),
    ("total_shares", {"type": "number"}, "", None),
    ("created", {"type": "string"}, "", "DateTime"),
    ("total_price", {"type": "number"}, "", "Money"),
])
def test_semantic_typing_precision_on_real_fragments(name, schema, description, expected):
    assert infer_semantic(name, schema, description) == expected


def test_an_all_simulated_server_passes_check_service():
    # the memory server's tools are bulk writes over lists of records: all simulated, no state
    from compoworld.service import check_service

    _, verified = _compile("memory")
    assert not verified.implemented
    report = check_service(build_service(verified.spec))
    assert report.ok, report.problems
    assert not any("{seed" in problem for problem in report.problems)


def test_service_summaries_are_whole_sentences():
    from compoworld.compiler._summary import summary_text

    spec = compile_mcp(_server("slack"), name="slack", domain="communication",
                       provenance=Provenance(source="slack.json")).spec
    assert spec.description.startswith("slack: List public or pre-defined channels")
    assert spec.description.endswith(".") and ";" not in spec.description
    everything = compile_mcp(_server("everything"), name="everything", domain="developer",
                             provenance=Provenance(source="everything.json")).spec
    assert everything.description.startswith("Audience: These instructions")  # the server's own
    long = "First sentence here. " + "Another sentence, long enough. " * 30
    text = summary_text(long, limit=120)
    assert len(text) <= 120 and text.endswith(".") and text.count("Another") >= 1
    assert summary_text("Manage pets. Manage pets.") == "Manage pets."


def test_tool_names_are_the_servers_own_never_cut_nor_lost():
    # gitlab (zereight) has 118 tools, some past 60 characters once sanitized; none is cut
    doc = _server("gitlab_zereight")
    spec = compile_mcp(doc, name="gitlab", domain="developer",
                       provenance=Provenance(source="gitlab_zereight.json")).spec
    assert len(spec.tools) == len(doc["tools"])
    assert [t.source for t in spec.tools] == [t["name"] for t in doc["tools"]]
    assert all(t.name == identifier(t.source or "", limit=None) for t in spec.tools)
    # a collision after sanitizing keeps both tools
    clash = compile_mcp({"tools": [{"name": "get-user", "inputSchema": {"type": "object"}},
                                   {"name": "get_user", "inputSchema": {"type": "object"}}]},
                        name="c", domain="developer", provenance=Provenance(source="c")).spec
    assert [(t.name, t.source) for t in clash.tools] == [("get_user", "get-user"),
                                                         ("get_user_2", "get_user")]


def test_tools_measured_unfaithful_against_the_real_server_are_simulated():
    # tests/compiler/fidelity_mcp.json: bench/fidelity.py against the real filesystem server
    from compoworld.compiler import apply_fidelity

    measured = json.loads((Path(__file__).parent / "fidelity_mcp.json").read_text())
    rows = measured["servers"]["filesystem"]
    _, verified = _compile("filesystem")
    spec, figures = apply_fidelity(verified.spec, rows)
    tools = {t.name: t for t in spec.tools}
    assert set(figures) == {name for name, row in rows.items() if row["agreement"] is not None}
    for name, row in rows.items():
        if row["agreement"] is not None and row["agreement"] < 0.8:
            assert tools[name].simulated
            assert tools[name].simulated_reason.startswith("fidelity: agreed with the real")
        else:  # faithful, or unmeasured (both sides refused every call): left implemented
            assert not tools[name].simulated
    assert any(row["agreement"] == 0.0 for row in rows.values())  # get_file_info today
    assert any(row["agreement"] is None for row in rows.values())  # read_media_file


def test_a_record_id_beside_its_scope_must_match_it():
    # gitlab get_merge_request_note(project_id, merge_request_iid, note_id): the note of that
    # merge request of that project; the scope was dropped (the tool simulated) before, and an
    # update wrote it as fields, moving the note
    tools, verified = _compile("gitlab_zereight", "get_merge_request_note",
                               "update_merge_request_note")
    get, update = tools["get_merge_request_note"], tools["update_merge_request_note"]
    assert {p.name: p.role for p in get.params} == {
        "note_id": "id", "project_id": "filter", "merge_request_iid": "filter"}
    assert {p.name: p.role for p in update.params}["project_id"] == "filter"
    assert "scoped by" in (get.rule or "") and get.name in verified.implemented
    env = Environment([build_service(verified.spec)], seed=0)
    db = env.db("gitlab_zereight")
    note = next(r for r in db.select("merge_request_note", limit=100)
                if r["project_id"] and r["merge_request_iid"])
    scope = {"project_id": note["project_id"], "merge_request_iid": note["merge_request_iid"]}
    found = env.call("gitlab_zereight__get_merge_request_note", {"note_id": note["id"], **scope})
    assert found["success"] and found["data"]["id"] == note["id"]
    elsewhere = env.call("gitlab_zereight__get_merge_request_note",
                         {"note_id": note["id"], **scope, "merge_request_iid": "other"})
    assert elsewhere["error"]["code"] == 404
    # OpenAPI: the path's parents are declared beside the id (they were left out)
    doc = json.loads((Path(__file__).parent / "specs" / "openapi_google_tasks.json").read_text())
    spec = compile_openapi(doc, name="tasks", domain="productivity",
                           provenance=Provenance(source="google tasks")).spec
    get_task = next(t for t in spec.tools if t.source == "GET /tasks/v1/lists/{tasklist}/tasks/{task}")
    assert {p.name: p.role for p in get_task.params} == {"task": "id", "tasklist": "filter"}


def test_patches_batches_and_lists_of_records_are_no_values():
    # gitlab update_issue_description_patch(patch, dry_run): a unified diff applied to the
    # description — its dry run is a trial the engine runs (role dry_run), but the patch is no
    # value written whole, so the write stays simulated; so does kubectl_patch(patch_data)
    tools, _ = _compile("gitlab_zereight", "update_issue_description_patch")
    patch = tools["update_issue_description_patch"]
    assert patch.simulated and "applies the patch 'patch'" in (patch.simulated_reason or "")
    tools, _ = _compile("kubernetes", "kubectl_patch")
    assert "applies the patch 'patch_data'" in (tools["kubectl_patch"].simulated_reason or "")
    # hubspot-search-objects(filterGroups=[{filters: [...]}], sorts=[{...}]): lists of
    # objects, never equality on invented fields; a batch read is a batch
    tools, _ = _compile("hubspot", "hubspot-search-objects", "hubspot-batch-read-objects")
    search = tools["hubspot-search-objects"]
    assert search.simulated and "'filterGroups'" in (search.simulated_reason or "")
    assert "batch" in (tools["hubspot-batch-read-objects"].simulated_reason or "")


def _openapi(paths: dict[str, Any], schemas: dict[str, Any] | None = None) -> dict[str, ToolSpec]:
    doc = {"openapi": "3.0.0", "info": {"title": "fragment", "version": "1"}, "paths": paths,
           "components": {"schemas": schemas or {}}}
    spec = compile_openapi(doc, name="fragment", domain="developer",
                           provenance=Provenance(source="fragment")).spec
    return {t.source or t.name: t for t in spec.tools}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def test_upserts_bulk_writes_and_lists_of_ids_in_a_path_are_simulated():
    # AWS Config PutRemediationExceptions: "This API adds a new exception or updates an
    # existing exception" — neither an update (404 when new) nor a create (a duplicate)
    put = "/#X-Amz-Target=StarlingDoveService.PutRemediationExceptions"
    tools = _openapi({put: {"post": {
        "operationId": "PutRemediationExceptions",
        "description": "<p>A remediation exception is when a specified resource is no longer "
                       "considered for auto-remediation. This API adds a new exception or "
                       "updates an existing exception for a specified resource with a "
                       "specified Config rule. </p>",
        "requestBody": {"required": True, **_json({
            "type": "object", "required": ["ConfigRuleName"],
            "properties": {"ConfigRuleName": {"type": "string"},
                           "Message": {"type": "string"}}})},
        "responses": {"200": {"description": "Success", **_json({"type": "object"})}}}}})
    assert "upsert" in (tools[f"POST {put}"].simulated_reason or "")
    # mediaconnect AddFlowMediaStreams(mediaStreams: [AddMediaStreamRequest]): many records
    # in one call, where one record holding the list was created
    stream = {"type": "object", "properties": {"mediaStreamName": {"type": "string"},
                                               "mediaStreamId": {"type": "integer"}}}
    add = "/v1/flows/{flowArn}/mediaStreams"
    tools = _openapi({add: {"post": {
        "operationId": "AddFlowMediaStreams", "summary": "Adds media streams to an existing flow.",
        "parameters": [{"name": "flowArn", "in": "path", "required": True,
                        "schema": {"type": "string"}}],
        "requestBody": {"required": True, **_json({
            "type": "object", "required": ["mediaStreams"],
            "properties": {"mediaStreams": {"type": "array", "items": {
                "$ref": "#/components/schemas/AddMediaStreamRequest"}}}})},
        "responses": {"201": {"description": "ok", **_json(stream)}}}}},
        {"AddMediaStreamRequest": stream})
    assert "'mediaStreams'" in (tools[f"POST {add}"].simulated_reason or "")
    # royalmail GET /orders/{orderIdentifiers} ("semicolon-separated"): several ids in one
    # string, never equality on an invented `order_identifiers` field
    get = "/orders/{orderIdentifiers}"
    order = {"type": "object", "properties": {"orderIdentifier": {"type": "integer"},
                                              "orderReference": {"type": "string"}}}
    tools = _openapi({get: {"get": {
        "operationId": "GetSpecificOrdersAsync", "summary": "Retrieve specific orders",
        "parameters": [{"name": "orderIdentifiers", "in": "path", "required": True,
                        "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok", **_json({"type": "array", "items": order})}}}},
        "/orders": {"get": {"operationId": "GetOrdersAsync", "responses": {"200": {
            "description": "ok", **_json({"type": "array", "items": order})}}}}})
    assert "names several records" in (tools[f"GET {get}"].simulated_reason or "")
    assert not tools["GET /orders"].simulated


def test_wrapped_objects_widening_flags_and_directions_are_read_for_what_they_are():
    # circleci list_followed_projects(params: {}), firecrawl_monitor_update(id, body: {...}),
    # pinecone search-records(query: {inputs, topK}): no field of the record, no text
    tools, _ = _compile("circleci", "list_followed_projects")
    assert "'params'" in (tools["list_followed_projects"].simulated_reason or "")
    tools, _ = _compile("firecrawl", "firecrawl_monitor_update")
    assert "'body'" in (tools["firecrawl_monitor_update"].simulated_reason or "")
    tools, _ = _compile("pinecone", "search-records")
    assert "'query'" in (tools["search-records"].simulated_reason or "")
    # gitlab list_commit_statuses(all: "Return all statuses, not only the latest ones")
    tools, _ = _compile("gitlab_zereight", "list_commit_statuses", "get_merge_request_notes")
    assert "'all'" in (tools["list_commit_statuses"].simulated_reason or "")
    # get_merge_request_notes(order_by, sort: "asc" | "desc"): the direction is the order
    roles = {p.name: p.role for p in tools["get_merge_request_notes"].params}
    assert roles["order_by"] == "sort_by" and roles["sort"] == "order"
    # airtable create_record(fields: {...}): an Airtable record is {id, fields}: kept
    tools, _ = _compile("airtable", "create_record")
    assert not tools["create_record"].simulated


def test_renames_text_replacements_sets_by_key_and_list_equality():
    # gitlab update_label(new_name): renames the label's own `name`
    tools, _ = _compile("gitlab_zereight", "update_label", "create_label")
    assert {p.name: p.field for p in tools["update_label"].params}["new_name"] == "name"
    # desktop_commander edit_block(file_path, old_string, new_string): a replacement inside
    # the file, no field written whole; set_config_value(key, value) "Set a specific
    # configuration value by key": an upsert (an update refused absent keys)
    tools, verified = _compile("desktop_commander", "edit_block", "set_config_value")
    assert "old_* / new_*" in (tools["edit_block"].simulated_reason or "")
    setter = tools["set_config_value"]
    assert setter.op == "upsert" and not setter.simulated, setter.simulated_reason
    assert {p.name: p.role for p in setter.params}["key"] == "filter"
    env = Environment([build_service(verified.spec)], seed=0)
    db, call = env.db("desktop_commander"), f"desktop_commander__{setter.name}"
    count = db.count(setter.entity)
    made = env.call(call, {"key": "defaultShell", "value": "bash"})["data"]
    assert db.count(setter.entity) == count + 1 and made["value"] == "bash"
    again = env.call(call, {"key": "defaultShell", "value": "zsh"})["data"]
    assert again["id"] == made["id"] and db.count(setter.entity) == count + 1
    # github list_issues(labels=[...]): issues holding all of them, never list equality
    tools, _ = _compile("github", "list_issues")
    assert "'labels'" in (tools["list_issues"].simulated_reason or "")


def test_a_simulated_tool_is_never_lost_to_a_name_it_shares():
    # theracingapi: GET /v1/horses/{horse_id}/results and /v1/owners/{owner_id}/results both
    # read `list_results`; one simulated for a declared parameter took the other's name and
    # a tool was lost
    result = {"type": "object", "properties": {"race_id": {"type": "string"},
                                               "position": {"type": "integer"}}}
    answer = {"200": {"description": "ok", **_json({"type": "array", "items": result})}}
    tools = _openapi({
        "/v1/horses/{horse_id}/results": {"get": {"parameters": [
            {"name": "horse_id", "in": "path", "required": True, "schema": {"type": "string"}},
            {"name": "filters", "in": "query", "schema": {"type": "string"}}],
            "responses": answer}},
        "/v1/owners/{owner_id}/results": {"get": {"parameters": [
            {"name": "owner_id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": answer}}})
    assert len(tools) == 2 and len({t.name for t in tools.values()}) == 2
    assert tools["GET /v1/horses/{horse_id}/results"].simulated
    assert not tools["GET /v1/owners/{owner_id}/results"].simulated


def test_a_rename_is_keyed_by_the_old_name_and_the_server_is_no_resource():
    # mongodb rename-collection(collection, database, newName): newName is the value written,
    # never the key; git's git_add(repo_path, files): `git` is the server, no entity
    tools, _ = _compile("mongodb", "rename-collection")
    assert tools["rename-collection"].simulated
    tools, _ = _compile("git", "git_add")
    assert "names no resource" in (tools["git_add"].simulated_reason or "")


def test_list_edits_and_searches_without_a_query():
    # memorydb UpdateACL(ACLName, UserNamesToAdd, UserNamesToRemove): edits a list
    tools = _openapi({"/#X-Amz-Target=AmazonMemoryDB.UpdateACL": {"post": {
        "operationId": "UpdateACL", "summary": "Changes the list of users that belong to the ACL.",
        "requestBody": {"required": True, **_json({
            "type": "object", "required": ["ACLName"],
            "properties": {"ACLName": {"type": "string"},
                           "UserNamesToAdd": {"type": "array", "items": {"type": "string"}},
                           "UserNamesToRemove": {"type": "array",
                                                 "items": {"type": "string"}}}})},
        "responses": {"200": {"description": "ok", **_json({"type": "object", "properties": {
            "ACL": {"type": "object", "properties": {"Name": {"type": "string"}}}}})}}}}})
    update = next(iter(tools.values()))
    assert "'UserNamesToAdd'" in (update.simulated_reason or "")
    # theracingapi GET /v1/damsires/search?name=: part of a name, not the whole
    damsire = {"type": "object", "properties": {"id": {"type": "string"},
                                                "damsire": {"type": "string"}}}
    tools = _openapi({"/v1/damsires/search": {"get": {
        "operationId": "search_damsires_v1_damsires_search_get", "summary": "Search Damsires",
        "parameters": [{"name": "name", "in": "query", "required": True,
                        "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok", **_json({
            "type": "object", "properties": {"search_results": {"type": "array",
                                                                "items": damsire}}})}}}}})
    search = tools["GET /v1/damsires/search"]
    assert [(p.name, p.op) for p in search.params if p.role == "filter"] == [("name", "contains")]
