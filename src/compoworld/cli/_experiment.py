"""``compoworld experiment reweighting``: GRPO with CFR against the uniform reward."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(help="Experiments (ablations) on CompoWorld environments.", no_args_is_help=True)
console = Console()


def reweighting(
    config: Annotated[str, typer.Option("--config", help="GRPO recipe (YAML) both arms use.")] = (
        "recipes/reweighting-cpu-smollm2.yaml"),
    steps: Annotated[int, typer.Option("--steps", help="Training steps per arm.")] = 4,
    eval_every: Annotated[int, typer.Option("--eval-every", help="Steps between evaluations.")] = 2,
    out: Annotated[Path, typer.Option("--out", help="Output folder.")] = Path("out/reweighting"),
) -> None:
    """Train GRPO with the Completion-Focused Reward and with the uniform rubric reward on the
    same tasks from the same model; plot their smoothed evaluation scores (the paper's Fig. 6)."""
    from compoworld.train._ablation import run_reweighting
    from compoworld.train._recipes import load_recipe

    recipe = load_recipe(config, "grpo")
    if recipe.device == "cpu":
        console.print("[yellow]CPU run:[/] a tiny model on a handful of tasks for a few steps — it "
                      "checks the harness, it cannot reproduce the paper's effect.")
    result = run_reweighting(recipe, out, steps=steps, eval_every=eval_every)
    for arm in result.arms:
        points = ", ".join(f"{s}: {v:.3f}" for s, v in zip(arm.steps, arm.scores, strict=True))
        console.print(f"GRPO + {arm.scheme:<8} evaluation rubric score by step  {points}  "
                      f"({arm.train_s:.0f} s training)")
    console.print(f"{result.plot} · {out / 'reweighting.json'} · wall {result.wall_s:.0f} s, "
                  f"peak RSS {result.peak_rss_mb:.0f} MB")
    if result.note:
        console.print(result.note)


app.command("reweighting")(reweighting)
