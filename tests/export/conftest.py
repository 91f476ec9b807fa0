from __future__ import annotations

import asyncio

import pytest

from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import ClaimProbe, ScoredTrajectory, score_trajectory
from compoworld.tasks import GenerationSettings, Task, generate_tasks


@pytest.fixture(scope="session")
def tasks() -> list[Task]:
    return [*generate_tasks(3, seed=0),
            *generate_tasks(1, seed=1, settings=GenerationSettings(interface="gateway"))]


@pytest.fixture(scope="session")
def scored(tasks: list[Task]) -> list[ScoredTrajectory]:
    """Oracle rollouts (all complete) and, for the first task, a failed one."""
    out = [score_trajectory(t, asyncio.run(run_episode(t, OracleAgent(), timings=False)))
           for t in tasks]
    failed = asyncio.run(run_episode(tasks[0], ClaimProbe(), rollout_idx=1, timings=False))
    return [*out, score_trajectory(tasks[0], failed)]
