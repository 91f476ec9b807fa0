"""Reading tool results in an episode: envelopes, values at a path, a selection picked again."""

from __future__ import annotations

from typing import Any

import orjson

from compoworld.tasks import ArgSource


def get_path(data: Any, parts: list[str]) -> Any:
    for part in parts:
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def resolve(data: Any, source: ArgSource) -> Any:
    """The value at ``source.path`` in a step's answer; where the source picks an item of a
    list by the max/min of a field (among those a second criterion admits), the item is
    picked again in ``data``.

    Raises:
        LookupError: The path is not in ``data``; ValueError: nothing to pick from.
    """
    parts = (source.path or "").split(".") if source.path else []
    if source.selection is not None:
        at = next(i for i, p in enumerate(parts) if p.isdigit())
        parts[at] = str(source.selection.pick(get_path(data, parts[:at])))
    return get_path(data, parts)


def path_of(data: Any, value: Any, prefix: str = "") -> str | None:
    """Where ``value`` first sits in ``data`` (a dotted path), or None."""
    if data == value and not isinstance(data, dict | list):
        return prefix
    children = (data.items() if isinstance(data, dict)
                else enumerate(data) if isinstance(data, list) else ())
    for key, child in children:
        found = path_of(child, value, f"{prefix}.{key}" if prefix else str(key))
        if found is not None:
            return found
    return None


def error_of(content: Any) -> str | None:
    """The error message of a failed call's envelope (None when it succeeded or is missing)."""
    if not isinstance(content, str):
        return None
    try:
        envelope = orjson.loads(content)
    except orjson.JSONDecodeError:
        return "the answer was not JSON"
    if isinstance(envelope, dict) and not envelope.get("success"):
        return str((envelope.get("error") or {}).get("message", "failed"))
    return None


def schema_of(tool: str, tools: list[dict[str, Any]], results: dict[Any, Any],
            gateway: bool) -> dict[str, Any]:
    """The parameters schema of ``tool``: from the offered tools, or what describe_tool said."""
    if gateway:
        described = data_of(results.get(f"call_describe_{tool}"))
        return (described or {}).get("parameters") or {} if isinstance(described, dict) else {}
    for t in tools:
        if t.get("function", {}).get("name") == tool:
            return t["function"].get("parameters") or {}
    return {}


def data_of(content: Any) -> Any:
    """The data of a tool message's envelope (None when the call failed or is missing)."""
    if not isinstance(content, str):
        return None
    try:
        envelope = orjson.loads(content)
    except orjson.JSONDecodeError:
        return None
    return envelope.get("data") if isinstance(envelope, dict) and envelope.get("success") else None
