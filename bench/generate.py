"""Task generation benchmark: verified tasks/s, yield, rejections per gate, service spread.

    python bench/generate.py [--tasks 100] [--seed 0] [--workers 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from compoworld.tasks import GenerationStats, generate_tasks

TARGETS = {"tasks_per_s": 100.0, "yield": 0.60, "share_3_services": 0.50,
           "share_2_services": 0.95}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--workers", type=int, default=2, help="processes (default: 2 cores)")
    args = parser.parse_args(argv)
    generate_tasks_warm = list(generate_tasks(1, args.seed))  # build and cache the world
    stats = GenerationStats()
    started = time.perf_counter()
    tasks = list(generate_tasks(args.tasks, args.seed, stats=stats, start_attempt=10_000,
                                workers=args.workers))
    seconds = time.perf_counter() - started
    spread = Counter(len(t.involved) for t in tasks)
    capabilities = Counter(c for t in tasks for c in t.labels.capabilities)
    figures = {
        "tasks": len(tasks), "attempts": stats.attempts, "seconds": round(seconds, 2),
        "tasks_per_s": len(tasks) / seconds, "yield": stats.yield_rate,
        "rejected": dict(stats.rejected),
        "share_3_services": sum(v for k, v in spread.items() if k >= 3) / max(len(tasks), 1),
        "share_2_services": sum(v for k, v in spread.items() if k >= 2) / max(len(tasks), 1),
        "services_per_task": dict(sorted(spread.items())),
        "capabilities": dict(capabilities), "warm_up_tasks": len(generate_tasks_warm),
        "processes": args.workers,
    }
    figures["targets"] = {k: figures[k] >= v for k, v in TARGETS.items()}
    if args.json:
        print(json.dumps(figures))
        return 0
    for key in ("tasks", "attempts", "seconds", "tasks_per_s", "yield", "rejected",
                "share_3_services", "share_2_services", "services_per_task", "capabilities"):
        value = figures[key]
        target = TARGETS.get(key)
        mark = "" if target is None else (" PASS" if value >= target else f" MISS (>= {target})")
        shown = f"{value:.2f}" if isinstance(value, float) else value
        print(f"  {key:<20} {shown}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
