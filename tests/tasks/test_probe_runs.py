"""Gates that run in trials on one environment decide as runs on fresh forks of the task's
world did: the probes (``tasks._mutations.wrong_mutations``: those that begin with the plan's
calls from one run of them) leave the records, successful calls and scores of a run alone;
``steps_needed`` (the plan without each step) gives the verdict of one fork per step."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from compoworld.service import Environment
from compoworld.tasks import Task, _verify, build_world, generate_tasks
from compoworld.tasks._check import score
from compoworld.tasks._diff import run_diff
from compoworld.tasks._model import Criterion
from compoworld.tasks._mutations import (
    _effect,
    answer_message,
    mutations,
    naive_mutations,
    passing_mutations,
    run_mutation,
    wrong_mutations,
)
from compoworld.tasks._verify import replay
from compoworld.world import World


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(generate_tasks(10, seed=11))


def _forks(world: World) -> Callable[[], Environment]:
    return lambda: world.fork().env


def _reference(world: World, task: Task) -> Any:
    reference = world.fork().env
    for step in task.plan:
        reference.call(step.tool, step.arguments)
    return reference


def _alone(task: Task, rubric: list[Criterion], world: World) -> dict[str, Any]:
    """Each wrong mutation run alone on a fresh fork: what it leaves, by kind."""
    answers = [c for c in rubric if c.kind == "answer"]
    right = answer_message(answers)
    expected = _effect(run_diff(world.env, _reference(world, task)), rubric)
    made = [*mutations(task.plan, world.env, answers, random.Random(0)),
            *naive_mutations(task.plan, task.scenario, _forks(world), right)]
    out = {}
    for mutation in made:
        env = world.fork().env
        done = run_mutation(mutation, env)
        if mutation.message == right and _effect(run_diff(world.env, env), rubric) == expected:
            continue
        out[mutation.kind] = (done, env.rows(), [r.passed for r in score(
            rubric, world.env, env, mutation.message, done)])
    return out


def _shared(task: Task, rubric: list[Criterion], world: World) -> dict[str, Any]:
    return {mutation.kind: (done, env.rows(), [r.passed for r in score(
                rubric, world.env, env, mutation.message, done)])
            for mutation, env, done in wrong_mutations(
                task.plan, rubric, world.env, _forks(world),
                _reference(world, task), random.Random(0), task.scenario)}


def test_shared_runs_leave_what_runs_alone_leave(tasks: list[Task]) -> None:
    compared = passed = 0
    for task in tasks:
        # the full rubric, and one without its collateral check (which many mutations pass)
        for rubric in (task.rubric, [c for c in task.rubric if c.kind in ("state", "answer")]):
            world = build_world(task)
            alone, shared = _alone(task, rubric, world), _shared(task, rubric, world)
            assert shared == alone, task.id
            compared += len(alone)
            passed += sum(all(passes) for *_, passes in alone.values())
            kinds = passing_mutations(task.plan, rubric, world.env, _forks(world),
                                      _reference(world, task), random.Random(0), task.scenario)
            assert kinds == [k for k in alone if all(alone[k][2])]
    assert compared > 30 and passed > 3  # the comparison covers runs and passes


def _needed_alone(task: Task, plan: list[Any], world: World) -> list[Any]:
    """The gate ``steps_needed`` as it ran before trials: the plan without each step with a
    state criterion, each on a fresh fork; per ablation, the criteria scored, the records
    left and whether one passed (up to the first that passes)."""
    message = answer_message([c for c in task.rubric if c.kind == "answer"])
    calls = [(s.tool, s.arguments) for s in plan]
    found = []
    for index in sorted({int(c.id.split("-", 1)[0][1:]) for c in task.rubric
                         if c.kind == "state" and c.change != "absent"}):
        criteria = [c for c in task.rubric if c.kind == "state" and c.change != "absent"
                    and int(c.id.split("-", 1)[0][1:]) == index]
        env = world.fork().env
        replay(env, plan, skip=index)
        passed = any(r.passed for r in score(criteria, world.env, env, message, calls))
        found.append(([c.id for c in criteria], env.rows(), passed))
        if passed:
            break
    return found


def test_steps_needed_on_one_environment_runs_as_on_forks(
        tasks: list[Task], monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []

    def recording(criteria: list[Criterion], initial: Environment, env: Environment,
                  message: str, calls: Any = ()) -> Any:
        results = score(criteria, initial, env, message, calls)
        seen.append(([c.id for c in criteria], env.rows(), any(r.passed for r in results)))
        return results

    monkeypatch.setattr(_verify, "score", recording)
    verdicts = []
    for task in tasks:
        world = build_world(task)
        updates = [int(c.id.split("-", 1)[0][1:]) for c in task.rubric
                   if c.kind == "state" and c.change == "update"]
        # the plan as it is, and with its last update made again at the end: not needed then
        for plan in (task.plan, [*task.plan, *(task.plan[i] for i in updates[-1:])]):
            seen.clear()
            _verify._checks(world.env, _forks(world), plan, task.rubric,
                            _reference(world, task), task.instruction, task.condition,
                            seed=0, scenario=task.scenario)["steps_needed"]()
            assert seen == _needed_alone(task, plan, world), task.id
            verdicts.append(bool(seen) and seen[-1][2])
    assert True in verdicts and False in verdicts
