"""Rollouts for curation: the rollout runner, fed task by task batch until a budget is spent.

The runner already resumes (pairs in the file are skipped) and writes as it goes; this adds
the run-wide budgets. Tasks go to the runner in batches just big enough to keep
``concurrency`` episodes busy; before each batch the budget is checked, so a spent budget
stops the run between batches and never cuts an episode (an interrupted or budget-stopped run
resumes where it stopped: rerun the same command).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from compoworld.curate._budget import Budget
from compoworld.rollout import (
    Agent,
    EpisodeSettings,
    RolloutSink,
    RolloutStats,
    Trajectory,
    rollout_async,
)
from compoworld.scoring import ScoredTrajectory, load_trajectories, save_scored, score_trajectories
from compoworld.tasks import Task

UNTIMED = EpisodeSettings(timings=False)
"""Default episode settings of curation runs: no wall times in the trajectories, so that the
same teacher answers give the same files byte for byte."""


@dataclass
class RunResult:
    """The rollouts of a run (all of the file, this run's and earlier ones), in task order."""

    trajectories: list[Trajectory]
    stats: RolloutStats
    stopped_by: str | None
    """``tokens`` or ``time`` when a budget stopped the run before every task was rolled out."""
    scored: list[ScoredTrajectory] = field(default_factory=list)
    """The trajectories scored, in the same order (:func:`rollouts_scored`)."""


def rollouts_scored(tasks: Sequence[Task], agent: Agent, folder: Path, *, group: int,
                    concurrency: int, settings: EpisodeSettings, budget: Budget) -> RunResult:
    """What every curation run starts with: ``group`` rollouts of each task into
    ``folder/rollouts.jsonl`` (resumable, within ``budget``), scored into ``folder/scored.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)
    run = run_rollouts(tasks, agent, folder / "rollouts.jsonl", group=group,
                       concurrency=concurrency, settings=settings, budget=budget)
    run.scored = score_trajectories(tasks, run.trajectories)
    save_scored(run.scored, folder / "scored.jsonl")
    return run


def run_rollouts(tasks: Sequence[Task], agent: Agent, out: Path, *, group: int,
                 concurrency: int, settings: EpisodeSettings, budget: Budget) -> RunResult:
    """``group`` rollouts of each task into ``out`` (resumable), within ``budget``."""
    if out.exists():
        for trajectory in load_trajectories(out):
            budget.add(trajectory)  # earlier invocations' spending counts against the budget
    stats = RolloutStats()
    size = max(1, math.ceil(concurrency / group))
    stopped_by = None

    def count(trajectory: Trajectory, _: RolloutStats) -> None:
        budget.add(trajectory)

    for start in range(0, len(tasks), size):
        stopped_by = budget.exhausted()
        if stopped_by is not None:
            break
        batch = RolloutStats()
        asyncio.run(rollout_async(tasks[start:start + size], agent, group=group, out=out,
                                  concurrency=concurrency, settings=settings,
                                  on_trajectory=count, stats=batch, all_tasks=tasks))
        stats.planned += batch.planned
        stats.skipped += batch.skipped
        stats.done += batch.done
        stats.finished += batch.finished
        stats.truncated += batch.truncated
        stats.model_errors += batch.model_errors
        stats.env_errors += batch.env_errors
        for reason, n in batch.by_reason.items():
            stats.by_reason[reason] = stats.by_reason.get(reason, 0) + n
    ids = [t.id for t in tasks]
    if out.exists():
        sink = RolloutSink(out, agent=agent.name, model=agent.model)
        sink.close()
        sink.order(ids)  # the whole file in task order, whatever the batches were
    position = {task_id: i for i, task_id in enumerate(ids)}
    trajectories = sorted((t for t in (load_trajectories(out) if out.exists() else [])
                           if t.task_id in position and t.rollout_idx < group),
                          key=lambda t: (position[t.task_id], t.rollout_idx))
    return RunResult(trajectories, stats, stopped_by)
