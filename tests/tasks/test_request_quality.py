"""Tasks as a reader sees them (issue 14): every write has a purpose the request can state, a
report back asks only for what the user does not know, the user never states an opaque code,
no description runs more than a few records deep. Real services, real generated tasks."""

from __future__ import annotations

import random
import re

import pytest

from compoworld.catalog import load_services
from compoworld.service import Environment
from compoworld.tasks import Task, build_world, generate_tasks
from compoworld.tasks._context import context
from compoworld.tasks._model import ArgSource, Selection, Step
from compoworld.tasks._record_names import CHAIN
from compoworld.tasks._request import Request
from compoworld.tasks._values import user_value
from compoworld.tasks._vocabulary import users_own
from compoworld.tasks._write_purpose import purposeful
from compoworld.types import text_role


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(generate_tasks(40, seed=21))


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(load_services(["mail", "crm", "helpdesk", "tasks"]), seed=0)


def _found(path: str = "items.0.x", semantic: str | None = None) -> ArgSource:
    return ArgSource(kind="step", step=0, path=path, semantic=semantic)


def test_a_write_has_a_purpose_only_where_the_request_can_state_one(env) -> None:
    tools = env.tools
    task = tools["tasks__create_task"]
    copied = {"project_id": _found("id", "id"), "assignee_email": _found(semantic="Email")}
    args = {"project_id": "pj_1", "assignee_email": "a@b.co"}
    assert not purposeful(task, "productivity", args, copied)  # nothing but copied values
    titled = {**copied, "title": ArgSource(kind="user")}
    assert purposeful(task, "productivity", {**args, "title": "Launch"}, titled)
    picked = {**copied, "priority": ArgSource(kind="user")}  # a pick among fixed choices
    assert not purposeful(task, "productivity", {**args, "priority": "high"}, picked)
    customer = tools["helpdesk__create_customer"]  # a person's record with a reason to say
    assert purposeful(customer, "support", {"email": "a@b.co"},
                      {"email": _found(semantic="Email")})
    update = tools["tasks__update_task"]
    assert not purposeful(update, "productivity", {"task_id": "tk_1"},
                          {"task_id": _found("items.0.id", "id")})  # nothing said to change
    assert purposeful(update, "productivity", {"task_id": "tk_1", "due": "2026-03-09"},
                      {"task_id": _found("items.0.id", "id"), "due": ArgSource(kind="user")})
    assert purposeful(tools["tasks__delete_task"], "productivity", {"task_id": "tk_1"},
                      {"task_id": _found("items.0.id", "id")})
    assert purposeful(tools["mail__send_message"], "communication", {"to": ["a@b.co"]},
                      {"to": _found(semantic="Email")})


def test_every_write_of_a_generated_task_has_a_purpose(tasks) -> None:
    for task in tasks:
        env = build_world(task).env
        for step in task.plan:
            tool = env.tools[step.tool]
            if tool.kind == "write":
                domain = env.services[step.tool.split("__", 1)[0]].domain
                assert purposeful(tool, domain, step.arguments, step.sources), \
                    (step.tool, task.instruction)


def test_a_report_back_never_asks_for_the_users_own_values(tasks) -> None:
    reports = [t for t in tasks if any(c.kind == "answer" for c in t.rubric)]
    assert reports
    for task in reports:
        user = build_world(task).env.pool.user
        for criterion in task.rubric:
            if criterion.kind == "answer":
                assert not any(users_own(user, v) for v in criterion.values), task.instruction
    me = build_world(reports[0]).env.pool.user
    assert users_own(me, me.email.upper()) and users_own(me, me.company.name)
    assert not users_own(me, "someone.else@example.com")


def test_the_user_never_states_an_opaque_code(tasks) -> None:
    ctx = context(0)
    fake = ctx.initial.pool.faker("test")
    ctx.mount("apideck_crm")  # a compiled CRM: an opportunity's primary_contact_id is a code
    crm = next(t for t in ctx.initial.tools.values() if t.kind == "write" and any(
        text_role(p.name) == "code" and p.semantic is None and not p.choices and not p.ref
        for p in t.params))
    code = next(p for p in crm.params if text_role(p.name) == "code" and p.semantic is None)
    service = next(n for n, t in ctx.initial.tools.items() if t is crm).split("__", 1)[0]
    assert user_value(ctx, service, code, crm, random.Random(0), fake) is None
    for task in tasks:
        env = build_world(task).env
        for step in task.plan:
            params = {p.name: p for p in env.tools[step.tool].params}
            for name, source in step.sources.items():
                param = params[name]
                if source.kind == "user" and param.semantic is None and not param.choices:
                    assert text_role(name) != "code", (step.tool, name, task.instruction)


def test_no_value_is_said_as_a_field_of_itself(tasks) -> None:
    """An item of a list of values ("phone_numbers.0") is the value, not a record holding it:
    never "the phone number of the phone number of the lead"."""
    for task in tasks:
        assert not re.search(r"\bthe ([a-z]+(?: [a-z]+)?) of the \1\b", task.instruction), \
            task.instruction


def test_a_read_deeper_than_the_chain_is_looked_up_first_and_referred_back_to(env) -> None:
    listed = env.call("mail__list_messages", {})["data"]
    first = listed["items"][0]
    deals = env.call("crm__list_deals", {"owner": first["sender_name"]})["data"]
    if not deals["items"]:  # the latest message's sender owns no deal: list everyone's
        deals = env.call("crm__list_deals", {})["data"]
    deal = deals["items"][0]
    account = env.call("crm__get_account", {"account_id": deal["account_id"]})["data"]
    pick = Selection(by="sent_at", order="max")
    steps = [
        Step(tool="mail__list_messages", arguments={}, sources={}, output=listed),
        Step(tool="crm__list_deals", arguments={"owner": first["sender_name"]},
             sources={"owner": ArgSource(kind="step", step=0, path="items.0.sender_name",
                                         semantic="PersonName", selection=pick)},
             output=deals),
        Step(tool="crm__get_account", arguments={"account_id": deal["account_id"]},
             sources={"account_id": ArgSource(kind="step", step=1, path="items.0.account_id",
                                              semantic="id")}, output=account),
        Step(tool="tasks__update_task", arguments={"task_id": "tk_1", "title": account["name"]},
             sources={"task_id": ArgSource(kind="user"),
                      "title": ArgSource(kind="step", step=2, path="name")}, output={}),
    ]
    item = Request(steps, env, None, mine=False).items()[0]
    head, then, rest = item.partition("; then ")
    assert head.startswith("find ") and then, item  # the deep read, on its own first
    assert "that " in rest, item  # and a back-reference where it stood
    for part in (head, rest):  # neither goes more than CHAIN records deep
        assert part.count(" of the ") + part.count(" of that ") <= CHAIN, item
