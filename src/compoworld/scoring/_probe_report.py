"""Running the reward-hacking probes next to the oracle, and the task set they run on."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from compoworld.rewards import cfr
from compoworld.rollout import Agent, OracleAgent, build_world, run_episode
from compoworld.scoring._model import ScoredTrajectory
from compoworld.scoring._probes import PROBES
from compoworld.scoring._score import score_trajectory
from compoworld.service import SEPARATOR, Change
from compoworld.tasks import Step, Task
from compoworld.tasks._instruction import instruction
from compoworld.tasks._rubric import answer_criteria, collateral_criterion, state_criteria
from compoworld.world import World


class AgentFigures(BaseModel):
    """How one agent scored over a task set."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    tasks: int
    mean_reward: float
    """Mean rubric score (uniform partial credit)."""
    full_completion: float
    max_reward: float
    mean_cfr: float
    """Mean Completion-Focused Reward, each rollout in a group with the oracle's."""
    oracle_cfr: float
    """The oracle's mean CFR reward in those same groups."""
    calls: int
    completed: list[str]
    """Ids of the tasks the agent fully completed."""


def answer_variants(tasks: Sequence[Task]) -> list[Task]:
    """Variants of ``tasks`` that end on a question, so that answer checks are probed.

    For each task whose plan holds a read step (after the first) with a knowable answer, the
    variant keeps the plan up to that read and asks for the answer; its rubric is the cut
    plan's own (the state criteria of the writes it keeps, the answers, nothing else changed).
    Skipped where the instruction already holds the answer. Same world as the original (its
    services and distractors). The generator makes few tasks that end on a read, hence these.
    """
    variants = []
    for task in tasks:
        if task.condition is not None:
            continue  # a cut plan would keep or lose the conditioned write: not the same task
        world = build_world(task)
        for i in range(len(task.plan) - 1, 0, -1):
            step = task.plan[i]
            if world.env.tools[step.tool].kind != "read":
                continue
            plan = task.plan[:i + 1]
            answers = answer_criteria(step, world.env, plan=plan)
            if not answers:
                continue
            text = instruction(plan, world.env, answers[0])
            if any(str(v).casefold() in text.casefold() for a in answers for v in a.values):
                continue  # the user already says the answer: no question to ask
            services = list(dict.fromkeys(s.tool.split(SEPARATOR, 1)[0] for s in plan))
            rubric = [*state_criteria(plan, _changes(world, plan), world.env), *answers,
                      collateral_criterion()]
            variants.append(task.model_copy(update={
                "id": f"{task.id}-answer", "plan": plan, "rubric": rubric, "instruction": text,
                "labels": task.labels.model_copy(update={"services": services}),
                "provenance": {**task.provenance, "variant_of": task.id, "variant": "answer"}}))
            break
        world.env.close()
    return variants


def _changes(world: World, plan: list[Step]) -> list[list[Change]]:
    """Each step's journal entries, running ``plan`` on a fork of ``world``."""
    env = world.fork().env
    out = []
    for step in plan:
        mark = len(env.changes() or ())
        env.call(step.tool, step.arguments)
        out.append((env.changes() or [])[mark:])
    env.close()
    return out


async def _trajectories(agent: Agent, tasks: Sequence[Task],
                        max_steps: int) -> list[ScoredTrajectory]:
    trajectories = await asyncio.gather(*(
        run_episode(task, agent, max_steps=max_steps, timings=False) for task in tasks))
    return [score_trajectory(task, t) for task, t in zip(tasks, trajectories, strict=True)]


def _figures(name: str, scored: list[ScoredTrajectory],
             oracle: list[ScoredTrajectory]) -> AgentFigures:
    """Figures of one agent; CFR rewards as if each of its rollouts were in a group with the
    oracle's rollout of the same task (the weights of criteria the oracle alone passes grow)."""
    n = len(scored)
    cfr_own: list[float] = []
    cfr_oracle: list[float] = []
    for mine, best in zip(scored, oracle, strict=True):
        rewards = cfr(np.array([[best.passes, mine.passes]], dtype=float),
                      weights=np.array([mine.weights], dtype=float))
        cfr_oracle.append(float(rewards[0, 0]))
        cfr_own.append(float(rewards[0, 1]))
    return AgentFigures(
        agent=name, tasks=n,
        mean_reward=round(sum(s.rubric_score for s in scored) / n, 4) if n else 0.0,
        full_completion=round(sum(s.score for s in scored) / n, 4) if n else 0.0,
        max_reward=max((s.rubric_score for s in scored), default=0.0),
        mean_cfr=round(sum(cfr_own) / n, 4) if n else 0.0,
        oracle_cfr=round(sum(cfr_oracle) / n, 4) if n else 0.0,
        calls=sum(len(s.trajectory.calls) for s in scored),
        completed=[s.task_id for s in scored if s.score == 1.0])


def run_probes(tasks: Sequence[Task], *, max_steps: int = 100) -> list[AgentFigures]:
    """Run the oracle and every probe on ``tasks`` through the episode loop; score each.

    A probe runs on the tasks it applies to (``Probe.applies``: a mutation of the plan needs
    a write to mutate, or an answer); its CFR reward is computed in a group with the oracle's
    rollout of the same task.

    Returns:
        One :class:`AgentFigures` per agent, the oracle first.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> figures = run_probes(list(generate_tasks(2, seed=0)))
        >>> [(f.agent, f.full_completion) for f in figures][:2]
        [('oracle', 1.0), ('probe-claim', 0.0)]
    """
    oracle = asyncio.run(_trajectories(OracleAgent(), tasks, max_steps))
    figures = [_figures("oracle", oracle, oracle)]
    for probe_class in PROBES:
        probe = probe_class()
        chosen = [i for i, task in enumerate(tasks) if probe.applies(task)]
        scored = asyncio.run(_trajectories(probe, [tasks[i] for i in chosen], max_steps))
        figures.append(_figures(probe.name, scored, [oracle[i] for i in chosen]))
    return figures
