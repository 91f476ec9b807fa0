"""One MCP server per episode: a task's world, its tools (direct or gateway), for any MCP client.

Built on the official ``mcp`` package's (2.x) low-level server, which takes tools as JSON
schemas — the schemas the world already has. A successful call answers with the envelope's data as
JSON text (and as structured content when it is an object); a refused or failed call is an
MCP tool error (``isError``) whose text is the envelope's error, so the client's model reads
the same message a rollout's model would. Every call is logged (:attr:`EpisodeServer.calls`).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from compoworld.errors import UserError
from compoworld.rollout._trajectory import CallRecord
from compoworld.rollout._world import build_world

if TYPE_CHECKING:
    from compoworld.tasks import Task
    from compoworld.world import World

DEFAULT_HOST = "127.0.0.1"
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` serves this machine only (``0.0.0.0`` and ``::`` do not)."""
    if host.strip("[]") in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def transport_security(host: str, allowed_hosts: Sequence[str] = ()) -> Any:
    """DNS-rebinding protection for a bind of ``host``: on whatever the address, the
    ``Host`` header must name loopback, the bound address itself (when it is one address,
    not a wildcard) or an entry of ``allowed_hosts`` (``name`` for any port, or
    ``name:port``); an ``Origin`` header must be one of those over http or https."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = list(_LOOPBACK_NAMES)
    bare = host.strip("[]")
    if bare not in ("0.0.0.0", "::", "") and not is_loopback(host):
        names.append(f"[{bare}]" if ":" in bare else bare)
    hosts: list[str] = []
    for entry in [*names, *allowed_hosts]:
        entry = entry.strip()
        has_port = entry.rsplit(":", 1)[-1].isdigit() and not entry.endswith("]")
        hosts += [entry] if has_port else [entry, f"{entry}:*"]
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=hosts, allowed_origins=origins)


def _mcp() -> Any:
    try:
        import mcp.types
        from mcp.server.lowlevel import Server
    except ImportError:
        raise UserError("the MCP server needs the 'mcp' extra: pip install 'compoworld[mcp]'") \
            from None
    return Server, mcp.types


class EpisodeServer:
    """An MCP server over one task's world (built fresh, in its initial state).

    Args:
        task: The task whose world to serve.
        world: The world to serve instead of a fresh one.

    Attributes:
        server: The ``mcp`` low-level server (run it on any transport, or hand it to
            ``mcp.Client`` to connect in process).
        calls: Every call made, in order, with its envelope's outcome.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> task = next(generate_tasks(1))
        >>> served = EpisodeServer(task)
        >>> served.server.name == f"compoworld-{task.id}"
        True
        >>> served.call(task.plan[0].tool, task.plan[0].arguments).is_error
        False
    """

    def __init__(self, task: Task, world: World | None = None) -> None:
        server_class, types = _mcp()
        self.task = task
        self.world = world if world is not None else build_world(task)
        self.calls: list[CallRecord] = []
        self._types = types
        self._tools = [types.Tool(name=t["function"]["name"],
                                  description=t["function"].get("description") or "",
                                  input_schema=t["function"].get("parameters") or {
                                      "type": "object", "properties": {}})
                       for t in self.world.tools()]
        # No input validation by the SDK: the world's own check answers with the envelope
        # (a 400 naming the field) that a rollout's model would see.
        self.server = server_class(
            f"compoworld-{task.id}", instructions=f"{task.system_prompt}\n\nTask: {task.instruction}",
            on_list_tools=self._list_tools, on_call_tool=self._call_tool)

    async def _list_tools(self, ctx: Any, params: Any) -> Any:
        return self._types.ListToolsResult(tools=list(self._tools))

    async def _call_tool(self, ctx: Any, params: Any) -> Any:
        return self.call(params.name, params.arguments)

    def call(self, name: str, arguments: dict[str, Any] | None) -> Any:
        """Call a tool of the world; the MCP result (a tool error when the envelope is one)."""
        types = self._types
        started = time.perf_counter()
        envelope = self.world.call(name, arguments or {})
        error = envelope.get("error")
        code = error["code"] if error else None
        self.calls.append(CallRecord(
            turn=len(self.calls), call_id=f"mcp_{len(self.calls)}", name=name,
            arguments=arguments or {}, success=envelope["success"], code=code,
            error=error["message"] if error else None,
            error_source=None if code is None else "environment" if code >= 500 else "agent",
            seconds=round(time.perf_counter() - started, 6)))
        if error:
            text = orjson.dumps(envelope).decode()
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
        data = envelope.get("data")
        return types.CallToolResult(
            content=[types.TextContent(text=orjson.dumps(data).decode())],
            structured_content=data if isinstance(data, dict) else None)

    async def run_stdio(self) -> None:
        """Serve on stdin/stdout until the client disconnects."""
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())

    def http_app(self, host: str = DEFAULT_HOST, allowed_hosts: Sequence[str] = ()) -> Any:
        """A Starlette (ASGI) app serving streamable HTTP at ``/mcp``, with DNS-rebinding
        protection on for any ``host`` (:func:`transport_security`; ``allowed_hosts`` adds
        the names clients reach it by)."""
        return self.server.streamable_http_app(
            host=host, transport_security=transport_security(host, allowed_hosts))

    def run_http(self, host: str = DEFAULT_HOST, port: int = 8765,
                 log_level: str = "warning", allowed_hosts: Sequence[str] = ()) -> None:
        """Serve streamable HTTP at ``http://host:port/mcp`` (loopback by default)."""
        import uvicorn

        uvicorn.run(self.http_app(host, allowed_hosts), host=host, port=port,
                    log_level=log_level)
