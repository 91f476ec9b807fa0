"""The ``compoworld`` command: one sub-command per stage, plus ``demo``."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from compoworld.cli import (
    _call,
    _catalog,
    _curate,
    _demo,
    _experiment,
    _export,
    _graph,
    _rollout,
    _score,
    _serve_mcp,
    _serve_model,
    _services,
    _specs,
    _tasks,
    _train,
    _types,
    _view,
)
from compoworld.errors import UserError

__all__ = ["app", "main"]

app = typer.Typer(
    name="compoworld",
    help="Compose verified tool services into cross-service training environments.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
serve = typer.Typer(help="Serve a model (OpenAI-compatible HTTP) or an episode (MCP).",
                    no_args_is_help=True)
app.add_typer(serve, name="serve")
serve.command("model")(_serve_model.model)
app.add_typer(_services.app, name="services")
app.add_typer(_graph.app, name="graph")
app.add_typer(_catalog.app, name="catalog")
app.add_typer(_specs.app, name="specs")
app.add_typer(_tasks.app, name="tasks")
app.command("generate")(_tasks.generate)
app.command("call")(_call.call)
app.command("types")(_types.types)
app.command("demo")(_demo.demo)
app.command("rollout")(_rollout.rollout_command)
serve.command("mcp")(_serve_mcp.mcp)
app.command("score")(_score.score_command)
app.command("distill")(_curate.distill_command)
app.command("calibrate")(_curate.calibrate_command)
app.command("split")(_curate.split_command)
app.add_typer(_export.app, name="export")
app.add_typer(_train.app, name="train")
app.add_typer(_experiment.app, name="experiment")
app.command("view")(_view.view)


def main() -> None:
    """Entry point: user errors print one clear line and exit 2, never a traceback."""
    try:
        app()
    except UserError as error:
        Console(stderr=True).print(f"[bold red]error:[/] {error}", highlight=False)
        sys.exit(2)
