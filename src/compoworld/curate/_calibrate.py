"""Difficulty calibration: ``k`` rollouts per task with a model → its pass rate on each task;
the RL filter keeps the tasks it sometimes solves (0 < passes < k: the groups whose rewards
differ, so GRPO's advantages are not all zero); splits written with the data.

Files in ``out`` (rerun the same command to resume):

- ``rollouts.jsonl``, ``scored.jsonl`` — the rollouts and their scores;
- ``calibration.jsonl`` — one line per task: ``task_id``, ``k``, ``passes``, ``pass_rate``,
  ``mean_rubric_score``, ``rl`` (kept by the filter), and the three splits it is in;
- ``rl_tasks.jsonl`` — the tasks the filter keeps (a tasks file: ``compoworld export rl``);
- ``splits.json`` — train / validation / test by task, by motif and by held-out services,
  over the kept tasks;
- ``calibration.json`` — the run's figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import orjson
from pydantic import BaseModel, ConfigDict

from compoworld.curate._budget import Budget
from compoworld.curate._rollouts import UNTIMED, rollouts_scored
from compoworld.curate._split import SPLIT_SCHEMES, Split, split_tasks
from compoworld.errors import UserError
from compoworld.rollout import Agent, EpisodeSettings
from compoworld.scoring import ScoredTrajectory
from compoworld.tasks import Task


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskCalibration(_Model):
    """A model's record on one task (one line of ``calibration.jsonl``)."""

    task_id: str
    k: int
    """Rollouts scored (fewer than asked when a budget stopped the run)."""
    passes: int
    pass_rate: float
    mean_rubric_score: float
    rl: bool
    """Kept for RL: ``0 < passes < k``."""
    splits: dict[str, str] = {}
    """The split (train, validation, test) of this task under each scheme; kept tasks only."""


class CalibrationStats(_Model):
    """What a calibration run did (``calibration.json``)."""

    tasks: int
    k: int
    calibrated: int
    """Tasks with all ``k`` rollouts scored."""
    never: int
    always: int
    rl_kept: int
    mean_pass_rate: float
    prompt_tokens: int
    completion_tokens: int
    wall_s: float
    stopped_by: str | None
    split_sizes: dict[str, dict[str, int]]
    out: str


def pass_rates(scored: Sequence[ScoredTrajectory], k: int) -> list[TaskCalibration]:
    """Per task (in first-seen order), its passes among its scored rollouts (score 1.0)."""
    by_task: dict[str, list[ScoredTrajectory]] = {}
    for s in scored:
        by_task.setdefault(s.task_id, []).append(s)
    out = []
    for task_id, runs in by_task.items():
        passes = sum(s.score >= 1.0 for s in runs)
        out.append(TaskCalibration(
            task_id=task_id, k=len(runs), passes=passes, pass_rate=round(passes / len(runs), 6),
            mean_rubric_score=round(sum(s.rubric_score for s in runs) / len(runs), 6),
            rl=len(runs) == k and 0 < passes < k))
    return out


def _write(path: Path, lines: list[bytes]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(b"".join(lines))
    tmp.replace(path)


def calibrate(tasks: Sequence[Task], agent: Agent, out: str | Path, *, k: int = 8,
              concurrency: int = 8, settings: EpisodeSettings = UNTIMED,
              token_budget: int | None = None, time_budget: float | None = None,
              seed: int = 0, fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
              ) -> CalibrationStats:
    """Roll each task out ``k`` times with ``agent``, record its pass rate, keep the tasks
    with ``0 < passes < k`` for RL and split them three ways (see the module docs).

    Args:
        tasks: The tasks (unique ids).
        agent: The model to calibrate against (the policy to be trained, usually).
        out: The run's folder.
        k: Rollouts per task (the GRPO group size of the RL run).
        concurrency: Episodes at once.
        settings: Per-episode budgets.
        token_budget: Tokens for the whole run, resumes included.
        time_budget: Seconds of wall time for this invocation.
        seed: Seed of the splits.
        fractions: Train, validation and test shares of the splits.

    Raises:
        UserError: No tasks, ``k`` below 2, bad fractions.
    """
    if not tasks:
        raise UserError("no tasks to calibrate")
    if k < 2:
        raise UserError(f"k must be at least 2 (a task with one rollout has no pass rate "
                        f"between 0 and 1), got {k}")
    folder = Path(out)
    budget = Budget(tokens=token_budget, seconds=time_budget)
    run = rollouts_scored(tasks, agent, folder, group=k, concurrency=concurrency,
                          settings=settings, budget=budget)
    scored = run.scored
    records = pass_rates(scored, k)
    kept_ids = {r.task_id for r in records if r.rl}
    kept = [t for t in tasks if t.id in kept_ids]
    splits: dict[str, Split] = {by: split_tasks(kept, by, seed=seed, fractions=fractions)
                                for by in SPLIT_SCHEMES}
    for r in records:
        if r.rl:
            r.splits = {by: split.of(r.task_id) for by, split in splits.items()}
    _write(folder / "calibration.jsonl", [r.model_dump_json().encode() + b"\n" for r in records])
    _write(folder / "rl_tasks.jsonl", [t.model_dump_json().encode() + b"\n" for t in kept])
    _write(folder / "splits.json", [orjson.dumps({by: s.model_dump() for by, s in splits.items()},
                                                 option=orjson.OPT_INDENT_2) + b"\n"])
    full = [r for r in records if r.k == k]
    stats = CalibrationStats(
        tasks=len(tasks), k=k, calibrated=len(full),
        never=sum(r.passes == 0 for r in full), always=sum(r.passes == k for r in full),
        rl_kept=len(kept), mean_pass_rate=round(sum(r.pass_rate for r in full) / len(full), 6)
        if full else 0.0, prompt_tokens=budget.prompt_tokens,
        completion_tokens=budget.completion_tokens, wall_s=round(budget.elapsed(), 3),
        stopped_by=run.stopped_by,
        split_sizes={by: {"train": len(s.train), "validation": len(s.validation),
                          "test": len(s.test)} for by, s in splits.items()},
        out=str(folder))
    _write(folder / "calibration.json", [orjson.dumps(stats.model_dump(),
                                                      option=orjson.OPT_INDENT_2) + b"\n"])
    return stats
