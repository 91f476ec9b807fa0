"""Aggregate figures over scored trajectories: pass rate per criterion kind, completion."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from compoworld.scoring._model import ScoredTrajectory


class ScoreSummary(BaseModel):
    """What ``compoworld score`` prints.

    Attributes:
        trajectories: How many were scored.
        tasks: How many distinct tasks they ran.
        full_completion: Share of the judged trajectories passing every criterion.
        mean_rubric_score: Mean weighted share of criteria passed, over the judged ones.
        pass_rate_by_kind: Kind → share of that kind's criteria passed (over the judged ones).
        criteria_by_kind: Kind → how many criteria of that kind were checked (judged ones).
        replay_mismatches: Trajectories with at least one replay mismatch.
        env_errors: Calls that failed through the environment's fault.
        env_failed: Trajectories the environment ended (``finish_reason == "env_error"``): a
            broken environment is never the agent's failure, so these are left out of every
            figure above but ``trajectories`` and ``tasks``, and counted here instead.
    """

    model_config = ConfigDict(extra="forbid")

    trajectories: int
    tasks: int
    full_completion: float
    mean_rubric_score: float
    pass_rate_by_kind: dict[str, float]
    criteria_by_kind: dict[str, int]
    replay_mismatches: int
    env_errors: int
    env_failed: int = 0


def summarize(scored: Sequence[ScoredTrajectory]) -> ScoreSummary:
    """The figures of a set of scored trajectories (zeros for an empty set).

    Example:
        >>> summarize([]).full_completion
        0.0
    """
    judged = [s for s in scored if s.trajectory.finish_reason != "env_error"]
    passed: dict[str, int] = defaultdict(int)
    checked: dict[str, int] = defaultdict(int)
    for s in judged:
        for c in s.criteria:
            checked[c.kind] += 1
            passed[c.kind] += c.passed
    n = len(judged)
    return ScoreSummary(
        trajectories=len(scored), tasks=len({s.task_id for s in scored}),
        full_completion=round(sum(s.score for s in judged) / n, 6) if n else 0.0,
        mean_rubric_score=round(sum(s.rubric_score for s in judged) / n, 6) if n else 0.0,
        pass_rate_by_kind={k: round(passed[k] / checked[k], 6) for k in sorted(checked)},
        criteria_by_kind=dict(sorted(checked.items())),
        replay_mismatches=sum(1 for s in scored if s.replay_mismatches),
        env_errors=sum(s.env_errors for s in scored),
        env_failed=len(scored) - n)
