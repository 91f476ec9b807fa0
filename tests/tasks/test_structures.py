"""Batches with exceptions and choices by two criteria: each real in the task (its world, its
plan, its words), each behind a gate that fails the plan ignoring it, each with its label."""

from __future__ import annotations

import asyncio
import random
from datetime import date

import pytest

from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import score_trajectory
from compoworld.tasks import GenerationSettings, Task, build_world, generate_task, verify_task
from compoworld.tasks._check import score
from compoworld.tasks._exceptions import other_exception_fails
from compoworld.tasks._following import run_following
from compoworld.tasks._model import Among, DateShift, Selection
from compoworld.tasks._mutations import (
    answer_message,
    naive_mutations,
    passing_mutations,
    run_mutation,
)
from compoworld.tasks._scenario import trap_matters
from compoworld.tasks._temporal import relation, shift_matters, shifted
from compoworld.tasks._threshold import threshold_matters
from compoworld.tasks._tradeoff import _criteria, _rechosen, tradeoffs

HELD_BACK = (0, 10402)
"""(seed, attempt) of a task whose fan-out holds one item back (found by generating seed 0)."""
TWO_CRITERIA = (0, 10006)
"""(seed, attempt) of a task that chooses an item by two criteria."""


def _has(kind: str, task: Task) -> bool:
    traps = {t.kind for t in task.scenario.traps} if task.scenario else set()
    sources = [src for s in task.plan for src in s.sources.values()]
    return {"exception": "exception" in traps, "decoy": "decoy" in traps,
            "tradeoff": any(src.selection and src.selection.among for src in sources),
            "temporal": any(src.op == "shift" for src in sources),
            "threshold": bool(task.scenario and task.scenario.rule
                              and task.scenario.rule.kind == "threshold")}[kind]


def _task(at: tuple[int, int], kind: str) -> Task:
    """The task of attempt ``at`` (found by generating seed 0) if it still has the structure,
    else the first attempt after 10,000 of that seed that has it (the generator moved)."""
    seed, attempt = at
    for tried in (attempt, *range(10_000, 11_000)):
        task = generate_task(seed, tried, GenerationSettings())
        if isinstance(task, Task) and _has(kind, task):
            return task
    raise AssertionError(f"no task of seed {seed} has a {kind} in 1,000 attempts")


@pytest.fixture(scope="module")
def held() -> Task:
    return _task(HELD_BACK, "exception")


@pytest.fixture(scope="module")
def traded() -> Task:
    return _task(TWO_CRITERIA, "tradeoff")


def _oracle_score(task: Task) -> float:
    trajectory = asyncio.run(run_episode(task, OracleAgent(), timings=False))
    return score_trajectory(task, trajectory).score


def test_a_selection_picks_among_the_items_a_second_criterion_admits() -> None:
    items = [{"price": 5, "rating": 2, "due": "2026-03-01", "open": True},
             {"price": 9, "rating": 4, "due": "2026-03-09T10:00:00", "open": False},
             {"price": 7, "rating": 5, "due": "2026-03-05", "open": True},
             {"price": 8, "rating": None, "due": None, "open": True}]
    cheapest = Selection(by="price", order="min")
    assert cheapest.pick(items) == 0
    rated = cheapest.model_copy(update={"among": Among(by="rating", op="gt", threshold=3)})
    assert rated.pick(items) == 2 and rated.candidates(items) == [1, 2]
    later = cheapest.model_copy(update={"among": Among(by="due", op="gt",
                                                       threshold="2026-03-05")})
    assert later.candidates(items) == [1]  # by day: the 5th itself is not after the 5th
    closed = cheapest.model_copy(update={"among": Among(by="open", op="eq", threshold=False)})
    assert closed.pick(items) == 1
    with pytest.raises(ValueError):
        cheapest.model_copy(update={"among": Among(by="rating", op="gt", threshold=9)}).pick(
            items)


def test_a_second_criterion_is_only_offered_where_each_alone_picks_another_item() -> None:
    items = [{"id": "a", "price": 5, "rating": 2}, {"id": "b", "price": 9, "rating": 5},
             {"id": "c", "price": 7, "rating": 4}]
    found = _criteria(items, Selection(by="price", order="min"))
    assert Among(by="rating", op="gt", threshold=2) in found
    for among in found:  # the two together pick c: neither the cheapest (a) nor the best (b)
        both = Selection(by="price", order="min", among=among)
        assert items[both.pick(items)]["id"] == "c"
    # the cheapest is also the best rated: no "among those rated above ..." changes the pick
    agreed = [{"price": 5, "rating": 5}, {"price": 9, "rating": 2}, {"price": 7, "rating": 3}]
    assert not [a for a in _criteria(agreed, Selection(by="price", order="min"))
                if a.by == "rating" and a.op == "gt"]


def test_a_batch_holds_back_the_item_the_email_names_and_doing_all_fails(held: Task) -> None:
    scenario = held.scenario
    assert scenario is not None and scenario.rule is not None
    rule, (trap,) = scenario.rule, scenario.traps
    assert rule.kind == "exception" and trap.kind == "exception"
    assert held.plan[0].tool == "mail__list_messages"
    copies = [s for s in held.plan if any(src.each for src in s.sources.values())]
    assert len(copies) >= 2 and trap.step.tool == copies[0].tool  # the batch's other items
    assert trap.step not in held.plan
    # The email names the held item; the request points to the email and never names it.
    world = build_world(held)
    (email,) = [m for m in world.env.db("mail").select("message") if m["subject"] == rule.subject]
    assert str(rule.value) in email["body"] and email["sender_name"] == rule.author
    assert str(rule.value).casefold() not in held.instruction.casefold()
    assert rule.subject in held.instruction and rule.author in held.instruction
    assert {"batch-with-exceptions", "fan-out", "explore-then-act"} <= set(
        held.labels.capabilities)
    assert "idempotency-check" not in held.labels.capabilities
    # The naive plan (every item) fails; so does holding back another item than the email's.
    message = answer_message([c for c in held.rubric if c.kind == "answer"])
    initial, scratch = world.env, lambda: world.fork().env
    assert trap_matters(held.plan, trap, held.rubric, initial, scratch, message)
    assert other_exception_fails(held.plan, trap, held.rubric, initial, scratch, message)
    naive = [*held.plan[:trap.position], trap.step, *held.plan[trap.position:]]
    env = scratch()
    done = [(s.tool, s.arguments) for s in naive if env.call(s.tool, s.arguments)["success"]]
    failed = [r.id for r in score(held.rubric, initial, env, message, done)
              if not r.passed]
    # The held item's record changed: nobody asked for it; where the held write is a create,
    # the rubric also says so in its own criterion (``absent``).
    stated = [c.id for c in held.rubric if c.change == "absent"]
    assert failed == [*stated, "no-collateral"]
    verdict = verify_task(held)
    assert verdict["rule_matters"] and verdict["trap_matters"] and all(verdict.values())
    assert _oracle_score(held) == 1.0


def test_a_choice_by_two_criteria_is_said_and_each_criterion_alone_fails(traded: Task) -> None:
    ((step, selection),) = tradeoffs(traded.plan)
    assert selection.among is not None
    assert "among those" in traded.instruction
    assert "multi-objective-tradeoff" in traded.labels.capabilities
    assert "ranked-selection" in traded.labels.capabilities
    world = build_world(traded)
    message = answer_message([c for c in traded.rubric if c.kind == "answer"])
    one = selection.model_copy(update={"among": None})
    env = world.fork().env
    ran = run_following(env, _rechosen(traded.plan, step, selection, one))
    assert ran is not None and [s.arguments for s in ran[0]] != [
        s.arguments for s in traded.plan]
    results = score(traded.rubric, world.env, env, message, [(s.tool, s.arguments)
                                                            for s in ran[0]])
    assert not all(r.passed for r in results)  # the ranking alone acts on another record
    verdict = verify_task(traded)
    assert verdict["tradeoff_matters"] and all(verdict.values()), verdict
    assert _oracle_score(traded) == 1.0


def test_labels_of_the_new_structures_come_only_from_them(held: Task, traded: Task) -> None:
    for task in (held, traded):
        among = bool(tradeoffs(task.plan))
        assert ("multi-objective-tradeoff" in task.labels.capabilities) == among
        kinds = {t.kind for t in task.scenario.traps} if task.scenario else set()
        assert ("batch-with-exceptions" in task.labels.capabilities) == ("exception" in kinds)


NAMESAKE = (0, 10030)
"""(seed, attempt) of a task whose world holds a namesake of the customer it is about."""


def test_a_decoy_is_a_namesake_the_request_tells_apart_and_acting_on_it_fails() -> None:
    task = _task(NAMESAKE, "decoy")
    assert task.scenario is not None
    (trap,) = [t for t in task.scenario.traps if t.kind == "decoy"]
    assert trap.record is not None
    decoy = next(p for p in task.scenario.planted if p.values["id"] == trap.record)
    world = build_world(task)
    listed = task.plan[trap.position].output
    people = [item for items in listed.values() if isinstance(items, list) for item in items]
    (meant,) = [p for p in people if p["id"] != trap.record and p["name"] == decoy.values["name"]]
    assert any(p["id"] == trap.record for p in people)  # the read shows both
    # The request says which one by what sets them apart, never by the value to find.
    assert "look alike" in task.instruction or "There are two" in task.instruction
    domain = meant["email"].split("@")[1]
    assert f"@{domain}" in task.instruction and decoy.values["email"] != meant["email"]
    assert meant["email"] not in task.instruction
    # Acting on the decoy: the row-level rubric fails (the wrong email written), and so does
    # the collateral check.
    message = answer_message([c for c in task.rubric if c.kind == "answer"])
    # (every value of the one meant that the plan writes, the namesake's instead)
    theirs = {repr(meant[f]): decoy.values[f] for f in meant
              if f in decoy.values and f != "name" and meant[f] != decoy.values[f]}

    def swap(v):
        if isinstance(v, list):
            return [swap(x) for x in v]
        return theirs.get(repr(v), v)

    swapped = [(step.tool, {k: swap(v) for k, v in step.arguments.items()})
               for step in task.plan]
    assert swapped != [(s.tool, s.arguments) for s in task.plan]
    env = world.fork().env
    done = [(n, a) for n, a in swapped if env.call(n, a)["success"]]
    failed = {r.id for r in score(task.rubric, world.env, env, message, done) if not r.passed}
    assert failed & {c.id for c in task.rubric if c.kind == "state"}
    assert "no-collateral" in failed
    verdict = verify_task(task)
    assert verdict["trap_matters"] and all(verdict.values()), verdict
    assert _oracle_score(task) == 1.0


RELATIVE_DATE = (0, 10239)
"""(seed, attempt) of a task whose write's date is said relative to a date found."""


def test_a_date_said_relative_to_a_found_one_is_exact_in_the_rubric() -> None:
    task = _task(RELATIVE_DATE, "temporal")
    ((index, name, source),) = [(i, n, src) for i, s in enumerate(task.plan)
                                for n, src in s.sources.items() if src.op == "shift"]
    assert source.shift is not None and source.step is not None and source.path
    found = task.plan[source.step].output
    for part in source.path.split("."):
        found = found[int(part)] if isinstance(found, list) else found[part]
    written = task.plan[index].arguments[name]
    assert written[:10] == shifted(date.fromisoformat(str(found)[:10]), source.shift).isoformat()
    assert relation(source.shift) in task.instruction
    assert written[:10] not in task.instruction and str(found)[:10] not in task.instruction
    assert any(written in c.match.values() for c in task.rubric if c.kind == "state")
    assert "temporal-reasoning" in task.labels.capabilities
    assert "data-transformation" in task.labels.capabilities  # a date computed from a found one
    world = build_world(task)
    message = answer_message([c for c in task.rubric if c.kind == "answer"])
    assert shift_matters(task.plan, task.rubric, world.env, lambda: world.fork().env, message)
    verdict = verify_task(task)
    assert verdict["temporal_matters"] and all(verdict.values()), verdict
    assert _oracle_score(task) == 1.0


@pytest.mark.parametrize(("day", "shift", "expected"), [
    ("2026-03-06", DateShift(unit="business_days", n=-2), "2026-03-04"),  # Fri → Wed
    ("2026-03-09", DateShift(unit="business_days", n=-2), "2026-03-05"),  # Mon → Thu
    ("2026-03-06", DateShift(unit="business_days", n=3), "2026-03-11"),   # over a weekend
    ("2026-03-10", DateShift(unit="weekday", n=1), "2026-03-17"),  # a Tuesday: the next one
    ("2026-03-06", DateShift(unit="days", n=7), "2026-03-13"),
])
def test_relative_dates_count_as_people_do(day: str, shift: DateShift, expected: str) -> None:
    assert shifted(date.fromisoformat(day), shift).isoformat() == expected


LIMIT = (0, 10012)
"""(seed, attempt) of a conditional task whose threshold is in a colleague's email."""


def test_a_threshold_rule_sets_the_limit_and_a_limit_across_the_value_fails() -> None:
    task = _task(LIMIT, "threshold")
    assert task.condition is not None and task.scenario is not None
    rule = task.scenario.rule
    assert rule is not None and rule.kind == "threshold"
    assert rule.value == task.condition.threshold
    assert task.plan[0].tool == "mail__list_messages" and task.condition.source >= 1
    assert str(rule.value) not in task.instruction  # the request points to the email only
    assert rule.author in task.instruction and rule.subject in task.instruction
    world = build_world(task)
    (email,) = [m for m in world.env.db("mail").select("message") if m["subject"] == rule.subject]
    assert str(rule.value) in email["body"]
    assert {"conditional-branching", "explore-then-act"} <= set(task.labels.capabilities)
    message = answer_message([c for c in task.rubric if c.kind == "answer"])
    assert threshold_matters(task.plan, task.condition, task.rubric, world.env,
                             lambda: world.fork().env, message)
    verdict = verify_task(task)
    assert verdict["rule_matters"] and all(verdict.values()), verdict
    assert _oracle_score(task) == 1.0


@pytest.mark.parametrize(("at", "kind", "probe"), [
    (HELD_BACK, "exception", "ignore-trap"), (NAMESAKE, "decoy", "take-decoy"),
    (TWO_CRITERIA, "tradeoff", "one-criterion")])
def test_a_probe_that_misses_the_structure_is_made_and_fails(at, kind, probe) -> None:
    task = _task(at, kind)
    world = build_world(task)
    message = answer_message([c for c in task.rubric if c.kind == "answer"])
    made = {m.kind: m for m in naive_mutations(task.plan, task.scenario,
                                               lambda: world.fork().env, message)}
    assert probe in made
    env = world.fork().env
    done = run_mutation(made[probe], env)
    assert not all(r.passed for r in score(task.rubric, world.env, env, message, done))
    reference = world.fork().env
    for step in task.plan:
        reference.call(step.tool, step.arguments)
    assert passing_mutations(task.plan, task.rubric, world.env, lambda: world.fork().env,
                             reference, random.Random(0), task.scenario) == []
