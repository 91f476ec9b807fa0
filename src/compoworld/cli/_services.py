"""``compoworld services list | show | check``."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.table import Table

from compoworld.catalog import load_service, load_services
from compoworld.service import Service, check_service

app = typer.Typer(help="Browse and check the service catalog.", no_args_is_help=True)
console = Console()

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _print_json(value: Any) -> None:
    typer.echo(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())


def summary(service: Service) -> dict[str, Any]:
    reads = sum(t.kind == "read" for t in service.tools.values())
    return {
        "name": service.name, "domain": service.domain, "tools": len(service.tools),
        "reads": reads, "writes": len(service.tools) - reads,
        "simulated": sum(t.simulated for t in service.tools.values()),
        "entities": len(service.entities), "origin": service.origin,
        "description": service.description,
    }


@app.command("list")
def list_services(json: JsonFlag = False) -> None:
    """List every service in the catalog."""
    rows = [summary(s) for s in load_services()]
    if json:
        _print_json(rows)
        return
    table = Table(title=f"{len(rows)} services, {sum(r['tools'] for r in rows)} tools")
    for column in ("name", "domain", "tools", "reads", "writes", "entities", "origin"):
        table.add_column(column, justify="right" if column in ("tools", "reads", "writes",
                                                               "entities") else "left")
    for r in rows:
        table.add_row(r["name"], r["domain"], str(r["tools"]), str(r["reads"]), str(r["writes"]),
                      str(r["entities"]), r["origin"])
    console.print(table)


def _entity_json(service: Service) -> list[dict[str, Any]]:
    return [
        {"name": name, "fields": [
            {"name": c.name, "type": c.semantic or c.kind, **({"ref": c.ref} if c.ref else {}),
             "nullable": c.nullable, **({"enum": list(c.enum)} if c.enum else {})}
            for c in table.columns]}
        for name, table in service.tables.items()
    ]


@app.command("show")
def show(name: Annotated[str, typer.Argument(help="Service name.")], json: JsonFlag = False) -> None:
    """Show a service's entities and tools (with parameters)."""
    service = load_service(name)
    tools = [{"name": t.name, "kind": t.kind, "simulated": t.simulated,
              "description": t.description, "parameters": t.parameters}
             for t in service.tools.values()]
    if json:
        _print_json({**summary(service), "entities": _entity_json(service), "tools": tools})
        return
    console.print(f"[bold]{service.name}[/] ({service.domain}) — {service.description}\n")
    for entity in _entity_json(service):
        fields = ", ".join(f"{f['name']}: {f['type']}" + (f"→{f['ref']}" if "ref" in f else "")
                           for f in entity["fields"])
        console.print(f"[cyan]entity[/] {entity['name']}({fields})", highlight=False)
    table = Table(show_lines=False)
    for column in ("tool", "kind", "parameters", "description"):
        table.add_column(column)
    for t in service.tools.values():
        required = set(t.parameters["required"])
        params = ", ".join(p.name + ("" if p.name in required else "?") for p in t.params)
        table.add_row(t.name, t.kind + (" (sim)" if t.simulated else ""), params,
                      t.description.splitlines()[0] if t.description else "")
    console.print(table)


@app.command("check")
def check(
    names: Annotated[list[str] | None, typer.Argument(help="Services (default: all).")] = None,
    seed: Annotated[int, typer.Option(help="World seed.")] = 0,
) -> None:
    """Run the conformance check (``check_service``) over services; exit 1 on any problem."""
    failed = 0
    for service in load_services(names or None):
        report = check_service(service, seed=seed)
        failed += not report.ok
        style = "green" if report.ok else "red"
        console.print(f"[{style}]{report}[/]", highlight=False)
    if failed:
        raise typer.Exit(1)
