"""Custom actions of the generic engine: ``op="action"`` tools and the effect each one runs.

An action is still declarative: its :class:`ActionSpec` says which fields a ``transition``
sets, which constants a ``send`` writes, which field a ``summary`` aggregates. ``compute`` is a
deterministic lookup — a seeded record with equal inputs answers, otherwise the outputs are
drawn from a generator seeded by the world (the entity's first seeded record) and the inputs.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Literal

import orjson
from faker import Faker
from pydantic import create_model

from compoworld.errors import RecordNotFound, Refused, UserError
from compoworld.service._db import Db
from compoworld.service._entity import Result
from compoworld.service._spec import ActionSpec, FieldSpec
from compoworld.types import get_type

if TYPE_CHECKING:
    from compoworld.service._engine import _ToolBuilder

ACTION_ROLES: dict[str, set[str]] = {
    "transition": {"id", "field", "filter", "option", "dry_run"},
    "send": {"field", "option", "dry_run"},
    "count": {"filter", "option"},
    "summary": {"filter", "option"},
    "compute": {"field", "option"},
}
"""The parameter roles each effect accepts."""

_NUMERIC = ("integer", "number", "Money", "Percent", "Quantity", "DurationMinutes")


class Count(Result):
    """How many records match."""

    count: int


class Summary(Result):
    """An aggregate over the matching records (sum/min/max/average are null when none match)."""

    count: int
    sum: float | None = None
    min: float | None = None
    max: float | None = None
    average: float | None = None


def check_target(b: _ToolBuilder, roles: Sequence[str]) -> None:
    """A tool acting on one record names it by one ``id`` parameter, or by key filters (``eq``
    filters: a natural key, a parent's id for a singleton), or, for a ``singleton`` entity, by
    nothing at all. Key filters beside an ``id`` are its scope (``GET
    /projects/{project_id}/notes/{note_id}``): the record must match them, else 404."""
    ids, keys = roles.count("id"), "filter" in roles
    if ids > 1 or (ids == 0 and not keys and not b.entity.singleton):
        raise b.fail(f"op {b.spec.op!r} needs exactly one parameter with role 'id' (or key "
                     "filters, or a singleton entity)")
    for p in b.spec.params:
        if p.role == "filter" and p.op != "eq":
            raise b.fail(f"key parameter {p.name!r} must use op 'eq', not {p.op!r}")


def action_kind(action: ActionSpec) -> Literal["read", "write"]:
    """``write`` for effects that change state (or simulated actions declared as writing)."""
    return "write" if action.effect in ("transition", "send") or action.writes else "read"


def check_action(b: _ToolBuilder) -> ActionSpec:
    """The tool's action, checked against its entity (a :class:`UserError` names the problem)."""
    action = b.spec.action
    if action is None:
        raise b.fail("op 'action' needs 'action' stating its effect")
    for name, value in action.set.items():
        if name not in b.fields:
            raise b.fail(f"action sets unknown field {name!r} (fields: {', '.join(b.fields)})")
        enum = b.fields[name].enum
        if enum and value not in enum:
            raise b.fail(f"action sets {name!r} to {value!r}, not one of {enum}")
    if action.field is not None and action.field not in b.fields:
        raise b.fail(f"action names unknown field {action.field!r} (fields: {', '.join(b.fields)})")
    if action.effect == "transition" and not action.set:
        raise b.fail("a 'transition' needs 'set' (the field values it moves the record to)")
    if action.effect == "summary" and action.field and b.fields[action.field].type not in _NUMERIC:
        raise b.fail(f"a 'summary' aggregates a numeric field; {action.field!r} is not numeric")
    roles = [p.role for p in b.spec.params]
    if action.effect == "transition":
        check_target(b, roles)
    for p in b.spec.params:
        if p.role not in ACTION_ROLES[action.effect]:
            raise b.fail(f"parameter {p.name!r} has role {p.role!r}, not allowed for effect "
                         f"{action.effect!r} (allowed: {', '.join(sorted(ACTION_ROLES[action.effect]))})")
    if action.effect == "compute":
        inputs = {p.field or p.name for p in b.spec.params}
        if not [f for f in b.entity.fields if f.name not in inputs]:
            raise b.fail("a 'compute' needs at least one output field (a field that is no input)")
    return action


def action_returns(b: _ToolBuilder, action: ActionSpec) -> Any:
    """The output type of an action."""
    if action.effect in ("transition", "send"):
        return b.service.entities[b.entity.name]
    if action.effect == "count":
        return Count
    if action.effect == "summary":
        return Summary
    from compoworld.service._engine import type_annotation

    inputs = {p.field or p.name for p in b.spec.params}
    fields: dict[str, Any] = {}
    for f in b.entity.fields:
        if f.name != "id":
            annotation = type_annotation(f.type, ref=f.ref, items=f.items, enum=f.enum)
            required = f.required and f.name not in inputs  # an input left out is null
            fields[f.name] = (annotation, ...) if required else (annotation | None, None)
    return create_model(f"{b.spec.name}_result", __base__=Result, **fields)


def _transition(b: _ToolBuilder, action: ActionSpec) -> Callable[..., Any]:
    field = action.field or next(iter(action.set))

    def run(db: Db, **args: Any) -> Any:
        record_id, values = b.locate(db, args)
        record = db.get(b.entity.name, record_id)
        current = record.get(field)
        if field in action.set and current == action.set[field]:
            raise Refused(f"{b.entity.name} {record_id!r} is already {field}={current!r}")
        if action.allowed_from is not None and current not in action.allowed_from:
            raise Refused(f"{b.entity.name} {record_id!r} has {field}={current!r}; this action "
                          f"only applies when {field} is one of {action.allowed_from}")
        return db.update(b.entity.name, record_id, **{**values, **action.set})

    return run


def _send(b: _ToolBuilder, action: ActionSpec) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        values = b.split(db, args)[1]
        for f in b.entity.fields:  # a message records when it was sent
            if f.name not in values and f.required and f.type in ("Date", "DateTime"):
                values[f.name] = db.today.isoformat() + ("T09:00:00" if f.type == "DateTime" else "")
        return db.insert(b.entity.name, **{**values, **action.set})

    return run


def _count(b: _ToolBuilder, action: ActionSpec) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        return {"count": db.count(b.entity.name, b.split(db, args)[2])}

    return run


def _summary(b: _ToolBuilder, action: ActionSpec) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        filters = b.split(db, args)[2]
        if not action.field:
            return {"count": db.count(b.entity.name, filters)}
        values = [r[action.field] for r in db.select(b.entity.name, filters)
                  if r[action.field] is not None]
        if not values:
            return {"count": 0}
        total = float(sum(values))
        return {"count": len(values), "sum": round(total, 2), "min": float(min(values)),
                "max": float(max(values)), "average": round(total / len(values), 2)}

    return run


def _generate(f: FieldSpec, fake: Faker, db: Db) -> Any:
    rnd = fake.random
    if f.enum:
        return rnd.choice(f.enum)
    if f.type in ("Date", "DateTime"):
        day = (db.today + timedelta(days=rnd.randint(-30, 60))).isoformat()
        return day if f.type == "Date" else f"{day}T{rnd.randint(8, 18):02d}:00:00"
    simple: dict[str, Callable[[], Any]] = {
        "string": lambda: fake.sentence(nb_words=4).rstrip("."),
        "integer": lambda: rnd.randint(0, 100), "number": lambda: round(rnd.uniform(0, 1000), 2),
        "boolean": lambda: rnd.random() < 0.5, "array": list, "object": dict,
    }
    if f.type in simple:
        return simple[f.type]()
    if f.type == "Ref":
        rows = db.select(f.ref or "", limit=50)
        return rnd.choice(rows)["id"] if rows else None
    return get_type(f.type).generate(fake)


class _SharedFaker(threading.local):
    """One Faker per thread for every ``compute`` action: each call reseeds it by the world and
    its inputs before drawing, so sharing it changes no answer (a Faker costs ~12 ms to make,
    and a catalog has hundreds of compute actions)."""

    def __init__(self) -> None:
        self.fake = Faker()


_FAKER = _SharedFaker()


def _compute(b: _ToolBuilder, action: ActionSpec) -> Callable[..., Any]:
    inputs = [p.field or p.name for p in b.spec.params]
    outputs = [f for f in b.entity.fields if f.name not in inputs and f.name != "id"]

    refs = {f.name: f.ref for f in b.entity.fields if f.type == "Ref" and f.name in inputs}

    def run(db: Db, **args: Any) -> Any:
        values = b.split(db, args)[1]
        given = {k: v for k, v in values.items() if v is not None}
        for name, ref in refs.items():  # asking about a record that does not exist: 404
            if name in given and not db.exists(ref or "", given[name]):
                raise RecordNotFound(f"{ref} {given[name]!r} not found")
        known = db.select(b.entity.name, given, limit=1) if given else []
        if known:
            return {k: v for k, v in known[0].items() if k != "id"}
        first = db.select(b.entity.name, limit=1)
        salt = orjson.dumps(first[0] if first else None, option=orjson.OPT_SORT_KEYS, default=str)
        key = orjson.dumps(values, option=orjson.OPT_SORT_KEYS, default=str)
        digest = hashlib.blake2b(salt + b"\x00" + key, digest_size=8).digest()
        fake = _FAKER.fake
        fake.seed_instance(int.from_bytes(digest, "big"))
        return {**dict.fromkeys(inputs), **values,
                **{f.name: _generate(f, fake, db) for f in outputs}}

    return run


_EFFECTS: dict[str, Callable[[_ToolBuilder, ActionSpec], Callable[..., Any]]] = {
    "transition": _transition, "send": _send, "count": _count, "summary": _summary,
    "compute": _compute,
}


def op_action(b: _ToolBuilder) -> Callable[..., Any]:
    """The function running an action tool."""
    action = b.spec.action
    if action is None:  # checked by check_action before
        raise UserError(f"{b.where}: op 'action' needs 'action'")
    return _EFFECTS[action.effect](b, action)
