"""Scored trajectories as data: what one JSONL line of ``compoworld score`` holds."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from compoworld.rollout import Trajectory
from compoworld.tasks import Labels


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CriterionScore(_Model):
    """One rubric criterion on one trajectory: passed or not, and why."""

    id: str
    kind: str
    weight: float
    passed: bool
    reason: str


class ReplayMismatch(_Model):
    """A replayed call whose envelope differs from the one the episode logged.

    The runtime is deterministic, so a mismatch means the world or the services changed since
    the rollout (or the rollout came from another world): the score may not be the episode's.
    """

    index: int
    name: str
    logged_success: bool
    logged_code: int | None
    replayed_success: bool
    replayed_code: int | None


class ScoredTrajectory(_Model):
    """A trajectory with its rubric results, rubric score and completion score.

    Attributes:
        passes: One bool per rubric criterion, in rubric order.
        weights: The criteria's weights, in rubric order.
        rubric_score: Weighted mean of ``passes`` (partial credit), in ``[0, 1]``.
        score: 1.0 when every criterion passes (full completion), else 0.0.
        replay_mismatches: Calls whose replayed outcome differs from the logged one.
        env_errors: Calls that failed through the environment's fault (never the agent's).
        labels: The task's domain, capabilities and services.
        trajectory: The trajectory scored (so one file feeds ``compoworld export sft``).
    """

    task_id: str
    rollout_idx: int
    criteria: list[CriterionScore]
    passes: list[bool]
    weights: list[float]
    rubric_score: float
    score: float
    replay_mismatches: list[ReplayMismatch] = []
    env_errors: int = 0
    labels: Labels
    trajectory: Trajectory
