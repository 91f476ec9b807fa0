"""Custom actions on the generic engine: transition, send, count, summary, compute."""

import pytest

from compoworld.errors import UserError
from compoworld.service import (
    Environment,
    ServiceSpec,
    build_service,
    check_service,
)

SPEC = {
    "name": "shop", "domain": "retail", "description": "Orders and their messages.",
    "entities": [
        {"name": "order", "fields": [
            {"name": "customer_email", "type": "Email"},
            {"name": "total", "type": "Money"},
            {"name": "status", "type": "string", "enum": ["open", "paid", "cancelled"]}]},
        {"name": "message", "seed_count": 3, "fields": [
            {"name": "to", "type": "Email"}, {"name": "body", "type": "string"},
            {"name": "sent_on", "type": "Date"},
            {"name": "state", "type": "string", "enum": ["draft", "sent"]}]},
        {"name": "quote", "seed_count": 2, "fields": [
            {"name": "city", "type": "City"}, {"name": "day", "type": "Date"},
            {"name": "price", "type": "Money"}, {"name": "carrier", "type": "CompanyName"}]},
    ],
    "tools": [
        {"name": "cancel_order", "description": "Cancel an open order.", "op": "action",
         "entity": "order", "rule": "action:verb cancel → transition status=cancelled",
         "action": {"effect": "transition", "set": {"status": "cancelled"},
                    "allowed_from": ["open"]},
         "params": [{"name": "order_id", "role": "id"}]},
        {"name": "send_message", "description": "Send a message.", "op": "action",
         "entity": "message", "action": {"effect": "send", "set": {"state": "sent"}},
         "params": [{"name": "to", "role": "field"}, {"name": "body", "role": "field"}]},
        {"name": "count_orders", "description": "Count orders.", "op": "action",
         "entity": "order", "action": {"effect": "count"},
         "params": [{"name": "status", "role": "filter"}]},
        {"name": "summarize_orders", "description": "Order totals.", "op": "action",
         "entity": "order", "action": {"effect": "summary", "field": "total"},
         "params": [{"name": "status", "role": "filter"}]},
        {"name": "get_shipping_quote", "description": "Shipping quote for a city and day.",
         "op": "action", "entity": "quote", "action": {"effect": "compute"},
         "params": [{"name": "city", "role": "field", "required": True},
                    {"name": "day", "role": "field", "required": True}]},
    ],
}


@pytest.fixture(scope="module")
def service():
    return build_service(ServiceSpec.model_validate(SPEC))


def test_spec_with_actions_round_trips_json_and_passes_check_service(service):
    spec = ServiceSpec.model_validate(SPEC)
    assert ServiceSpec.model_validate_json(spec.model_dump_json()) == spec
    assert spec.tools[0].rule.startswith("action:verb cancel")
    report = check_service(service)
    assert report.ok, str(report)
    kinds = {name: tool.kind for name, tool in service.tools.items()}
    assert kinds == {"cancel_order": "write", "send_message": "write", "count_orders": "read",
                     "summarize_orders": "read", "get_shipping_quote": "read"}


def test_transition_moves_status_and_refuses_other_states(service):
    env = Environment([service], seed=0)
    db = env.db("shop")
    order = db.select("order", limit=1)[0]
    db.update("order", order["id"], status="open")
    done = env.call("shop__cancel_order", {"order_id": order["id"]})
    assert done["success"] and done["data"]["status"] == "cancelled"
    again = env.call("shop__cancel_order", {"order_id": order["id"]})
    assert again["error"]["code"] == 422 and "already" in again["error"]["message"]
    db.update("order", order["id"], status="paid")
    paid = env.call("shop__cancel_order", {"order_id": order["id"]})
    assert paid["error"]["code"] == 422 and "only applies" in paid["error"]["message"]


def test_send_stores_the_message_with_its_constants_and_date(service):
    env = Environment([service], seed=0)
    sent = env.call("shop__send_message", {"to": "Ada@Example.com", "body": "Hi"})
    assert sent["success"], sent
    record = env.db("shop").get("message", sent["data"]["id"])
    assert record["state"] == "sent" and record["to"] == "ada@example.com"
    assert record["sent_on"] == env.today.isoformat()


def test_count_and_summary_agree_with_the_state(service):
    env = Environment([service], seed=2)
    rows = env.db("shop").select("order", {"status": "paid"})
    count = env.call("shop__count_orders", {"status": "paid"})["data"]
    summary = env.call("shop__summarize_orders", {"status": "paid"})["data"]
    assert count == {"count": len(rows)}
    assert summary["count"] == len(rows)
    assert summary["sum"] == pytest.approx(sum(r["total"] for r in rows), abs=0.01)
    assert summary["max"] == max(r["total"] for r in rows)


def test_compute_is_a_seeded_consistent_lookup(service):
    env = Environment([service], seed=7)
    seeded = env.db("shop").select("quote", limit=1)[0]
    known = env.call("shop__get_shipping_quote", {"city": seeded["city"], "day": seeded["day"]})
    assert known["data"] == {k: v for k, v in seeded.items() if k != "id"}
    args = {"city": "Lyon", "day": "2026-03-01"}
    first = env.call("shop__get_shipping_quote", args)["data"]
    assert first == env.call("shop__get_shipping_quote", args)["data"]
    assert first == Environment([service], seed=7).call("shop__get_shipping_quote", args)["data"]
    other = Environment([service], seed=8).call("shop__get_shipping_quote", args)["data"]
    assert other != first  # another world, another answer
    assert first["city"] == "Lyon" and first["price"] > 0


@pytest.mark.parametrize(("tool", "message"), [
    ({"op": "action", "params": [{"name": "order_id", "role": "id"}]}, "needs 'action'"),
    ({"op": "action", "action": {"effect": "transition"},
      "params": [{"name": "order_id", "role": "id"}]}, "needs 'set'"),
    ({"op": "action", "action": {"effect": "transition", "set": {"status": "gone"}},
      "params": [{"name": "order_id", "role": "id"}]}, "not one of"),
    ({"op": "action", "action": {"effect": "count"},
      "params": [{"name": "order_id", "role": "id"}]}, "not allowed for effect 'count'"),
    ({"op": "list", "action": {"effect": "count"}}, "only for op 'action'"),
])
def test_inconsistent_actions_are_refused_with_the_reason(tool, message):
    spec = {**SPEC, "tools": [{"name": "bad_tool", "description": "Bad.", "entity": "order",
                               **tool}]}
    with pytest.raises(UserError, match=message):
        build_service(ServiceSpec.model_validate(spec))
