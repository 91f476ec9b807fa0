"""The verifier: wrong trajectories written by hand, on real services and real SQLite, score
below full completion; the reference passes; what the world model writes back is no effect.

Each test builds a rubric from an executed reference plan (``state_criteria``, as generation
does) and scores a wrong episode that is not made by ``tasks._mutations`` (the gate's own
mutations would make these tests circular).
"""

from __future__ import annotations

from typing import Any

import pytest

from compoworld.catalog import load_services
from compoworld.service import Environment
from compoworld.tasks import Criterion, Step, generate_tasks, score, states
from compoworld.tasks._rubric import collateral_criterion, plan_values, state_criteria, value_fields


@pytest.fixture(scope="module")
def world() -> Environment:
    return Environment(load_services(["contacts", "crm", "mail"]), seed=0)


def _rubric(world: Environment, calls: list[tuple[str, dict[str, Any]]]) -> list[Criterion]:
    env = world.fork()
    plan, changes = [], []
    for name, arguments in calls:
        mark = len(env.changes() or ())
        envelope = env.call(name, arguments)
        assert envelope["success"], envelope
        plan.append(Step(tool=name, arguments=arguments, sources={}, output=envelope["data"]))
        changes.append((env.changes() or [])[mark:])
    env.close()
    return [*state_criteria(plan, changes, world), collateral_criterion()]


def _run(world: Environment, rubric: list[Criterion], calls: list[tuple[str, dict[str, Any]]],
         message: str = "Done.") -> dict[str, tuple[bool, str]]:
    env = world.fork()
    done = []
    for name, arguments in calls:
        if env.call(name, arguments)["success"]:
            done.append((name, arguments))
    results = score(rubric, world, env, message, done)
    env.close()
    return {r.id: (r.passed, r.reason) for r in results}


def _full(results: dict[str, tuple[bool, str]]) -> bool:
    return all(passed for passed, _ in results.values())


def test_the_reference_passes_and_doing_nothing_fails(world: Environment) -> None:
    deal = world.db("crm").select("deal", {"stage": "prospecting"}, limit=1)[0]
    plan = [("crm__update_deal", {"deal_id": deal["id"], "amount": 1234.5}),
            ("mail__send_message", {"to": ["ada@example.com"], "subject": "Deal",
                                    "body": "Updated."})]
    rubric = _rubric(world, plan)
    assert [c.change for c in rubric if c.kind == "state"] == ["update", "create"]
    assert _full(_run(world, rubric, plan))
    idle = _run(world, rubric, [])
    assert not any(passed for passed, _ in idle.values())
    assert idle["no-collateral"][1] == "nothing the task asks for changed either"


def test_the_same_update_on_a_second_record_fails(world: Environment) -> None:
    first, second = world.db("crm").select("deal", {"stage": "prospecting"}, limit=2)
    plan = [("crm__update_deal", {"deal_id": first["id"], "amount": 4321.0})]
    rubric = _rubric(world, plan)
    results = _run(world, rubric, [*plan, ("crm__update_deal",
                                           {"deal_id": second["id"], "amount": 4321.0})])
    assert not _full(results)
    passed, reason = results["no-collateral"]
    assert not passed and second["id"] in reason


def test_an_extra_record_made_with_the_tasks_own_tool_fails(world: Environment) -> None:
    account = world.db("crm").select("account", limit=1)[0]
    plan = [("crm__create_contact", {"account_id": account["id"], "name": "Ada Byron",
                                     "email": "ada.byron@example.com"})]
    rubric = _rubric(world, plan)
    extra = ("crm__create_contact", {"account_id": account["id"], "name": "Bo Chen",
                                     "email": "bo.chen@example.com"})
    results = _run(world, rubric, [*plan, extra])
    assert results[rubric[0].id][0]  # the right record is there...
    assert not results["no-collateral"][0]  # ...and one more, which fails the constraint


def test_the_last_write_repeated_leaves_a_duplicate_that_fails(world: Environment) -> None:
    send = ("mail__send_message", {"to": ["ada@example.com"], "subject": "Invoice 7",
                                   "body": "Attached."})
    rubric = _rubric(world, [send])
    results = _run(world, rubric, [send, send])
    passed, reason = results[rubric[0].id]
    assert not passed and "duplicate" in reason
    assert not results["no-collateral"][0]


def test_a_draft_instead_of_a_send_plus_junk_fails(world: Environment) -> None:
    send = ("mail__send_message", {"to": ["ada@example.com"], "subject": "Quote",
                                   "body": "Here is the quote."})
    rubric = _rubric(world, [send])
    create = next(c for c in rubric if c.change == "create")
    assert create.match["status"] == "sent"  # an outcome field no argument gave
    draft = ("mail__create_draft", dict(send[1]))
    junk = ("mail__send_message", {"to": ["stranger@example.net"], "subject": "hi",
                                   "body": "hello"})
    results = _run(world, rubric, [draft, junk])
    passed, reason = results[create.id]
    assert not passed and "status" in reason
    assert not results["no-collateral"][0]


def test_an_outcome_field_must_be_reached_not_only_the_arguments(world: Environment) -> None:
    deal = world.db("crm").select("deal", {"stage": "prospecting"}, limit=1)[0]
    rubric = _rubric(world, [("crm__advance_deal_stage", {"deal_id": deal["id"],
                                                          "stage": "qualification"})])
    (update,) = [c for c in rubric if c.kind == "state"]
    assert update.match["stage"] == "qualification"
    results = _run(world, rubric, [("crm__update_deal", {"deal_id": deal["id"], "name": "X"})])
    assert not results[update.id][0]


def test_the_plan_then_trashing_the_mailbox_fails(world: Environment) -> None:
    send = ("mail__send_message", {"to": ["ada@example.com"], "subject": "Notes",
                                   "body": "See below."})
    rubric = _rubric(world, [send])
    others = [m["id"] for m in world.db("mail").select("message")]
    assert len(others) > 10
    trash = [("mail__delete_message", {"message_id": m}) for m in others]
    results = _run(world, rubric, [send, *trash])
    assert results[rubric[0].id][0]
    passed, reason = results["no-collateral"]
    assert not passed and "more" in reason


def test_a_change_made_then_undone_is_no_change(world: Environment) -> None:
    deal = world.db("crm").select("deal", {"stage": "prospecting"}, limit=1)[0]
    plan = [("crm__update_deal", {"deal_id": deal["id"], "amount": 999.0})]
    rubric = _rubric(world, plan)
    back = ("crm__update_deal", {"deal_id": deal["id"], "amount": deal["amount"]})
    other = world.db("crm").select("deal", {"stage": "prospecting"}, limit=2)[1]
    touch = ("crm__update_deal", {"deal_id": other["id"], "amount": 1.0})
    untouch = ("crm__update_deal", {"deal_id": other["id"], "amount": other["amount"]})
    assert _full(_run(world, rubric, [*plan, touch, untouch]))  # net, nothing else changed
    assert not _full(_run(world, rubric, [*plan, back]))


def _answer(world: Environment, value: Any, semantic: str) -> Criterion:
    return Criterion(id="answer-0", kind="answer", description="the email", values=[value],
                     semantic=semantic, fields=value_fields(world, ["crm"], semantic, value))


def test_answers_are_whole_values_and_a_hedge_fails(world: Environment) -> None:
    contacts = world.db("crm").select("contact", limit=3)
    email = contacts[0]["email"]
    criterion = _answer(world, email, "Email")
    assert criterion.fields == ["crm__contact.email"]

    def verdict(message: str) -> bool:
        (result,) = score([criterion], world, world.fork(), message, [])
        return result.passed

    assert verdict(f"Her email is {email}.")
    assert verdict(f"Her email is {email.upper()}")
    assert not verdict(f"Her email is {email}m.")  # the right value inside a wrong one
    assert not verdict(f"x{email}")
    assert not verdict(f"It is {email}, {contacts[1]['email']} or {contacts[2]['email']}.")
    assert not verdict(f"Either {email} or {contacts[1]['email']}.")


def test_numbers_dates_and_phones_match_as_their_types_define() -> None:
    assert states("The total is $1,234.50.", 1234.5, "Money")
    assert states("total 1234.5 USD", 1234.5, "Money")
    assert not states("The total is 11,234.50.", 1234.5, "Money")
    assert not states("The total is 1,234.55.", 1234.5, "Money")
    assert states("Due on March 4, 2026.", "2026-03-04", "Date")
    assert states("Due 2026-03-04.", "2026-03-04", "Date")
    assert not states("Due 2026-03-14.", "2026-03-04", "Date")
    assert states("Call (555) 010-2030 today", "555.010.2030", "Phone")
    assert not states("Call (555) 010-20301", "555.010.2030", "Phone")
    assert states("The order is ORD-1234.", "ORD-1234", "OrderNumber")
    assert not states("The order is ORD-12345.", "ORD-1234", "OrderNumber")


def test_what_the_world_model_writes_back_on_a_read_is_no_effect() -> None:
    from compoworld.catalog import load_service
    from compoworld.simulate import simulated

    env = Environment([simulated(load_service("contacts"), ["get_contact"])], seed=0)
    episode = env.fork()
    invented = episode.call("contacts__get_contact", {"contact_id": "ct_00c0ffee"})
    assert invented["success"] and invented["data"]["id"] == "ct_00c0ffee"
    journal = episode.changes() or []
    assert [c.origin for c in journal] == ["world"]  # the invented contact, written back
    (result,) = score([collateral_criterion()], env, episode, "", [])
    assert result.passed, result.reason
    # A write the agent makes to that record is its effect.
    favorite = not invented["data"]["favorite"]
    assert episode.call("contacts__set_favorite", {"contact_id": "ct_00c0ffee",
                                                   "favorite": favorite})["success"]
    (result,) = score([collateral_criterion()], env, episode, "", [])
    assert not result.passed and "ct_00c0ffee" in result.reason


def test_an_answer_knows_every_value_the_final_plan_uses() -> None:
    # The answer is made on the walk's plan; a fan-out's copies (and a scenario's reads) come
    # after it. A report naming what those calls were given is no hedge.
    tasks = [t for t in generate_tasks(300, seed=0)
             if any(c.kind == "answer" for c in t.rubric)
             and any(src.each for s in t.plan for src in s.sources.values())]
    assert tasks, "no fan-out task with an answer in 300 tasks of seed 0"
    for task in tasks:
        for answer in (c for c in task.rubric if c.kind == "answer"):
            own = {repr(v) for v in answer.values}
            known = {repr(v) for v in answer.known}
            assert {repr(v) for v in plan_values(task.plan)} - own <= known, task.id
