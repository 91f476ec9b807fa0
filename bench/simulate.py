"""Offline world-model benchmark: simulated calls/s, schema validity, group cache hit rate.

Every tool of the catalog is forced to ``simulated`` and called with sampled, schema-valid
arguments (the same ones ``check_service`` draws), on one pinned core.

    python bench/simulate.py            # a table
    python bench/simulate.py --json     # one JSON object
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import pin_cpu
from compoworld.catalog import load_services
from compoworld.service import Environment, sample_arguments
from compoworld.simulate import OfflineSimulator, simulated

TARGET_CALLS_PER_S = 5_000
GROUP = 8


def _world(seed: int) -> Environment:
    env = Environment([simulated(s) for s in load_services()], seed=seed)
    env.simulator = OfflineSimulator(env.pool)
    return env


def _calls(env: Environment, per_tool: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    return [(name, sample_arguments(tool, env, name.split("__")[0], rng))
            for name, tool in env.tools.items() for _ in range(per_tool)]


def measure(per_tool: int, seed: int) -> dict[str, Any]:
    env = _world(seed)
    calls = _calls(env, per_tool, seed)
    valid = 0
    started = time.perf_counter()
    answers = [env.call(name, args) for name, args in calls]
    miss_seconds = time.perf_counter() - started
    for (name, _), envelope in zip(calls, answers, strict=True):
        output = env.tools[name].output
        if envelope["success"] and output is not None:
            output.validate_python(envelope["data"])
            valid += 1
    stats = env.simulator.stats  # type: ignore[union-attr]
    first_pass_hits = stats.cache_hits
    # A GRPO group: every rollout replays the same calls from the same initial state.
    group_calls = calls[: min(len(calls), 400)]
    env.reset()
    hits_before, calls_before = stats.cache_hits, stats.simulated_calls
    started = time.perf_counter()
    replies = []
    for _ in range(GROUP):
        rollout = env.fork()
        replies.append([rollout.call(name, args) for name, args in group_calls])
    hit_seconds = time.perf_counter() - started
    group_hits = stats.cache_hits - hits_before
    group_total = stats.simulated_calls - calls_before
    return {
        "services": len(env.services),
        "tools": len(env.tools),
        "calls": len(calls),
        "schema_valid": valid / len(calls),
        "environment_errors": len(env.failures),
        "calls_per_s_generated": len(calls) / miss_seconds,
        "us_per_call_generated": miss_seconds / len(calls) * 1e6,
        "first_pass_cache_hits": first_pass_hits,
        "group_size": GROUP,
        "group_cache_hit_rate": group_hits / group_total,
        "group_identical_answers": all(r == replies[0] for r in replies),
        "calls_per_s_cached": group_total / hit_seconds,
        "schema_repairs": stats.schema_repairs,
        "written_back": stats.written_back,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--per-tool", type=int, default=30, help="sampled calls per tool")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: idlest)")
    args = parser.parse_args(argv)
    machine = pin_cpu(args.cpu)
    figures = measure(args.per_tool, args.seed)
    targets = {
        "calls_per_s_generated": figures["calls_per_s_generated"] >= TARGET_CALLS_PER_S,
        "schema_valid": figures["schema_valid"] == 1.0,
        "group_cache_hit_rate": figures["group_cache_hit_rate"] == 1.0,
    }
    report = {"benchmark": "simulate", **figures, "targets": targets,
              "all_targets_pass": all(targets.values()), "pinned_cpu": machine["pinned_cpu"],
              "python": platform.python_version()}
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"offline simulator over {figures['tools']} tools of {figures['services']} services, "
          f"{figures['calls']} sampled calls, pinned to CPU {machine['pinned_cpu']}")
    rows = [
        ("simulated calls/s (answers generated)", f"{figures['calls_per_s_generated']:,.0f}",
         f">= {TARGET_CALLS_PER_S:,}", targets["calls_per_s_generated"]),
        ("simulated calls/s (answers cached)", f"{figures['calls_per_s_cached']:,.0f}", "", None),
        ("schema-valid answers", f"{figures['schema_valid']:.2%}", "100%", targets["schema_valid"]),
        (f"cache hit rate, group of {GROUP}", f"{figures['group_cache_hit_rate']:.2%}", "100%",
         targets["group_cache_hit_rate"]),
        ("identical answers across the group", str(figures["group_identical_answers"]), "", None),
        ("schema repairs / records written back",
         f"{figures['schema_repairs']} / {figures['written_back']}", "", None),
    ]
    for label, value, target, passed in rows:
        mark = "" if passed is None else ("PASS" if passed else "MISS")
        print(f"  {label:<40} {value:>12}  {target:>10}  {mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
