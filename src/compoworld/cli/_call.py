"""``compoworld call SERVICE TOOL --args '{...}'``: one tool call, the envelope printed."""

from __future__ import annotations

from typing import Annotated

import orjson
import typer

from compoworld.catalog import load_service
from compoworld.errors import UserError
from compoworld.service import Environment, qualified_name


def call(
    service: Annotated[str, typer.Argument(help="Service name, e.g. contacts.")],
    tool: Annotated[str, typer.Argument(help="Tool name, e.g. get_contact.")],
    args: Annotated[str, typer.Option("--args", help="Arguments as a JSON object.")] = "{}",
    seed: Annotated[int, typer.Option(help="World seed.")] = 0,
) -> None:
    """Call one tool on a freshly seeded world holding SERVICE and print the result envelope.

    Exits 1 when the envelope reports an error (it is still printed).
    """
    try:
        arguments = orjson.loads(args)
    except orjson.JSONDecodeError as error:
        raise UserError(f"--args is not valid JSON: {error}") from None
    env = Environment([load_service(service)], seed=seed)
    envelope = env.call(qualified_name(service, tool), arguments)
    typer.echo(orjson.dumps(envelope, option=orjson.OPT_INDENT_2).decode())
    if not envelope["success"]:
        raise typer.Exit(1)
