"""Running the reward-hacking probes next to the oracle, and the task set they run on."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from compoworld.rollout import Agent, OracleAgent, build_world, run_episode
from compoworld.scoring._probes import PROBES
from compoworld.scoring._score import score_trajectory
from compoworld.service import SEPARATOR
from compoworld.tasks import Task
from compoworld.tasks._instruction import instruction
from compoworld.tasks._rubric import answer_criterion


class AgentFigures(BaseModel):
    """How one agent scored over a task set."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    tasks: int
    mean_reward: float
    """Mean rubric score (uniform partial credit)."""
    full_completion: float
    max_reward: float
    calls: int
    completed: list[str]
    """Ids of the tasks the agent fully completed."""


def answer_variants(tasks: Sequence[Task]) -> list[Task]:
    """Read-only variants of ``tasks`` that end on a question, so that answer checks are probed.

    For each task whose plan holds a read step (after the first) with a knowable answer, the
    variant keeps the plan up to that read, asks for the answer, and has one criterion: the
    final answer states it (skipped where the instruction already holds the answer). Same world
    as the original (its services and distractors). The generator makes few tasks that end on
    a read, hence these.
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
            answer = answer_criterion(step, world.env)
            if answer is None:
                continue
            plan = task.plan[:i + 1]
            text = instruction(plan, world.env, answer)
            if any(str(v).casefold() in text.casefold() for v in answer.values):
                continue  # the user already says the answer: no question to ask
            services = list(dict.fromkeys(s.tool.split(SEPARATOR, 1)[0] for s in plan))
            variants.append(task.model_copy(update={
                "id": f"{task.id}-answer", "plan": plan, "rubric": [answer], "instruction": text,
                "labels": task.labels.model_copy(update={"services": services}),
                "provenance": {**task.provenance, "variant_of": task.id, "variant": "answer"}}))
            break
        world.env.close()
    return variants


async def _run(agent: Agent, tasks: Sequence[Task], max_steps: int) -> AgentFigures:
    trajectories = await asyncio.gather(*(
        run_episode(task, agent, max_steps=max_steps, timings=False) for task in tasks))
    scored = [score_trajectory(task, t) for task, t in zip(tasks, trajectories, strict=True)]
    n = len(scored)
    return AgentFigures(
        agent=agent.name, tasks=n,
        mean_reward=round(sum(s.rubric_score for s in scored) / n, 4) if n else 0.0,
        full_completion=round(sum(s.score for s in scored) / n, 4) if n else 0.0,
        max_reward=max((s.rubric_score for s in scored), default=0.0),
        calls=sum(len(t.calls) for t in trajectories),
        completed=[s.task_id for s in scored if s.score == 1.0])


def run_probes(tasks: Sequence[Task], *, max_steps: int = 100) -> list[AgentFigures]:
    """Run the oracle and every probe on ``tasks`` through the episode loop; score each.

    Returns:
        One :class:`AgentFigures` per agent, the oracle first.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> figures = run_probes(list(generate_tasks(2, seed=0)))
        >>> [(f.agent, f.full_completion) for f in figures][:2]
        [('oracle', 1.0), ('probe-claim', 0.0)]
    """
    agents: list[Agent] = [OracleAgent(), *(probe() for probe in PROBES)]
    return [asyncio.run(_run(agent, tasks, max_steps)) for agent in agents]
