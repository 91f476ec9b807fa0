"""RL export: tasks → a ``datasets`` dataset of prompts plus what rebuilds each task's world."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from compoworld.errors import UserError
from compoworld.export._write import write_records
from compoworld.tasks import Task

RLFormat = Literal["disk", "parquet", "jsonl"]


def rl_row(task: Task) -> dict[str, Any]:
    """One row: the prompt messages (system, user), the task id, labels, and the task as JSON.

    ``task`` (the full task, JSON text) is what an environment needs to rebuild the world
    (``Task.model_validate_json`` then ``compoworld.rollout.build_world``) and to score the
    episode; it is text so that every row has the same columns whatever the task holds.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> row = rl_row(next(generate_tasks(1, seed=0)))
        >>> [m["role"] for m in row["prompt"]], row["task_id"].startswith("t0-")
        (['system', 'user'], True)
    """
    return {
        "prompt": [{"role": "system", "content": task.system_prompt},
                   {"role": "user", "content": task.instruction}],
        "task_id": task.id,
        "interface": task.interface,
        "domain": task.labels.domain,
        "services": list(task.labels.services),
        "capabilities": list(task.labels.capabilities),
        "n_criteria": len(task.rubric),
        "task": task.model_dump_json(),
    }


def export_rl(tasks: Iterable[Task], out_dir: str | Path, *, format: RLFormat = "disk") -> Path:
    """Write an RL dataset of ``tasks``, one row per task (:func:`rl_row`).

    Args:
        tasks: The tasks.
        out_dir: Folder to write to (created).
        format: ``disk`` — ``datasets.Dataset.save_to_disk(out_dir)``, loaded back with
            ``datasets.load_from_disk``; ``parquet`` — ``out_dir/train.parquet``; ``jsonl`` —
            ``out_dir/train.jsonl``.

    Returns:
        The folder (``disk``) or file written.

    Raises:
        UserError: No tasks, or an unknown format.
    """
    rows = [rl_row(t) for t in tasks]
    if not rows:
        raise UserError("no tasks to export")
    out = Path(out_dir)
    if format == "disk":
        try:
            from datasets import Dataset
        except ImportError:  # pragma: no cover - datasets comes with the train extra
            raise UserError("the RL dataset needs `datasets`: pip install 'compoworld[train]'") from None
        out.mkdir(parents=True, exist_ok=True)
        Dataset.from_list(rows).save_to_disk(str(out))
        return out
    if format not in ("parquet", "jsonl"):
        raise UserError(f"format must be 'disk', 'parquet' or 'jsonl', got {format!r}")
    path = out / f"train.{format}"
    write_records(rows, path, format)
    return path
