"""The structures behind two labels, in the places they were extended to: a write's optional
planning date said relative to a date found (``temporal-reasoning``, ``data-transformation``),
and a choice by two criteria in a plan whose report is on the list or after it
(``multi-objective-tradeoff``). Each on a generated task, exact in its rubric, behind its gate."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest

from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import score_trajectory
from compoworld.service import Param
from compoworld.tasks import GenerationSettings, Task, build_world, generate_task, verify_task
from compoworld.tasks._following import resolve
from compoworld.tasks._temporal import _plannable, relation, shifted
from compoworld.tasks._tradeoff import tradeoffs


def _first(found: object, attempts: range = range(10_000, 11_000)) -> Task:
    for attempt in attempts:
        task = generate_task(0, attempt, GenerationSettings())
        if isinstance(task, Task) and found(task):  # type: ignore[operator]
            return task
    raise AssertionError("no task of seed 0 has the structure in 1,000 attempts")


def _added_date(task: Task) -> tuple[int, str] | None:
    """(step, argument) of a shifted date on an optional parameter the walk leaves unset."""
    world = build_world(task)
    for i, step in enumerate(task.plan):
        params = {p.name: p for p in world.env.tools[step.tool].params}
        for name, src in step.sources.items():
            if src.op == "shift" and not params[name].required:
                return i, name
    return None


def _reported_trade(task: Task) -> bool:
    picked = tradeoffs(task.plan)
    return bool(picked) and any(c.kind == "answer" and c.step is not None
                                and c.step >= picked[0][0] for c in task.rubric)


@pytest.mark.parametrize(("name", "required", "semantic", "ok"), [
    ("close_date", False, "Date", True), ("due", False, "Date", True),
    ("birthday", False, "Date", False), ("created_at", False, "Date", False),
    ("stage_last_changed_at", False, "Date", False), ("start", False, "DateTime", False),
    ("start_date", True, "Date", False)])
def test_only_an_optional_day_someone_plans_by_is_given(name: str, required: bool,
                                                        semantic: str, ok: bool) -> None:
    param = Param(name=name, annotation=str, description="", required=required,
                  semantic=semantic)
    assert _plannable(param) == ok


def test_an_optional_date_said_relative_to_a_found_one_is_exact_and_matters() -> None:
    # Seed 0's first from 11,000 (11,089): since the clarity rules none is in 10,000–11,000.
    task = _first(lambda t: _added_date(t) is not None, range(11_000, 12_000))
    index, name = _added_date(task) or (0, "")
    source = task.plan[index].sources[name]
    assert source.shift is not None and source.step is not None and source.path
    found = resolve(task.plan[source.step].output, source.model_copy(update={"selection": None}))
    written = str(task.plan[index].arguments[name])
    assert written == shifted(date.fromisoformat(str(found)[:10]), source.shift).isoformat()
    assert relation(source.shift) in task.instruction and written not in task.instruction
    assert any(c.match.get(name) == written for c in task.rubric if c.kind == "state")
    assert {"temporal-reasoning", "data-transformation"} <= set(task.labels.capabilities)
    verdict = verify_task(task)
    assert verdict["temporal_matters"] and all(verdict.values()), verdict


def test_a_report_after_a_choice_by_two_criteria_tells_of_the_item_both_pick() -> None:
    task = _first(_reported_trade)
    (step, selection), *_ = tradeoffs(task.plan)
    assert selection.among is not None and "among those" in task.instruction
    assert "multi-objective-tradeoff" in task.labels.capabilities
    for answer in (c for c in task.rubric if c.kind == "answer"):
        if answer.step == step and answer.selection is not None:
            assert answer.selection == selection  # the report picks as the writes do
    verdict = verify_task(task)
    assert verdict["tradeoff_matters"] and all(verdict.values()), verdict
    trajectory = asyncio.run(run_episode(task, OracleAgent(), timings=False))
    assert score_trajectory(task, trajectory).score == 1.0


def _rule_picks_what_a_read_looks_up(task: Task) -> bool:
    """A selection rule whose picked item a read looks up, and a later step takes what that
    read found (the rule's pick shows in the writes only through the read)."""
    rule = task.scenario.rule if task.scenario else None
    if rule is None or rule.kind != "selection":
        return False
    world = build_world(task)
    reads = {i for i, s in enumerate(task.plan) if world.env.tools[s.tool].kind == "read"}
    return rule.step in reads and any(src.step == rule.step and src.kind == "step"
                                      for s in task.plan[rule.step + 1:]
                                      for src in s.sources.values())


def test_a_selection_rule_matters_through_the_read_of_the_item_it_picks() -> None:
    task = _first(_rule_picks_what_a_read_looks_up, range(10_000, 10_300))
    assert task.scenario is not None and task.scenario.rule is not None
    assert "explore-then-act" in task.labels.capabilities
    verdict = verify_task(task)
    assert verdict["rule_matters"] and all(verdict.values()), verdict


def test_a_choice_by_two_criteria_is_made_in_a_plan_that_fans_out() -> None:
    task = _first(lambda t: bool(tradeoffs(t.plan)) and "fan-out" in t.labels.capabilities)
    (_, selection), *_ = tradeoffs(task.plan)
    assert selection.among is not None and "among those" in task.instruction
    assert not any(src.each and src.selection is not None for s in task.plan
                   for src in s.sources.values())  # the fanned list is not the one chosen from
    verdict = verify_task(task)
    assert verdict["tradeoff_matters"] and all(verdict.values()), verdict
