"""Tasks: executed random walks over the cross-service graph, with rubric, instruction and
verification gates (design and status: docs/design-tasks.md)."""

from compoworld.tasks._context import select_services
from compoworld.tasks._file import load_tasks
from compoworld.tasks._generate import (
    GenerationSettings,
    GenerationStats,
    generate_task,
    generate_tasks,
)
from compoworld.tasks._model import (
    ArgSource,
    Condition,
    Criterion,
    Labels,
    Selection,
    Step,
    Task,
)
from compoworld.tasks._rewrite import check_rewrite, rewrite_instruction, rewrite_instructions
from compoworld.tasks._rubric import CriterionResult, rows_by_id, score
from compoworld.tasks._verify import verify_task
from compoworld.tasks._world import build_world

__all__ = [
    "ArgSource",
    "Condition",
    "Criterion",
    "CriterionResult",
    "GenerationSettings",
    "GenerationStats",
    "Labels",
    "Selection",
    "Step",
    "Task",
    "build_world",
    "check_rewrite",
    "generate_task",
    "generate_tasks",
    "load_tasks",
    "rewrite_instruction",
    "rewrite_instructions",
    "rows_by_id",
    "score",
    "select_services",
    "verify_task",
]
