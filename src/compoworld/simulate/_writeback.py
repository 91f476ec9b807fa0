"""Writing what a simulated answer invents back to state, so later reads agree with it."""

from __future__ import annotations

from typing import Any

from compoworld.errors import CompoWorldError
from compoworld.service import Db, Tool


def _records(data: Any, schema: Any) -> list[tuple[str, dict[str, Any]]]:
    """(entity, record) pairs in ``data`` whose schema marks an entity record (``id`` x-ref)."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(schema, dict) and isinstance(data, dict):
        entity = schema.get("properties", {}).get("id", {}).get("x-ref")
        if entity and isinstance(data.get("id"), str):
            found.append((entity, data))
        for name, sub in schema.get("properties", {}).items():
            found.extend(_records(data.get(name), sub))
    elif isinstance(schema, dict) and isinstance(data, list):
        for item in data:
            found.extend(_records(item, schema.get("items", {})))
    if isinstance(schema, dict):
        for option in schema.get("anyOf", ()):
            found.extend(_records(data, option))
    return found


def write_back(db: Db, tool: Tool, data: Any) -> int:
    """Insert the invented records that state does not have yet; returns how many.

    Records are inserted with the fields their entity declares (views with extra fields are
    cut down to the entity). A record that does not fit the entity (a reference to something
    that does not exist, a unique value already taken) is left out: the answer still stands,
    state only holds what is consistent.
    """
    written = 0
    for entity, record in _records(data, tool.output_schema):
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
