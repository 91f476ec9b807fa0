"""Error recovery and traps an agent can check: each on real services, each real in the task
(its world, its plan, its words), each behind a gate that fails the plan that ignores it."""

from __future__ import annotations

import asyncio
import random
from datetime import date, timedelta

import pytest

from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import score_trajectory
from compoworld.tasks import GenerationSettings, Task, build_world, generate_task, verify_task
from compoworld.tasks._check import score
from compoworld.tasks._model import ArgSource, Planted, Step
from compoworld.tasks._mutations import answer_message, naive_mutations, run_mutation
from compoworld.tasks._planting import plant
from compoworld.tasks._recovery import (
    CLASH_NOTE,
    IN_USE_NOTE,
    TAKEN_NOTE,
    add_refusal,
    gave_up,
    refusal_matters,
)
from compoworld.tasks._rewrite import stated_values
from compoworld.tasks._rubric import collateral_criterion, state_criteria
from compoworld.tasks._trap_check import find_check, trap_check
from compoworld.world import compose

OWN_SERVICES = ("calendar", "mail", "crm", "tasks", "payments", "contacts", "helpdesk")
"""The hand-written services: those whose business rules refuse a call (unique values)."""


def _found(settings: GenerationSettings, has: object, limit: int = 400, start: int = 0,
           seed: int = 0) -> Task:
    for attempt in range(start, limit):
        task = generate_task(seed, attempt, settings)
        if isinstance(task, Task) and has(task):  # type: ignore[operator]
            return task
    raise AssertionError(f"no task with the structure in {limit} attempts")


def _refused(task: Task) -> bool:
    return bool(task.scenario and any(t.kind == "refusal" for t in task.scenario.traps))


@pytest.fixture(scope="module")
def taken() -> Task:
    return _found(GenerationSettings(services=OWN_SERVICES, distractors=0), _refused)


def _oracle(task: Task) -> tuple[float, list[str]]:
    trajectory = asyncio.run(run_episode(task, OracleAgent(), timings=False))
    return score_trajectory(task, trajectory).score, [c.name for c in trajectory.calls]


def test_a_create_refused_for_a_taken_value_goes_on_with_the_record_there(taken: Task) -> None:
    assert taken.scenario is not None
    (trap,) = [t for t in taken.scenario.traps if t.kind == "refusal"]
    recovery = taken.plan[trap.position]
    assert recovery.tool != trap.step.tool and recovery.tool.split("__")[0] == \
        trap.step.tool.split("__")[0]  # a read of the same service in its place
    # The world refuses the call as asked, for the planted record's sake.
    world = build_world(taken)
    env = world.fork().env
    for step in taken.plan[:trap.position]:
        env.call(step.tool, step.arguments)
    refused = env.call(trap.step.tool, trap.step.arguments)
    assert not refused["success"] and refused["error"]["code"] == 409
    assert trap.record is not None and trap.record in refused["error"]["message"]
    # Later steps use the record already there, which the request never names.
    later = [v for s in taken.plan[trap.position + 1:] for v in s.arguments.values()]
    assert trap.record in later or any(
        src.step == trap.position for s in taken.plan for src in s.sources.values())
    assert trap.record not in taken.instruction and TAKEN_NOTE in taken.instruction
    # every value the plan takes as stated is in the request (the recovery's read included)
    assert all(v.casefold() in taken.instruction.casefold() for v in stated_values(taken.plan))
    assert "error-recovery" in taken.labels.capabilities
    assert "idempotency-check" not in taken.labels.capabilities
    # Giving up after the refusal fails; the gates and the oracle pass.
    message = answer_message([c for c in taken.rubric if c.kind == "answer"])
    initial, scratch = world.env, lambda: world.fork().env
    assert refusal_matters(taken.plan, trap, taken.rubric, initial, scratch, message)
    (give_up,) = [m for m in naive_mutations(taken.plan, taken.scenario, scratch, message)
                  if m.kind == "give-up"]
    env = scratch()
    done = run_mutation(give_up, env)
    assert not all(r.passed for r in score(taken.rubric, initial, env, message, done))
    assert all(verify_task(taken).values())
    result, calls = _oracle(taken)
    assert result == 1.0
    assert calls.index(trap.step.tool) < calls.index(recovery.tool)  # refused, then recovered


def _calendar_plan() -> tuple[object, Step, list]:
    world = compose(["calendar"], seed=5)
    day = world.env.today + timedelta(days=40)
    while day.weekday() >= 5:
        day += timedelta(days=1)
    start, end = f"{day.isoformat()}T07:00", f"{day.isoformat()}T07:45"
    step = Step(tool="calendar__create_event",
                arguments={"title": "Budget review", "start": start, "end": end},
                sources={n: ArgSource(kind="user") for n in ("title", "start", "end")},
                output=None)
    env = world.fork().env
    envelope = env.call(step.tool, step.arguments)
    assert envelope["success"], envelope
    return world, step.model_copy(update={"output": envelope["data"]}), env.changes() or []


def test_a_booking_refused_for_a_taken_time_is_made_when_the_blocker_ends() -> None:
    world, step, changes = _calendar_plan()
    fresh = lambda: world.fork().env  # noqa: E731
    made = add_refusal([step], [changes], world.env, random.Random(3), fresh, [])
    assert made is not None
    plan, new_changes, trap, blocker, note = made
    assert note == CLASH_NOTE and trap.kind == "refusal" and trap.step == step
    (recovery,) = plan
    assert recovery.tool == step.tool
    assert recovery.arguments["start"] == step.arguments["end"]  # right when the blocker ends
    assert recovery.arguments["end"] == step.arguments["end"][:11] + "08:30"  # same length
    assert recovery.sources["start"].kind == "refusal"
    assert blocker.values["start"].startswith(step.arguments["start"])
    env = plant(fresh(), [blocker])
    refused = env.call(step.tool, step.arguments)
    assert not refused["success"] and blocker.values["id"] in refused["error"]["message"]
    # The rubric expects the recovery's event; stopping after the refusal fails it.
    reference = plant(fresh(), [blocker])
    for s in plan:
        assert reference.call(s.tool, s.arguments)["success"]
    rubric = [*state_criteria(plan, new_changes, reference), collateral_criterion()]
    initial = plant(fresh(), [blocker])
    scratch = lambda: plant(fresh(), [blocker])  # noqa: E731
    assert all(r.passed for r in score(rubric, initial, reference, "Done.",
                                       [(s.tool, s.arguments) for s in plan]))
    assert refusal_matters(plan, trap, rubric, initial, scratch, "Done.")
    assert gave_up(plan, trap) == [step]
    # Booking it elsewhere (an hour later) or cancelling the blocker fails too.
    later = dict(recovery.arguments, start=step.arguments["start"][:11] + "09:00",
                 end=step.arguments["start"][:11] + "09:45")
    moved = scratch()
    assert moved.call(step.tool, later)["success"]
    assert not all(r.passed for r in score(rubric, initial, moved, "Done.", [(step.tool, later)]))
    cancelled = scratch()
    cancel = {"event_id": blocker.values["id"]}
    assert cancelled.call("calendar__cancel_event", cancel)["success"]
    assert cancelled.call(step.tool, step.arguments)["success"]
    assert not all(r.passed for r in score(rubric, initial, cancelled, "Done.", [
        ("calendar__cancel_event", cancel), (step.tool, step.arguments)]))


def test_no_refusal_where_the_service_takes_the_call_anyway() -> None:
    world, step, changes = _calendar_plan()
    # a write with no time span and no unique value: nothing the calendar refuses
    plain = step.model_copy(update={"arguments": {"title": "Budget review"}, "sources": {
        "title": ArgSource(kind="user")}})
    assert add_refusal([plain], [changes], world.env, random.Random(3),
                       lambda: world.fork().env, []) is None


def test_error_recovery_is_labelled_only_where_a_refusal_is() -> None:
    settings = GenerationSettings(services=OWN_SERVICES, distractors=0)
    tasks = [t for t in (generate_task(0, a, settings) for a in range(60)) if isinstance(t, Task)]
    assert tasks
    for task in tasks:
        assert ("error-recovery" in task.labels.capabilities) == _refused(task)


def _first_planted(task: Task) -> bool:
    return bool(task.scenario and any(
        p.first for p in task.scenario.planted) and any(
        t.kind == "idempotency" for t in task.scenario.traps))


def test_a_trap_record_is_planted_where_the_agents_read_shows_it() -> None:
    # A rare structure (about 1 task in 1,000: seed 0 has none in its first 1,000 tasks, seed 2
    # has t2-000084 and t2-001635): the window is where one is.
    task = _found(GenerationSettings(), _first_planted, start=60, limit=200, seed=2)
    assert task.scenario is not None
    k = next(i for i, t in enumerate(task.scenario.traps) if t.kind == "idempotency")
    trap = task.scenario.traps[k]
    check = trap_check(task, k)
    assert check is not None and check.tool.split("__")[0] == trap.table.split("__")[0]
    world = build_world(task)
    record = next(p for p in task.scenario.planted if p.first)
    shown = world.env.call(check.tool, check.arguments)
    assert shown["success"] and str(record.values["id"]) in str(shown["data"])
    # Planted last instead (after the seeded records), no read of the service shows it: the
    # trap would be one no agent can check.
    rest = [p for p in task.scenario.planted if p is not record]
    last = task.model_copy(update={"scenario": task.scenario.model_copy(update={
        "planted": [*rest, record.model_copy(update={"first": False})]})})
    again = build_world(last)
    assert find_check(again.env, trap, last.scenario.planted) is None  # type: ignore[union-attr]


def test_every_idempotency_trap_of_a_run_is_checkable() -> None:
    tasks = [t for t in (generate_task(1, a, GenerationSettings()) for a in range(80))
             if isinstance(t, Task)]
    traps = [(t, k) for t in tasks for k, trap in enumerate(t.scenario.traps if t.scenario
                                                            else []) if trap.kind == "idempotency"]
    assert traps
    assert all(trap_check(t, k) is not None for t, k in traps)


def test_planting_first_puts_a_record_before_the_seeded_ones() -> None:
    env = compose(["crm"], seed=2).env
    seeded = [r["id"] for r in env.db("crm").select("account")]
    record = Planted(service="crm", entity="account", first=True, values={
        "id": "ac_planted", "name": "Aardvark Ltd", "owner": "Ann Lee",
        "created_on": (date(2026, 1, 5)).isoformat()})
    plant(env, [record])
    listed = [r["id"] for r in env.db("crm").select("account")]
    assert listed == ["ac_planted", *seeded]
    assert {c.origin for c in env.changes() or []} == {"world"}  # no episode change


def _cleared_first(task: Task) -> bool:
    """A refusal whose recovery removes what still points to the record, then removes it."""
    if not _refused(task):
        return False
    assert task.scenario is not None
    trap = next(t for t in task.scenario.traps if t.kind == "refusal")
    again = task.plan[trap.position + 2] if trap.position + 2 < len(task.plan) else None
    return again is not None and (again.tool, again.arguments) == (trap.step.tool,
                                                                  trap.step.arguments)


def test_a_delete_refused_for_records_that_point_to_it_removes_them_first() -> None:
    task = next((t for t in (generate_task(0, a, GenerationSettings())
                             for a in range(10_000, 10_200))
                 if isinstance(t, Task) and _cleared_first(t)), None)
    assert task is not None, "no such task of seed 0 in 200 attempts"
    assert task.scenario is not None
    (trap,) = [t for t in task.scenario.traps if t.kind == "refusal"]
    read, remove = task.plan[trap.position], task.plan[trap.position + 1]
    service = trap.step.tool.split("__")[0]
    assert {read.tool.split("__")[0], remove.tool.split("__")[0]} == {service}
    # The world refuses the delete as asked, for the planted record's sake (the engine's rule).
    world = build_world(task)
    env = world.fork().env
    for step in task.plan[:trap.position]:
        env.call(step.tool, step.arguments)
    refused = env.call(trap.step.tool, trap.step.arguments)
    child = trap.table.split("__", 1)[1]
    assert not refused["success"] and refused["error"]["code"] == 409
    assert f"referenced by 1 {child} " in refused["error"]["message"]
    # The recovery lists that record by the one to remove, removes it, then removes that one.
    assert trap.record is not None and trap.record in str(read.output)
    assert list(remove.arguments.values()) == [trap.record]
    assert next(iter(remove.sources.values())).step == trap.position
    # The request asks for the delete and says what to do then, never which record is in the way.
    assert IN_USE_NOTE in task.instruction and trap.record not in task.instruction
    assert "error-recovery" in task.labels.capabilities
    message = answer_message([c for c in task.rubric if c.kind == "answer"])
    assert refusal_matters(task.plan, trap, task.rubric, world.env, lambda: world.fork().env,
                           message)
    assert all(verify_task(task).values())
    result, calls = _oracle(task)
    assert result == 1.0
    assert calls.index(trap.step.tool) < calls.index(remove.tool)  # refused, then recovered
