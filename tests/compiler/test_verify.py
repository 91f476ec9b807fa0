"""verify_spec: conformance generated from the spec; a failing tool is simulated, with why."""

from pathlib import Path

from compoworld.compiler import verify_spec
from compoworld.service import (
    EntitySpec,
    Environment,
    FieldSpec,
    ParamSpec,
    ServiceSpec,
    ToolSpec,
    build_service,
    load_spec,
)

HELPDESK = Path(__file__).parents[2] / "src/compoworld/catalog/support/helpdesk.json"


def test_hand_written_spec_passes_every_check():
    spec = load_spec(HELPDESK)
    verified = verify_spec(spec)
    assert verified.simulated == {}
    assert verified.implemented == [t.name for t in spec.tools]
    checks = verified.checks["list_tickets"].checks
    assert "errors" in checks and "list" in checks
    assert "delete" in verified.checks["delete_ticket"].checks
    assert verified.share == 1.0


def _notes(*tools: ToolSpec) -> ServiceSpec:
    note = EntitySpec(name="note", fields=[
        FieldSpec(name="title", type="string"), FieldSpec(name="body", type="string"),
        FieldSpec(name="author", type="Email", required=False)])
    return ServiceSpec(name="notes", domain="productivity", description="Notes.",
                       entities=[note], tools=list(tools))


def test_a_failing_tool_is_simulated_with_the_failed_check_as_reason():
    # create leaves out the required 'body': every call is refused, so it cannot be implemented.
    broken = ToolSpec(name="create_note", description="Create a note.", op="create",
                      entity="note", params=[ParamSpec(name="title", role="field")])
    fine = ToolSpec(name="get_note", description="Get a note.", op="get", entity="note",
                    params=[ParamSpec(name="note_id", role="id")])
    verified = verify_spec(_notes(broken, fine))
    assert verified.implemented == ["get_note"]
    reason = verified.simulated["create_note"]
    assert reason.startswith("verify: create: 400") and "body" in reason
    tool = {t.name: t for t in verified.spec.tools}["create_note"]
    assert tool.simulated and tool.simulated_reason == reason
    assert not verified.checks["create_note"].passed
    build_service(verified.spec)  # still a valid service: the world model answers that tool


def test_a_tool_that_cannot_be_exercised_is_not_called_implemented():
    # No seeded record to get: the get tool cannot be shown to work, so it stays simulated.
    spec = _notes(ToolSpec(name="get_note", description="Get a note.", op="get", entity="note",
                           params=[ParamSpec(name="note_id", role="id")]))
    spec.entities[0].seed_count = 0
    verified = verify_spec(spec)
    assert verified.implemented == []
    assert verified.simulated["get_note"] == "verify: no note record in the seeded state to act on"


def test_verification_is_deterministic_and_leaves_compiled_services_usable():
    spec = load_spec(HELPDESK)
    first, second = verify_spec(spec, seed=4), verify_spec(spec, seed=4)
    assert first.spec.model_dump_json() == second.spec.model_dump_json()
    env = Environment([build_service(first.spec)], seed=4)
    assert env.call("helpdesk__list_tickets", {"limit": 2})["success"]


def _suggestions(*keys: ParamSpec) -> ServiceSpec:
    # After vtex_marketplace_apis: DELETE /suggestions/{sellerId}/{sellerSkuId}, where match
    # records reference the suggestion they matched.
    suggestion = EntitySpec(name="suggestion", seed_count=2, fields=[
        FieldSpec(name="seller_id", type="string"), FieldSpec(name="seller_sku_id", type="string"),
        FieldSpec(name="state", type="string", enum=["new", "done"])])
    match = EntitySpec(name="match", seed_count=6, fields=[
        FieldSpec(name="suggestion_id", type="Ref", ref="suggestion"),
        FieldSpec(name="score", type="integer")])
    delete = ToolSpec(name="delete_suggestion", description="Delete a suggestion.", op="delete",
                      entity="suggestion", params=list(keys))
    return ServiceSpec(name="market", domain="retail", description="Suggestions.",
                       entities=[suggestion, match], tools=[delete])


def test_a_keyed_delete_of_a_referenced_record_is_checked_on_a_copy_the_key_names_alone():
    spec = _suggestions(
        ParamSpec(name="seller_id", role="filter", field="seller_id", required=True),
        ParamSpec(name="seller_sku_id", role="filter", field="seller_sku_id", required=True))
    verified = verify_spec(spec)
    assert verified.implemented == ["delete_suggestion"], verified.simulated
    assert "delete" in verified.checks["delete_suggestion"].checks


def test_a_delete_refused_as_still_referenced_fails_with_that_reason():
    # The only key is enumerated: the copy cannot be told apart from the seeded records, so
    # the call deletes a referenced seeded one and is refused; never a pass, never a loop.
    spec = _suggestions(ParamSpec(name="state", role="filter", field="state", required=True))
    verified = verify_spec(spec)
    assert verified.implemented == []
    reason = verified.simulated["delete_suggestion"]
    assert reason.startswith("verify: delete (the key names") and "409" in reason
