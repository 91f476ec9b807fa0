"""Real files for the viewer: generated tasks, rollouts of the oracle and of two reward-hacking
probes (so some criteria fail and calls err), scored by the real scorer."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import ClaimProbe, WriteAllProbe, save_scored, score_trajectories
from compoworld.tasks import generate_tasks


@pytest.fixture(scope="session")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``tasks``, ``rollouts`` and ``scored`` JSONL files: 3 tasks × (oracle, write-all, claim)."""
    out = tmp_path_factory.mktemp("view-data")
    tasks = list(generate_tasks(3, seed=0))
    agents = [OracleAgent(), WriteAllProbe(), ClaimProbe()]
    runs = [asyncio.run(run_episode(task, agent, rollout_idx=i, timings=False))
            for task in tasks for i, agent in enumerate(agents)]
    paths = {"tasks": out / "tasks.jsonl", "rollouts": out / "rollouts.jsonl", "scored": out / "scored.jsonl"}
    paths["tasks"].write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    paths["rollouts"].write_text("".join(r.model_dump_json() + "\n" for r in runs))
    save_scored(score_trajectories(tasks, runs), paths["scored"])
    return paths

