"""What the index needs of each record: a projection of tasks, trajectories and scored
trajectories onto the few fields the lists, groups and summary read.

Reading a record through these models skips everything else (plan outputs, tool lists, tool
results) without building it, which is what keeps 10,000 trajectories cheap to index. They
ignore unknown fields and default missing ones: validation is the project's models' job
(``compoworld.tasks.Task`` and friends), not theirs. Dumped, a head has the record's shape.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict


def _number(value: Any) -> float | None:
    """A number, or None for anything else (the model reports it; the index must not break)."""
    return float(value) if isinstance(value, int | float) else None


Number = Annotated[float | None, BeforeValidator(_number)]


class _Head(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Counted(_Head):
    """An element counted, never read."""


class _CriterionHead(_Head):
    id: Any = None
    kind: Any = None
    description: Any = None


class _LabelsHead(_Head):
    domain: Any = None
    capabilities: list[Any] = []
    services: list[Any] = []


class TaskHead(_Head):
    id: Any = None
    involved: list[Any] = []
    distractors: list[Any] = []
    interface: Any = None
    instruction: str = ""
    plan: list[_Counted] = []
    rubric: list[_CriterionHead] = []
    labels: _LabelsHead = _LabelsHead()
    verification: dict[str, Any] = {}
    provenance: dict[str, Any] = {}


class _CallHead(_Head):
    success: Any = None
    error_source: Any = None


class TrajectoryHead(_Head):
    task_id: Any = None
    rollout_idx: Any = None
    agent: Any = None
    model: Any = None
    finish_reason: Any = None
    calls: list[_CallHead] = []


class _ScoreHead(_Head):
    id: Any = None
    kind: Any = None
    passed: Any = None


class ScoredHead(_Head):
    task_id: Any = None
    rollout_idx: Any = None
    criteria: list[_ScoreHead] = []
    passes: list[Number] = []
    weights: list[Number] = []
    rubric_score: Number = None
    score: Number = None
    replay_mismatches: list[_Counted] = []
    env_errors: Number = 0
    labels: _LabelsHead = _LabelsHead()
    trajectory: TrajectoryHead = TrajectoryHead()


HEADS: dict[str, type[_Head]] = {"tasks": TaskHead, "rollouts": TrajectoryHead, "scored": ScoredHead}
