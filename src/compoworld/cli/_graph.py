"""``compoworld graph stats | export``: the cross-service dependency graph."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.table import Table

from compoworld.catalog import load_services
from compoworld.graph import DependencyGraph, GraphFormat, build_graph, to_graphml, to_json

app = typer.Typer(help="The cross-service dependency graph over tools.", no_args_is_help=True)

ServicesOption = Annotated[
    str | None, typer.Option(help="Comma-separated services (default: the whole catalog).")
]


def _graph(services: str | None) -> DependencyGraph:
    names = [n.strip() for n in services.split(",") if n.strip()] if services else None
    return build_graph(load_services(names))


@app.command("stats")
def stats(services: ServicesOption = None,
          json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Nodes, edges, cross-service edges, components and degree spread."""
    figures = _graph(services).stats()
    if json:
        typer.echo(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())
        return
    table = Table(title="dependency graph")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for key, value in figures.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        table.add_row(key.replace("_", " "), str(value))
    Console().print(table)


@app.command("export")
def export(
    out: Annotated[Path, typer.Option(help="File to write.")],
    format: Annotated[str, typer.Option(help="graphml or json.")] = "json",
    services: ServicesOption = None,
) -> None:
    """Write the graph as GraphML (Gephi, yEd, networkx) or node-link JSON."""
    if format not in ("json", "graphml"):
        raise typer.BadParameter("format must be 'json' or 'graphml'", param_hint="--format")
    chosen: GraphFormat = "json" if format == "json" else "graphml"
    graph = _graph(services)
    if chosen == "json":
        out.write_bytes(orjson.dumps(to_json(graph), option=orjson.OPT_INDENT_2) + b"\n")
    else:
        out.write_text(to_graphml(graph))
    typer.echo(f"wrote {out} ({len(graph.nodes)} tools, {len(graph.edges)} edges)")
