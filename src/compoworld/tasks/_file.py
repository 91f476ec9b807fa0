"""Task files: one task per JSONL line."""

from __future__ import annotations

from pathlib import Path

from compoworld.errors import UserError
from compoworld.tasks._model import Task


def load_tasks(path: str | Path, *, missing_ok: bool = False) -> list[Task]:
    """The tasks of a JSONL file. A half-written last line (an interrupted run) is dropped;
    a bad line elsewhere is an error naming the line.

    Raises:
        UserError: The file does not exist (unless ``missing_ok``) or a line is not a task.
    """
    path = Path(path)
    if not path.exists():
        if missing_ok:
            return []
        raise UserError(f"no task file {str(path)!r} (make one with `compoworld generate`)")
    tasks = []
    lines = path.read_bytes().splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            tasks.append(Task.model_validate_json(line))
        except ValueError as error:
            if number == len(lines) and not path.read_bytes().endswith(b"\n"):
                break
            raise UserError(f"{path}:{number} is not a task: {error}") from None
    return tasks
