"""A purpose claims only what the plan does (issue 14): a record *about* a person reaches
nobody; a plan that deletes a record does not then copy it elsewhere; a get with no argument
names nobody the request can say. Real services, real calls on a seeded world."""

from __future__ import annotations

import pytest

from compoworld.graph import extract_facts
from compoworld.service import Environment
from compoworld.tasks import build_world, generate_tasks
from compoworld.tasks._context import context
from compoworld.tasks._model import ArgSource, Step
from compoworld.tasks._purpose import PURPOSES, holds, purpose_for
from compoworld.tasks._removed import copies_removed, removed_records
from compoworld.tasks._roles import PERSON_TYPES
from compoworld.tasks._values import singles_out, unidentified_record


@pytest.fixture(scope="module")
def env() -> Environment:
    ctx = context(0)
    for service in ("contacts", "helpdesk", "tasks", "mail", "calendar"):
        ctx.mount(service)
    return ctx.work


def _found(step: int, path: str, semantic: str | None) -> ArgSource:
    return ArgSource(kind="step", step=step, path=path, semantic=semantic)


def _step(tool: str, arguments: dict | None = None, output: object = None,
          **sources: ArgSource) -> Step:
    return Step(tool=tool, arguments=arguments or {}, sources=sources, output=output)


def _contacts(env: Environment) -> Step:
    return _step("contacts__list_contacts", {}, env.call("contacts__list_contacts", {})["data"])


def test_a_record_about_a_person_reaches_nobody(env) -> None:
    contacts = _contacts(env)
    email = _found(0, "items.0.email", "Email")
    customer = _step("helpdesk__create_customer", email=email)  # a support system's record
    assert not holds("reaches-person", [contacts, customer], env)
    assert purpose_for("notify-affected", [contacts, customer], env) is None
    for reached in (_step("mail__send_message", to=email),  # a message sent to them
                    _step("tasks__create_task", assignee_email=email)):  # a task assigned
        assert holds("reaches-person", [contacts, reached], env), reached.tool
        assert purpose_for("notify-affected", [contacts, reached], env) in {
            p.text for p in PURPOSES["notify-affected"]}


def test_an_email_sent_to_someone_sets_nobody_up(env) -> None:
    contacts = _contacts(env)
    email = _found(0, "items.0.email", "Email")
    assert not holds("person-record", [contacts, _step("mail__send_message", to=email)], env)
    assert holds("person-record", [contacts, _step("contacts__create_contact", email=email)],
                 env)


def test_a_write_that_copies_a_deleted_record_is_refused_a_copy_then_a_delete_is_not(env):
    contacts = _contacts(env)
    first = contacts.output["items"][0]
    delete = _step("contacts__delete_contact", {"contact_id": first["id"]},
                   contact_id=_found(0, "items.0.id", "id"))
    assert removed_records(env, [contacts, delete]) == {("contact", first["id"])}
    copy = {"name": _found(0, "items.0.name", "PersonName"),
            "email": _found(0, "items.0.email", "Email")}
    create = env.tools["helpdesk__create_customer"]
    assert copies_removed(env, [contacts, delete], create, copy)  # "delete the contact, add it"
    assert not copies_removed(env, [contacts], create, copy)  # a move: copied, then deleted
    other = {"email": _found(0, "items.1.email", "Email")}  # another contact's: no contradiction
    assert not copies_removed(env, [contacts, delete], create, other)
    told = {"to": _found(0, "items.0.email", "Email")}  # telling them their record is closed
    assert not copies_removed(env, [contacts, delete], env.tools["mail__send_message"], told)
    customer = _step("helpdesk__create_customer", **copy)
    assert not holds("removes", [contacts, delete, customer], env)
    assert holds("removes", [contacts, customer, delete], env)
    assert purpose_for("offboard-person", [contacts, delete, customer], env) is None


def test_a_part_removed_from_a_record_leaves_the_record(env) -> None:
    event_id = env.call("calendar__list_events", {})["data"]["items"][0]["id"]
    removed = _step("calendar__remove_attendee", {"event_id": event_id, "email": "a@b.co"})
    assert removed_records(env, [removed]) == set()  # an attendee goes, the event stays


def test_a_get_with_no_argument_names_nobody_the_request_can_say() -> None:
    ctx = context(0)
    ctx.mount("twilio_oauth_v1")
    env = ctx.work
    name = "twilio_oauth_v1__fetch_user_info"
    tool = env.tools[name]
    assert unidentified_record(name, tool, {})
    output = env.call(name, {})["data"]
    facts = list(extract_facts(tool.output_schema, output, "twilio_oauth_v1"))
    people = [f for f in facts if f.key in (("type", "Email"), ("type", "PersonName"))]
    assert people  # it holds a person's email: "the email address of the user info" — whose?
    assert not any(singles_out(f, None, output, False, True) for f in people)
    assert all(singles_out(f, None, output, False) for f in people)  # a get by an id does


def test_no_generated_plan_copies_a_record_it_deleted_nor_carries_an_unnamed_person() -> None:
    tasks = list(generate_tasks(60, seed=41))  # the lead's reading sample: 11 of 120 did
    for task in tasks:
        env = build_world(task).env
        for i, step in enumerate(task.plan):
            assert not copies_removed(env, task.plan[:i], env.tools[step.tool], step.sources), \
                task.instruction
            for src in step.sources.values():
                if src.kind in ("step", "rule") and src.semantic in PERSON_TYPES:
                    found = task.plan[src.step]
                    assert not unidentified_record(found.tool, env.tools[found.tool],
                                                   found.sources), task.instruction


def test_handing_to_an_owner_gives_them_the_work_not_an_authors_field(env) -> None:
    tickets = _step("helpdesk__list_tickets", {}, env.call("helpdesk__list_tickets", {})["data"])
    owner = _found(0, "items.0.assignee_email", "Email")
    assert holds("to-owner", [tickets, _step("tasks__create_task", assignee_email=owner)], env)
    assert holds("to-owner", [tickets, _step("mail__send_message", to=owner)], env)
    commented = _step("tasks__add_comment", author_email=owner)  # written as them: given nothing
    assert not holds("to-owner", [tickets, commented], env)
