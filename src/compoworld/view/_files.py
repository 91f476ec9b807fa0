"""Reading the files the viewer shows: tasks, rollouts and scored JSONL, told apart by content.

Each file goes through the project's loader (``load_tasks``, ``load_trajectories``,
``load_scored``), which validates it. The viewer renders the records as the file holds them
(plain dicts), so a field this version of CompoWorld does not know is still shown: when the
loader refuses a file only because of fields it does not know, the file is read as it is and a
note says which fields those were.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel

from compoworld.errors import UserError
from compoworld.rollout import Trajectory
from compoworld.scoring import ScoredTrajectory, load_scored, load_trajectories
from compoworld.tasks import Task, load_tasks

Kind = Literal["tasks", "rollouts", "scored"]

_MODELS: dict[Kind, type[BaseModel]] = {"tasks": Task, "rollouts": Trajectory, "scored": ScoredTrajectory}
_REQUIRED: dict[Kind, frozenset[str]] = {
    "tasks": frozenset({"id", "plan", "rubric", "instruction"}),
    "scored": frozenset({"task_id", "criteria", "trajectory"}),
    "rollouts": frozenset({"task_id", "rollout_idx", "messages"}),
}
_EXPECTED = "expected a tasks, rollouts or scored JSONL file (compoworld generate, rollout, score)"


@dataclass(frozen=True)
class Source:
    """One file given to the viewer: what it holds and what was noticed reading it."""

    path: str
    kind: Kind
    count: int
    notes: tuple[str, ...] = ()


def read_source(path: str | Path) -> tuple[Source, list[dict[str, Any]]]:
    """The records of one tasks, rollouts or scored file, as dicts, with what the file is.

    Raises:
        UserError: The file is missing or is not one of the three kinds (one line saying what
            it is and what was expected).
    """
    path = Path(path)
    if not path.is_file():
        raise UserError(f"no file {str(path)!r} ({_EXPECTED})")
    data = path.read_bytes()
    kind = _sniff(path, data)
    lines = data.splitlines()
    complete = data.endswith(b"\n")
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            if number == len(lines) and not complete:
                break  # a half-written last line: an interrupted run
            raise UserError(f"{path}:{number} is not JSON; {_EXPECTED}") from None
        if not isinstance(record, dict) or not _REQUIRED[kind] <= record.keys():
            raise UserError(f"{path}:{number} is {_describe(record)}, not like line 1 (a {kind} record)")
        records.append(record)
    notes = _validate(path, kind, records)
    return Source(str(path), kind, len(records), notes), records


def _validate(path: Path, kind: Kind, records: list[dict[str, Any]]) -> tuple[str, ...]:
    """Run the project's loader; a refusal for unknown fields only becomes a note."""
    try:
        if kind == "tasks":
            load_tasks(path)
        elif kind == "rollouts":
            load_trajectories(path)
        else:
            load_scored(path)
    except UserError as error:
        unknown = sorted(_unknown_fields(kind, records))
        if not unknown:
            raise
        first = str(error).split(": ", 1)[-1]
        return (f"{path.name}: fields this version of compoworld does not know, shown as they are: "
                f"{', '.join(unknown)} (loader said: {first})",)
    return ()


def _unknown_fields(kind: Kind, records: list[dict[str, Any]]) -> set[str]:
    """Dotted names of the fields the records hold that their model (and submodels) do not."""
    model = _MODELS[kind]
    unknown: set[str] = set()
    for record in records[:200]:
        _walk(model, record, "", unknown)
    return unknown


def _walk(model: type[BaseModel], value: dict[str, Any], prefix: str, unknown: set[str]) -> None:
    fields = model.model_fields
    for key, item in value.items():
        if key not in fields:
            unknown.add(prefix + key)
            continue
        sub = _submodel(fields[key].annotation)
        if sub is not None:
            for element in item if isinstance(item, list) else [item]:
                if isinstance(element, dict):
                    _walk(sub, element, f"{prefix}{key}.", unknown)


def _submodel(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _submodel(arg)
        if found is not None:
            return found
    return None


def _sniff(path: Path, data: bytes) -> Kind:
    if data.startswith(b"SQLite format 3"):
        raise UserError(f"{path} is a SQLite database (a world?); {_EXPECTED}")
    first = next((line for line in data.splitlines() if line.strip()), None)
    if first is None:
        raise UserError(f"{path} is empty; {_EXPECTED}")
    try:
        record = orjson.loads(first)
    except orjson.JSONDecodeError:
        try:
            orjson.loads(data)
        except orjson.JSONDecodeError:
            raise UserError(f"{path} is not JSON lines; {_EXPECTED}") from None
        raise UserError(f"{path} is one JSON document, not JSON lines; {_EXPECTED}") from None
    if isinstance(record, dict):
        kinds: tuple[Kind, ...] = ("scored", "tasks", "rollouts")
        for kind in kinds:
            if _REQUIRED[kind] <= record.keys():
                return kind
    raise UserError(f"{path} holds {_describe(record)}; {_EXPECTED}")


def _describe(record: Any) -> str:
    """What a JSON value looks like, in a few words (for errors)."""
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}"
    keys = record.keys()
    if {"tools", "messages", "meta"} <= keys:
        return "SFT records (compoworld export sft)"
    if {"prompt"} <= keys or {"task_id", "world"} <= keys:
        return "RL records (compoworld export rl)"
    shown = ", ".join(list(keys)[:6])
    return f"JSON objects with fields {shown}"
