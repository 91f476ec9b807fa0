"""``compoworld train sft|grpo``: run a training recipe (TRL) and write its log and curves."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(help="Train a model on CompoWorld data with TRL (recipes/*.yaml).",
                  no_args_is_help=True)
console = Console(stderr=True)

ConfigOption = Annotated[str, typer.Option("--config", help="Recipe file (YAML), or a recipe name "
                                           "in recipes/.")]
OutOption = Annotated[Path | None, typer.Option("--out", help="Output folder (default: "
                                                "out/train/<recipe name>).")]
StepsOption = Annotated[int | None, typer.Option("--max-steps", help="Override the recipe's "
                                                 "max_steps.")]


def _out(out: Path | None, config: str) -> Path:
    return out if out is not None else Path("out/train") / Path(config).stem


def _report(kind: str, result: object) -> None:
    from compoworld.train._run import RunResult

    assert isinstance(result, RunResult)
    last: dict[str, object] = next((e for e in reversed(result.log_history) if "loss" in e), {})
    shown = {k: last[k] for k in ("loss", "reward", "rewards/rubric_uniform/mean") if k in last}
    console.print(f"[bold]{kind}[/] done: {result.metrics.get('train_runtime', 0):.1f} s training, "
                  f"{result.wall_s:.1f} s wall, peak RSS {result.peak_rss_mb:.0f} MB; last log {shown}")
    console.print(f"  {result.output_dir}/log_history.jsonl, curves.png, run.json")


def sft(
    config: ConfigOption = "recipes/sft-cpu-smollm2.yaml",
    data: Annotated[Path | None, typer.Option("--data", help="SFT records (JSONL or Parquet, from "
                                              "`compoworld export sft`); default: made on the "
                                              "embedded defaults.")] = None,
    out: OutOption = None,
    max_steps: StepsOption = None,
) -> None:
    """Supervised fine-tuning on tool-calling trajectories (TRL SFTTrainer)."""
    from compoworld.train._data import load_sft_records
    from compoworld.train._recipes import load_recipe
    from compoworld.train._run import train_sft

    recipe = load_recipe(config, "sft")
    records = load_sft_records(data) if data is not None else None
    if records is None:
        console.print(f"no --data: making {recipe.data.tasks} tasks and their oracle trajectories")
    _report("SFT", train_sft(recipe, _out(out, config), records=records, max_steps=max_steps))


def grpo(
    config: ConfigOption = "recipes/grpo-cpu-smollm2.yaml",
    tasks: Annotated[Path | None, typer.Option("--tasks", help="Tasks (JSONL, from `compoworld "
                                               "generate`); default: made on the embedded "
                                               "defaults.")] = None,
    out: OutOption = None,
    max_steps: StepsOption = None,
) -> None:
    """Reinforcement learning in CompoWorld environments (TRL GRPOTrainer + environment_factory)."""
    from compoworld.train._data import load_task_file
    from compoworld.train._recipes import load_recipe
    from compoworld.train._run import train_grpo

    recipe = load_recipe(config, "grpo")
    loaded = load_task_file(tasks) if tasks is not None else None
    if loaded is None:
        console.print(f"no --tasks: making {recipe.data.tasks} tasks on the embedded defaults")
    _report("GRPO", train_grpo(recipe, _out(out, config), tasks=loaded, max_steps=max_steps))


app.command("sft")(sft)
app.command("grpo")(grpo)
