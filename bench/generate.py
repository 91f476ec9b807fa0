"""Task generation benchmark: verified tasks/s, yield, rejections per gate, service spread.

    python bench/generate.py [--tasks 1000] [--seed 0] [--workers 2] [--verify 50] [--json]
                             [--profile N]

Wall time is measured from the call that starts the workers to the last task (worker start-up
included; the catalog is loaded once before, as any long run does). CPU time adds this process
and its (finished) workers: on a shared machine, ``tasks_per_cpu_s`` times the number of cores
is what the run would reach alone. ``--verify N`` re-runs every gate of N kept tasks (evenly
spread) on each task's own rebuilt world (``tasks.verify_task``), since generation runs the
gates on the seeded catalog the task worlds are cut from. ``--profile N`` runs one process under
cProfile (CPU time) and prints, on stderr, the N functions with the most cumulative time: where
an attempt's CPU goes (walk, fill, calls, mounts, each gate); the figures then include
the profiler's overhead.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import resource
import statistics
import sys
import time
from collections import Counter

from compoworld.catalog import load_services, service_names
from compoworld.service import SEPARATOR
from compoworld.tasks import GenerationStats, Task, generate_tasks, verify_task
from compoworld.tasks._service_names import display_name

TARGETS = {"tasks_per_s": 100.0, "yield": 0.60, "share_3_services": 0.50,
           "share_2_services": 0.95}


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _instructions(tasks: list[Task]) -> dict[str, object]:
    """How the requests read: median words (target 120-400), the share naming a tool by its
    identifier (target 0), the share written as a numbered checklist (about 2 in 3), and the
    most times one service's display name occurs in one request (target <= 2)."""
    catalog = load_services(service_names())
    tools = {f"{s.name}{SEPARATOR}{t}" for s in catalog for t in s.tools}
    tools |= {t for s in catalog for t in s.tools if "_" in t}
    tools |= {s.name for s in catalog if "_" in s.name}
    shown = {display_name(s) for s in catalog}
    naming = 0
    most = 0
    for task in tasks:
        found = set(re.findall(r"[A-Za-z0-9]+(?:_+[A-Za-z0-9]+)+", task.instruction))
        naming += bool(found & tools)
        text = task.instruction
        most = max([most, *(text.count(name) for name in shown if name in text)])
    lengths = [len(t.instruction.split()) for t in tasks] or [0]
    return {
        "instruction_words_median": statistics.median(lengths),
        "instruction_words_p10_p90": [sorted(lengths)[len(lengths) // 10],
                                      sorted(lengths)[len(lengths) * 9 // 10]],
        "instruction_names_tool": round(naming / max(len(tasks), 1), 3),
        "instruction_checklist": round(sum(bool(re.search(r"^1\. ", t.instruction, re.M))
                                           for t in tasks) / max(len(tasks), 1), 3),
        "instruction_service_named_max": most,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--workers", type=int, default=2, help="processes (default: 2 cores)")
    parser.add_argument("--verify", type=int, default=0, metavar="N",
                        help="re-verify N kept tasks on their own rebuilt worlds")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="one process under cProfile: the N costliest functions on stderr")
    args = parser.parse_args(argv)
    if args.profile:
        args.workers = 1
    warm_started = time.perf_counter()
    warm = list(generate_tasks(1, args.seed))  # load the catalog, seed it, build the graph
    warm_seconds = time.perf_counter() - warm_started
    stats = GenerationStats()
    cpu, started = _cpu(), time.perf_counter()
    profile = cProfile.Profile(time.process_time) if args.profile else None
    if profile is not None:
        profile.enable()
    tasks = list(generate_tasks(args.tasks, args.seed, stats=stats, start_attempt=10_000,
                                workers=args.workers))
    seconds, cpu_seconds = time.perf_counter() - started, _cpu() - cpu
    if profile is not None:
        profile.disable()
        pstats.Stats(profile, stream=sys.stderr).sort_stats("cumulative").print_stats(
            args.profile)
    spread = Counter(len(t.involved) for t in tasks)
    capabilities = Counter(c for t in tasks for c in t.labels.capabilities)
    figures: dict[str, object] = {
        "tasks": len(tasks), "attempts": stats.attempts, "seconds": round(seconds, 2),
        "tasks_per_s": round(len(tasks) / seconds, 1), "cpu_seconds": round(cpu_seconds, 2),
        "tasks_per_cpu_s": round(len(tasks) / cpu_seconds, 1),
        "yield": round(stats.yield_rate, 3), "rejected": dict(stats.rejected.most_common()),
        "share_3_services": sum(v for k, v in spread.items() if k >= 3) / max(len(tasks), 1),
        "share_2_services": sum(v for k, v in spread.items() if k >= 2) / max(len(tasks), 1),
        "services_per_task": dict(sorted(spread.items())),
        "steps_per_task": dict(sorted(Counter(len(t.plan) for t in tasks).items())),
        "answer_tasks": sum(any(c.kind == "answer" for c in t.rubric) for t in tasks),
        "distinct_tools": len({s.tool for t in tasks for s in t.plan}),
        "capabilities": dict(capabilities.most_common()),
        **_instructions(tasks),
        "warm_up_seconds": round(warm_seconds, 2), "warm_up_tasks": len(warm),
        "processes": args.workers, "cores": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    if args.verify and tasks:
        sample = tasks[:: max(1, len(tasks) // args.verify)][: args.verify]
        failed = Counter(g for t in sample for g, ok in verify_task(t).items() if not ok)
        figures["verified_on_own_world"] = {"tasks": len(sample), "failed_by_gate": dict(failed)}
    figures["targets"] = {k: float(figures[k]) >= v  # type: ignore[arg-type]
                          for k, v in TARGETS.items()}
    if args.json:
        print(json.dumps(figures))
        return 0
    for key, value in figures.items():
        if key == "targets":
            continue
        target = TARGETS.get(key)
        mark = "" if target is None else (
            " PASS" if float(value) >= target else f" MISS (>= {target})")  # type: ignore[arg-type]
        shown = f"{value:.2f}" if isinstance(value, float) else value
        print(f"  {key:<22} {shown}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
