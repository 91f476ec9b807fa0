"""Writing what a simulated answer invents back to state, so later reads agree with it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compoworld.errors import CompoWorldError
from compoworld.service import Db, Tool


@dataclass(frozen=True)
class _Plan:
    """Where entity records can sit in data of one schema (only the branches that hold some)."""

    entity: str | None
    properties: tuple[tuple[str, _Plan], ...]
    items: _Plan | None
    options: tuple[_Plan, ...]


_PLANS: dict[int, tuple[Any, _Plan | None]] = {}


def _plan(schema: Any) -> _Plan | None:
    """The record plan of ``schema`` (None: no records in it), computed once per schema."""
    cached = _PLANS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    plan: _Plan | None = None
    if isinstance(schema, dict):
        properties = schema.get("properties", {})
        entity = properties.get("id", {}).get("x-ref")
        subs = tuple((name, sub) for name, sub in ((n, _plan(s)) for n, s in properties.items())
                     if sub is not None)
        items = _plan(schema.get("items", {})) if "items" in schema else None
        options = tuple(p for p in (_plan(o) for o in schema.get("anyOf", ())) if p is not None)
        if entity or subs or items or options:
            plan = _Plan(entity, subs, items, options)
    _PLANS[id(schema)] = (schema, plan)  # the schema is kept alive, so its id stays its own
    return plan


def _records(data: Any, plan: _Plan | None, found: list[tuple[str, dict[str, Any]]]) -> None:
    """Append the (entity, record) pairs in ``data`` whose schema marks an entity record."""
    if plan is None:
        return
    if isinstance(data, dict):
        if plan.entity and isinstance(data.get("id"), str):
            found.append((plan.entity, data))
        for name, sub in plan.properties:
            _records(data.get(name), sub, found)
    elif isinstance(data, list) and plan.items is not None:
        for item in data:
            _records(item, plan.items, found)
    for option in plan.options:
        _records(data, option, found)


def write_back(db: Db, tool: Tool, data: Any) -> int:
    """Insert the invented records that state does not have yet; returns how many.

    Records are inserted with the fields their entity declares (views with extra fields are
    cut down to the entity). A record that does not fit the entity (a reference to something
    that does not exist, a unique value already taken) is left out: the answer still stands,
    state only holds what is consistent.
    """
    found: list[tuple[str, dict[str, Any]]] = []
    _records(data, _plan(tool.output_schema), found)
    written = 0
    for entity, record in found:
        try:
            table = db.table(entity)
        except CompoWorldError:
            continue
        if db.exists(entity, record["id"]):
            continue
        values = {name: record[name] for name in table.names if name in record}
        if any(c.ref and isinstance(values.get(c.name), str) and not db.exists(c.ref, values[c.name])
               for c in table.columns):
            continue  # it points at a record state does not have: keep state consistent
        try:
            db.insert(entity, **values)
            written += 1
        except CompoWorldError:
            continue
    return written
