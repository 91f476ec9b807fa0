"""The runner on Ray: each task group is a Ray task; the driver appends what comes back.

Same output as the local runner (same lines, same resume rule, same final order); only
where the episodes run differs. Workers get the agent as an :class:`AgentSpec` (each builds
its own client) or, for plain-Python agents such as the oracle, the agent itself (pickled).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from compoworld.errors import UserError
from compoworld.rollout._agent import Agent
from compoworld.rollout._chat import AgentSpec
from compoworld.rollout._runner import (
    EpisodeSettings,
    RolloutStats,
    _Bar,
    _check,
    known_tasks,
    run_group,
)
from compoworld.rollout._sink import RolloutSink
from compoworld.rollout._trajectory import Trajectory
from compoworld.tasks import Task


def _group_job(task_json: str, agent: Agent | AgentSpec, indices: list[int],
               settings: EpisodeSettings) -> list[bytes]:
    """Runs in a Ray worker: one task group, returned as serialized trajectories."""
    task = Task.model_validate_json(task_json)
    built = agent.build() if isinstance(agent, AgentSpec) else agent
    trajectories = asyncio.run(run_group(task, built, indices, settings))
    return [t.to_line() for t in trajectories]


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserError("--ray needs the 'ray' extra: pip install 'compoworld[ray]'") from None
    return ray


def rollout_ray(tasks: Sequence[Task], agent: Agent | AgentSpec, *, group: int, out: Path,
                groups_in_flight: int, settings: EpisodeSettings, address: str | None = None,
                num_cpus: int | None = None, progress: bool = False, retry_failed: bool = True,
                all_tasks: Sequence[Task] | None = None) -> RolloutStats:
    """:func:`~compoworld.rollout.rollout` with task groups as Ray tasks.

    Joins the Ray instance at ``address`` (``"auto"``, ``"ray://host:10001"``) or, with None
    or ``"local"``, the one already initialized in this process, else starts a local one.
    """
    _check(tasks, group, groups_in_flight)
    ray = _ray()
    if not ray.is_initialized():
        ray.init(address=None if address in (None, "local") else address, num_cpus=num_cpus,
                 include_dashboard=False, log_to_driver=False)
    local = agent.build() if isinstance(agent, AgentSpec) else agent  # names what it records
    name, model = local.name, local.model
    job = ray.remote(_group_job)
    sink = RolloutSink(out, agent=name, model=model, tasks=known_tasks(tasks, all_tasks),
                       retry_failed=retry_failed)
    with _Bar(progress, len(tasks) * group) as bar:
        stats = bar.stats
        try:
            groups = [(t, [i for i in range(group) if (t.id, i) not in sink.done]) for t in tasks]
            groups = [(t, indices) for t, indices in groups if indices]
            stats.planned = len(tasks) * group
            stats.skipped = stats.planned - sum(len(i) for _, i in groups)
            stats.retried = sum((t.id, i) in sink.retrying for t, indices in groups for i in indices)
            waiting = iter(groups)
            running: list[Any] = []

            def submit() -> None:
                for task, indices in waiting:
                    running.append(job.remote(task.model_dump_json(), agent, indices, settings))
                    if len(running) >= groups_in_flight:
                        return

            submit()
            while running:
                ready, running = ray.wait(running, num_returns=1)
                for line in ray.get(ready[0]):
                    trajectory = Trajectory.model_validate_json(line)
                    sink.write_line(line, (trajectory.task_id, trajectory.rollout_idx))
                    stats.add(trajectory)
                    bar.update(trajectory, stats)
                submit()
            sink.finish([t.id for t in tasks])
        finally:
            sink.close()
    return stats
