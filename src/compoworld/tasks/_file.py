"""Task files: one task per JSONL line."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

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
        except ValidationError as error:
            if number == len(lines) and not path.read_bytes().endswith(b"\n"):
                break
            raise UserError(f"{path}:{number} is not a task: {_one_line(error)}") from None
    return tasks


def _one_line(error: ValidationError) -> str:
    """The first problem of a validation error on one line: field, what is wrong, how many
    more."""
    problems = error.errors(include_url=False)
    first = problems[0]
    field = ".".join(str(part) for part in first["loc"])
    got = repr(first.get("input"))
    about = (f"field {field!r}: " if field else "") + first["msg"].replace("\n", " ")
    if field and first["type"] != "missing":
        about += f" (got {got if len(got) <= 40 else got[:37] + '...'})"
    more = len(problems) - 1
    return about + (f"; and {more} more problem{'s' * (more > 1)}" if more else "")
