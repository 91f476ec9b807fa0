"""``compoworld serve mcp``: one task's world as an MCP server (stdio or streamable HTTP)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from compoworld.cli._tasks import read_tasks
from compoworld.errors import NotFound, UserError


def mcp(
    task: Annotated[str, typer.Option("--task", help="Task id, e.g. t0-000003.")],
    tasks: Annotated[Path, typer.Option("--tasks", help="Tasks JSONL.")] = Path("out/tasks.jsonl"),
    transport: Annotated[str, typer.Option(help="stdio or http (streamable HTTP).")] = "stdio",
    host: Annotated[str, typer.Option(help="Address to bind (http; loopback by default).")] = (
        "127.0.0.1"),
    port: Annotated[int, typer.Option(help="Port (http).")] = 8765,
    allow_host: Annotated[list[str] | None, typer.Option(
        "--allow-host", help="A Host name clients may reach the server by (http; repeat it; "
                             "'name' for any port or 'name:port'). Loopback names are always "
                             "allowed; any other Host header is refused (DNS-rebinding "
                             "protection).")] = None,
) -> None:
    """Serve one episode over MCP: the task's world in its initial state, with its tools.

    Tool errors come back as MCP tool errors (isError) carrying the error envelope. Over HTTP
    the endpoint is http://HOST:PORT/mcp; requests must name an allowed Host (loopback, the
    bound address, or --allow-host).
    """
    if transport not in ("stdio", "http"):
        raise UserError(f"--transport must be 'stdio' or 'http', got {transport!r}")
    if not 0 < port < 65536:
        raise UserError(f"--port must be between 1 and 65535, got {port}")
    if not tasks.exists():
        raise UserError(f"no tasks file {str(tasks)!r}; make one with: compoworld generate "
                        f"--out {tasks}")
    found = {t.id: t for t in read_tasks(tasks)}
    if task not in found:
        raise NotFound("task", task, found)
    from compoworld.rollout._mcp import EpisodeServer, is_loopback

    served = EpisodeServer(found[task])
    if transport == "stdio":
        asyncio.run(served.run_stdio())
    else:
        if not is_loopback(host):
            typer.echo(f"warning: binding {host!r} serves this world to other machines, "
                       f"without authentication; Host headers allowed: loopback"
                       f"{', ' + ', '.join(map(repr, allow_host)) if allow_host else ''}"
                       f"{'' if host in ('0.0.0.0', '::') else f', {host!r}'} "
                       f"(add names with --allow-host)", err=True)
        typer.echo(f"serving task {task!r} over MCP on http://{host}:{port}/mcp", err=True)
        served.run_http(host, port, allowed_hosts=allow_host or ())
