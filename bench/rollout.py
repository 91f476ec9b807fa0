"""Rollout benchmark: 1,024 concurrent oracle episodes in one process, and the environment's
share of wall time in a short run with the bundled local model.

    python bench/rollout.py                 # a table
    python bench/rollout.py --json          # one JSON object
    python bench/rollout.py --episodes 128 --no-local   # quick

Figures: wall time, episodes/s and peak RSS of the oracle run (tasks generated before the
clock starts; every episode holds its own world while it runs, all at once), then, with
``LocalClient`` (model loaded before the clock starts), the fraction of episode time spent in
the environment (tool calls) rather than in the model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from compoworld.rollout import ChatAgent, EpisodeSettings, OracleAgent, Trajectory, rollout_async
from compoworld.tasks import GenerationSettings, generate_tasks

TARGET_RSS_GB = 4.0
TARGET_ENV_SHARE = 0.02


def _rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2  # KiB on Linux


def oracle_run(episodes: int, group: int) -> dict[str, Any]:
    tasks = list(generate_tasks(max(1, episodes // group), seed=0))
    n = len(tasks) * group
    rss_before = _rss_gb()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "rollouts.jsonl"
        started = time.perf_counter()
        stats = asyncio.run(rollout_async(tasks, OracleAgent(), group=group, out=out,
                                          concurrency=n))
        wall = time.perf_counter() - started
        rows = [Trajectory.model_validate_json(line) for line in out.read_bytes().splitlines()]
    env_s = sum(r.timings.env_s for r in rows)
    return {"episodes": n, "tasks": len(tasks), "group": group, "concurrency": n,
            "wall_s": round(wall, 3), "episodes_per_s": round(n / wall, 1),
            "tool_calls": sum(len(r.calls) for r in rows),
            "finished": stats.finished, "env_errors": stats.env_errors,
            "env_s": round(env_s, 3), "env_share_of_wall": round(env_s / wall, 4),
            "peak_rss_gb_before": round(rss_before, 3), "peak_rss_gb": round(_rss_gb(), 3)}


def local_run(tasks_n: int, max_steps: int, max_tokens: int) -> dict[str, Any]:
    from compoworld.models import LocalClient

    client = LocalClient(max_tokens=max_tokens, timeout=1800)
    loaded = time.perf_counter()
    client.load()
    load_s = time.perf_counter() - loaded
    # Gateway tasks: four tools, so the prompt fits the small model's context.
    tasks = list(generate_tasks(tasks_n, seed=0, settings=GenerationSettings(interface="gateway")))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "rollouts.jsonl"
        started = time.perf_counter()
        asyncio.run(rollout_async(tasks, ChatAgent(client, "local", timeout=1800), group=1, out=out,
                                  concurrency=1, settings=EpisodeSettings(max_steps=max_steps)))
        wall = time.perf_counter() - started
        rows = [Trajectory.model_validate_json(line) for line in out.read_bytes().splitlines()]
    env_s = sum(r.timings.env_s for r in rows)
    model_s = sum(r.timings.model_s for r in rows)
    total_s = sum(r.timings.total_s for r in rows)
    replies = sum(r.n_steps for r in rows)
    return {"episodes": len(rows), "max_steps": max_steps, "max_tokens_per_reply": max_tokens,
            "replies": replies, "model_s_per_reply": round(model_s / max(replies, 1), 2),
            "load_s": round(load_s, 1), "wall_s": round(wall, 2), "env_s": round(env_s, 4),
            "model_s": round(model_s, 2), "total_s": round(total_s, 2),
            "env_share": round(env_s / max(total_s, 1e-9), 5),
            "tool_calls": sum(len(r.calls) for r in rows),
            "malformed_calls": sum(r.malformed_calls for r in rows),
            "finish_reasons": sorted({r.finish_reason for r in rows})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=1024)
    parser.add_argument("--group", type=int, default=16)
    parser.add_argument("--no-local", action="store_true", help="Skip the local-model run.")
    parser.add_argument("--local-tasks", type=int, default=2)
    parser.add_argument("--local-steps", type=int, default=3)
    parser.add_argument("--local-tokens", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    oracle = oracle_run(args.episodes, args.group)
    local = None if args.no_local else local_run(args.local_tasks, args.local_steps,
                                                 args.local_tokens)
    if local is not None:
        # The small model rarely calls a tool; bound the share as if every reply made four
        # calls, each costing what a call cost in the oracle run.
        per_call = oracle["env_s"] / max(oracle["tool_calls"], 1)
        local["env_s_per_call_oracle"] = round(per_call, 6)
        local["env_share_bound_4_calls_per_reply"] = round(
            4 * per_call / (4 * per_call + max(local["model_s_per_reply"], 1e-9)), 6)
    report: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or
                    platform.machine()},
        "oracle": oracle, "local": local,
        "targets": {
            "peak_rss_gb": {"value": oracle["peak_rss_gb"], "target": TARGET_RSS_GB,
                            "pass": oracle["peak_rss_gb"] <= TARGET_RSS_GB},
            **({"local_env_share": {"value": local["env_share"], "target": TARGET_ENV_SHARE,
                                    "pass": local["env_share"] <= TARGET_ENV_SHARE}}
               if local else {})}}
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return
    print(f"oracle: {oracle['episodes']} concurrent episodes ({oracle['tasks']} tasks x "
          f"{oracle['group']}) in {oracle['wall_s']} s = {oracle['episodes_per_s']} episodes/s, "
          f"{oracle['tool_calls']} tool calls, peak RSS {oracle['peak_rss_gb']} GB "
          f"(target <= {TARGET_RSS_GB})")
    if local:
        print(f"local model: {local['episodes']} episodes, {local['replies']} replies "
              f"({local['model_s_per_reply']} s each), {local['tool_calls']} calls, env "
              f"{local['env_s']} s of {local['total_s']} s = {local['env_share']:.3%} (target <= "
              f"{TARGET_ENV_SHARE:.0%}; bound with 4 calls a reply: "
              f"{local['env_share_bound_4_calls_per_reply']:.4%}); model load {local['load_s']} s")


if __name__ == "__main__":
    main()
