"""OpenAPI importer: real sample specs and the edge cases, compiled, verified and run."""

import json
from pathlib import Path

import pytest

from compoworld.compiler import CompileResult, SpecError, compile_openapi, verify_spec
from compoworld.compiler._select import TRIMMED, trim_operations
from compoworld.service import Environment, Provenance, build_service, check_service

SPECS = Path(__file__).parent / "specs"
SAMPLES = ["openapi_google_tasks", "openapi_google_essentialcontacts", "openapi_twilio_fax",
           "openapi_sms77"]


def compile_doc(doc: dict, name: str = "sample", **kw) -> CompileResult:
    return compile_openapi(doc, name=name, domain="productivity",
                           provenance=Provenance(source=f"{name}.json"), **kw)


def tools_of(result: CompileResult) -> dict:
    return {t.name: t for t in result.spec.tools}


@pytest.mark.parametrize("sample", SAMPLES)
def test_real_specs_compile_verify_and_run(sample):
    doc = json.loads((SPECS / f"{sample}.json").read_text())
    result = compile_doc(doc, sample)
    verified = verify_spec(result.spec)
    assert verified.implemented, "no tool implemented"
    for tool in verified.spec.tools:
        assert tool.source and " /" in tool.source  # "GET /path"
        if tool.simulated:
            assert tool.simulated_reason
        else:
            assert tool.rule, f"{tool.name} has no rule"
    service = build_service(verified.spec)
    report = check_service(service)
    assert report.ok, str(report)


def test_google_tasks_mapping_reads_like_the_spec():
    doc = json.loads((SPECS / "openapi_google_tasks.json").read_text())
    result = compile_doc(doc, "tasks")
    tools = tools_of(result)
    assert (tools["list_tasks"].op, tools["list_tasks"].rule) == (
        "list", "rest:GET collection → list")
    list_filter = {p.name: p for p in tools["list_tasks"].params}["tasklist"]
    assert (list_filter.role, list_filter.field, list_filter.required) == (
        "filter", "list_id", True)  # the parent in the path is a required Ref filter
    task = {e.name: e for e in result.spec.entities}["task"]
    assert {f.name: f.ref for f in task.fields if f.type == "Ref"} == {"list_id": "list"}
    assert tools["get_task"].op == "get" and tools["delete_task"].op == "delete"
    assert tools["move_task"].rule == "rpc:verb move → update"
    clear = tools["clear_task"] if "clear_task" in tools else next(
        t for t in result.spec.tools if t.source == "POST /tasks/v1/lists/{tasklist}/clear")
    assert clear.simulated and "no rule" in (clear.simulated_reason or "")
    fields = {f.name: f.type for f in task.fields}
    assert fields["updated"] == "DateTime"  # by name
    assert fields["completed"] == "DateTime"  # by description: "as a RFC 3339 timestamp"
    assert fields["self_link"] == "URL" and fields["title"] == "string"


def test_sms_post_is_a_send_and_an_object_under_a_plural_name_stays_simulated():
    doc = json.loads((SPECS / "openapi_sms77.json").read_text())
    verified = verify_spec(compile_doc(doc, "sms77").spec)
    by_source = {t.source: t for t in verified.spec.tools}
    sms = by_source["POST /sms"]
    assert sms.name == "sms"  # the spec's operationId
    assert sms.action.effect == "send" and sms.rule == "action:POST sms → send sms"
    assert sms.name in verified.implemented
    analytics = by_source["GET /analytics"]  # one object of stats, not a list of analytics
    assert "returns one object, not a collection" in verified.simulated[analytics.name]


PETS = {
    "openapi": "3.0.0",
    "info": {"title": "Pets", "description": "A pet shop."},
    "paths": {
        "/owners": {"get": {"responses": {"200": {"description": "ok", "content": {
            "application/json": {"schema": {"type": "array",
                                            "items": {"$ref": "#/components/schemas/Owner"}}}}}}}},
        "/owners/{ownerId}": {"get": {"parameters": [
            {"name": "ownerId", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Owner"}}}}}}},
        "/owners/{ownerId}/pets": {
            "parameters": [{"name": "ownerId", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "get": {"parameters": [
                {"name": "species", "in": "query", "schema": {"$ref": "#/components/schemas/Species"}},
                {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                {"in": "query", "schema": {"type": "string"}}],  # unnamed: skipped
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"type": "object", "properties": {
                        "data": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}},
                        "total": {"type": "integer"}}}}}}}},
            "post": {"requestBody": {"content": {"application/json": {"schema": {
                "$ref": "#/components/schemas/NewPet"}}}},
                "responses": {"201": {"description": "created"}}}},
        "/pets/{petId}/photo": {"put": {"requestBody": {"content": {
            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
            "responses": {"204": {"description": "stored"}}}},
        "/pets/{petId}/adopt": {"post": {"responses": {"200": {"description": "ok"}}}},
        "/pets/{petId}/archive": {"post": {"responses": {"200": {"description": "ok"}}}},
        "/visits": {"post": {"requestBody": {"content": {"application/x-www-form-urlencoded": {
            "schema": {"type": "object", "required": ["pet_name"], "properties": {
                "pet_name": {"type": "string"}, "vet_email": {"type": "string"}}}}}},
            "responses": {"200": {"description": "ok"}}}},
    },
    "components": {"schemas": {
        "Owner": {"type": "object", "properties": {
            "id": {"type": "string"}, "full_name": {"type": "string"},
            "email": {"type": "string", "format": "email"}, "phone": {"type": "string"},
            "best_friend": {"$ref": "#/components/schemas/Owner"}}},  # circular
        "Species": {"type": "string", "enum": [f"species_{i}" for i in range(200)]},
        "Pet": {"allOf": [{"$ref": "#/components/schemas/NewPet"}, {"type": "object", "properties": {
            "owner": {"$ref": "#/components/schemas/Owner"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}]},
        "NewPet": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"}, "species": {"$ref": "#/components/schemas/Species"},
            "price": {"type": "number"}, "birth_date": {"type": "string", "format": "date"}}},
    }},
}


def test_edge_cases_circular_refs_missing_operation_ids_bodies_and_enums():
    result = compile_doc(PETS, "pets")
    tools = tools_of(result)
    # Missing operationId: verb_noun names from method + path.
    assert {"list_owners", "get_owner", "list_pets", "create_pet", "archive_pet",
            "create_visit"} <= set(tools)
    visit = {p.name: (p.role, p.required) for p in tools["create_visit"].params}
    assert visit == {"pet_name": ("field", True), "vet_email": ("field", False)}  # form body
    pet = {e.name: e for e in result.spec.entities}["pet"]
    fields = {f.name: f for f in pet.fields}
    assert fields["species"].enum is None and fields["species"].type == "string"  # 200 values
    assert any("enum of 200 values truncated" in w for w in result.warnings)
    assert fields["price"].type == "Money" and fields["birth_date"].type == "Date"
    assert fields["children"].type == "array"
    assert fields["owner_email"].type == "Email"  # a small nested object, flattened
    assert fields["owner_best_friend_email"].type == "Email"  # two levels deep
    assert fields["owner_best_friend_best_friend"].type == "object"  # and no deeper
    owner = {f.name: f.type for f in {e.name: e for e in result.spec.entities}["owner"].fields}
    assert owner["email"] == "Email" and owner["phone"] == "Phone"
    assert owner["full_name"] == "PersonName"
    assert any("without a name" in w for w in result.warnings)
    photo = next(t for t in result.spec.tools if t.source == "PUT /pets/{petId}/photo")
    assert photo.simulated and "application/octet-stream" in (photo.simulated_reason or "")
    assert tools["archive_pet"].rule == "action:verb archive → transition status=archived"
    adopt = next(t for t in result.spec.tools if t.source == "POST /pets/{petId}/adopt")
    assert adopt.simulated and "'adopt'" in (adopt.simulated_reason or "")
    listing = {p.name: p.role for p in tools["list_pets"].params}
    assert listing == {"owner_id": "filter", "species": "filter", "limit": "limit"}
    verified = verify_spec(result.spec)
    assert {"list_owners", "get_owner", "list_pets", "create_pet", "archive_pet"} <= set(
        verified.implemented)


def test_archive_transition_runs_on_the_engine():
    verified = verify_spec(compile_doc(PETS, "pets").spec)
    env = Environment([build_service(verified.spec)], seed=3)
    pet = env.db("pets").select("pet", limit=1)[0]
    env.db("pets").update("pet", pet["id"], status="active")
    first = env.call("pets__archive_pet", {"pet_id": pet["id"]})
    assert first["success"] and first["data"]["status"] == "archived"
    again = env.call("pets__archive_pet", {"pet_id": pet["id"]})
    assert again["error"]["code"] == 422
    assert env.call("pets__archive_pet", {"pet_id": "pe_nope"})["error"]["code"] == 404


def test_max_tools_keeps_mapped_operations_first():
    result = compile_doc(PETS, "pets", max_tools=3)
    assert len(result.spec.tools) == 3
    assert not any(t.simulated for t in result.spec.tools)
    assert any("beyond max_tools=3" in w for w in result.warnings)


@pytest.mark.parametrize(("doc", "place", "message"), [
    ({"openapi": "3.0.0"}, "/paths", "missing or invalid 'paths'"),
    ({"paths": {"/a": {"get": {"responses": {"200": {"$ref": "#/components/responses/Nope"}}}}}},
     "/paths/~1a/get/responses/200", "points to nothing"),
    ({"paths": {"/a": {"get": {"parameters": {"name": "x"}}}}}, "/paths/~1a/get/parameters",
     "must be a list"),
    ({"paths": {"/a": "nope"}}, "/paths/~1a", "path item must be an object"),
    (["not", "a", "document"], "", "must be a JSON object"),
])
def test_malformed_specs_name_the_file_and_the_place(doc, place, message):
    with pytest.raises(SpecError) as caught:
        compile_doc(doc, "broken")
    error = caught.value
    assert error.source == "broken.json" and error.place == place
    assert message in str(error) and "broken.json" in str(error)


def test_a_cut_operation_still_answers_the_refs_of_kept_ones():
    """spacetraders' ``GET /factions`` ``$ref``s a schema inside ``POST /register``'s response."""
    faction = {"type": "object", "properties": {"symbol": {"type": "string"},
                                                "name": {"type": "string"}}}
    paths = {f"/x{i}:frobnicate": {"post": {"responses": {}}} for i in range(3)}
    paths["/register"] = {"post": {"responses": {"201": {"description": "ok", "content": {
        "application/json": {"schema": faction}}}}}}
    paths["/factions"] = {"get": {"responses": {"200": {"description": "ok", "content": {
        "application/json": {"schema": {"type": "array", "items": {"$ref": (
            "#/paths/~1register/post/responses/201/content/application~1json/schema")}}}}}}}}
    doc = {"openapi": "3.0.0", "info": {"title": "Space"}, "paths": paths}
    trimmed = trim_operations(doc, 1)
    assert trimmed["paths"]["/register"]["post"][TRIMMED] is True
    spec = compile_openapi(trimmed, name="space", domain="developer",
                           provenance=Provenance(source="space.json")).spec
    assert [t.source for t in spec.tools] == ["GET /factions"]
    assert {f.name for f in spec.entities[0].fields} >= {"symbol", "name"}
