"""Roles at link choice: a found value crosses services only with its role, a value whose field
says it is no person's names no one, and one value is written into two services at most. Each
case runs real services' real calls; each rule has a case it refuses and one it lets through."""

from __future__ import annotations

from typing import Any

import pytest

from compoworld.catalog import load_services
from compoworld.service import Environment
from compoworld.tasks._model import ArgSource, Step
from compoworld.tasks._roles import COPY_LIMIT, crosses_roles, may_carry, slot_role
from compoworld.types import USER_JOBS, Pool

SERVICES = ["helpdesk", "apideck_ats", "payments", "tasks", "mail", "crm", "twilio_numbers_v1",
            "mailscript", "apideck_customer_support", "contacts"]


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(load_services(SERVICES), seed=0)


def _read(env: Environment, tool: str, arguments: dict[str, Any] | None = None) -> Step:
    envelope = env.call(tool, arguments or {})
    assert envelope["success"], envelope
    return Step(tool=tool, arguments=arguments or {}, sources={}, output=envelope["data"])


def _param(env: Environment, tool: str, name: str):
    return next(p for p in env.tools[tool].params if p.name == name)


def _item(step: Step, field: str, test=lambda item: True) -> tuple[int, dict[str, Any]]:
    return next((i, item) for i, item in enumerate(step.output["items"])
                if item.get(field) and test(item))


def test_an_assignee_is_staff_never_an_applicant_nor_a_customer(env) -> None:
    tickets = _read(env, "helpdesk__list_tickets")
    i, ticket = _item(tickets, "assignee_email")
    for target in ("apideck_ats__create_applicant", "apideck_customer_support__create_customer"):
        assert not may_carry(env, [tickets], (0, f"items.{i}.assignee_email"),
                             ticket["assignee_email"], "Email", target,
                             _param(env, target, "emails")), target


def test_a_customer_stays_a_customer_and_is_no_applicant(env) -> None:
    customers = _read(env, "helpdesk__list_customers")
    j, customer = _item(customers, "email",
                        lambda c: env.pool.role(env.pool.person_with(c["email"]) or
                                                env.pool.people[0]) == "outside")
    found = (0, f"items.{j}.email")
    support = "apideck_customer_support__create_customer"
    assert may_carry(env, [customers], found, customer["email"], "Email", support,
                     _param(env, support, "emails"))
    applicant = "apideck_ats__create_applicant"
    assert not may_carry(env, [customers], found, customer["email"], "Email", applicant,
                         _param(env, applicant, "emails"))


def test_a_customer_never_becomes_an_owner_but_an_assignee_may(env) -> None:
    invoice = env.db("payments").select("invoice", limit=1)[0]
    customer = _read(env, "payments__get_customer", {"customer_id": invoice["customer_id"]})
    project = "tasks__create_project"
    owner = _param(env, project, "owner_email")
    assert not may_carry(env, [customer], (0, "email"), customer.output["email"], "Email",
                         project, owner)
    tickets = _read(env, "helpdesk__list_tickets")
    i, ticket = _item(tickets, "assignee_email")
    assert may_carry(env, [tickets], (0, f"items.{i}.assignee_email"), ticket["assignee_email"],
                     "Email", project, owner)


def test_a_colleague_is_never_made_a_lead_whatever_record_they_are_found_in(env) -> None:
    pool = env.pool
    # A colleague's message and another's, somewhere in the mailbox: read page by page.
    pages, offset = [], 0
    while offset is not None:
        pages.append(_read(env, "mail__list_messages", {"limit": 100, "offset": offset}))
        offset = pages[-1].output["next_offset"]
    messages = pages[0].model_copy(update={"output": {
        **pages[0].output, "items": [m for page in pages for m in page.output["items"]]}})
    lead = "crm__create_lead"
    email = _param(env, lead, "email")
    by_role: dict[str, tuple[int, str]] = {}
    for i, message in enumerate(messages.output["items"]):
        person = pool.person_with(message["sender"])
        if person is not None:
            by_role.setdefault(pool.role(person), (i, message["sender"]))
    assert {"colleague", "outside"} <= set(by_role), by_role
    for role, allowed in (("colleague", False), ("outside", True)):
        i, sender = by_role[role]
        assert may_carry(env, [messages], (0, f"items.{i}.sender"), sender, "Email", lead,
                         email) is allowed, role
    colleague = next(p for p in pool.people if pool.role(p) == "colleague")
    # Even a record that says "customer" does not make a colleague one.
    assert crosses_roles(pool, colleague.email, ("email", "customer"), "Email",
                         ("email", "lead")) == "colleague as customer"


def test_a_field_named_for_something_else_names_no_one(env) -> None:
    tool = "twilio_numbers_v1__fetch_porting_portability"
    answer = {"phone_number": "+1-150-268-5379", "not_portable_reason": "+1-880-855-6686"}
    fetched = Step(tool=tool, arguments={"phone_number": "+1-150-268-5379"}, sources={},
                   output=answer)
    contact = "apideck_customer_support__create_customer"
    phones = _param(env, contact, "phone_numbers")
    assert not may_carry(env, [fetched], (0, "not_portable_reason"), "+1-880-855-6686",
                         "Phone", contact, phones)
    assert may_carry(env, [fetched], (0, "phone_number"), "+1-150-268-5379", "Phone", contact,
                     phones)


def test_one_value_goes_into_two_services_at_most_but_may_still_be_mailed(env) -> None:
    contacts = _read(env, "contacts__list_contacts")
    i, contact = _item(contacts, "email", lambda c: env.pool.role(
        env.pool.person_with(c["email"]) or env.pool.people[0]) == "outside")
    found = ArgSource(kind="step", step=0, path=f"items.{i}.email", semantic="Email")
    steps = [contacts]
    for tool, name in (("crm__create_lead", "email"),
                       ("apideck_customer_support__create_customer", "emails")):
        value = contact["email"] if name == "email" else [contact["email"]]
        steps.append(Step(tool=tool, arguments={name: value}, sources={name: found},
                          output={}))
    assert COPY_LIMIT == 2
    ats = "apideck_ats__create_applicant"
    assert may_carry(env, steps[:2], (0, found.path), contact["email"], "Email", ats,
                     _param(env, ats, "emails"))  # a second service: fine
    assert not may_carry(env, steps, (0, found.path), contact["email"], "Email", ats,
                         _param(env, ats, "emails"))  # a third: a copy
    assert may_carry(env, steps, (0, found.path), contact["email"], "Email",
                     "mail__send_message", _param(env, "mail__send_message", "to"))
    assert may_carry(env, steps, (0, found.path), contact["email"], "Email", "crm__create_lead",
                     _param(env, "crm__create_lead", "email"))  # a service it is already in


def test_slot_roles_and_the_pool_say_who_is_who() -> None:
    assert slot_role("assignee_email") == "staff"
    assert slot_role("account_owner") == "staff"  # the last role word decides
    assert slot_role("emails", "applicant") == "applicant"
    assert slot_role("supplier_email") == "vendor" and slot_role("email", "leads") == "customer"
    assert slot_role("ownerEmail") == "staff"
    assert slot_role("to", "message") is None and slot_role("email", "contact") is None
    pool = Pool(seed=5)
    assert pool.role(pool.user) == "user"
    assert pool.person_with(pool.people[3].email.upper()) == pool.people[3]
    assert {pool.role(p) for p in pool.people} == {"user", "colleague", "outside"}
    assert pool.user.job_title in USER_JOBS
    assert Pool(seed=5).user == pool.user  # the same seed, the same user


def test_the_users_own_company_is_never_made_a_customer(env) -> None:
    mine = env.pool.user.company.name
    contacts = _read(env, "contacts__list_contacts", {"company": mine})
    assert contacts.output["items"], "the user's colleagues are in the address book"
    support = "apideck_customer_support__create_customer"
    company = _param(env, support, "company_name")
    assert not may_carry(env, [contacts], (0, "items.0.company"), mine, "CompanyName",
                         support, company)
    other = next(c for c in env.pool.companies if c != env.pool.user.company).name
    assert may_carry(env, [contacts], (0, "items.0.company"), other, "CompanyName", support,
                     company)


def test_the_user_never_states_their_company_or_a_colleague_for_an_outside_record() -> None:
    import random as _random

    from compoworld.catalog import load_service
    from compoworld.tasks._context import context
    from compoworld.tasks._values import user_value

    tool = load_service("apideck_lead").tools["create_lead"]
    param = next(p for p in tool.params if p.name == "company_name")
    for seed in range(12):  # a world whose lead system holds the user's own company
        ctx = context(seed)
        mine = ctx.initial.pool.user.company.name
        if mine in ctx.user_values("apideck_lead", "CompanyName"):
            break
    else:
        pytest.fail("no world of 12 holds the user's company in the lead system")
    rng, fake = _random.Random(0), ctx.initial.pool.faker("test")
    stated = {user_value(ctx, "apideck_lead", param, tool, rng, fake) for _ in range(200)}
    assert mine not in stated and len(stated) > 1


def test_a_fan_out_keeps_roles_for_every_item(env) -> None:
    """A write copied for each item of a list takes each item's values: an item that is the
    user's own company makes no fan-out (the walk checked only the item it picked)."""
    import random as _random

    from compoworld.tasks._fanout import add_fanout
    from compoworld.tasks._model import Selection

    pool = env.pool
    outside = [c.name for c in pool.companies if c != pool.user.company][:2]
    support = "apideck_customer_support__create_customer"

    def plan(names: list[str]) -> list[Step]:
        listed = {"items": [{"company": n, "n": i} for i, n in enumerate(names)]}
        pick = ArgSource(kind="step", step=0, path="items.0.company", semantic="CompanyName",
                         selection=Selection(by="n", order="min"))
        return [Step(tool="contacts__list_contacts", arguments={}, sources={}, output=listed),
                Step(tool=support, arguments={"company_name": names[0]},
                     sources={"company_name": pick}, output={})]

    assert add_fanout(plan(outside), env, _random.Random(0)) is not None
    assert add_fanout(plan([outside[0], pool.user.company.name]), env, _random.Random(0)) is None


def test_a_fan_out_does_each_write_about_the_picked_item_for_every_item(env) -> None:
    """Two writes about the same picked item of one list are both done for each item ("for
    each company: a support customer and a CRM account"); a write about another list's item is
    left as it was."""
    import random as _random

    from compoworld.tasks._fanout import add_fanout
    from compoworld.tasks._model import Selection

    pool = env.pool
    outside = [c.name for c in pool.companies if c != pool.user.company][:3]
    listed = {"items": [{"company": n, "n": i} for i, n in enumerate(outside)]}
    pick = ArgSource(kind="step", step=0, path="items.0.company", semantic="CompanyName",
                     selection=Selection(by="n", order="min"))
    support = "apideck_customer_support__create_customer"
    plan = [Step(tool="contacts__list_contacts", arguments={}, sources={}, output=listed),
            Step(tool=support, arguments={"company_name": outside[0]},
                 sources={"company_name": pick}, output={}),
            Step(tool="crm__create_account", arguments={"name": outside[0]},
                 sources={"name": pick}, output={})]
    fanned = add_fanout(plan, env, _random.Random(0))
    assert fanned is not None and len(fanned) == 1 + 2 * len(outside)
    for tool, field in ((support, "company_name"), ("crm__create_account", "name")):
        copies = [s for s in fanned if s.tool == tool]
        assert [s.arguments[field] for s in copies] == outside  # one per item, in order
        assert all(s.sources[field].each and s.sources[field].selection is None
                   for s in copies)
