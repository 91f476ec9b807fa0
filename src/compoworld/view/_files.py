"""Reading the files the viewer shows: tasks, rollouts and scored JSONL, told apart by content.

Each file goes through the project's loader (``load_tasks``, ``load_trajectories``,
``load_scored``), which validates it. The viewer renders the records as the file holds them
(plain dicts), so a field this version of CompoWorld does not know is still shown: when the
loader refuses a file only because of fields it does not know, the file is read as it is and a
note says which fields those were.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ValidationError

from compoworld.errors import UserError
from compoworld.rollout import Trajectory
from compoworld.scoring import ScoredTrajectory, load_scored, load_trajectories
from compoworld.tasks import Task, load_tasks
from compoworld.view._cache import load_index, save_index
from compoworld.view._heads import HEADS

Kind = Literal["tasks", "rollouts", "scored"]

_MODELS: dict[Kind, type[BaseModel]] = {"tasks": Task, "rollouts": Trajectory, "scored": ScoredTrajectory}
_REQUIRED: dict[Kind, frozenset[str]] = {
    "tasks": frozenset({"id", "plan", "rubric", "instruction"}),
    "scored": frozenset({"task_id", "criteria", "trajectory"}),
    "rollouts": frozenset({"task_id", "rollout_idx", "messages"}),
}
_EXPECTED = "expected a tasks, rollouts or scored JSONL file (compoworld generate, rollout, score)"


VALIDATE_UPFRONT = 64_000_000
"""Files up to this size go through the project's loader when read; a larger one is indexed
from its records' heads and each record is validated by the project's model when opened."""

_IN_HEAD: dict[Kind, frozenset[str]] = {
    "tasks": frozenset({"id", "plan", "rubric", "instruction"}),
    "scored": frozenset({"task_id", "criteria", "trajectory"}),
    "rollouts": frozenset({"task_id", "rollout_idx", "calls"}),
}


@dataclass(frozen=True)
class Source:
    """One file given to the viewer: what it holds and what was noticed reading it."""

    path: str
    kind: Kind
    count: int
    notes: tuple[str, ...] = ()


@dataclass
class Records:
    """The records of one file: their heads in memory (what the index needs), the rest on disk,
    read by byte offset when a page opens them."""

    path: Path
    kind: Kind
    spans: list[tuple[int, int]]
    heads: list[dict[str, Any]]
    validated: bool

    def __len__(self) -> int:
        return len(self.spans)

    def read(self, indices: list[int]) -> list[dict[str, Any]]:
        """The records at ``indices``, as the file holds them (plus ``_invalid``, the model's
        complaint, for a record of a large file that does not validate)."""
        out = []
        with self.path.open("rb") as f:
            for i in indices:
                offset, length = self.spans[i]
                f.seek(offset)
                line = f.read(length)
                record = orjson.loads(line)
                if not self.validated:
                    problem = _check(self.kind, line)
                    if problem:
                        record["_invalid"] = problem
                out.append(record)
        return out


def read_source(path: str | Path) -> tuple[Source, Records]:
    """Index one tasks, rollouts or scored file: what it is, where each record is, their heads.

    Raises:
        UserError: The file is missing or is not one of the three kinds (one line saying what
            it is and what was expected), or a line is not like the first.
    """
    path = Path(path)
    if not path.is_file():
        raise UserError(f"no file {str(path)!r} ({_EXPECTED})")
    cached = load_index(path)
    if cached is not None:
        kept = Records(path, cached["kind"], [(a, b) for a, b in cached["spans"]], cached["heads"],
                       cached["validated"])
        return Source(str(path), kept.kind, len(kept), tuple(cached["notes"])), kept
    with path.open("rb") as f:
        kind = _sniff(path, f.read(1 << 20))
    head_model = HEADS[kind]
    spans: list[tuple[int, int]] = []
    heads: list[dict[str, Any]] = []
    offset = 0
    with path.open("rb") as f:
        for number, line in enumerate(f, start=1):
            start, offset = offset, offset + len(line)
            if not line.strip():
                continue
            try:
                head = head_model.model_validate_json(line)
            except ValidationError:
                if not line.endswith(b"\n"):
                    break  # a half-written last line: an interrupted run
                head = None
            if head is None or not _IN_HEAD[kind] <= head.model_fields_set:
                raise UserError(
                    f"{path}:{number} is {_describe_line(line)}, not like line 1 (a {kind} record)")
            spans.append((start, len(line)))
            heads.append(_slim(kind, head.model_dump()))
    records = Records(path, kind, spans, heads, validated=offset <= VALIDATE_UPFRONT)
    notes = _validate(path, kind, records) if records.validated else _sample(path, kind, records)
    save_index(path, {"kind": kind, "spans": spans, "heads": heads, "notes": notes,
                      "validated": records.validated})
    return Source(str(path), kind, len(spans), notes), records


def _slim(kind: Kind, head: dict[str, Any]) -> dict[str, Any]:
    """A trajectory's calls as the three counts the index shows (10,000 trajectories of 100
    calls would otherwise keep a million small dicts)."""
    trajectory = head.get("trajectory") if kind == "scored" else head if kind == "rollouts" else None
    if trajectory is not None:
        calls = trajectory["calls"]
        failed = [c for c in calls if c["success"] is False]
        env = sum(1 for c in failed if c["error_source"] == "environment")
        trajectory["calls"] = {"n": len(calls), "agent_errors": len(failed) - env, "env_errors": env}
    return head


_NEWER = frozenset({"extra_forbidden", "literal_error"})
"""What a newer writer's record makes the model say: a field it does not know, a value of a
fixed set (a capability, a criterion kind) it does not know. Shown as it is, with a note."""


def _check(kind: Kind, line: bytes, values: set[str] | None = None) -> str | None:
    """What the project's model says of one record, a newer format's fields and values aside
    (None: nothing); the unknown values go into ``values``."""
    try:
        _MODELS[kind].model_validate_json(line)
    except ValidationError as error:
        errors = error.errors()
        if values is not None:
            values.update(f"{'.'.join(map(str, e['loc']))}={e['input']!r}" for e in errors
                          if e["type"] == "literal_error")
        problems = [e for e in errors if e["type"] not in _NEWER]
        if problems:
            return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in problems[:3])
    return None


def _sample(path: Path, kind: Kind, records: Records) -> tuple[str, ...]:
    sample = records.read(list(range(min(200, len(records)))))
    notes = [f"{path.name} is {path.stat().st_size / 1e6:,.0f} MB: each record is validated when opened"]
    unknown = sorted(_unknown_fields(kind, sample))
    if unknown:
        notes.append(f"{path.name}: fields this version of compoworld does not know, shown as they are: "
                     f"{', '.join(unknown)}")
    return tuple(notes)


def _describe_line(line: bytes) -> str:
    try:
        return _describe(orjson.loads(line))
    except orjson.JSONDecodeError:
        return "not JSON"


def _validate(path: Path, kind: Kind, records: Records) -> tuple[str, ...]:
    """Run the project's loader; a refusal for a newer format only (fields or values this
    version does not know) becomes a note, any other is the loader's error."""
    try:
        if kind == "tasks":
            load_tasks(path)
        elif kind == "rollouts":
            load_trajectories(path)
        else:
            load_scored(path)
    except UserError:
        values: set[str] = set()
        with path.open("rb") as f:
            for offset, length in records.spans:
                f.seek(offset)
                problem = _check(kind, f.read(length), values)
                if problem is not None:  # wrong, not newer: say where and why
                    f.seek(0)
                    line = f.read(offset).count(b"\n") + 1
                    what = {"tasks": "task", "rollouts": "trajectory", "scored": "scored trajectory"}[kind]
                    raise UserError(f"{path}:{line} is not a {what}: {problem}") from None
        notes = []
        unknown = sorted(_unknown_fields(kind, records.read(list(range(min(200, len(records)))))))
        if unknown:
            notes.append(f"{path.name}: fields this version of compoworld does not know, shown as they are: "
                         f"{', '.join(unknown)}")
        if values:
            shown = sorted(values)
            notes.append(f"{path.name}: values this version of compoworld does not know, shown as they are: "
                         f"{', '.join(shown[:8])}{' …' if len(shown) > 8 else ''}")
        return tuple(notes)
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
        annotation = fields[key].annotation
        sub = _submodel(annotation)
        if sub is not None:
            mapping = typing.get_origin(annotation) is dict and isinstance(item, dict)
            elements = item.values() if mapping else item if isinstance(item, list) else [item]
            for element in elements:
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
    if b"\n" not in data.strip() and len(data) >= 1 << 20:
        data = path.read_bytes()  # a first line past 1 MB
    first = next((line for line in data.splitlines() if line.strip()), None)
    if first is None:
        raise UserError(f"{path} is empty; {_EXPECTED}")
    try:
        record = orjson.loads(first)
    except orjson.JSONDecodeError:
        try:
            orjson.loads(path.read_bytes())
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
