"""Oracle trajectories as training data: reasoning share, calls and steps, gateway discovery,
report length, and the score of every one (it must be 1.0).

    PYTHONPATH=src python bench/oracle.py --tasks 200 [--long] [--stumble] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time

import orjson

from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import score_trajectory
from compoworld.tasks import GenerationSettings, generate_tasks

_DISCOVERY = {"list_services", "list_tools", "describe_tool"}


def _spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def figures(n: int, interface: str, long: bool, stumble: bool, seed: int) -> dict[str, object]:
    settings = (GenerationSettings(min_steps=8, max_steps=12, distractors=10,
                                   interface=interface)  # type: ignore[arg-type]
                if long else GenerationSettings(interface=interface))  # type: ignore[arg-type]
    started = time.perf_counter()
    tasks = list(generate_tasks(n, seed=seed, settings=settings))
    agent = OracleAgent(stumble=stumble)
    turns = with_reasoning = 0
    calls: list[float] = []
    steps: list[float] = []
    discovery: list[float] = []
    words: list[float] = []
    scores: list[float] = []
    parallel = errors = 0
    for task in tasks:
        trajectory = asyncio.run(run_episode(task, agent, timings=False))
        scores.append(score_trajectory(task, trajectory).score)
        assistant = [m for m in trajectory.messages if m["role"] == "assistant"]
        turns += len(assistant)
        with_reasoning += sum(bool(m.get("reasoning_content")) for m in assistant)
        calls.append(len(trajectory.calls))
        steps.append(trajectory.n_steps)
        discovery.append(sum(c.name in _DISCOVERY for c in trajectory.calls))
        parallel += sum(len(m.get("tool_calls") or []) > 1 for m in assistant)
        errors += sum(not c.success for c in trajectory.calls)
        words.append(len(trajectory.final_message.split()))
    return {
        "tasks": len(tasks), "interface": interface, "long": long, "stumble": stumble,
        "reasoning_share": round(with_reasoning / turns, 4), "tool_calls": _spread(calls),
        "steps": _spread(steps), "discovery_calls": _spread(discovery),
        "report_words": _spread(words), "parallel_turns": parallel, "failed_calls": errors,
        "all_score_1": all(s == 1.0 for s in scores), "score_1": sum(s == 1.0 for s in scores),
        "seconds": round(time.perf_counter() - started, 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--long", action="store_true",
                        help="walks of 8-12 steps, 10 distractor services")
    parser.add_argument("--stumble", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [figures(args.tasks, interface, args.long, args.stumble, args.seed)
            for interface in ("direct", "gateway")]
    if args.json:
        sys.stdout.write(orjson.dumps(rows).decode() + "\n")
        return
    for row in rows:
        print(orjson.dumps(row).decode())


if __name__ == "__main__":
    main()
