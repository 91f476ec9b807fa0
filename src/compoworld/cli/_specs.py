"""``compoworld specs harvest-mcp``: write the tool list of a live MCP server as a spec file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from compoworld.errors import UserError

app = typer.Typer(help="Obtain tool specifications from live sources.", no_args_is_help=True)


def _env(pairs: list[str]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"--env takes KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


@app.command("harvest-mcp", context_settings={"allow_extra_args": True,
                                              "ignore_unknown_options": True})
def harvest(
    command: Annotated[list[str] | None, typer.Argument(
        help="The stdio server command, after '--' (e.g. -- npx -y @modelcontextprotocol/"
        "server-memory).")] = None,
    out: Annotated[Path | None, typer.Option(help="Spec file to write (default: "
                                             "<server name>.json).")] = None,
    env: Annotated[list[str] | None, typer.Option(
        "--env", help="KEY=VALUE for the server's environment (repeatable), e.g. a dummy key.")]
    = None,
    timeout: Annotated[float, typer.Option(help="Seconds for start-up and listing.")] = 120.0,
) -> None:
    """Start a stdio MCP server, list all its tools (every page), stop it, write the spec."""
    from compoworld.compiler._harvest import harvest_mcp, write_harvest

    spec = harvest_mcp(list(command or []), _env(env or []), timeout=timeout)
    path = write_harvest(spec, out or Path(f"{spec['name']}.json"))
    Console(stderr=True).print(f"wrote {len(spec['tools'])} tools of {spec['title']!r} to {path}")
