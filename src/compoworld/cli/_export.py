"""``compoworld export sft|rl``: training data from scored trajectories and tasks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console

from compoworld.errors import UserError
from compoworld.export import export_rl, export_sft
from compoworld.scoring import load_scored
from compoworld.tasks import load_tasks

app = typer.Typer(help="Training data: SFT records from scored rollouts, RL datasets from tasks.",
                  no_args_is_help=True)
console = Console()


@app.command("sft")
def sft(
    scored: Annotated[Path, typer.Argument(help="Scored JSONL (compoworld score).")],
    out: Annotated[Path, typer.Option(help="File to write (replaced).")] = Path("out/sft.jsonl"),
    min_score: Annotated[float, typer.Option(
        help="Minimum score (1.0: full completion only).")] = 1.0,
    format: Annotated[str, typer.Option("--format", help="jsonl or parquet.")] = "jsonl",
    form: Annotated[str, typer.Option(
        help="release (the released schema) or trl (arguments and tools as JSON text).")
    ] = "release",
    tasks: Annotated[Path | None, typer.Option(
        "--tasks", help="Tasks JSONL, for each record's generation recipe (meta.src); default: "
                        "out/tasks.jsonl when it exists.")] = None,
    json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """SFT records (tools, meta, source, messages) of the scored trajectories that qualify."""
    if format not in ("jsonl", "parquet"):
        raise UserError(f"--format must be jsonl or parquet, got {format!r}")
    if form not in ("release", "trl"):
        raise UserError(f"--form must be release or trl, got {form!r}")
    default = Path("out/tasks.jsonl")
    task_file = tasks if tasks is not None else default if default.is_file() else None
    stats = export_sft(load_scored(scored), out, min_score=min_score,
                       format=format,  # type: ignore[arg-type]
                       tasks=load_tasks(task_file) if task_file is not None else (),
                       form=form)  # type: ignore[arg-type]
    if json:
        typer.echo(orjson.dumps({"kept": stats.kept, "dropped": stats.dropped,
                                 "out": stats.out}).decode())
        return
    dropped = ", ".join(f"{k} {v}" for k, v in sorted(stats.dropped.items())) or "none"
    console.print(f"{stats.kept} SFT records in {out} (dropped: {dropped})", highlight=False)


@app.command("rl")
def rl(
    tasks: Annotated[Path, typer.Argument(help="Tasks JSONL (compoworld generate).")],
    out: Annotated[Path, typer.Option(help="Folder to write.")] = Path("out/rl"),
    format: Annotated[str, typer.Option(
        "--format", help="disk (datasets save_to_disk), parquet or jsonl.")] = "disk",
) -> None:
    """An RL dataset: prompt messages, task id and the task JSON that rebuilds the world."""
    if format not in ("disk", "parquet", "jsonl"):
        raise UserError(f"--format must be disk, parquet or jsonl, got {format!r}")
    chosen = load_tasks(tasks)
    path = export_rl(chosen, out, format=format)  # type: ignore[arg-type]
    console.print(f"{len(chosen)} tasks → {path}", highlight=False)
