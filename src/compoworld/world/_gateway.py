"""The gateway interface: four meta-tools through which an agent discovers and calls tools.

In gateway mode the agent sees only ``list_services``, ``list_tools``, ``describe_tool`` and
``call_tool``; it must find the right service and tool itself, as with a large tool registry.
The meta-tools are ordinary :class:`Tool` objects (same validation, same envelope); their
function receives the :class:`World` instead of a ``Db``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from compoworld.errors import RecordNotFound, closest
from compoworld.service import Param, Result, Tool, openai_tools

if TYPE_CHECKING:
    from compoworld.world._world import World


class ServiceInfo(Result):
    """A mounted service, as ``list_services`` shows it."""

    name: str
    description: str
    tools: int


class ToolInfo(Result):
    """A tool, as ``list_tools`` shows it (no schema: ``describe_tool`` gives that)."""

    name: str
    description: str


def _unknown(kind: str, name: str, known: list[str]) -> RecordNotFound:
    message = f"unknown {kind} {name!r}"
    suggestions = closest(name, known)
    if suggestions:
        message += "; did you mean " + " or ".join(map(repr, suggestions)) + "?"
    return RecordNotFound(message + f" (mounted: {', '.join(known)})")


def _list_services(world: World) -> list[dict[str, Any]]:
    return [{"name": s.name, "description": s.description, "tools": len(s.tools)}
            for s in world.env.services.values()]


def _list_tools(world: World, service: str) -> list[dict[str, Any]]:
    mounted = world.env.services
    if service not in mounted:
        raise _unknown("service", service, list(mounted))
    return [{"name": f"{service}__{t.name}", "description": t.description}
            for t in mounted[service].tools.values()]


def _describe_tool(world: World, tool_name: str) -> dict[str, Any]:
    tools = world.env.tools
    if tool_name not in tools:
        raise _unknown("tool", tool_name, list(tools))
    return openai_tools({tool_name: tools[tool_name]})[0]["function"]


def _call_tool(world: World, tool_name: str, arguments: dict[str, Any] | None = None) -> Any:
    raise AssertionError("call_tool is dispatched by World.call")  # pragma: no cover


GATEWAY_TOOLS: dict[str, Tool] = {
    tool.name: tool for tool in (
        Tool("list_services", "List the services available in this workspace.", "read", (),
             _list_services, returns=list[ServiceInfo]),
        Tool("list_tools", "List the tools of one service: names and descriptions.", "read",
             (Param.of("service", str, "The service's name, as list_services gives it."),),
             _list_tools, returns=list[ToolInfo]),
        Tool("describe_tool", "Describe one tool: what it does and its parameters' JSON schema.",
             "read", (Param.of("tool_name", str, "The tool's full name, as list_tools gives it "
                               "(service__tool)."),), _describe_tool, returns=dict[str, Any]),
        Tool("call_tool", "Call a tool with arguments; returns that tool's result.", "write",
             (Param.of("tool_name", str, "The tool's full name (service__tool)."),
              Param.of("arguments", dict[str, Any], "The tool's arguments, as describe_tool "
                       "gives their schema.", default=None)),
             _call_tool, returns=dict[str, Any]),
    )
}
