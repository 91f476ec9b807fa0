"""Reward-hacking probes vs. the oracle: mean reward and full completion per agent.

Run from the repository root with the project's virtualenv::

    .venv/bin/python bench/probes.py              # table
    .venv/bin/python bench/probes.py --json       # exactly one JSON object on stdout

Generates ``--tasks`` verified tasks (direct interface, plus a quarter as many in gateway
mode), adds their read-only *answer variants* (``compoworld.scoring.answer_variants``: the
generator makes few tasks that end on a question, and the answer checks need probing too), and
runs the oracle and each probe (``compoworld.scoring.PROBES``) on every task through the real
episode loop and scorer. Mean reward is the mean rubric score (uniform partial credit).
Each probe runs on the tasks it applies to (n); its mean CFR reward is computed with each of
its rollouts in a group with the oracle's rollout of the same task. The target: every probe
at 0 full completions and a mean CFR reward at most half the oracle's (``sound``).
Scoring speed (trajectories scored per second, replay included) is printed too.
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
    scored = 0
    scoring_started = time.perf_counter()
    for name, chosen in sets.items():
        figures = run_probes(chosen)
        scored += sum(f.tasks for f in figures)
        report[name] = {"n": len(chosen),
                        "agents": [f.model_dump(exclude={"completed"}) | {
                            "completed_tasks": f.completed[:5],
                            "sound": f.agent == "oracle" or (
                                f.full_completion == 0 and f.mean_cfr <= f.oracle_cfr / 2)}
                            for f in figures]}
    elapsed = time.perf_counter() - scoring_started
    report["trajectories"] = scored
    report["trajectories_per_second"] = round(scored / elapsed, 1) if elapsed else 0.0
    report["seconds"] = round(time.perf_counter() - started, 2)
    if args.json:
        print(json.dumps(report))
        return 0
    for name in sets:
        block = report[name]
        assert isinstance(block, dict)
        print(f"{name} ({block['n']} tasks)")
        print(f"  {'agent':<22}{'n':>5}{'full':>7}{'uniform':>9}{'CFR':>7}{'oracle CFR':>12}"
              f"{'calls':>8}  sound")
        for f in block["agents"]:
            print(f"  {f['agent']:<22}{f['tasks']:>5}{f['full_completion']:>7.1%}"
                  f"{f['mean_reward']:>9.3f}{f['mean_cfr']:>7.3f}{f['oracle_cfr']:>12.3f}"
                  f"{f['calls']:>8}  {'yes' if f['sound'] else 'NO'}")
    print(f"{report['trajectories']} trajectories run and scored, "
          f"{report['trajectories_per_second']}/s (episode + replay + rubric); "
          f"{report['seconds']} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
