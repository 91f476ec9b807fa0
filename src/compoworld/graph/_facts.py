"""Facts: the typed values a tool's answer holds — what can flow into the next call.

The dependency graph says which tools *can* feed which; facts say what a particular answer
*did* hold: every value whose schema carries a semantic type or an entity reference, with
where it sits. Values inside lists keep their list and item index, since using one of them
means choosing an item (the one the instruction identifies, or the max/min by some field).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compoworld.graph._graph import Key


@dataclass(frozen=True)
class Fact:
    """One typed value of an answer.

    Attributes:
        key: What it is: ``("type", "Email")`` or ``("ref", service, entity)``.
        value: The value.
        path: Where it sits, e.g. ``"items.2.email"``.
        list_path: The outermost list it sits in (``"items"``), or None.
        index: Its item's index in that list, or None.
        list_size: How many items that list has (1 means no choice to make).
        ambiguous: It also sits in an inner list of several items (``items.0.to.1``): picking
            the outer item does not pick it.
    """

    key: Key
    value: Any
    path: str
    list_path: str | None = None
    index: int | None = None
    list_size: int = 1
    ambiguous: bool = False


def _key(schema: dict[str, Any], service: str) -> Key | None:
    if "x-ref" in schema:
        return ("ref", service, schema["x-ref"])
    if "x-semantic-type" in schema:
        return ("type", schema["x-semantic-type"])
    return None


_Context = tuple[str | None, int | None, int, bool]


_KEYED: dict[int, tuple[dict[str, Any], bool]] = {}
"""Per schema (by identity, the schema kept so its id is not reused): :func:`_keyed`."""


def _keyed(schema: dict[str, Any]) -> bool:
    """Whether the schema or one below it (options, properties, items) types a value: an
    answer's part read through a schema without one holds no fact (descriptions, flags)."""
    known = _KEYED.get(id(schema))
    if known is None or known[0] is not schema:
        _KEYED[id(schema)] = (schema, True)  # meanwhile (a schema that holds itself): keyed
        below = [*schema.get("anyOf", ()), *schema.get("properties", {}).values()]
        if isinstance(schema.get("items"), dict):
            below.append(schema["items"])
        found = ("x-ref" in schema or "x-semantic-type" in schema
                 or any(isinstance(sub, dict) and _keyed(sub) for sub in below))
        if len(_KEYED) >= 65_536:
            _KEYED.clear()
        known = _KEYED[id(schema)] = (schema, found)
    return known[1]


def _walk(data: Any, schema: Any, service: str, path: str, context: _Context,
          out: list[Fact]) -> None:
    if not isinstance(schema, dict) or data is None or not _keyed(schema):
        return
    for option in schema.get("anyOf", ()):
        if option.get("type") != "null":
            _walk(data, option, service, path, context, out)
    key = _key(schema, service)
    if key is not None and isinstance(data, str | int | float) and not isinstance(data, bool):
        out.append(Fact(key, data, path, *context))
    if isinstance(data, dict):
        for name, sub in schema.get("properties", {}).items():
            if name in data:
                _walk(data[name], sub, service, f"{path}.{name}" if path else name, context, out)
    elif isinstance(data, list):
        items = schema.get("items", {})
        for i, item in enumerate(data):
            item_path = f"{path}.{i}" if path else str(i)
            if context[0] is None:  # the outermost list: choosing an item picks the fact
                inner: _Context = (path or None, i, len(data), False)
            else:
                inner = (*context[:3], context[3] or len(data) > 1)
            _walk(item, items, service, item_path, inner, out)


def extract_facts(output_schema: dict[str, Any] | None, data: Any, service: str) -> list[Fact]:
    """Every typed value in ``data`` (a tool's answer), read through its output schema.

    Example:
        >>> from compoworld.catalog import load_service
        >>> tool = load_service("contacts").tools["get_contact"]
        >>> facts = extract_facts(tool.output_schema, {"id": "ct_1", "name": "Ada Lovelace",
        ...     "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"},
        ...     "contacts")
        >>> [(f.key, f.value) for f in facts][:2]
        [(('ref', 'contacts', 'contact'), 'ct_1'), (('type', 'PersonName'), 'Ada Lovelace')]
    """
    out: list[Fact] = []
    _walk(data, output_schema or {}, service, "", (None, None, 1, False), out)
    return out
