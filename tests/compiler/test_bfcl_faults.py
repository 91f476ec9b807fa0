"""Compiler faults that bfcl-eval's real backends exposed (``bench/fidelity_bfcl.py``), each
fixed by a general rule and checked here on the real function docs: bfcl-eval 2026.3.23's
``ticket_api.json`` and ``travel_booking.json`` (``specs/``) and ``trading_bot.json`` (the
``docs`` of ``bfcl_trading_recorded.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compoworld.compiler import compile_openai_functions, verify_spec
from compoworld.service import Environment, Provenance, ServiceSpec, build_service

HERE = Path(__file__).parent


def _docs(name: str) -> list[dict[str, Any]]:
    if name == "trading_bot":
        return json.loads((HERE / "bfcl_trading_recorded.json").read_text())["docs"][
            "TradingBot"]["functions"]
    lines = (HERE / "specs" / f"bfcl_{name}.json").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _verified(name: str) -> ServiceSpec:
    result = compile_openai_functions(_docs(name), name=name, domain="developer",
                                      provenance=Provenance(source=f"{name}.json"))
    return verify_spec(result.spec, seed=0).spec


def _tool(spec: ServiceSpec, name: str) -> Any:
    return next(t for t in spec.tools if t.name == name)


def test_an_id_declared_integer_is_taken_as_an_integer() -> None:
    # ticket_api's get_ticket(ticket_id: integer) refused every real call with "Input should be
    # a valid string"; the id type follows the declaration
    spec = _verified("ticket_api")
    for name in ("get_ticket", "close_ticket", "resolve_ticket", "edit_ticket"):
        tool = _tool(spec, name)
        assert not tool.simulated, (name, tool.simulated_reason)
        assert [p.type for p in tool.params if p.role == "id"] == ["integer"]
    service = build_service(spec)
    ticket_id = service.tools["get_ticket"].parameters["properties"]["ticket_id"]
    assert ticket_id["x-ref"] == "ticket" and {"type": "integer"} in ticket_id["anyOf"]
    env = Environment([service], seed=0)
    env.plant("ticket_api", "ticket", {"id": "7423", "description": "Minor snag",
                                       "status": "unresolved"})
    got = env.call("ticket_api__get_ticket", {"ticket_id": 7423})
    assert got["success"] and got["data"]["description"] == "Minor snag", got
    assert env.call("ticket_api__close_ticket", {"ticket_id": 7423})["data"]["status"] == "closed"
    created = env.call("ticket_api__create_ticket", {"title": "Printer on fire"})["data"]
    assert env.call("ticket_api__get_ticket", {"ticket_id": created["id"]})["success"]
    assert env.call("ticket_api__get_ticket", {"ticket_id": 9})["error"]["code"] == 404
    assert env.call("ticket_api__get_ticket", {"ticket_id": True})["error"]["code"] == 400
    # an id declared a string stays one: travel_booking's cancel_booking(booking_id: string)
    travel = _verified("travel_booking")
    assert [p.type for p in _tool(travel, "cancel_booking").params if p.role == "id"] == [None]
    refused = Environment([build_service(travel)], seed=0).call(
        "travel_booking__cancel_booking", {"booking_id": 3426812, "access_token": "t"})
    assert refused["error"]["code"] == 400


def test_remove_x_from_y_takes_an_entry_out_of_y_never_deletes_x() -> None:
    # remove_stock_from_watchlist(symbol) was a delete of the *stock*: it took the stock off the
    # market. It takes the stock's entry out of the watchlist that add_to_watchlist fills.
    spec = _verified("trading_bot")
    add, remove = _tool(spec, "add_to_watchlist"), _tool(spec, "remove_stock_from_watchlist")
    assert (add.op, add.entity, remove.op, remove.entity) == ("create", "watchlist", "delete",
                                                              "watchlist")
    assert remove.rule == "fn:verb remove from watchlist → delete of an entry"
    assert [(p.name, p.role, p.field) for p in remove.params] == [("symbol", "filter", "stock")]
    assert not remove.simulated, remove.simulated_reason
    env = Environment([build_service(spec)], seed=0)
    env.plant("trading_bot", "stock", {"id": "NVDA", "symbol": "NVDA", "price": 220.34})
    before = env.call("trading_bot__get_watchlist", {})["data"]["total"]
    assert env.call("trading_bot__add_to_watchlist", {"stock": "NVDA"})["success"]
    assert env.call("trading_bot__get_watchlist", {})["data"]["total"] == before + 1
    removed = env.call("trading_bot__remove_stock_from_watchlist", {"symbol": "NVDA"})
    assert removed["success"], removed
    assert env.call("trading_bot__get_watchlist", {})["data"]["total"] == before
    stock = env.call("trading_bot__get_stock_info", {"symbol": "NVDA"})
    assert stock["success"] and stock["data"]["price"] == 220.34  # still on the market
    again = env.call("trading_bot__remove_stock_from_watchlist", {"symbol": "NVDA"})
    assert again["error"]["code"] == 404


def test_a_verify_verb_answering_a_verdict_is_a_question_not_a_lookup() -> None:
    # verify_traveler_information answered 404 for a traveler it had no record of, where the
    # real one answers {"verification_status": false, ...}
    spec = _verified("travel_booking")
    tool = _tool(spec, "verify_traveler_information")
    assert tool.op == "action" and tool.action.effect == "compute" and not tool.simulated
    assert tool.rule == "compute:verb verify answering a verdict → compute"
    service = build_service(spec)
    args = {"first_name": "Michael", "last_name": "Thompson", "date_of_birth": "1950-01-01",
            "passport_number": "P12345678"}
    first = Environment([service], seed=3).call("travel_booking__verify_traveler_information",
                                                args)
    assert first["success"] and isinstance(first["data"]["verification_status"], bool), first
    again = Environment([service], seed=3).call("travel_booking__verify_traveler_information",
                                                args)
    assert again == first
    # a transition verb answering the record stays a transition (close_ticket → status)
    assert _tool(_verified("ticket_api"), "close_ticket").action.effect == "transition"


def test_a_format_the_description_states_decides_the_semantic_type() -> None:
    # register_credit_card's expiration_date "in the format MM/YYYY" was typed Date
    # (YYYY-MM-DD) and refused every real call
    spec = _verified("travel_booking")
    fields = {e.name: {f.name: f.type for f in e.fields} for e in spec.entities}
    assert fields["credit_card"]["expiration_date"] == "string"
    assert fields["traveler"]["date_of_birth"] == "Date"  # "in the format YYYY-MM-DD"
    assert not _tool(spec, "register_credit_card").simulated
    card = Environment([build_service(spec)], seed=0).call(
        "travel_booking__register_credit_card",
        {"access_token": "abc", "card_number": "1432-7890-6543-9876", "expiration_date": "12/2025",
         "cardholder_name": "Michael Thompson", "card_verification_number": 456})
    assert card["success"], card


def test_a_status_the_spec_declares_free_text_is_not_narrowed_to_the_transitions() -> None:
    # close_ticket (first in the docs) added `status` for its transition, an enum of the states
    # transitions name; get_ticket declares `status` free text, and the real tickets are
    # "Open", "unresolved", "In Progress": the declaration holds
    spec = _verified("ticket_api")
    status = next(f for e in spec.entities if e.name == "ticket" for f in e.fields
                  if f.name == "status")
    assert status.type == "string" and status.enum is None
    env = Environment([build_service(spec)], seed=0)
    env.plant("ticket_api", "ticket", {"id": "1", "title": "Trading issue", "status": "Open"})
    closed = env.call("ticket_api__close_ticket", {"ticket_id": 1})
    assert closed["data"]["status"] == "closed"
    assert env.call("ticket_api__close_ticket", {"ticket_id": 1})["error"]["code"] == 422
