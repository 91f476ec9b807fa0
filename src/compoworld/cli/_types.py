"""``compoworld types``: the shared semantic types."""

from __future__ import annotations

from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.table import Table

from compoworld.types import Pool, semantic_types


def types(json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List the shared semantic types with their JSON schema and an example value."""
    fake = Pool(0, people=1, companies=1).faker("types")
    rows = [{"name": t.name, "description": t.description, "schema": t.json_schema(),
             "example": t.generate(fake), "knowable": t.knowable} for t in semantic_types()]
    if json:
        typer.echo(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())
        return
    table = Table(title=f"{len(rows)} semantic types")
    for column in ("name", "json", "format / pattern", "example", "description"):
        table.add_column(column)
    for r in rows:
        schema = r["schema"]
        table.add_row(r["name"], schema["type"], schema.get("format") or schema.get("pattern", ""),
                      str(r["example"]), r["description"])
    Console().print(table)
