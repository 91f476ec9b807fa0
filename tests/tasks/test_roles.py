"""Roles: the walk never makes the user the subject of a record, nor renames their account."""

from __future__ import annotations

from compoworld.catalog import load_services
from compoworld.service import Environment
from compoworld.tasks import generate_tasks
from compoworld.tasks._context import context
from compoworld.tasks._roles import misuses_user


def _changes(env: Environment, name: str, arguments: dict) -> list:
    episode = env.fork()
    envelope = episode.call(name, arguments)
    assert envelope["success"], envelope
    return episode.changes() or []


def test_the_user_is_never_the_subject_of_a_record_but_may_own_it() -> None:
    env = Environment(load_services(["crm", "contacts"]), seed=0)
    user = env.pool.user
    as_lead = _changes(env, "crm__create_lead", {
        "name": user.name, "email": user.email, "company": "Acme", "source": "web",
        "owner": user.name})
    assert misuses_user(as_lead, user)
    owned = _changes(env, "crm__create_lead", {
        "name": "Ada Byron", "email": "ada.byron@example.com", "company": "Acme",
        "source": "web", "owner": user.name})
    assert not misuses_user(owned, user)
    contact = env.db("contacts").select("contact", limit=1)[0]
    renamed = _changes(env, "contacts__update_contact", {"contact_id": contact["id"],
                                                         "email": user.email})
    assert misuses_user(renamed, user)  # another person's record given the user's email


def test_generated_writes_use_the_user_only_as_who_acts() -> None:
    for task in generate_tasks(150, seed=7):
        user = context(task.seed).initial.pool.user  # the user of the task's own world
        identity = {user.email.casefold(), user.name.casefold()}
        for step in task.plan:
            name = step.tool.split("__", 1)[1]
            if name.startswith(("list", "get", "find", "search")):
                continue
            for field, value in step.arguments.items():
                if isinstance(value, str) and value.casefold() in identity:
                    assert any(w in field for w in ("author", "owner", "sender", "assign")), (
                        task.id, step.tool, field)


def test_a_services_one_account_is_never_renamed_after_someone_else() -> None:
    from compoworld.catalog import load_service
    from compoworld.tasks._roles import renames_person

    env = Environment([load_service("mailscript")], seed=0)
    assert env.db("mailscript").count("user") == 1  # the caller's own account
    renamed = _changes(env, "mailscript__update_user", {"display_name": "Ada Byron"})
    assert renamed and renames_person(renamed, env)
    for task in generate_tasks(100, seed=0):
        assert "mailscript__update_user" not in {s.tool for s in task.plan
                                                 if "display_name" in s.arguments}, task.id


def test_no_person_record_is_renamed_after_another_person() -> None:
    """Any record's own person name (a support customer's last name), not only a service's one
    account: changed from one name to another, it is refused; other fields, and a name a record
    points to (an owner), may change."""
    from compoworld.catalog import load_service
    from compoworld.tasks._roles import renames_person

    env = Environment([load_service("apideck_customer_support"), load_service("crm")], seed=0)
    customer = env.db("apideck_customer_support").select("customer", limit=1)[0]
    assert customer["last_name"]
    other = next(p for p in env.pool.people if p.last_name != customer["last_name"])
    renamed = _changes(env, "apideck_customer_support__update_customer",
                       {"id": customer["id"], "last_name": other.last_name})
    assert renamed and renames_person(renamed, env)
    noted = _changes(env, "apideck_customer_support__update_customer",
                     {"id": customer["id"], "notes": "Called back today"})
    assert noted and not renames_person(noted, env)
    deal = next(d for d in env.db("crm").select("deal") if d["stage"] not in ("won", "lost"))
    reassigned = _changes(env, "crm__update_deal", {"deal_id": deal["id"], "owner": other.name})
    assert reassigned and not renames_person(reassigned, env)


def test_generated_tasks_have_no_role_leak_and_copy_no_value_into_three_services() -> None:
    from datetime import date

    from compoworld.catalog import load_service
    from compoworld.tasks._role_audit import audit
    from compoworld.types import Pool

    tasks = list(generate_tasks(60, seed=11))
    tools = {f"{s}__{n}": t for task in tasks for s in task.involved
             for n, t in load_service(s).tools.items()}
    for task in tasks:
        found = audit(task, Pool(task.seed, today=date.fromisoformat(task.today)), tools)
        assert not found.leaks and not found.copies, (task.id, found)


def test_the_audit_finds_what_the_rule_refuses() -> None:
    """The reader's check is not the rule's echo: a plan built by hand with an assignee made
    an applicant and one phone number in three services is caught."""
    from compoworld.catalog import load_service
    from compoworld.tasks._model import ArgSource, Labels, Step, Task
    from compoworld.tasks._role_audit import audit

    env = Environment(load_services(["helpdesk", "apideck_ats", "crm", "mailscript"]), seed=0)
    tickets = env.call("helpdesk__list_tickets", {})["data"]
    i, ticket = next((i, t) for i, t in enumerate(tickets["items"]) if t.get("assignee_email"))
    email = ticket["assignee_email"]
    found = ArgSource(kind="step", step=0, path=f"items.{i}.assignee_email", semantic="Email")
    plan = [Step(tool="helpdesk__list_tickets", arguments={}, sources={}, output=tickets),
            Step(tool="apideck_ats__create_applicant", arguments={"emails": [email]},
                 sources={"emails": found}, output={}),
            Step(tool="crm__create_lead", arguments={"email": email, "name": "A B",
                                                     "company": "C", "source": "web"},
                 sources={"email": found}, output={}),
            Step(tool="mailscript__add_verification", arguments={"email": email, "type": "email"},
                 sources={"email": found}, output={})]
    task = Task(id="t", seed=0, involved=["helpdesk", "apideck_ats", "crm", "mailscript"],
                distractors=[], interface="direct", today=env.today.isoformat(),
                system_prompt="", instruction="", plan=plan, rubric=[],
                labels=Labels(domain="", capabilities=[], services=[]), verification={},
                provenance={})
    tools = {f"{s}__{n}": t for s in task.involved for n, t in load_service(s).tools.items()}
    result = audit(task, env.pool, tools)
    assert any(line.startswith("staff as applicant: step 1") for line in result.leaks), result
    assert result.copies == [f"{email!r} into 3 services"]


def test_a_choice_by_two_criteria_never_picks_someone_of_another_role() -> None:
    # Attempts 236 and 250 of seed 0 once chose "the youngest contact among those whose first
    # name is ...", an outside person, as a project's owner: the walk had checked its own pick,
    # the choice by two criteria picked another item unchecked. Now a choice whose writes leak
    # a role is not made (tasks._tradeoff._leaks_roles).
    from datetime import date

    from compoworld.catalog import load_service
    from compoworld.tasks._role_audit import audit
    from compoworld.types import Pool

    for attempt in (236, 250):
        (task,) = generate_tasks(1, seed=0, start_attempt=attempt, max_attempts=1)
        tools = {f"{s}__{n}": t for s in task.involved for n, t in load_service(s).tools.items()}
        found = audit(task, Pool(task.seed, today=date.fromisoformat(task.today)), tools)
        assert task.id == f"t0-{attempt:06d}" and not found.leaks, (task.id, found.leaks)
