"""The result envelope every tool call returns, the names calls are made by, and the record
of a call whose tool broke."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from compoworld.errors import closest

ErrorCode = Literal[400, 404, 409, 422, 500]


class ErrorBody(TypedDict):
    code: int
    message: str


class Envelope(TypedDict):
    """``{"success": true, "data": ...}`` or ``{"success": false, "error": {"code", "message"}}``."""

    success: bool
    data: NotRequired[Any]
    error: NotRequired[ErrorBody]


def ok(data: Any) -> Envelope:
    return {"success": True, "data": data}


def fail(code: int, message: str) -> Envelope:
    return {"success": False, "error": {"code": code, "message": message}}


SEPARATOR = "__"
"""Joins service and tool names: ``contacts__get_contact``."""


@dataclass(frozen=True)
class ToolFailure:
    """A tool broke (500). An environment error: recorded, never blamed on the agent."""

    tool: str
    arguments: Any
    error: str
    traceback: str


def qualified_name(service: str, tool: str) -> str:
    return f"{service}{SEPARATOR}{tool}"


def unknown_tool(name: object, tools: Iterable[str], services: Iterable[str]) -> str:
    """The 404 message for a call to a tool no mounted service has: the closest names, and
    what is mounted."""
    tools = list(tools)
    message = f"unknown tool {name!r}"
    suggestions = closest(str(name), tools) if isinstance(name, str) else []
    if suggestions:
        message += "; did you mean " + " or ".join(map(repr, suggestions)) + "?"
    return message + f" ({len(tools)} tools mounted, from services " + ", ".join(
        map(repr, services)) + ")"
