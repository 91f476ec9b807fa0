"""MCP and OpenAI-function importers on real tool lists (bfcl-eval dialect included)."""

import json
from pathlib import Path

import pytest

from compoworld.compiler import SpecError, compile_mcp, compile_openai_functions, verify_spec
from compoworld.compiler._functions import normalize_schema
from compoworld.service import Environment, Provenance, build_service, check_service

SPECS = Path(__file__).parent / "specs"


def bfcl(name: str) -> list[dict]:
    lines = (SPECS / f"bfcl_{name}.json").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def by_name(spec) -> dict:
    return {t.name: t for t in spec.tools}


def test_bfcl_dialect_types_are_standard_json_schema():
    schema = normalize_schema({"type": "dict", "properties": {
        "a": {"type": "float"}, "b": {"type": "tuple", "items": {"type": "integer"}},
        "c": {"type": "any"}, "d": {"type": "dict", "properties": {"e": {"type": "float"}}}}})
    assert schema["type"] == "object"
    props = schema["properties"]
    assert props["a"]["type"] == "number" and props["b"]["type"] == "array"
    assert "type" not in props["c"] and props["d"]["properties"]["e"]["type"] == "number"


def test_bfcl_ticket_api_maps_crud_and_transitions():
    result = compile_openai_functions(bfcl("ticket_api"), name="ticket_api", domain="support",
                                      provenance=Provenance(source="bfcl_ticket_api.json"))
    tools = by_name(result.spec)
    assert tools["close_ticket"].action.effect == "transition"
    assert tools["close_ticket"].rule == "action:verb close → transition status=closed"
    assert tools["resolve_ticket"].action.set == {"status": "resolved"}
    assert (tools["get_ticket"].op, tools["edit_ticket"].op) == ("get", "update")
    assert tools["logout"].simulated  # no resource named: honest simulation
    verified = verify_spec(result.spec)
    assert {"close_ticket", "resolve_ticket", "get_ticket", "edit_ticket",
            "create_ticket"} <= set(verified.implemented)
    env = Environment([build_service(verified.spec)], seed=1)
    created = env.call("ticket_api__create_ticket", {"title": "Printer on fire"})
    assert created["success"], created
    closed = env.call("ticket_api__close_ticket", {"ticket_id": created["data"]["id"]})
    assert closed["data"]["status"] == "closed"


@pytest.mark.parametrize("name", ["message_api", "travel_booking"])
def test_bfcl_services_verify_and_pass_check_service(name):
    result = compile_openai_functions(bfcl(name), name=name, domain="travel",
                                      provenance=Provenance(source=f"bfcl_{name}.json"))
    verified = verify_spec(result.spec)
    assert verified.implemented
    assert set(verified.simulated) | set(verified.implemented) == {t.name for t in result.spec.tools}
    assert check_service(build_service(verified.spec)).ok


def test_travel_booking_exchange_rate_is_a_deterministic_computation():
    result = compile_openai_functions(bfcl("travel_booking"), name="travel", domain="travel",
                                      provenance=Provenance(source="bfcl_travel_booking.json"))
    tool = by_name(result.spec)["compute_exchange_rate"]
    assert tool.action.effect == "compute" and tool.rule.startswith("compute:")
    verified = verify_spec(result.spec)
    assert "compute_exchange_rate" in verified.implemented
    service = build_service(verified.spec)
    args = {"base_currency": "USD", "target_currency": "EUR", "value": 100.0}
    first = Environment([service], seed=5).call("travel__compute_exchange_rate", args)
    again = Environment([service], seed=5).call("travel__compute_exchange_rate", args)
    assert first["success"] and first == again


def test_mcp_annotations_and_bulk_tools():
    doc = json.loads((SPECS / "mcp_server_memory.json").read_text())
    result = compile_mcp(doc, name="memory", domain="productivity",
                         provenance=Provenance(source="mcp_server_memory.json"))
    tools = by_name(result.spec)
    assert "bulk operation" in tools["create_entities"].simulated_reason
    assert "readOnlyHint" in tools["open_nodes"].simulated_reason  # 'open' would write
    doc = json.loads((SPECS / "mcp_server_filesystem.json").read_text())
    result = compile_mcp(doc["tools"], name="files", domain="productivity",
                         provenance=Provenance(source="mcp_server_filesystem.json"))
    tools = by_name(result.spec)
    assert tools["create_directory"].op == "create"
    assert tools["search_files"].rule == "mcp:verb search → search (readOnlyHint)"
    # read_file(path, head, tail): the get has no role for head / tail, so it is simulated
    # with that reason (never implemented while refusing declared inputs)
    assert tools["read_file"].rule == "mcp:verb read by key path → get (readOnlyHint)"
    assert tools["read_file"].simulated
    assert "'tail', 'head'" in tools["read_file"].simulated_reason
    assert [(p.name, p.role, p.field) for p in tools["get_file_info"].params] == [
        ("path", "filter", "path")]
    assert "contents" in tools["list_directory"].simulated_reason  # not "directories at path"
    assert "identifies" in tools["move_file"].simulated_reason
    assert tools["list_allowed_directories"].op == "list"
    verified = verify_spec(result.spec)
    assert {"create_directory", "get_file_info"} <= set(verified.implemented)
    # search_files(path, pattern, excludePatterns): the exclusion has no role
    assert "excludePatterns" in tools["search_files"].simulated_reason


@pytest.mark.parametrize(("call", "place"), [
    (lambda: compile_mcp({"tool": []}, name="x", domain="d", provenance=Provenance(source="s")),
     "/tools"),
    (lambda: compile_mcp([{"description": "no name"}], name="x", domain="d",
                         provenance=Provenance(source="s")), "/0"),
    (lambda: compile_openai_functions([{"name": "f", "parameters": {"type": "string"}}], name="x",
                                      domain="d", provenance=Provenance(source="s")),
     "/0/parameters"),
])
def test_malformed_tool_lists_name_the_place(call, place):
    with pytest.raises(SpecError) as caught:
        call()
    assert caught.value.source == "s" and caught.value.place == place
