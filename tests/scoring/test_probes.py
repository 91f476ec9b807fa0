"""Reward-hacking probes: none completes a task, each stays at most half the oracle's CFR
reward; the holes the probes found stay closed (answer lists, idle no-collateral)."""

from __future__ import annotations

import pytest

from compoworld.rollout import build_world
from compoworld.scoring import PROBES, AgentFigures, answer_variants, run_probes
from compoworld.tasks import GenerationSettings, generate_tasks, score
from compoworld.tasks._rubric import answer_criteria


@pytest.fixture(scope="module")
def probe_tasks():
    tasks = [*generate_tasks(18, seed=5),
             *generate_tasks(4, seed=4, settings=GenerationSettings(interface="gateway"))]
    # Variants come from the tasks that end on a write a read can report on: more tasks to
    # draw them from, so there are a few whatever the generator's mix.
    return tasks, answer_variants([*tasks, *generate_tasks(20, seed=6)])


MEAN_OVER = 3
"""The fewest tasks a probe's mean CFR is held to half the oracle's over. On one task the "mean"
is that task's reward, and a wrong trajectory that does the whole plan plus one extra write
fails only ``no_collateral``: in a group with the oracle, CFR gives it k·0.1 / (k·0.1 + 0.5)
with k criteria passed, above half from k = 6 on (a seven-criterion answer variant: 0.545).
Over many tasks those probes stay under half (``bench/probes.py --tasks 80``: twin-write 0.43
over 46 tasks, 0.39 over 13 answer variants)."""


def _check(figures: list[AgentFigures]) -> None:
    oracle, *probes = figures
    assert oracle.agent == "oracle" and oracle.full_completion == 1.0
    assert [p.agent for p in probes] == [f"probe-{p.kind}" for p in PROBES]
    for probe in probes:
        assert probe.completed == [], f"{probe.agent} completed {probe.completed}"
        assert probe.max_reward < 1.0
        if probe.tasks >= MEAN_OVER:
            assert probe.mean_cfr <= 0.5 * probe.oracle_cfr, probe


@pytest.mark.slow
def test_no_probe_completes_a_generated_task(probe_tasks) -> None:
    tasks, _ = probe_tasks
    assert len(tasks) >= 20
    figures = run_probes(tasks)
    _check(figures)
    assert all(f.calls > 0 for f in figures if f.agent != "probe-claim" and f.tasks)


@pytest.mark.slow
def test_no_probe_answers_a_question(probe_tasks) -> None:
    _, variants = probe_tasks
    assert len(variants) >= 3
    for variant in variants:
        answers = [c for c in variant.rubric if c.kind == "answer"]
        assert answers and variant.rubric[-1].kind == "no_collateral"
        assert not any(str(v) in variant.instruction for c in answers for v in c.values)
    _check(run_probes(variants))


def test_an_answer_beside_another_candidate_fails(probe_tasks) -> None:
    _, variants = probe_tasks
    task = variants[0]
    world = build_world(task)
    (criterion,) = answer_criteria(task.plan[-1], world.env, plan=task.plan)
    assert criterion.semantic and criterion.fields
    (value,) = criterion.values
    others = sorted({str(r[field]) for table_field in criterion.fields
                     for table, field in [table_field.rsplit(".", 1)]
                     for r in world.env.db(table.split("__")[0]).select(table.split("__", 1)[1])
                     if r.get(field) and r[field] != value})
    assert others

    def passed(message: str) -> tuple[bool, str]:
        (result,) = score([criterion], world.env, world.fork().env, message, [])
        return result.passed, result.reason

    assert passed(f"It is {value}.") == (True, "stated")
    ok, reason = passed(f"It is {value} (or maybe {others[0]}).")
    assert not ok and "not an answer" in reason
    assert not passed(" ".join(others))[0]
