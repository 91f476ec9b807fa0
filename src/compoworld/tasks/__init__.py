"""Tasks: executed random walks over the cross-service graph, with rubric, instruction and
verification gates (design and status: docs/design-tasks.md)."""

from compoworld.tasks._answer import states
from compoworld.tasks._check import Call, CriterionResult, score
from compoworld.tasks._context import select_services
from compoworld.tasks._diff import net_changes, rows_by_id, run_diff
from compoworld.tasks._file import load_tasks
from compoworld.tasks._generate import (
    SETTINGS,
    WORLD_BATCH,
    GenerationSettings,
    GenerationStats,
    generate_task,
    generate_tasks,
    world_seed,
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
from compoworld.tasks._verify import verify_task
from compoworld.tasks._world import build_world

__all__ = [
    "SETTINGS",
    "WORLD_BATCH",
    "ArgSource",
    "Call",
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
    "net_changes",
    "rewrite_instruction",
    "rewrite_instructions",
    "rows_by_id",
    "run_diff",
    "score",
    "select_services",
    "states",
    "verify_task",
    "world_seed",
]
