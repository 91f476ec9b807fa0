"""Oracle trajectories as training data: reasoning share, calls and steps, gateway discovery,
report length, idempotency traps checked, rules read, and the score of every one (it must be 1.0).

``trap_tasks``: tasks with an idempotency trap; ``trap_checked``: those whose trajectory makes a
real read that shows the record before going on (``trap_checked_share`` of ``trap_tasks``);
``trap_said_uncheckable``: those whose service has no read that can show it (the trajectory
says it cannot check). ``rule_tasks`` / ``rule_quoted``: tasks with a rule in an email, and
those whose trajectory quotes the email it read on the turn that applies it.

    PYTHONPATH=src python bench/oracle.py --tasks 200 [--long] [--stumble] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import time

import orjson

from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import score_trajectory
from compoworld.tasks import SETTINGS, generate_tasks

_DISCOVERY = {"list_services", "list_tools", "describe_tool"}


def _spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def figures(n: int, interface: str, long: bool, stumble: bool, seed: int) -> dict[str, object]:
    settings = dataclasses.replace(SETTINGS["long" if long else "default"],
                                   interface=interface)  # type: ignore[arg-type]
    started = time.perf_counter()
    tasks = list(generate_tasks(n, seed=seed, settings=settings))
    agent = OracleAgent(stumble=stumble)
    turns = with_reasoning = 0
    calls: list[float] = []
    steps: list[float] = []
    discovery: list[float] = []
    words: list[float] = []
    scores: list[float] = []
    parallel = errors = trap_tasks = trap_checked = uncheckable = rule_tasks = rule_quoted = 0
    for task in tasks:
        trajectory = asyncio.run(run_episode(task, agent, timings=False))
        said = " ".join(m.get("reasoning_content") or "" for m in trajectory.messages)
        idempotent = [k for k, trap in enumerate(task.scenario.traps if task.scenario else [])
                      if trap.kind == "idempotency"]  # not a decoy or an item held back
        if idempotent:
            trap_tasks += 1
            results = {m.get("tool_call_id"): m.get("content") for m in trajectory.messages}
            trap_checked += all(f"call_check_{k}" in results and (
                "There already is one" in said or "so I create it" in said)
                for k in idempotent)
            uncheckable += "so I cannot check" in said
        if task.scenario is not None and task.scenario.rule is not None:
            rule_tasks += 1
            rule_quoted += f"{task.scenario.rule.author.split()[0]}'s email" in said
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
        "trap_tasks": trap_tasks, "trap_checked": trap_checked,
        "trap_checked_share": round(trap_checked / trap_tasks, 4) if trap_tasks else None,
        "trap_said_uncheckable": uncheckable, "rule_tasks": rule_tasks, "rule_quoted": rule_quoted,
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
