"""Offline world-model benchmark: simulated calls/s, schema validity, group cache hit rate.

Every tool of the catalog is forced to ``simulated`` and called with sampled, schema-valid
arguments (the same ones ``check_service`` draws), on one pinned core, in episodes of 30 calls
(a rollout's step budget; the world is reset before each, as a reused environment runs them).
Only ``env.call`` is timed. Each episode's answers are checked against the tools' output types
after it, then dropped (a run keeps no 20k answers alive). ``--episode 1000000`` makes all the
calls one episode, as this benchmark did before: the runtime then copies the whole episode's
simulated history into every call (``Environment._simulate``), which is quadratic.

    python bench/simulate.py              # a table
    python bench/simulate.py --json       # one JSON object
    python bench/simulate.py --profile    # and the top of a cProfile of the timed calls (stderr)
    python bench/simulate.py --llm local  # also the LLM simulator on the bundled model
"""

from __future__ import annotations

import argparse
import cProfile
import json
import platform
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pydantic import ValidationError

from _machine import Contention, loadavg, pin_cpu
from compoworld.catalog import load_services
from compoworld.service import Environment, sample_arguments
from compoworld.simulate import LLMSimulator, OfflineSimulator, simulated

TARGET_CALLS_PER_S = 5_000
GROUP = 8
EPISODE = 30
"""Calls per episode: a rollout's default step budget (``compoworld rollout --max-steps``)."""


def _world(seed: int) -> Environment:
    env = Environment([simulated(s) for s in load_services()], seed=seed)
    env.simulator = OfflineSimulator(env.pool)
    return env


def _calls(env: Environment, per_tool: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    for tool in env.tools.values():  # built on a tool's first use: a catalog cost, not simulation
        _ = tool.validator, tool.output, tool.output_schema
    rng = random.Random(seed)
    return [(name, sample_arguments(tool, env, name.split("__")[0], rng))
            for name, tool in env.tools.items() for _ in range(per_tool)]


def _episodes(calls: list[tuple[str, dict[str, Any]]], size: int) -> list[list[tuple[str, dict[str, Any]]]]:
    return [calls[i:i + size] for i in range(0, len(calls), size)]


def measure(per_tool: int, seed: int, episode: int = EPISODE,
            profiler: cProfile.Profile | None = None) -> dict[str, Any]:
    """Every sampled call, in episodes of ``episode`` calls (the world reset before each, as a
    reused environment runs them); only ``env.call`` is timed, resets are not simulation."""
    env = _world(seed)
    calls = _calls(env, per_tool, seed)
    stats = env.simulator.stats  # type: ignore[union-attr]
    wall = cpu = generated_wall = 0.0
    generated = failures = valid = 0
    for chunk in _episodes(calls, episode):
        failures += len(env.failures)  # a reset forgets them
        env.reset()
        if profiler is not None:
            profiler.enable()
        answers = []
        cpu_started, started = time.process_time(), time.perf_counter()
        for name, args in chunk:
            hits, call_started = stats.cache_hits, time.perf_counter()
            answers.append(env.call(name, args))
            if stats.cache_hits == hits:
                generated += 1
                generated_wall += time.perf_counter() - call_started
        wall += time.perf_counter() - started
        cpu += time.process_time() - cpu_started
        if profiler is not None:
            profiler.disable()
        for (name, _), envelope in zip(chunk, answers, strict=True):  # checked, then dropped
            output = env.tools[name].output
            if envelope["success"] and output is not None:
                output.validate_python(envelope["data"])
                valid += 1
    failures += len(env.failures)
    first_pass_hits = stats.cache_hits
    # A GRPO group: every rollout (a fork) replays the same episodes from the initial state.
    hits_before, calls_before = stats.cache_hits, stats.simulated_calls
    group_seconds = 0.0
    replies: list[list[Any]] = []
    for _ in range(GROUP):
        rollout, seen = env.fork(), []
        for chunk in _episodes(calls[: min(len(calls), 400)], episode):
            failures += len(rollout.failures)
            rollout.reset()
            started = time.perf_counter()
            seen += [rollout.call(name, args) for name, args in chunk]
            group_seconds += time.perf_counter() - started
        failures += len(rollout.failures)
        replies.append(seen)
        rollout.close()
    identical = all(r == replies[0] for r in replies)
    group_hits = stats.cache_hits - hits_before
    group_total = stats.simulated_calls - calls_before
    return {
        "services": len(env.services),
        "tools": len(env.tools),
        "calls": len(calls),
        "episode_calls": episode,
        "schema_valid": valid / len(calls),
        "environment_errors": failures,
        "calls_per_s_generated": len(calls) / wall,
        "us_per_call_generated": wall / len(calls) * 1e6,
        "cpu_calls_per_s_generated": len(calls) / cpu,
        "answers_generated": generated,
        "us_per_generated_answer": generated_wall / max(generated, 1) * 1e6,
        "first_pass_cache_hits": first_pass_hits,
        "group_size": GROUP,
        "group_cache_hit_rate": group_hits / group_total,
        "group_identical_answers": identical,
        "calls_per_s_cached": group_total / group_seconds,
        "schema_repairs": stats.schema_repairs,
        "written_back": stats.written_back,
    }


def measure_llm(kind: str, calls: int, seed: int, max_tokens: int) -> dict[str, Any]:
    """The LLM simulator over a sample of the catalog's tools (each a fresh call: no cache hit)."""
    from compoworld.models import make_client

    env = Environment([simulated(s) for s in load_services()], seed=seed)
    client = make_client(kind, timeout=900)  # a slow CPU must not turn into "failures"
    load = getattr(client, "load", None)
    if callable(load):
        load()  # loading the model is not simulation time
    simulator = LLMSimulator(client, env.pool, max_repairs=1, max_tokens=max_tokens,
                             timeout=900)
    env.simulator = simulator
    rng = random.Random(seed)
    names = rng.sample(sorted(env.tools), min(calls, len(env.tools)))
    sample = [(name, sample_arguments(env.tools[name], env, name.split("__")[0], rng)) for name in names]
    valid = 0
    started = time.perf_counter()
    for name, args in sample:
        envelope = env.call(name, args)
        output = env.tools[name].output
        try:
            if envelope["success"] and output is not None:
                output.validate_python(envelope["data"])
            valid += envelope["success"]
        except ValidationError:
            pass
    seconds = time.perf_counter() - started
    simulator.close()
    stats = simulator.stats
    n = len(sample)
    return {"client": kind, "model": client.model, "calls": n, "tools": names,
            "calls_per_s": n / seconds, "s_per_call": seconds / n, "schema_valid": valid / n,
            "llm_answer_rate": (n - stats.fallbacks) / n, "repair_rate": stats.schema_repairs / n,
            "failure_rate": stats.llm_failures / n, "fallback_rate": stats.fallbacks / n,
            "environment_errors": len(env.failures), "max_tokens": max_tokens}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--per-tool", type=int, default=30, help="sampled calls per tool")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episode", type=int, default=EPISODE, help="calls per episode (a reset each)")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the timed calls; top entries go to stderr")
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: idlest)")
    parser.add_argument("--llm", choices=["local", "openai"], default=None,
                        help="also measure the LLM simulator (local: the bundled model; openai: "
                             "$COMPOWORLD_BASE_URL / $COMPOWORLD_MODEL)")
    parser.add_argument("--llm-calls", type=int, default=8, help="sampled tools for --llm")
    parser.add_argument("--llm-max-tokens", type=int, default=192, help="answer cap for --llm")
    args = parser.parse_args(argv)
    machine = pin_cpu(args.cpu)
    contention = Contention(machine["pinned_cpu"])
    profiler = cProfile.Profile() if args.profile else None
    figures = measure(args.per_tool, args.seed, args.episode, profiler)
    if profiler is not None:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    figures["pinned_cpu_other_share"] = contention.other_share()
    figures["loadavg"] = loadavg()
    targets = {
        "calls_per_s_generated": figures["calls_per_s_generated"] >= TARGET_CALLS_PER_S,
        "schema_valid": figures["schema_valid"] == 1.0,
        "group_cache_hit_rate": figures["group_cache_hit_rate"] == 1.0,
    }
    report = {"benchmark": "simulate", **figures, "targets": targets,
              "all_targets_pass": all(targets.values()), "pinned_cpu": machine["pinned_cpu"],
              "python": platform.python_version()}
    if args.llm:
        report["llm"] = measure_llm(args.llm, args.llm_calls, args.seed, args.llm_max_tokens)
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
        ("simulated calls/s per CPU second", f"{figures['cpu_calls_per_s_generated']:,.0f}", "", None),
        ("answers generated (rest: cache hits)", f"{figures['answers_generated']:,}", "", None),
        ("µs per generated answer (wall)", f"{figures['us_per_generated_answer']:,.0f}", "", None),
        ("schema repairs / records written back",
         f"{figures['schema_repairs']} / {figures['written_back']}", "", None),
        ("pinned CPU used by other processes", f"{figures['pinned_cpu_other_share']}", "", None),
    ]
    if args.llm:
        llm = report["llm"]
        rows += [
            (f"LLM simulator ({llm['model']}) calls/s", f"{llm['calls_per_s']:.3f}", "", None),
            ("LLM simulator schema-valid answers", f"{llm['schema_valid']:.2%}", "100%",
             llm["schema_valid"] == 1.0),
            ("LLM answers used (not fallen back)", f"{llm['llm_answer_rate']:.2%}", "", None),
            ("LLM repair / failure / fallback rate",
             f"{llm['repair_rate']:.0%}/{llm['failure_rate']:.0%}/{llm['fallback_rate']:.0%}", "", None),
        ]
    for label, value, target, passed in rows:
        mark = "" if passed is None else ("PASS" if passed else "MISS")
        print(f"  {label:<40} {value:>12}  {target:>10}  {mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
