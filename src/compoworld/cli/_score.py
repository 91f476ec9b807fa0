"""``compoworld score``: rollouts → scored trajectories, with pass rates and completion."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.table import Table

from compoworld.rollout import Trajectory
from compoworld.scoring import load_trajectories, save_scored, score_trajectories, summarize
from compoworld.tasks import load_tasks

console = Console()
errors = Console(stderr=True)


def _unique(trajectories: list[Trajectory], path: Path) -> list[Trajectory]:
    """One trajectory per (task, rollout index): the last on file (a retried episode follows
    the one it replaces); a file with repeats (two runs wrote it at once, before runs locked
    their output) is scored once per pair, with a warning."""
    latest = {(t.task_id, t.rollout_idx): t for t in trajectories}
    repeated = len(trajectories) - len(latest)
    if repeated:
        errors.print(f"[yellow]{path} repeats {repeated} (task, rollout) pairs; each pair is "
                     f"scored once (its last line)[/]", highlight=False)
        return [t for t in trajectories if latest[(t.task_id, t.rollout_idx)] is t]
    return trajectories


def score_command(
    rollouts: Annotated[Path, typer.Argument(help="Rollouts JSONL (compoworld rollout).")],
    tasks: Annotated[Path, typer.Option("--tasks", help="Tasks JSONL the rollouts ran.")] = Path(
        "out/tasks.jsonl"),
    out: Annotated[Path, typer.Option(help="Scored JSONL (replaced).")] = Path("out/scored.jsonl"),
    json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Score rollouts on their tasks' rubrics; print pass rates per criterion kind."""
    trajectories = _unique(load_trajectories(rollouts), rollouts)
    scored = score_trajectories(load_tasks(tasks), trajectories)
    save_scored(scored, out)
    summary = summarize(scored)
    if json:
        typer.echo(orjson.dumps({**summary.model_dump(), "out": str(out)}).decode())
        return
    table = Table(title=f"{summary.trajectories} trajectories of {summary.tasks} tasks → {out}")
    table.add_column("criterion kind")
    table.add_column("checked", justify="right")
    table.add_column("pass rate", justify="right")
    for kind, rate in summary.pass_rate_by_kind.items():
        table.add_row(kind, str(summary.criteria_by_kind[kind]), f"{rate:.1%}")
    console.print(table)
    console.print(f"full completion: [bold]{summary.full_completion:.1%}[/]   mean rubric score: "
                  f"[bold]{summary.mean_rubric_score:.3f}[/]")
    if summary.replay_mismatches or summary.env_errors or summary.env_failed:
        console.print(f"[yellow]{summary.replay_mismatches} trajectories replayed differently "
                      f"from their log; {summary.env_errors} environment errors; "
                      f"{summary.env_failed} trajectories ended by the environment (left out "
                      f"of the figures above)[/]")
