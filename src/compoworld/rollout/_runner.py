"""The rollout runner: G rollouts per task, concurrent, streamed to a resumable JSONL file.

Every rollout of a task group shares one world model (and its cache), so all G see the same
answers to simulated calls. Output: one :class:`Trajectory` per line, appended as soon as the
episode ends; a rerun skips the (task, rollout) pairs already in the file. When a run
completes, the file is rewritten in (task, rollout index) order, so its bytes do not depend
on concurrency or on which episode ended first (with ``timings=False`` and a deterministic
agent such as the oracle, the same tasks give the same file byte for byte).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from compoworld.errors import UserError
from compoworld.rollout._agent import Agent
from compoworld.rollout._chat import AgentSpec
from compoworld.rollout._episode import Episode
from compoworld.rollout._sink import RolloutSink
from compoworld.rollout._trajectory import Trajectory, task_digest
from compoworld.rollout._world import build_world
from compoworld.tasks import Task

if TYPE_CHECKING:
    from compoworld.world import World


@dataclass
class RolloutStats:
    """What a run did: counts the progress bar shows and the CLI prints at the end."""

    planned: int = 0
    skipped: int = 0
    done: int = 0
    finished: int = 0
    truncated: int = 0
    model_errors: int = 0
    retried: int = 0
    """Pairs run again because their episode on file had failed (``model_error``)."""
    env_errors: int = 0
    """Calls that failed on the environment's side (500s, world-model failures)."""
    by_reason: dict[str, int] = field(default_factory=dict)
    first_error: str | None = None
    """The error of the first episode that ended in ``model_error`` or ``env_error``."""

    def add(self, trajectory: Trajectory) -> None:
        reason = trajectory.finish_reason
        if reason in ("model_error", "env_error") and self.first_error is None:
            self.first_error = trajectory.error
        self.done += 1
        self.by_reason[reason] = self.by_reason.get(reason, 0) + 1
        self.finished += reason == "stop"
        self.model_errors += reason == "model_error"
        self.truncated += reason in ("max_steps", "max_tokens", "timeout")
        self.env_errors += sum(c.error_source == "environment" for c in trajectory.calls)

    def line(self) -> str:
        return (f"finished {self.finished} · truncated {self.truncated} · model errors "
                f"{self.model_errors} · env errors {self.env_errors}")


@dataclass(frozen=True)
class EpisodeSettings:
    """Budgets and recording options every episode of a run gets."""

    max_steps: int = 30
    max_tokens: int | None = None
    time_limit: float | None = None
    timings: bool = True


def known_tasks(tasks: Sequence[Task], all_tasks: Sequence[Task] | None) -> dict[str, str]:
    """The digest of every task the output file may hold rollouts of, by id."""
    return {t.id: task_digest(t) for t in (all_tasks if all_tasks is not None else tasks)}


def _check(tasks: Sequence[Task], group: int, concurrency: int) -> None:
    if group < 1:
        raise UserError(f"--group must be at least 1, got {group}")
    if concurrency < 1:
        raise UserError(f"--concurrency must be at least 1, got {concurrency}")
    repeated = sorted(i for i, n in Counter(t.id for t in tasks).items() if n > 1)
    if repeated:
        raise UserError(f"task ids appear twice in the tasks given: {', '.join(repeated[:5])}")


class _Groups:
    """One world template (with its simulator) per task, alive while its rollouts run."""

    def __init__(self, pending: dict[str, int], digests: dict[str, str] | None = None) -> None:
        self._pending = dict(pending)
        self._templates: dict[str, World] = {}
        self._tools: dict[str, list[dict[str, Any]]] = {}
        self._digests: dict[str, str] = dict(digests or {})

    def digest(self, task: Task) -> str:
        """The task's :func:`task_digest` (computed once per group)."""
        if task.id not in self._digests:
            self._digests[task.id] = task_digest(task)
        return self._digests[task.id]

    def episode(self, task: Task, index: int, settings: EpisodeSettings) -> Episode:
        """A new episode of ``task`` on a fork of the group's world (built on first use)."""
        if task.id not in self._templates:
            template = self._templates[task.id] = build_world(task)
            self._tools[task.id] = template.tools()
        return Episode(task, self._templates[task.id].fork(), max_steps=settings.max_steps,
                       max_tokens=settings.max_tokens, time_limit=settings.time_limit,
                       rollout_idx=index, tools=self._tools[task.id])

    def release(self, task: Task) -> None:
        self._pending[task.id] -= 1
        if not self._pending[task.id]:
            template = self._templates.pop(task.id, None)
            self._tools.pop(task.id, None)
            if template is not None:
                template.env.close()


async def _play(groups: _Groups, task: Task, index: int, agent: Agent,
                settings: EpisodeSettings) -> Trajectory:
    """One rollout, whatever happens: an exception (the task's world cannot be built, a bug
    anywhere) is recorded as an ``env_error`` trajectory and the run goes on."""
    episode = None
    try:
        episode = groups.episode(task, index, settings)
        trajectory = await episode.run(agent, timings=settings.timings)
    except Exception as error:  # no single episode can end a run
        trajectory = Trajectory(
            task_id=task.id, rollout_idx=index, agent=agent.name, model=agent.model,
            interface=task.interface, finish_reason="env_error", tools=[], calls=[],
            messages=[{"role": "system", "content": task.system_prompt},
                      {"role": "user", "content": task.instruction}],
            error=f"the episode failed before it ended: {type(error).__name__}: "
                  f"{str(error)[:300]}")
    finally:
        if episode is not None:
            episode.world.env.close()
        groups.release(task)
    trajectory.task_digest = groups.digest(task)
    return trajectory


async def run_group(task: Task, agent: Agent, indices: Sequence[int],
                    settings: EpisodeSettings = EpisodeSettings()) -> list[Trajectory]:
    """The rollouts ``indices`` of one task, concurrently, on one shared world model."""
    groups = _Groups({task.id: len(indices)})
    return list(await asyncio.gather(*(_play(groups, task, i, agent, settings)
                                       for i in indices)))


async def rollout_async(
    tasks: Sequence[Task], agent: Agent, *, group: int = 1, out: Path,
    concurrency: int = 32, settings: EpisodeSettings = EpisodeSettings(),
    on_trajectory: Callable[[Trajectory, RolloutStats], None] | None = None,
    stats: RolloutStats | None = None, retry_failed: bool = True,
    all_tasks: Sequence[Task] | None = None,
) -> RolloutStats:
    """:func:`rollout` in a running event loop (no progress bar; see ``on_trajectory``)."""
    _check(tasks, group, concurrency)
    stats = stats if stats is not None else RolloutStats()
    known = known_tasks(tasks, all_tasks)
    sink = RolloutSink(out, agent=agent.name, model=agent.model, tasks=known,
                       retry_failed=retry_failed)
    try:
        jobs = [(t, i) for t in tasks for i in range(group) if (t.id, i) not in sink.done]
        stats.planned, stats.skipped = len(tasks) * group, len(tasks) * group - len(jobs)
        stats.retried = sum(key in sink.retrying for key in ((t.id, i) for t, i in jobs))
        pending: dict[str, int] = {}
        for task, _ in jobs:
            pending[task.id] = pending.get(task.id, 0) + 1
        groups = _Groups(pending, known)
        queue: Iterator[tuple[Task, int]] = iter(jobs)

        async def worker() -> None:
            for task, index in queue:
                trajectory = await _play(groups, task, index, agent, settings)
                sink.write(trajectory)
                stats.add(trajectory)
                if on_trajectory is not None:
                    on_trajectory(trajectory, stats)

        await asyncio.gather(*(worker() for _ in range(min(concurrency, len(jobs)) or 1)))
        sink.finish([t.id for t in tasks])
    finally:
        sink.close()
    return stats


def rollout(
    tasks: Sequence[Task], agent: Agent | AgentSpec, *, group: int = 1,
    out: str | Path = "out/rollouts.jsonl", concurrency: int = 32, max_steps: int = 30,
    max_tokens: int | None = None, time_limit: float | None = None, timings: bool = True,
    ray: bool | str | None = None, num_cpus: int | None = None, progress: bool = False,
    retry_failed: bool = True, all_tasks: Sequence[Task] | None = None,
) -> RolloutStats:
    """Run ``group`` rollouts of every task with ``agent`` and append them to ``out``.

    Resumable: pairs (task id, rollout index) already in ``out`` are skipped (except those
    that ended in ``model_error``, run again unless ``retry_failed`` is False); an interrupted
    run (Ctrl-C, a crash) loses only the episodes still running. A torn last line is dropped.
    One run at a time writes ``out`` (a second is refused), and a file holding rollouts of
    other tasks than ``all_tasks`` (another tasks file) is refused.

    Args:
        tasks: The tasks (unique ids).
        agent: An agent, or an :class:`AgentSpec` to build one (required to use a model agent
            with Ray: each worker builds its own).
        group: Rollouts per task (the GRPO group size).
        out: The JSONL file.
        concurrency: Episodes running at once (with Ray: task groups in flight).
        max_steps: Assistant turns per episode.
        max_tokens: Generated tokens per episode.
        time_limit: Seconds per episode.
        timings: Record wall times (False: byte-identical output for the oracle).
        ray: Run each task group as a Ray task: True (or ``"local"``) starts a local
            instance, an address (``"ray://host:10001"``, ``"auto"``) joins a cluster.
        num_cpus: CPUs for a local Ray instance.
        progress: Show a progress bar with live counts (on stderr).
        retry_failed: Run again the pairs on file whose episode ended in ``model_error``.
        all_tasks: The whole tasks file ``tasks`` come from, when they are a part of it
            (default: ``tasks``); ``out`` may hold rollouts of any of them.

    Returns:
        The run's counts.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> from compoworld.rollout import OracleAgent
        >>> import tempfile, pathlib
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "rollouts.jsonl"
        >>> stats = rollout(list(generate_tasks(2)), OracleAgent(), group=2, out=out)
        >>> stats.done, stats.finished, len(out.read_text().splitlines())
        (4, 4, 4)
    """
    settings = EpisodeSettings(max_steps, max_tokens, time_limit, timings)
    if ray:
        from compoworld.rollout._ray import rollout_ray

        return rollout_ray(tasks, agent, group=group, out=Path(out), groups_in_flight=concurrency,
                           settings=settings, address=None if ray is True else ray,
                           num_cpus=num_cpus, progress=progress, retry_failed=retry_failed,
                           all_tasks=all_tasks)
    built = agent.build() if isinstance(agent, AgentSpec) else agent
    with _Bar(progress, len(tasks) * group) as bar:
        return asyncio.run(rollout_async(tasks, built, group=group, out=Path(out),
                                         concurrency=concurrency, settings=settings,
                                         on_trajectory=bar.update, stats=bar.stats,
                                         retry_failed=retry_failed, all_tasks=all_tasks))


class _Bar:
    """The rich progress bar (or nothing), fed one trajectory at a time."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.stats = RolloutStats()
        self._progress = Progress(
            TextColumn("[bold]rollouts"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[detail]}"), TimeElapsedColumn(),
            console=Console(stderr=True), disable=not enabled)
        self._bar = self._progress.add_task("rollouts", total=total, detail="")

    def __enter__(self) -> _Bar:
        self._progress.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._progress.stop()

    def update(self, _: Trajectory | None, stats: RolloutStats) -> None:
        self._progress.update(self._bar, completed=stats.skipped + stats.done,
                              detail=stats.line())
