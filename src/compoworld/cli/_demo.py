"""``compoworld demo``: the pipeline on the embedded defaults (no network, no GPU, no key).

Catalog → conformance → one world with shared facts → a scripted cross-service walk-through →
verified tasks → oracle rollouts, scores, rewards and SFT records. Artifacts go to ``--out``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from compoworld.catalog import load_services
from compoworld.cli._demo_training import rollouts_to_sft
from compoworld.cli._services import summary
from compoworld.cli._story import chase_overdue_invoice
from compoworld.service import Environment, check_service, openai_tools
from compoworld.tasks import GenerationStats, generate_tasks
from compoworld.types import Person

console = Console()


def _appearances(env: Environment, person: Person) -> list[str]:
    """Where a pool person's email appears: ``service.entity.field`` for each match."""
    found = []
    for service in env.services.values():
        db = env.db(service.name)
        for entity, table in service.tables.items():
            for column in table.columns:
                if column.semantic != "Email":
                    continue
                if db.count(entity, {column.name: person.email}):
                    found.append(f"{service.name}.{entity}.{column.name}")
    return found


_GIST_KEYS = ("number", "name", "email", "phone", "account_id", "customer_id", "start", "subject",
              "to", "overdue", "query", "date", "attendees", "id")


def _gist(value: Any) -> str:
    """A short, readable summary of a call's arguments or result."""
    if isinstance(value, dict) and isinstance(value.get("items"), list):
        items = value["items"]
        return f"{len(items)} items" + (f", first {_gist(items[0])}" if items else "")
    if isinstance(value, dict) and isinstance(value.get("slots"), list):
        return f"{len(value['slots'])} free slots, first {_gist(value['slots'][0])}"
    if isinstance(value, dict):
        keys = [k for k in _GIST_KEYS if k in value][:3]
        return "{" + ", ".join(f"{k}: {orjson.dumps(value[k]).decode()}" for k in keys) + "}"
    return orjson.dumps(value).decode()[:80]


def _write(path: Path, value: Any) -> None:
    path.write_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")


def demo(
    out: Annotated[Path, typer.Option(help="Folder for the artifacts.")] = Path("out/demo"),
    seed: Annotated[int, typer.Option(help="World seed.")] = 0,
) -> None:
    """Run the pipeline on the embedded defaults: catalog, world, tasks, rollouts, SFT data."""
    out.mkdir(parents=True, exist_ok=True)
    services = load_services()
    rows = [summary(s) for s in services]
    console.rule("[bold]1. The catalog")
    table = Table()
    for column in ("service", "domain", "tools", "reads", "writes", "origin"):
        table.add_column(column)
    for r in rows:
        table.add_row(r["name"], r["domain"], str(r["tools"]), str(r["reads"]), str(r["writes"]),
                      r["origin"])
    console.print(table)

    console.rule("[bold]2. Conformance (check_service)")
    failed = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("checking", total=len(services))
        for service in services:
            report = check_service(service, seed=seed)
            if not report.ok:
                failed.append(str(report))
            progress.update(task, advance=1, description=f"checked {service.name}")
    console.print(f"{len(services) - len(failed)}/{len(services)} services pass")
    for report_text in failed:
        console.print(f"[red]{report_text}[/]", highlight=False)

    console.rule("[bold]3. One world, shared facts")
    started = time.perf_counter()
    env = Environment(services, seed=seed)
    built = time.perf_counter() - started
    counts = {name: len(records) for name, records in env.rows().items()}
    image = env.snapshot()
    console.print(f"world of {len(services)} services: {sum(counts.values())} records in "
                  f"{len(counts)} tables, {len(image) / 1024:.0f} KiB, built in {built:.2f} s")
    started = time.perf_counter()
    fork = env.fork()
    console.print(f"a new environment from it: {(time.perf_counter() - started) * 1e6:.0f} µs")
    fork.close()
    ranked = sorted(env.pool.people, key=lambda p: -len(_appearances(env, p)))[:3]
    for person in ranked:
        places = _appearances(env, person)
        console.print(f"[bold]{person.name}[/] <{person.email}> appears in {len(places)} places: "
                      + ", ".join(places), highlight=False)

    console.rule("[bold]4. Information flowing across services")
    console.print("Chase an overdue invoice whose customer is also a CRM contact — every "
                  "argument comes from an earlier answer:")
    steps = chase_overdue_invoice(env.fork())
    for number, (name, args, data) in enumerate(steps, start=1):
        console.print(f"  {number}. [cyan]{name}[/] {_gist(args)}\n     → {_gist(data)}",
                      highlight=False)
    _write(out / "story.json", [{"tool": n, "arguments": a, "data": d} for n, a, d in steps])

    console.rule("[bold]5. Verified tasks (random walks over the dependency graph)")
    stats = GenerationStats()
    tasks = list(generate_tasks(5, seed, stats=stats))
    (out / "tasks.jsonl").write_bytes(b"".join(t.model_dump_json().encode() + b"\n" for t in tasks))
    console.print(f"{len(tasks)} verified tasks from {stats.attempts} walks (rejected by gate: "
                  f"{dict(stats.rejected) or 'none'}); the first one:")
    if tasks:
        shown = tasks[0]
        console.print(f"  [bold]{shown.id}[/] over {', '.join(shown.involved)} "
                      f"({', '.join(shown.labels.capabilities)})", highlight=False)
        console.print(f"  {escape(shown.instruction)}", highlight=False)
        for c in shown.rubric:
            console.print(f"    {escape(f'[{c.kind}]')} {escape(c.description[:110])}",
                          highlight=False)

    console.rule("[bold]6. Rollouts → scores → rewards → SFT records")
    rollouts_to_sft(tasks, out, console)

    console.rule("[bold]7. Calls and envelopes")
    first = next(iter(env.tools))
    examples = [(first, {}), (first, {"no_such_argument": 1}),
                (first.rsplit("_", 1)[0] + "_x", {})]
    for name, args in examples:
        envelope = env.call(name, args)
        text = orjson.dumps(envelope).decode()
        console.print(f"[cyan]{name}[/]({orjson.dumps(args).decode()}) → "
                      f"{text[:300] + ('…' if len(text) > 300 else '')}", highlight=False)

    (out / "world.sqlite").write_bytes(image)
    _write(out / "services.json", rows)
    _write(out / "openai_tools.json", openai_tools(env.tools))
    console.rule("[bold]Artifacts")
    console.print(f"{out}/world.sqlite       the seeded world (open it with sqlite3)")
    console.print(f"{out}/services.json      the catalog summary")
    console.print(f"{out}/openai_tools.json  all {len(env.tools)} tools as OpenAI functions")
    console.print(f"{out}/story.json         the cross-service walk-through, call by call")
    console.print(f"{out}/tasks.jsonl        verified tasks (compoworld tasks show ID --tasks ...)")
    console.print(f"{out}/rollouts.jsonl     oracle trajectories (compoworld rollout)")
    console.print(f"{out}/scored.jsonl       their rubric scores (compoworld score)")
    console.print(f"{out}/sft.jsonl          SFT records for TRL (compoworld export sft)")
    if failed:
        raise typer.Exit(1)
