"""Distillation: a teacher's rollouts, scored, rejection-sampled to the fully verified and
deduplicated ones, exported as SFT records.

Files in ``out`` (one folder per run; rerun the same command to resume):

- ``rollouts.jsonl`` — every teacher rollout (the rollout runner's resumable file);
- ``scored.jsonl`` — each scored against its task's rubric (``compoworld score``);
- ``sft.jsonl`` — the kept ones as SFT records (``compoworld export sft``);
- ``distill.json`` — the run's figures: rollouts, tokens, wall time, kept and rejected counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from compoworld.curate._budget import Budget
from compoworld.curate._dedup import near_duplicates
from compoworld.curate._rollouts import UNTIMED, rollouts_scored
from compoworld.errors import UserError
from compoworld.export import RecordForm, export_sft
from compoworld.rollout import Agent, EpisodeSettings
from compoworld.tasks import Task


class DistillStats(BaseModel):
    """What a distillation run did (``distill.json``)."""

    model_config = ConfigDict(extra="forbid")

    tasks: int
    group: int
    rollouts: int
    """Teacher rollouts in the file (this run's and earlier runs')."""
    new_rollouts: int
    finish_reasons: dict[str, int]
    prompt_tokens: int
    completion_tokens: int
    wall_s: float
    """Wall time of this invocation."""
    stopped_by: str | None
    """``tokens`` or ``time``: a budget stopped the run before every task was rolled out."""
    kept: int
    rejected: dict[str, int]
    """Why the others were not kept: ``score`` (not fully verified), ``unfinished``,
    ``replay_mismatch``, ``near_duplicate``."""
    kept_tasks: int
    out: str


def _write_json(path: Path, value: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")
    tmp.replace(path)


def distill(tasks: Sequence[Task], teacher: Agent, out: str | Path, *, group: int = 4,
            concurrency: int = 8, settings: EpisodeSettings = UNTIMED,
            token_budget: int | None = None, time_budget: float | None = None,
            similarity: float = 0.9, form: RecordForm = "release") -> DistillStats:
    """Roll ``tasks`` out with ``teacher`` (``group`` per task), keep the fully verified,
    deduplicated rollouts and export them as SFT records (see the module docs for the files).

    Rejection sampling keeps a rollout when its score is 1.0 (every criterion of the rubric),
    it ended with a final answer, its replay matched its log, and it is not a near-duplicate
    of a rollout of the same task kept before it (:func:`near_duplicates`, ``similarity``).

    Args:
        tasks: The tasks (unique ids).
        teacher: The teacher agent (an OpenAI-compatible endpoint: ``make_agent("openai")``).
        out: The run's folder.
        group: Rollouts per task (G).
        concurrency: Episodes at once (requests in flight to the teacher).
        settings: Per-episode budgets (turns, tokens, seconds).
        token_budget: Prompt + completion tokens for the whole run, resumes included; once
            spent, no new task is started.
        time_budget: Seconds of wall time for this invocation; once spent, no new task is
            started.
        similarity: Jaccard similarity from which two rollouts of a task are duplicates.
        form: SFT record form (``release`` or ``trl``).

    Returns:
        The run's figures (also written to ``out/distill.json``).

    Raises:
        UserError: No tasks, a bad group, concurrency or similarity, or a rollouts file of
            another teacher in ``out``.
    """
    if not tasks:
        raise UserError("no tasks to distill")
    if not 0 < similarity <= 1:
        raise UserError(f"similarity must be in (0, 1], got {similarity}")
    folder = Path(out)
    budget = Budget(tokens=token_budget, seconds=time_budget)
    run = rollouts_scored(tasks, teacher, folder, group=group, concurrency=concurrency,
                          settings=settings, budget=budget)
    scored = run.scored
    qualified = [i for i, s in enumerate(scored) if s.score >= 1.0
                 and s.trajectory.finish_reason == "stop" and not s.replay_mismatches]
    duplicates = {qualified[i] for i in near_duplicates(
        [scored[i].trajectory for i in qualified], similarity)}
    exported = export_sft([s for i, s in enumerate(scored) if i not in duplicates],
                          folder / "sft.jsonl", tasks=tasks, form=form)
    rejected = dict(sorted({**exported.dropped, "near_duplicate": len(duplicates)}.items()))
    reasons: dict[str, int] = {}
    for t in run.trajectories:
        reasons[t.finish_reason] = reasons.get(t.finish_reason, 0) + 1
    kept_ids = {scored[i].task_id for i in qualified if i not in duplicates}
    stats = DistillStats(
        tasks=len(tasks), group=group, rollouts=len(run.trajectories),
        new_rollouts=run.stats.done, finish_reasons=dict(sorted(reasons.items())),
        prompt_tokens=budget.prompt_tokens, completion_tokens=budget.completion_tokens,
        wall_s=round(budget.elapsed(), 3), stopped_by=run.stopped_by, kept=exported.kept,
        rejected={k: v for k, v in rejected.items() if v}, kept_tasks=len(kept_ids),
        out=str(folder))
    _write_json(folder / "distill.json", stats.model_dump())
    return stats
