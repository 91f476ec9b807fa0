"""Tasks a reader can follow (issue 14, clarity): a record taken from a list is singled out (a
filter or a ranking, never a bare "the lead"), no value is carried back from the answer of the
call it was given to, no update copies a field of a record into itself, no condition is built
on a system's bookkeeping dates. Real services, real generated tasks."""

from __future__ import annotations

import pytest

from compoworld.catalog import load_service
from compoworld.graph import Fact, lists_records
from compoworld.service import Tool
from compoworld.tasks import Task, generate_tasks
from compoworld.tasks._model import Selection, Step
from compoworld.tasks._phrasing import bookkeeping, compare, relative_to
from compoworld.tasks._values import singles_out, unfiltered_list


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(generate_tasks(60, seed=31))


def _tool(step: Step) -> Tool:
    service, name = step.tool.split("__", 1)
    return load_service(service).tools[name]


def test_an_unfiltered_lists_record_is_said_only_by_a_ranking() -> None:
    leads = load_service("apideck_lead").tools["list_leads"]
    assert not lists_records(leads.output_schema)  # it answers with one lead: which, unsaid
    assert unfiltered_list("apideck_lead__list_leads", leads, {})
    one = Fact(("type", "CompanyName"), "Acme", "company_name")
    assert not singles_out(one, None, {"company_name": "Acme"}, unfiltered=True)
    assert singles_out(one, None, {"company_name": "Acme"}, unfiltered=False)  # a filter says it
    listed = Fact(("type", "Email"), "a@b.co", "items.0.email", "items", 0, 1)
    answer = {"items": [{"email": "a@b.co", "created_at": "2026-01-02"}]}
    assert not singles_out(listed, None, answer, unfiltered=True)  # the lone item: "the X"
    newest = Selection(by="created_at", order="max")
    assert singles_out(listed, newest, answer, unfiltered=True)  # "the newest X"


def test_no_generated_task_takes_a_record_of_an_unfiltered_list_without_a_ranking(tasks) -> None:
    checked = 0
    for task in tasks:
        # A recovery's read stands for the refused create ("the customer you added"): the
        # request says the create, never the read (``tasks._recovery``).
        recovered = {t.position for t in (task.scenario.traps if task.scenario else [])
                     if t.kind == "refusal"}
        for step in task.plan:
            for source in step.sources.values():
                if source.kind != "step" or source.each or source.step in (None, *recovered):
                    continue
                origin = task.plan[source.step]
                if unfiltered_list(origin.tool, _tool(origin), origin.sources):
                    checked += 1
                    assert source.selection is not None, (task.id, step.tool, source)
    assert checked  # the rule was met, not avoided


def test_no_value_is_carried_from_the_answer_of_the_call_it_was_given_to(tasks) -> None:
    """"The company of the youngest contact at the company name of that lead": the company a
    list was filtered by comes back on every item; a write takes it from where it was found."""
    for task in tasks:
        for step in task.plan:
            for name, source in step.sources.items():
                if source.kind != "step" or source.step is None or source.semantic in (
                        None, "id", "Ref"):
                    continue
                origin = task.plan[source.step]
                given = {repr(origin.arguments[n]) for n, s in origin.sources.items()
                         if s.kind != "user"}
                assert repr(step.arguments[name]) not in given or _tool(origin).kind == "write", (
                    task.id, step.tool, name)


def test_no_update_sets_a_field_of_a_record_to_its_own_value(tasks) -> None:
    for task in tasks:
        for step in task.plan:
            if not step.tool.split("__", 1)[1].startswith("update"):
                continue
            target = {repr(v) for n, v in step.arguments.items() if n.endswith("id")}
            for name, source in step.sources.items():
                if source.kind == "step" and source.step is not None and name in (
                        source.path or "").split("."):
                    record = task.plan[source.step].output
                    assert not (isinstance(record, dict)
                                and target & {repr(v) for v in record.values()}), task.id


def test_no_condition_is_on_a_bookkeeping_date(tasks) -> None:
    assert bookkeeping("updated_at") and bookkeeping("deleted_at") and bookkeeping("dateModified")
    assert bookkeeping("date_lead_created")  # created, but no person says it so
    assert not bookkeeping("created_at") and not bookkeeping("due_date")
    assert not bookkeeping("last_activity_at")
    assert compare("last_activity_at", "gt", "2026-03-15", "that deal") == (
        "the last activity date of that deal is after 2026-03-15")
    conditions = [t.condition for t in tasks if t.condition is not None]
    assert conditions
    for condition in conditions:
        assert not bookkeeping(condition.path.rpartition(".")[2]), condition.path


def test_a_date_field_reads_as_a_date_not_a_column() -> None:
    """Not "the sent at of that message", "the last activity at of that deal"."""
    assert relative_to("the day before", "sent_at", "that message") == (
        "the day before that message was sent")
    assert relative_to("two days after", "due_date", "that invoice") == (
        "two days after that invoice is due")
    assert relative_to("the day before", "last_activity_at", "that deal") == (
        "the day before the last activity date of that deal")
