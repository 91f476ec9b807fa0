"""Why plans are shorter than the length drawn for them: per cause, with counts.

    python bench/walk_length.py [--attempts 300] [--seed 0] [--setting default|long]
                                [--walk-length LOW-HIGH] [--json]

Each attempt (from 10,000, as ``bench/scenarios.py`` starts) is walked exactly as generation
walks it (``tasks._generate``'s derivation: world, randomness, drawn length), then generated in
full (``generate_task``, every gate). Per attempt, the first place the steps were lost:

* ``no-walk``: no walk was kept (no start led to a complete motif across two services);
* ``walk:<why>``: the walk stopped with fewer kept steps than drawn (``Walk.stopped``, keys of
  ``tasks._walk_outcomes.STOPS``: no candidate fitted the motif's next stage, every candidate was
  refused, no further piece of work opened...);
* ``pruned``: the walk kept its length, its plan lost steps (a last read with nothing to tell);
* ``scenario``: the plan kept its length, the task's plan is shorter (a trap or a condition
  took a step out);
* ``reached``: the task's plan has the drawn length or more;
* ``rejected:<gate>``: the task was rejected (so no plan to count).

Also printed: for walks refused at their last step, the reasons candidates were refused
(``Walk.refusals``); the median drawn length, kept steps, plan and task steps; the share of
tasks below the setting's fewest steps. A measurement, not a test: exit 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import sys
import time
from collections import Counter

from faker import Faker

from compoworld.tasks import SETTINGS, Task
from compoworld.tasks._context import context
from compoworld.tasks._generate import _plan, generate_task, world_seed
from compoworld.tasks._walk import Walk, _kept, walk
from compoworld.types import derive_seed
from scenarios import _cpu_seconds


def _stuck_at(walked: Walk) -> str:
    """Where a walk that could take no next step stood: its last piece's motif and the stages
    it could have taken next (kind and operations), with the pieces before it."""
    assert walked.motif is not None
    stages = walked.motif.all_stages
    options = walked.options()
    nxt = ",".join(f"{stages[i].kind}:{'|'.join(sorted(stages[i].ops))}"
                   + ("+new" if stages[i].new_service else "") for i in options)
    return f"{'>'.join(walked.motif.names)} @ {nxt or 'end'} [{len(set(walked.services))} services]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--setting", choices=sorted(SETTINGS), default="long")
    parser.add_argument("--walk-length", help="the setting's steps instead, e.g. 12-16")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    settings = SETTINGS[args.setting]
    if args.walk_length:
        low, _, high = args.walk_length.partition("-")
        settings = dataclasses.replace(settings, min_steps=int(low), max_steps=int(high or low))
    fake = Faker("en_US")
    causes, stops, refusals, stuck = Counter[str](), Counter[str](), Counter[str](), Counter[str]()
    lengths: dict[str, list[int]] = {"drawn": [], "kept": [], "plan": [], "task": []}
    seen: set[tuple[object, ...]] = set()
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    below = tasks = 0
    for attempt in range(10_000, 10_000 + args.attempts):
        rng = random.Random(derive_seed(args.seed, "task", attempt))
        fake.seed_instance(derive_seed(args.seed, "task-text", attempt))
        ctx = context(world_seed(args.seed, attempt), settings.services)
        env = ctx.fresh_work()
        length = rng.randint(settings.min_steps, settings.max_steps)
        walked = walk(ctx, rng, fake, length)
        outcome = generate_task(args.seed, attempt, settings, seen)
        if walked is None:
            causes["no-walk"] += 1
            continue
        kept = _kept(ctx, walked)
        plan, _ = _plan(walked, ctx.work)
        stops[walked.stopped] += 1
        if walked.stopped.startswith("refused"):
            refusals.update(walked.refusals)
        if "/" in walked.stopped:
            stuck[_stuck_at(walked)] += 1
        lengths["drawn"].append(length)
        lengths["kept"].append(kept)
        lengths["plan"].append(len(plan))
        if not isinstance(outcome, Task):
            causes[f"rejected:{outcome}"] += 1
            continue
        tasks += 1
        below += len(outcome.plan) < settings.min_steps
        lengths["task"].append(len(outcome.plan))
        if len(outcome.plan) >= length:
            causes["reached"] += 1
        elif kept < length:
            causes[f"walk:{walked.stopped}"] += 1
        elif len(plan) < length:
            causes["pruned"] += 1
        else:
            causes["scenario"] += 1
        del env
    seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu_started
    figures = {
        "setting": args.setting, "steps": [settings.min_steps, settings.max_steps],
        "attempts": args.attempts, "tasks": tasks,
        "causes": dict(causes.most_common()), "walk_stops": dict(stops.most_common()),
        "refusals_at_last_step": dict(refusals.most_common()),
        "stuck_at": dict(stuck.most_common(12)),
        "median": {k: statistics.median(v) if v else 0 for k, v in lengths.items()},
        "task_steps": dict(sorted(Counter(lengths["task"]).items())),
        "steps_below_min": round(below / max(tasks, 1), 3),
        "seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    for key, value in figures.items():
        print(f"{key:>22}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
