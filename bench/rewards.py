"""Reward computation speed: CFR, uniform, binary, GDPO and GRPO/Dr.GRPO advantages on a batch.

Run from the repository root with the project's virtualenv::

    .venv/bin/python bench/rewards.py            # table
    .venv/bin/python bench/rewards.py --json     # exactly one JSON object on stdout

The workload is the issue's: 10,000 groups × G = 8 rollouts × 20 criteria of random pass
vectors (with per-group pass rates, ragged rubrics through a mask, and weights). Each figure is
the median of ``--runs`` timings of one call over the whole batch. Target: CFR + uniform +
advantages in ≤ 1 s. A measurement, not a test: the exit code is 0 even when the target is
missed.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from compoworld.rewards import binary, cfr, dr_grpo_advantages, gdpo, grpo_advantages, uniform

TARGET_S = 1.0


def workload(groups: int, g: int, c: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random pass vectors: each group has its own per-criterion pass rates; rubrics of 10..C."""
    rng = np.random.default_rng(seed)
    rates = rng.uniform(0.0, 1.0, size=(groups, 1, c))
    passes = rng.uniform(size=(groups, g, c)) < rates
    sizes = rng.integers(10, c + 1, size=groups)
    mask = np.arange(c)[None, :] < sizes[:, None]
    weights = rng.choice([0.5, 1.0, 2.0], size=(groups, c))
    return passes, mask, weights


def timed(fn: Callable[[], Any], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CompoWorld reward computation benchmark.")
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--criteria", type=int, default=20)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    passes, mask, weights = workload(args.groups, args.group_size, args.criteria, args.seed)
    r_cfr = cfr(passes, mask, weights)
    r_uniform = uniform(passes, mask, weights)
    seconds = {
        "cfr": timed(lambda: cfr(passes, mask, weights), args.runs),
        "uniform": timed(lambda: uniform(passes, mask, weights), args.runs),
        "binary": timed(lambda: binary(passes, mask, weights), args.runs),
        "gdpo": timed(lambda: gdpo(passes, mask, weights), args.runs),
        "grpo_advantages": timed(lambda: grpo_advantages(r_cfr), args.runs),
        "dr_grpo_advantages": timed(lambda: dr_grpo_advantages(r_cfr), args.runs),
    }
    pipeline = timed(lambda: (grpo_advantages(cfr(passes, mask, weights)),
                              grpo_advantages(uniform(passes, mask, weights))), args.runs)
    report = {
        "workload": {"groups": args.groups, "group_size": args.group_size,
                     "criteria": args.criteria, "rollouts": args.groups * args.group_size},
        "seconds": {k: round(v, 6) for k, v in seconds.items()},
        "pipeline_s": round(pipeline, 6),
        "target": {"label": "CFR + uniform + GRPO advantages", "op": "<=", "value": TARGET_S,
                   "pass": pipeline <= TARGET_S},
        "rollouts_per_s": round(args.groups * args.group_size / pipeline),
        "mean_reward": {"cfr": round(float(r_cfr.mean()), 4),
                        "uniform": round(float(r_uniform.mean()), 4)},
        "machine": {"python": platform.python_version(), "numpy": np.__version__,
                    "processor": platform.processor() or platform.machine()},
    }
    if args.json:
        print(json.dumps(report))
        return 0
    w = report["workload"]
    print(f"{w['groups']:,} groups × G = {w['group_size']} × {w['criteria']} criteria "
          f"({w['rollouts']:,} rollouts), median of {args.runs} runs")
    for name, value in report["seconds"].items():
        print(f"  {name:<20} {value * 1000:8.1f} ms")
    mark = "met" if report["target"]["pass"] else "MISSED"
    print(f"  {'CFR+uniform+adv.':<20} {pipeline * 1000:8.1f} ms  (target ≤ {TARGET_S:.0f} s: {mark})")
    print(f"  {report['rollouts_per_s']:,} rollouts/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
