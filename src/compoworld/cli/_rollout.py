"""``compoworld rollout``: G rollouts per task with an agent, streamed to a resumable JSONL."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from compoworld.cli._tasks import read_tasks
from compoworld.errors import UserError
from compoworld.rollout import AGENT_KINDS, SIMULATOR_KINDS, AgentSpec, WorldModelSpec, rollout

console = Console(stderr=True)


def rollout_command(
    tasks: Annotated[Path, typer.Option("--tasks", help="Tasks JSONL (compoworld generate).")] = Path(
        "out/tasks.jsonl"),
    agent: Annotated[str, typer.Option(
        help="oracle, oracle-stumble (one refused call, then the fix), openai or local.")
    ] = "oracle",
    model: Annotated[str | None, typer.Option(
        help="Model name (openai agent; default: $COMPOWORLD_MODEL).")] = None,
    base_url: Annotated[str | None, typer.Option(
        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")] = None,
    api_key: Annotated[str | None, typer.Option(
        help="API key (default: $COMPOWORLD_API_KEY).")] = None,
    group: Annotated[int, typer.Option(help="Rollouts per task (the GRPO group).")] = 1,
    out: Annotated[Path, typer.Option(help="JSONL file (appended to; a rerun resumes).")] = Path(
        "out/rollouts.jsonl"),
    concurrency: Annotated[int, typer.Option(
        help="Episodes at once (with --ray: task groups in flight).")] = 32,
    max_steps: Annotated[int, typer.Option(help="Assistant turns per episode.")] = 30,
    max_tokens: Annotated[int | None, typer.Option(
        help="Generated tokens per episode.")] = None,
    time_limit: Annotated[float | None, typer.Option(help="Seconds per episode.")] = None,
    temperature: Annotated[float | None, typer.Option(help="Sampling temperature.")] = None,
    timeout: Annotated[float, typer.Option(
        help="Seconds one model reply may take, retries included (openai and local agents); "
             "past it the episode ends as model_error.")] = 300.0,
    retry_failed: Annotated[bool, typer.Option(
        help="Run again the rollouts on file that ended in model_error (--no-retry-failed: "
             "keep them).")] = True,
    timings: Annotated[bool, typer.Option(
        help="Record wall times (--no-timings: identical bytes for the oracle).")] = True,
    ray: Annotated[str | None, typer.Option(
        help="Run task groups on Ray: 'local' starts one here, or a cluster address.")] = None,
    num_cpus: Annotated[int | None, typer.Option(help="CPUs for a local Ray instance.")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N tasks.")] = None,
    simulator: Annotated[str, typer.Option(
        envvar="COMPOWORLD_SIMULATOR",
        help="World model for simulated tools: offline (seeded, no model) or llm.")] = "offline",
    simulator_model: Annotated[str | None, typer.Option(
        envvar="COMPOWORLD_SIMULATOR_MODEL",
        help="llm world model: 'local' (the bundled SmolLM2) or a model name served at "
             "--simulator-base-url (default: $COMPOWORLD_MODEL).")] = None,
    simulator_base_url: Annotated[str | None, typer.Option(
        envvar="COMPOWORLD_SIMULATOR_BASE_URL",
        help="llm world model endpoint (default: $COMPOWORLD_BASE_URL).")] = None,
    simulator_api_key: Annotated[str | None, typer.Option(
        envvar="COMPOWORLD_SIMULATOR_API_KEY",
        help="llm world model API key (default: $COMPOWORLD_API_KEY).")] = None,
    simulator_max_tokens: Annotated[int, typer.Option(
        envvar="COMPOWORLD_SIMULATOR_MAX_TOKENS", help="llm world model: tokens per answer.")] = 256,
    simulator_timeout: Annotated[float, typer.Option(
        envvar="COMPOWORLD_SIMULATOR_TIMEOUT",
        help="llm world model: seconds per answer (then the offline one answers).")] = 120.0,
    simulator_repairs: Annotated[int, typer.Option(
        envvar="COMPOWORLD_SIMULATOR_REPAIRS",
        help="llm world model: re-prompts with the validation error before the offline one "
             "answers.")] = 1,
) -> None:
    """Roll out tasks with an agent: G trajectories per task, appended to JSONL as they end."""
    if agent not in AGENT_KINDS:
        raise UserError(f"--agent must be one of {', '.join(AGENT_KINDS)}, got {agent!r}")
    if simulator not in SIMULATOR_KINDS:
        raise UserError(f"--simulator must be one of {', '.join(SIMULATOR_KINDS)}, "
                        f"got {simulator!r}")
    world_model = WorldModelSpec(
        simulator, simulator_model, simulator_base_url,
        simulator_api_key, simulator_max_tokens, simulator_timeout, simulator_repairs)
    if simulator == "llm":
        world_model.client()  # a missing model or endpoint is a usage error now, not per task
    if not tasks.exists():
        raise UserError(f"no tasks file {str(tasks)!r}; make one with: compoworld generate "
                        f"--out {tasks}")
    if timeout <= 0:
        raise UserError(f"--timeout must be a positive number of seconds, got {timeout:g}")
    every = read_tasks(tasks)
    chosen = every[:limit]
    if not chosen:
        raise UserError(f"{tasks} holds no tasks")
    if world_model != WorldModelSpec.from_env():
        world_model.export()  # read by every world the run builds, Ray workers included
    spec = AgentSpec(kind=agent, model=model, base_url=base_url, api_key=api_key,
                     temperature=temperature, timeout=timeout)
    stats = rollout(chosen, spec if ray else spec.build(), group=group, out=out,
                    concurrency=concurrency, max_steps=max_steps, max_tokens=max_tokens,
                    time_limit=time_limit, timings=timings, ray=ray, num_cpus=num_cpus,
                    progress=True, retry_failed=retry_failed, all_tasks=every)
    retried = f", {stats.retried} of them retried after a model error" if stats.retried else ""
    console.print(f"{stats.done} new rollouts in {out} ({stats.skipped} already there{retried}): "
                  f"{stats.line()}", highlight=False)
    failed = stats.model_errors + stats.by_reason.get("env_error", 0)
    if stats.done and failed == stats.done:
        console.print(f"[red]every episode of this run failed[/] ({stats.model_errors} model "
                      f"errors, {failed - stats.model_errors} environment errors); the first "
                      f"error: {stats.first_error}", highlight=False)
        raise typer.Exit(1)
