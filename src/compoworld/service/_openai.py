"""Export tools as OpenAI function definitions (``{"type": "function", "function": {...}}``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from compoworld.service._tool import Tool


def _public(schema: Any) -> Any:
    """The schema without CompoWorld's own ``x-`` annotations."""
    if isinstance(schema, dict):
        return {k: _public(v) for k, v in schema.items() if not k.startswith("x-")}
    if isinstance(schema, list):
        return [_public(v) for v in schema]
    return schema


def openai_tools(tools: Mapping[str, Tool] | Iterable[tuple[str, Tool]]) -> list[dict[str, Any]]:
    """OpenAI function definitions for named tools, in the given order.

    Args:
        tools: ``{qualified_name: Tool}`` (e.g. ``Environment.tools``) or (name, tool) pairs.

    Example:
        >>> from compoworld.catalog import load_service
        >>> from compoworld.service import Environment
        >>> env = Environment([load_service("contacts")])
        >>> openai_tools(env.tools)[0]["function"]["name"].startswith("contacts__")
        True
    """
    items = tools.items() if isinstance(tools, Mapping) else tools
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": tool.description,
                "parameters": _public(tool.parameters),
            },
        }
        for name, tool in items
    ]
