"""``compoworld generate`` and ``compoworld tasks show``: verified tasks as JSONL."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from compoworld._outfile import OutputLock, torn_tail, write_atomic
from compoworld.errors import NotFound, UserError
from compoworld.tasks import (
    GenerationSettings,
    GenerationStats,
    Task,
    generate_tasks,
    load_tasks,
    select_services,
    verify_task,
)
from compoworld.tasks._generate import _signature

app = typer.Typer(help="Inspect generated tasks.", no_args_is_help=True)
console = Console(stderr=True)


def read_tasks(path: Path) -> list[Task]:
    """Tasks of a JSONL file (none if it does not exist yet)."""
    return load_tasks(path, missing_ok=True)


def _split(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def _range(text: str, option: str) -> tuple[int, int]:
    try:
        low, _, high = text.partition("-")
        return int(low), int(high or low)
    except ValueError:
        raise UserError(f"{option} takes a range like 3-6, got {text!r}") from None


def generate(
    tasks: Annotated[int, typer.Option("--tasks", help="How many verified tasks to keep.")] = 20,
    seed: Annotated[int, typer.Option(help="Seed: same arguments, same file.")] = 0,
    out: Annotated[Path, typer.Option(help="JSONL file (appended to; a rerun resumes).")] = Path(
        "out/tasks.jsonl"),
    walk_length: Annotated[str, typer.Option(help="Steps per task, e.g. 3-6.")] = "3-6",
    distractors: Annotated[int, typer.Option(help="Distractor services per world.")] = 2,
    interface: Annotated[str, typer.Option(help="direct or gateway.")] = "direct",
    workers: Annotated[int, typer.Option(help="Processes (the output does not depend on it).")] = 1,
    services: Annotated[str | None, typer.Option(
        help="Walk over these services only (comma-separated; distractors come from them "
             "too).")] = None,
    domains: Annotated[str | None, typer.Option(
        help="Walk over the services of these domains (comma-separated; with --services: "
             "both).")] = None,
    ray: Annotated[str | None, typer.Option(
        help="Run attempts as Ray tasks: 'local' (start one here), 'auto' or an address "
             "(the output does not depend on it).")] = None,
) -> None:
    """Generate verified cross-service tasks by random walks over the dependency graph."""
    low, high = _range(walk_length, "--walk-length")
    if not 2 <= low <= high <= 12:
        raise UserError(f"--walk-length must lie within 2-12 with low <= high, got {walk_length!r}")
    if interface not in ("direct", "gateway"):
        raise UserError(f"--interface must be 'direct' or 'gateway', got {interface!r}")
    chosen = None
    if services or domains:
        chosen = select_services(_split(services), _split(domains))
    settings = GenerationSettings(min_steps=low, max_steps=high, distractors=distractors,
                                  interface="direct" if interface == "direct" else "gateway",
                                  services=chosen)
    with OutputLock(out, "generate"):
        _generate(tasks, seed, out, settings, workers, ray)


def _resume(out: Path, seed: int) -> list[Task]:
    """The tasks an earlier run of this output kept; a torn last line is cut off in place
    (never a rewrite: a kill at any moment leaves every whole line)."""
    if not out.exists():
        return []
    data = out.read_bytes()
    end = torn_tail(out, data, b'{"id":', "tasks")
    done = read_tasks(out)
    if any(t.provenance.get("run_seed", t.seed) != seed for t in done):
        raise UserError(f"{out} holds tasks of another seed; choose another --out")
    if end < len(data):
        os.truncate(out, end)
    return done


def _generate(tasks: int, seed: int, out: Path, settings: GenerationSettings,
              workers: int, ray: str | None) -> None:
    done = _resume(out, seed)
    start = max((t.provenance["attempt"] for t in done), default=-1) + 1
    seen = {_signature(t.plan, t.condition) for t in done}
    stats = GenerationStats()
    # No refresh thread: with none running, worker processes can be forked warm (they inherit
    # the loaded catalog) instead of spawned cold.
    with Progress(TextColumn("[bold]generating"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[detail]}"), TimeElapsedColumn(),
                  console=console, auto_refresh=False) as progress:
        bar = progress.add_task("tasks", total=tasks, completed=len(done), detail="")
        with out.open("ab") as sink:
            for task in generate_tasks(tasks - len(done), seed, settings, start_attempt=start,
                                       stats=stats, seen=seen, workers=max(1, workers),
                                       ray=(True if ray == "local" else ray) or False):
                sink.write(task.model_dump_json().encode() + b"\n")
                sink.flush()
                rejected = ", ".join(f"{k} {v}" for k, v in sorted(stats.rejected.items()))
                progress.update(bar, advance=1, refresh=True,
                                detail=f"{stats.attempts} walks, rejected: {rejected or 'none'}")
    kept = len(done) + stats.kept
    console.print(f"{kept} tasks in {out} ({stats.kept} new from {stats.attempts} walks, "
                  f"yield {stats.yield_rate:.0%}; rejected by gate: {dict(stats.rejected)})")


@app.command("show")
def show(task_id: Annotated[str, typer.Argument(help="Task id, e.g. t0-000003.")],
         tasks: Annotated[Path, typer.Option("--tasks", help="JSONL file.")] = Path(
             "out/tasks.jsonl"),
         json: Annotated[bool, typer.Option("--json", help="Print the task as JSON.")] = False,
         ) -> None:
    """Show one task readably: instruction, plan, rubric, gates."""
    found = {t.id: t for t in read_tasks(tasks)}
    if task_id not in found:
        raise NotFound("task", task_id, found)
    task = found[task_id]
    if json:
        typer.echo(orjson.dumps(task.model_dump(), option=orjson.OPT_INDENT_2).decode())
        return
    out = Console()
    out.print(f"[bold]{task.id}[/]  {', '.join(task.labels.capabilities)}  "
              f"services {', '.join(task.involved)} (+ distractors "
              f"{', '.join(task.distractors) or 'none'})  interface {task.interface}")
    out.print(f"\n[bold]Instruction[/]\n{task.instruction}\n", highlight=False)
    out.print("[bold]Reference plan[/]")
    for i, step in enumerate(task.plan, start=1):
        args = orjson.dumps(step.arguments).decode()
        out.print(f"  {i}. {step.tool}({args[:120]})", highlight=False)
    if task.condition is not None:
        condition, then = task.condition, task.condition.then
        args = orjson.dumps(then.arguments).decode()
        out.print(f"  {'then' if condition.holds else 'not done'}: {then.tool}({args[:100]}) — "
                  f"step {condition.source + 1} {condition.path} {condition.op} "
                  f"{condition.threshold}", highlight=False)
    out.print("\n[bold]Rubric[/]")
    for c in task.rubric:
        out.print(f"  {escape(f'[{c.kind}]')} {escape(c.description[:150])}", highlight=False)
    gates = ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in task.verification.items())
    out.print(f"\n[bold]Gates[/] {gates}")


@app.command("verify")
def verify(path: Annotated[Path, typer.Argument(help="Task JSONL file.")],
           json: Annotated[bool, typer.Option("--json", help="One JSON line per task.")] = False,
           ) -> None:
    """Re-run every task's verification gates on its rebuilt world; exit 1 if any fails."""
    tasks = load_tasks(path)
    failed = 0
    counts: dict[str, int] = {}
    with Progress(TextColumn("[bold]verifying"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, disable=json) as progress:
        for task in progress.track(tasks):
            result = verify_task(task)
            bad = [gate for gate, passed in result.items() if not passed]
            failed += bool(bad)
            for gate in bad:
                counts[gate] = counts.get(gate, 0) + 1
            if json:
                typer.echo(orjson.dumps({"id": task.id, "passed": not bad, "gates": result}))
            elif bad:
                console.print(f"{task.id}: failed {', '.join(bad)}", highlight=False)
    if not json:
        console.print(f"{len(tasks) - failed} of {len(tasks)} tasks pass every gate"
                      + (f"; failures by gate: {counts}" if counts else ""))
    if failed:
        raise typer.Exit(1)


@app.command("rewrite")
def rewrite(
    path: Annotated[Path, typer.Argument(help="Task JSONL file.")],
    out: Annotated[Path, typer.Option(help="Where to write the rewritten tasks.")],
    model: Annotated[str | None, typer.Option(
        help="Model name ('local' for the bundled SmolLM2); default $COMPOWORLD_MODEL.")] = None,
    base_url: Annotated[str | None, typer.Option(
        help="OpenAI-compatible endpoint; default $COMPOWORLD_BASE_URL.")] = None,
    api_key: Annotated[str | None, typer.Option(help="Default $COMPOWORLD_API_KEY.")] = None,
    concurrency: Annotated[int, typer.Option(help="Requests in flight.")] = 8,
    timeout: Annotated[float, typer.Option(
        help="Seconds per request (the bundled model serves one at a time: waiting counts).")] = 60.0,
) -> None:
    """Rewrite instructions with an LLM from each task's scenario; a rewrite that drops a
    stated value, leaks one to discover, loses the rule's pointer or names a tool is rejected
    and the templated instruction stays."""
    from compoworld.models import client_from_settings
    from compoworld.tasks import rewrite_instructions

    client = client_from_settings(base_url, model, api_key, timeout=timeout)
    if client is None:
        raise UserError("no model configured: pass --model local, or --base-url and --model "
                        "(or set COMPOWORLD_BASE_URL and COMPOWORLD_MODEL)")
    tasks = load_tasks(path)
    rewritten, outcomes = asyncio.run(rewrite_instructions(tasks, client, concurrency=concurrency))
    write_atomic(out, b"".join(t.model_dump_json().encode() + b"\n" for t in rewritten))
    console.print(f"{outcomes['rewritten']} of {len(tasks)} instructions rewritten by "
                  f"{client.model} into {out}; kept the template: "
                  f"{dict((k, v) for k, v in outcomes.items() if k != 'rewritten') or 'none'}")
