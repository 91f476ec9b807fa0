"""How a request reads: each service named once, a purpose that is what the writes do, reasons
by the record made, free text from office phrases, date fields as nouns. Real services, real
generated tasks."""

from __future__ import annotations

import random
import re

import pytest

from compoworld.catalog import load_service, load_services, service_names
from compoworld.service import Environment
from compoworld.tasks import Task, generate_tasks
from compoworld.tasks._instruction import _work
from compoworld.tasks._model import ArgSource, Step
from compoworld.tasks._phrasing import param_words, split_field
from compoworld.tasks._request import Request
from compoworld.tasks._service_names import display_name
from compoworld.tasks._values import _NAMES, _SENTENCES, _TAGS, user_value
from compoworld.tasks._vocabulary import why


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(generate_tasks(50, seed=5))


def _most_named(text: str, shown: set[str]) -> int:
    """The most times one service's name occurs in ``text`` ("the CRM" inside "the Apideck
    CRM" is the other service's name, not this one's)."""
    counts = [0]
    for name in shown:
        alone = len(re.findall(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text))
        counts.append(alone - sum(text.count(n) for n in shown if n != name and name in n))
    return max(counts)


def test_services_are_named_once_and_again_only_where_it_would_be_unclear(tasks) -> None:
    shown = {display_name(s) for s in load_services(service_names())}
    most = [_most_named(task.instruction, shown) for task in tasks]
    assert max(most) <= 2, max(most)
    assert sum(m > 1 for m in most) <= 0.1 * len(tasks), most  # a second naming is rare


def test_a_second_item_in_a_named_service_does_not_name_it_again() -> None:
    env = Environment(load_services(["contacts", "crm"]), seed=0)
    contact = env.call("contacts__find_contact_by_email",
                       {"email": env.db("contacts").select("contact", limit=1)[0]["email"]})
    assert contact["success"]
    found = {"name": ArgSource(kind="step", step=0, path="name", semantic="PersonName"),
             "email": ArgSource(kind="step", step=0, path="email", semantic="Email")}
    data = contact["data"]
    steps = [Step(tool="contacts__find_contact_by_email", arguments={"email": data["email"]},
                  sources={"email": ArgSource(kind="user", semantic="Email")}, output=data),
             Step(tool="crm__create_lead", arguments={"name": data["name"], "email": data["email"],
                                                      "company": "Acme", "source": "web"},
                  sources={**found, "company": ArgSource(kind="user"),
                           "source": ArgSource(kind="user")}, output={"id": "ld_1"}),
             Step(tool="crm__create_account", arguments={"name": "Acme"},
                  sources={"name": ArgSource(kind="user")}, output={"id": "ac_1"})]
    text = " ".join(Request(steps, env, None).items())
    assert text.count("the CRM") == 1 and text.count("my address book") == 1, text
    assert "there" in text.split("the CRM", 1)[1], text  # the next item: "there"


def test_the_purpose_is_what_the_writes_do_not_the_services_domain() -> None:
    env = Environment(load_services(["truora", "crm"]), seed=0)
    assert env.services["truora"].domain == "travel"  # a background-check API, filed so
    check = Step(tool="truora__create_check", arguments={}, sources={}, output={})
    assert _work([check], env) == []  # not "checking some travel arrangements"
    lead = Step(tool="crm__create_lead", arguments={}, sources={}, output={})
    assert _work([check, lead], env) == ["tidying up the sales pipeline"]


def test_reasons_come_from_the_record_made() -> None:
    assert why("create", "user", "sales") is None  # a CRM login is no one to follow up
    assert why("create", "lead", "sales") == "so the sales team can follow up"
    assert why("create", "applicant", "hr") == "so recruiting has them on file"
    assert why("create", "customer", "finance") == "so we can invoice them"
    assert why("create", "customer", "developer") is None


def test_free_text_titles_and_tags_are_office_phrases_not_lorem() -> None:
    from compoworld.tasks._context import context

    ctx = context(0)
    service = load_service("contacts")
    tool = service.tools["tag_contact"]
    tag = next(p for p in tool.params if p.name == "tag")
    fake = ctx.initial.pool.faker("test")
    rng = random.Random(1)
    assert {user_value(ctx, "contacts", tag, tool, rng, fake) for _ in range(10)} <= set(_TAGS)
    mail = load_service("mail").tools["create_draft"]
    body = next(p for p in mail.params if p.name == "body")
    assert user_value(ctx, "mail", body, mail, rng, fake) in (*_SENTENCES,
                                                              "Hello, a quick note to follow "
                                                              "up on our last exchange.")
    assert all(name[0].isupper() for name in _NAMES)


def test_date_fields_read_as_nouns() -> None:
    assert split_field("created", "Date") == ("", "creation date")
    assert param_words("due", "Date") == "due date"
    assert param_words("start_date", "Date") == "start date"


def test_the_earliest_and_the_latest_item_of_a_list_are_two_records() -> None:
    from compoworld.tasks._model import Selection

    env = Environment(load_services(["mail", "crm", "helpdesk"]), seed=0)
    listed = env.call("mail__list_messages", {"folder": "inbox"})["data"]
    items = listed["items"]
    newest = max(range(len(items)), key=lambda i: items[i]["sent_at"])
    oldest = min(range(len(items)), key=lambda i: items[i]["sent_at"])
    assert items[newest]["sender"] != items[oldest]["sender"]

    def sender(i: int, order: str) -> ArgSource:
        return ArgSource(kind="step", step=0, path=f"items.{i}.sender", semantic="Email",
                         selection=Selection(by="sent_at", order=order))

    steps = [Step(tool="mail__list_messages", arguments={"folder": "inbox"},
                  sources={"folder": ArgSource(kind="user")}, output=listed),
             Step(tool="helpdesk__create_customer", arguments={"email": items[newest]["sender"]},
                  sources={"email": sender(newest, "max")}, output={"id": "cu_1"}),
             Step(tool="crm__create_account", arguments={"owner": items[oldest]["sender"]},
                  sources={"owner": sender(oldest, "min")}, output={"id": "ac_1"}),
             Step(tool="crm__create_account", arguments={"owner": items[newest]["sender"]},
                  sources={"owner": sender(newest, "max")}, output={"id": "ac_2"})]
    items_said = Request(steps, env, None).items()
    assert "that sender" not in items_said[1] and "earliest" in items_said[1], items_said
    # Back to the first one: which of the two is said again, not "that message".
    assert "most recent message" in items_said[2] and "that message" not in items_said[2]
