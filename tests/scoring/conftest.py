from __future__ import annotations

import asyncio

import pytest

from compoworld.rollout import OracleAgent, Trajectory, run_episode
from compoworld.tasks import GenerationSettings, Task, generate_tasks


@pytest.fixture(scope="session")
def tasks() -> list[Task]:
    """Four direct-interface tasks and two gateway ones."""
    return [*generate_tasks(4, seed=0),
            *generate_tasks(2, seed=1, settings=GenerationSettings(interface="gateway"))]


@pytest.fixture(scope="session")
def oracle_runs(tasks: list[Task]) -> list[Trajectory]:
    return [asyncio.run(run_episode(t, OracleAgent(), timings=False)) for t in tasks]
