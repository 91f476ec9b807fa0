"""``compoworld distill``, ``calibrate`` and ``split``: which trajectories and tasks to train on."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console

from compoworld.curate import SPLIT_SCHEMES, calibrate, distill, split_tasks
from compoworld.errors import UserError
from compoworld.rollout import AGENT_KINDS, AgentSpec, EpisodeSettings
from compoworld.tasks import Task, load_tasks

console = Console(stderr=True)

TasksOption = Annotated[Path, typer.Option("--tasks", help="Tasks JSONL (compoworld generate).")]
ModelOption = Annotated[str | None, typer.Option(
    help="Model name at the endpoint (default: $COMPOWORLD_MODEL).")]
BaseUrlOption = Annotated[str | None, typer.Option(
    help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 "
         "(default: $COMPOWORLD_BASE_URL).")]
KeyOption = Annotated[str | None, typer.Option(help="API key (default: $COMPOWORLD_API_KEY).")]
ConcurrencyOption = Annotated[int, typer.Option(help="Episodes at once (requests in flight).")]
StepsOption = Annotated[int, typer.Option(help="Assistant turns per episode.")]
EpisodeTokensOption = Annotated[int | None, typer.Option(help="Generated tokens per episode.")]
TimeLimitOption = Annotated[float | None, typer.Option(help="Seconds per episode.")]
ReplyTokensOption = Annotated[int | None, typer.Option(help="Tokens per reply.")]
TemperatureOption = Annotated[float | None, typer.Option(
    help="Sampling temperature (keep it above 0: the rollouts of a task differ by sampling).")]
TokenBudgetOption = Annotated[int | None, typer.Option(
    help="Prompt + completion tokens for the whole run (resumes included); then no new task "
         "starts.")]
TimeBudgetOption = Annotated[float | None, typer.Option(
    help="Seconds of wall time for this invocation; then no new task starts.")]
LimitOption = Annotated[int | None, typer.Option(help="Only the first N tasks.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")]


def _tasks(path: Path, limit: int | None) -> list[Task]:
    if not path.exists():
        raise UserError(f"no tasks file {str(path)!r}; make one with: compoworld generate "
                        f"--out {path}")
    chosen = load_tasks(path)[:limit]
    if not chosen:
        raise UserError(f"{path} holds no tasks")
    return chosen


def _fractions(text: str) -> tuple[float, float, float]:
    try:
        parts = tuple(float(p) for p in text.split(","))
    except ValueError:
        parts = ()
    if len(parts) != 3:
        raise UserError(f"--fractions takes three shares like 0.8,0.1,0.1, got {text!r}")
    return parts


def distill_command(
    tasks: TasksOption = Path("out/tasks.jsonl"),
    out: Annotated[Path, typer.Option(help="The run's folder (a rerun resumes).")] = Path(
        "out/distill"),
    model: ModelOption = None, base_url: BaseUrlOption = None, api_key: KeyOption = None,
    group: Annotated[int, typer.Option(help="Teacher rollouts per task (G).")] = 4,
    concurrency: ConcurrencyOption = 8, max_steps: StepsOption = 30,
    max_tokens: EpisodeTokensOption = None, time_limit: TimeLimitOption = None,
    reply_tokens: ReplyTokensOption = None, temperature: TemperatureOption = 0.7,
    token_budget: TokenBudgetOption = None, time_budget: TimeBudgetOption = None,
    similarity: Annotated[float, typer.Option(
        help="Jaccard similarity from which two rollouts of a task are near-duplicates.")] = 0.9,
    form: Annotated[str, typer.Option(help="SFT record form: release or trl.")] = "release",
    limit: LimitOption = None, json: JsonOption = False,
) -> None:
    """Distill a teacher: roll tasks out, keep the fully verified, deduplicated rollouts as SFT."""
    if form not in ("release", "trl"):
        raise UserError(f"--form must be release or trl, got {form!r}")
    teacher = AgentSpec(kind="openai", model=model, base_url=base_url, api_key=api_key,
                        temperature=temperature, max_tokens=reply_tokens).build()
    stats = distill(_tasks(tasks, limit), teacher, out, group=group, concurrency=concurrency,
                    settings=EpisodeSettings(max_steps, max_tokens, time_limit, timings=False),
                    token_budget=token_budget, time_budget=time_budget, similarity=similarity,
                    form=form)  # type: ignore[arg-type]
    if json:
        typer.echo(orjson.dumps(stats.model_dump()).decode())
        return
    rejected = ", ".join(f"{k} {v}" for k, v in stats.rejected.items()) or "none"
    stop = f" · stopped by the {stats.stopped_by} budget (rerun to go on)" if stats.stopped_by else ""
    console.print(
        f"{stats.rollouts} teacher rollouts of {stats.tasks} tasks ({stats.new_rollouts} new) in "
        f"{stats.wall_s:.0f} s · {stats.prompt_tokens + stats.completion_tokens:,} tokens "
        f"({stats.completion_tokens:,} generated) · kept {stats.kept} from {stats.kept_tasks} "
        f"tasks → {out}/sft.jsonl · rejected: {rejected}{stop}", highlight=False)


def calibrate_command(
    tasks: TasksOption = Path("out/tasks.jsonl"),
    out: Annotated[Path, typer.Option(help="The run's folder (a rerun resumes).")] = Path(
        "out/calibration"),
    agent: Annotated[str, typer.Option(help="openai, local, oracle or oracle-stumble.")] = "openai",
    model: ModelOption = None, base_url: BaseUrlOption = None, api_key: KeyOption = None,
    k: Annotated[int, typer.Option("-k", "--k", help="Rollouts per task.")] = 8,
    concurrency: ConcurrencyOption = 8, max_steps: StepsOption = 30,
    max_tokens: EpisodeTokensOption = None, time_limit: TimeLimitOption = None,
    reply_tokens: ReplyTokensOption = None, temperature: TemperatureOption = 1.0,
    token_budget: TokenBudgetOption = None, time_budget: TimeBudgetOption = None,
    seed: Annotated[int, typer.Option(help="Seed of the splits.")] = 0,
    fractions: Annotated[str, typer.Option(help="Train,validation,test shares.")] = "0.8,0.1,0.1",
    limit: LimitOption = None, json: JsonOption = False,
) -> None:
    """Calibrate difficulty: pass rate per task over k rollouts, RL filter, splits."""
    if agent not in AGENT_KINDS:
        raise UserError(f"--agent must be one of {', '.join(AGENT_KINDS)}, got {agent!r}")
    built = AgentSpec(kind=agent, model=model, base_url=base_url, api_key=api_key,
                      temperature=temperature, max_tokens=reply_tokens).build()
    stats = calibrate(_tasks(tasks, limit), built, out, k=k, concurrency=concurrency,
                      settings=EpisodeSettings(max_steps, max_tokens, time_limit, timings=False),
                      token_budget=token_budget, time_budget=time_budget, seed=seed,
                      fractions=_fractions(fractions))
    if json:
        typer.echo(orjson.dumps(stats.model_dump()).decode())
        return
    console.print(
        f"{stats.calibrated} of {stats.tasks} tasks calibrated (k={stats.k}) in "
        f"{stats.wall_s:.0f} s: never solved {stats.never}, always {stats.always}, kept for RL "
        f"{stats.rl_kept} → {out}/rl_tasks.jsonl; mean pass rate {stats.mean_pass_rate:.1%}",
        highlight=False)


def split_command(
    tasks: Annotated[Path, typer.Argument(help="Tasks JSONL.")],
    by: Annotated[str, typer.Option(help="task, motif or services (held-out services).")] = "task",
    seed: Annotated[int, typer.Option(help="Seed of the split.")] = 0,
    fractions: Annotated[str, typer.Option(help="Train,validation,test shares.")] = "0.8,0.1,0.1",
    out: Annotated[Path | None, typer.Option(
        help="Folder for train.jsonl, validation.jsonl, test.jsonl and split.json "
             "(default: beside the tasks file, in <name>-split-<by>/).")] = None,
) -> None:
    """Split tasks into train / validation / test files, reproducibly."""
    if by not in SPLIT_SCHEMES:
        raise UserError(f"--by must be one of {', '.join(SPLIT_SCHEMES)}, got {by!r}")
    chosen = _tasks(tasks, None)
    split = split_tasks(chosen, by, seed=seed, fractions=_fractions(fractions))
    folder = out if out is not None else tasks.with_name(f"{tasks.stem}-split-{by}")
    folder.mkdir(parents=True, exist_ok=True)
    by_id = {t.id: t for t in chosen}
    for name in ("train", "validation", "test"):
        ids = getattr(split, name)
        (folder / f"{name}.jsonl").write_bytes(
            b"".join(by_id[i].model_dump_json().encode() + b"\n" for i in ids))
    (folder / "split.json").write_bytes(orjson.dumps(split.model_dump(),
                                                     option=orjson.OPT_INDENT_2) + b"\n")
    held = "".join(f" · held-out {k} services: {', '.join(v)}"
                   for k, v in split.held_out_services.items() if v)
    console.print(f"train {len(split.train)} · validation {len(split.validation)} · test "
                  f"{len(split.test)} → {folder}{held}", highlight=False)
