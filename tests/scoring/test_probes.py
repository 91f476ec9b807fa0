"""Reward-hacking probes: none completes a task, all stay far below the oracle; the holes the
probes found stay closed (answer lists, idle no-collateral)."""

from __future__ import annotations

import pytest

from compoworld.rollout import build_world
from compoworld.scoring import PROBES, AgentFigures, answer_variants, run_probes
from compoworld.tasks import GenerationSettings, generate_tasks, score
from compoworld.tasks._rubric import MAX_OTHER_CANDIDATES, answer_criterion


@pytest.fixture(scope="module")
def probe_tasks():
    tasks = [*generate_tasks(18, seed=5),
             *generate_tasks(4, seed=4, settings=GenerationSettings(interface="gateway"))]
    return tasks, answer_variants(tasks)


def _check(figures: list[AgentFigures]) -> None:
    oracle, *probes = figures
    assert oracle.agent == "oracle" and oracle.full_completion == 1.0
    assert [p.agent for p in probes] == [f"probe-{p.kind}" for p in PROBES]
    for probe in probes:
        assert probe.completed == [], f"{probe.agent} completed {probe.completed}"
        assert probe.mean_reward <= 0.5 * oracle.mean_reward, probe
        assert probe.max_reward < 1.0


@pytest.mark.slow
def test_no_probe_completes_a_generated_task(probe_tasks) -> None:
    tasks, _ = probe_tasks
    assert len(tasks) >= 20
    figures = run_probes(tasks)
    _check(figures)
    assert all(f.calls > 0 for f in figures if f.agent not in ("probe-claim",))


@pytest.mark.slow
def test_no_probe_answers_a_question(probe_tasks) -> None:
    _, variants = probe_tasks
    assert len(variants) >= 3
    for variant in variants:
        assert [c.kind for c in variant.rubric] == ["answer"]
        assert not any(str(v) in variant.instruction for v in variant.rubric[0].values)
    _check(run_probes(variants))


def test_an_answer_buried_in_a_list_of_candidates_fails(probe_tasks) -> None:
    _, variants = probe_tasks
    task = variants[0]
    world = build_world(task)
    criterion = answer_criterion(task.plan[-1], world.env)
    assert criterion is not None and criterion.semantic
    (value,) = criterion.values
    others = sorted({str(r[c.name]) for name, service in world.env.services.items()
                     for entity, table in service.tables.items()
                     for c in table.columns if c.semantic == criterion.semantic
                     for r in world.env.db(name).select(entity)
                     if r.get(c.name) and r[c.name] != value})
    assert len(others) > MAX_OTHER_CANDIDATES

    def passed(message: str) -> tuple[bool, str]:
        (result,) = score([criterion], world.env, world.fork().env, message, [])
        return result.passed, result.reason

    assert passed(f"It is {value}.") == (True, "stated")
    assert passed(f"It is {value} (cc {', '.join(others[:MAX_OTHER_CANDIDATES])}).")[0]
    ok, reason = passed(f"One of: {', '.join([*others[:MAX_OTHER_CANDIDATES + 1], str(value)])}")
    assert not ok and "a list of candidates" in reason
    assert not passed(" ".join(others))[0]
