"""``harvest_mcp``: the tool list of a live stdio MCP server, as a spec file the compiler reads.

It starts the server with the official ``mcp`` client, initializes, lists every tool (following
``nextCursor`` through all pages), stops the server and returns::

    {"name": ..., "title": ..., "description": ..., "tools": [{"name", "description",
     "inputSchema", "outputSchema", "annotations"}...],
     "provenance": {"source": "mcp:stdio <command>", "version": ...},
     "harvest": {"command": [...], "env_keys": [...], "protocol_version": ...}}

Environment values are never written (they may be credentials, even dummy ones); only their
names are.
"""

from __future__ import annotations

import inspect
import re
import shlex
from pathlib import Path
from typing import Any

import orjson

from compoworld.errors import UserError

__all__ = ["harvest_mcp", "write_harvest"]

_TOOL_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")


def _field(obj: Any, *names: str) -> Any:
    """The first attribute of ``obj`` among ``names`` (mcp 2 renamed fields to snake_case)."""
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return None


async def _list_tools(command: list[str], env: dict[str, str] | None,
                      timeout: float) -> dict[str, Any]:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp import types as mcp_types
    from mcp.client.stdio import get_default_environment, stdio_client

    merged = {**get_default_environment(), **(env or {})}
    params = StdioServerParameters(command=command[0], args=command[1:], env=merged)
    takes_params = "params" in inspect.signature(ClientSession.list_tools).parameters
    with anyio.fail_after(timeout):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            tools: list[dict[str, Any]] = []
            cursor: str | None = None
            pages = 0
            while True:
                if takes_params:  # mcp >= 1.10 / 2.x
                    page = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    result = await session.list_tools(params=page)
                else:
                    result = await session.list_tools(cursor=cursor)  # type: ignore[call-arg]
                tools.extend(t.model_dump(mode="json", by_alias=True, exclude_none=True)
                             for t in result.tools)
                pages += 1
                cursor = _field(result, "next_cursor", "nextCursor")
                if not cursor:
                    break
    server = _field(init, "server_info", "serverInfo")
    return {"server": server.name, "title": getattr(server, "title", None) or server.name,
            "version": server.version, "instructions": init.instructions,
            "protocol_version": str(_field(init, "protocol_version", "protocolVersion")),
            "tools": tools, "pages": pages}


def harvest_mcp(command: list[str], env: dict[str, str] | None = None, *,
                timeout: float = 120.0) -> dict[str, Any]:
    """Start a stdio MCP server, list all its tools, stop it; return the spec document.

    Args:
        command: The server command and its arguments (``["npx", "-y", "pkg"]``).
        env: Extra environment variables for the server (e.g. a dummy API key).
        timeout: Seconds allowed for start-up and listing.

    Raises:
        UserError: No command, the ``mcp`` package is missing, or the server did not start or
            answer within ``timeout`` (the message quotes the command).

    Example::

        spec = harvest_mcp(["npx", "-y", "@modelcontextprotocol/server-memory"])
        print(len(spec["tools"]), "tools")
    """
    if not command:
        raise UserError("harvest-mcp needs the server command after '--', e.g. "
                        "'compoworld specs harvest-mcp -- npx -y @modelcontextprotocol/server-memory'")
    try:
        import anyio
        import mcp  # noqa: F401
    except ImportError:
        raise UserError("harvest-mcp needs the MCP client: pip install 'compoworld[mcp]'") from None
    shown = shlex.join(command)
    try:
        listed = anyio.run(_list_tools, command, env, timeout)
    except TimeoutError:
        raise UserError(f"MCP server {shown!r} did not list its tools within {timeout:g} s") from None
    except Exception as error:  # a server that dies or speaks garbage: say which one
        cause: BaseException = error
        while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
            cause = cause.exceptions[0]
        raise UserError(f"MCP server {shown!r} failed: {type(cause).__name__}: {cause}") from None
    tools = [{k: tool[k] for k in _TOOL_KEYS if k in tool} for tool in listed["tools"]]
    name = re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", listed["server"].lower())).strip("_")
    return {
        "name": name or "mcp_server",
        "title": listed["title"],
        "description": listed["instructions"] or f"Tools of the MCP server {listed['server']!r}.",
        "tools": tools,
        "provenance": {"source": f"mcp:stdio {shown}", "version": listed["version"]},
        "harvest": {"command": command, "env_keys": sorted(env or {}),
                    "protocol_version": listed["protocol_version"], "pages": listed["pages"]},
    }


def write_harvest(spec: dict[str, Any], out: str | Path) -> Path:
    """Write a harvested spec as indented JSON (stable bytes for the same server)."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(spec, option=orjson.OPT_INDENT_2) + b"\n")
    return path
