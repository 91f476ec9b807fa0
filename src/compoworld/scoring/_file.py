"""Reading and writing the JSONL files of scoring: rollouts in, scored trajectories out."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from compoworld.errors import UserError
from compoworld.rollout import Trajectory
from compoworld.scoring._model import ScoredTrajectory

M = TypeVar("M", bound=BaseModel)


def _load(path: str | Path, model: type[M], what: str, hint: str) -> list[M]:
    path = Path(path)
    if not path.exists():
        raise UserError(f"no {what} file {str(path)!r} ({hint})")
    lines = path.read_bytes().splitlines()
    complete = path.read_bytes().endswith(b"\n")
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            out.append(model.model_validate_json(line))
        except ValidationError as error:
            if number == len(lines) and not complete:
                break  # a half-written last line: an interrupted run
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise UserError(f"{path}:{number} is not a {what}: {where}: {first['msg']}") from None
    return out


def load_trajectories(path: str | Path) -> list[Trajectory]:
    """The trajectories of a ``compoworld rollout`` JSONL file.

    Raises:
        UserError: The file does not exist, or a line (other than a half-written last one)
            is not a trajectory; the message names the line.
    """
    return _load(path, Trajectory, "trajectory", "make one with `compoworld rollout`")


def load_scored(path: str | Path) -> list[ScoredTrajectory]:
    """The scored trajectories of a ``compoworld score`` JSONL file.

    Raises:
        UserError: As :func:`load_trajectories`.
    """
    return _load(path, ScoredTrajectory, "scored trajectory", "make one with `compoworld score`")


def save_scored(scored: Iterable[ScoredTrajectory], path: str | Path) -> int:
    """Write scored trajectories as JSONL (replacing the file atomically); returns the count."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [s.model_dump_json().encode() + b"\n" for s in scored]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(b"".join(rows))
    tmp.replace(path)
    return len(rows)
