"""The probes gate runs its wrong trajectories in trials on one environment, those that begin
with the plan's calls from one run of them (``tasks._mutations.wrong_mutations``): each leaves
the records, the successful calls and the scores a run of it alone on a fresh fork of the
task's world gives."""

from __future__ import annotations

import random
from typing import Any

import pytest

from compoworld.tasks import Task, build_world, generate_tasks
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
from compoworld.world import World


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(generate_tasks(10, seed=11))


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
            *naive_mutations(task.plan, task.scenario, lambda: world.fork().env, right)]
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
                task.plan, rubric, world.env, lambda: world.fork().env,
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
            kinds = passing_mutations(task.plan, rubric, world.env, lambda: world.fork().env,
                                      _reference(world, task), random.Random(0), task.scenario)
            assert kinds == [k for k in alone if all(alone[k][2])]
    assert compared > 30 and passed > 3  # the comparison covers runs and passes
