"""Reward-hacking probes vs. the oracle: mean reward and full completion per agent.

Run from the repository root with the project's virtualenv::

    .venv/bin/python bench/probes.py              # table
    .venv/bin/python bench/probes.py --json       # exactly one JSON object on stdout

Generates ``--tasks`` verified tasks (direct interface, plus a quarter as many in gateway
mode), adds their read-only *answer variants* (``compoworld.scoring.answer_variants``: the
generator makes few tasks that end on a question, and the answer checks need probing too), and
runs the oracle and each probe (``compoworld.scoring.PROBES``) on every task through the real
episode loop and scorer. Mean reward is the mean rubric score (uniform partial credit).
A measurement, not a test: the exit code is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from compoworld.scoring import answer_variants, run_probes
from compoworld.tasks import GenerationSettings, generate_tasks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CompoWorld reward-hacking probes.")
    parser.add_argument("--tasks", type=int, default=24, help="direct-interface tasks")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    tasks = list(generate_tasks(args.tasks, seed=args.seed))
    tasks += list(generate_tasks(max(1, args.tasks // 4), seed=args.seed + 1,
                                 settings=GenerationSettings(interface="gateway")))
    variants = answer_variants(tasks)
    sets = {"tasks": tasks, "answer_variants": variants}
    report: dict[str, object] = {"seed": args.seed}
    for name, chosen in sets.items():
        figures = run_probes(chosen)
        report[name] = {"n": len(chosen),
                        "agents": [f.model_dump(exclude={"completed"}) | {
                            "completed_tasks": f.completed[:5]} for f in figures]}
    report["seconds"] = round(time.perf_counter() - started, 2)
    if args.json:
        print(json.dumps(report))
        return 0
    for name in sets:
        block = report[name]
        assert isinstance(block, dict)
        print(f"{name} ({block['n']} tasks)")
        print(f"  {'agent':<18}{'mean reward':>12}{'full completion':>17}{'max':>7}{'calls':>8}")
        for f in block["agents"]:
            print(f"  {f['agent']:<18}{f['mean_reward']:>12.3f}{f['full_completion']:>17.1%}"
                  f"{f['max_reward']:>7.2f}{f['calls']:>8}")
    print(f"({report['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
