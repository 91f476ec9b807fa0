"""Service coverage: which of the catalog's linked services walks and tasks reach.

    python bench/coverage.py [--attempts 10000] [--tasks 0] [--seed 0] [--json]

Run on any catalog (``COMPOWORLD_CATALOG=DIR`` for a built one). A service is *linked* when a
value of an identifying type (email, phone, person's or company's name) can flow between it
and another service (the definition ``bench/full_catalog.py`` uses). Three figures, from the
cheapest to the one a user gets:

* ``walks``: the services of the executed walks of ``--attempts`` attempts, each walked exactly
  as generation walks it (the same world, randomness and length: ``tasks._generate``'s
  derivation), without the pruning, scenario and gates that follow;
* ``plans``: the services of those walks' plans once unused reads are pruned (``_plan``);
* ``tasks`` (with ``--tasks N``): the involved services of N verified tasks (``generate_tasks``,
  every gate) — costly on a full catalog (~2 tasks/s there), so a smaller N is usual.

Each coverage is the share of linked services that appear at least once. Also printed: how
many linked services have a start, how many the walks' starts came from, the services walked
most often (the largest share of walks one service is in), and CPU seconds beside the wall
time with the load average. A measurement, not a test: exit 0 whatever the figures, with the
target (0.70 over 10,000 tasks, issue 17) beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter

from faker import Faker

from compoworld.service import SEPARATOR
from compoworld.tasks import GenerationSettings, GenerationStats, generate_tasks
from compoworld.tasks._context import LINK_TYPES, context
from compoworld.tasks._generate import _plan, world_seed
from compoworld.tasks._walk import walk
from compoworld.types import derive_seed

TARGET = 0.70


def linked_services() -> set[str]:
    """Services a link-type value can flow into or out of, to or from another service."""
    graph = context(0).graph
    linked: set[str] = set()
    for key in graph.taken_keys():
        if key[0] == "type" and key[1] in LINK_TYPES:
            takers = {graph.nodes[t].service for t, _ in graph.consumers(key)}
            for maker in {graph.nodes[t].service for t in graph.producers(key)}:
                if takers - {maker}:
                    linked |= {maker} | (takers - {maker})
    return linked


def _services(tools: list[str]) -> set[str]:
    return {t.split(SEPARATOR, 1)[0] for t in tools}


def walk_coverage(attempts: int, seed: int, settings: GenerationSettings
                  ) -> dict[str, object]:
    """Walk attempts ``0 .. attempts - 1`` of run ``seed`` as generation does; what they reach."""
    walked_in, planned_in, started_in = Counter[str](), Counter[str](), Counter[str]()
    fake = Faker("en_US")
    made = 0
    for attempt in range(attempts):
        rng = random.Random(derive_seed(seed, "task", attempt))
        fake.seed_instance(derive_seed(seed, "task-text", attempt))
        ctx = context(world_seed(seed, attempt), settings.services)
        env = ctx.fresh_work()
        walked = walk(ctx, rng, fake, rng.randint(settings.min_steps, settings.max_steps))
        if walked is None:
            continue
        made += 1
        walked_in.update(_services([s.tool for s in walked.steps]))
        started_in[walked.services[0]] += 1
        plan, _ = _plan(walked, env)
        planned_in.update(_services([s.tool for s in plan]))
    return {"walks": made, "walked": walked_in, "planned": planned_in, "started": started_in}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=10_000, help="walks attempted")
    parser.add_argument("--tasks", type=int, default=0, help="verified tasks generated too")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    settings = GenerationSettings()
    wall, cpu = time.perf_counter(), time.process_time()
    linked = linked_services()
    ctx = context(0)
    with_start = {ctx.graph.nodes[s].service for s in ctx.starts} & linked
    ready_s, ready_cpu = time.perf_counter() - wall, time.process_time() - cpu
    found = walk_coverage(args.attempts, args.seed, settings)
    walked, planned, started = found["walked"], found["planned"], found["started"]
    assert isinstance(walked, Counter) and isinstance(planned, Counter)
    assert isinstance(started, Counter)
    walks = max(int(str(found["walks"])), 1)

    def share(counts: Counter[str]) -> float:
        return round(len(set(counts) & linked) / max(len(linked), 1), 3)

    figures: dict[str, object] = {
        "services": len({n.service for n in ctx.graph.nodes.values()}),
        "linked_services": len(linked), "linked_with_a_start": len(with_start),
        "attempts": args.attempts, "walks": found["walks"],
        "coverage_walks": share(walked), "coverage_plans": share(planned),
        "started_from": len(set(started) & linked),
        "most_walked": [(s, round(c / walks, 3)) for s, c in walked.most_common(5)],
        "ready_s": round(ready_s, 1), "ready_cpu_s": round(ready_cpu, 1),
        "walk_s": round(time.perf_counter() - wall - ready_s, 1),
        "walk_cpu_s": round(time.process_time() - cpu - ready_cpu, 1),
    }
    if args.tasks:
        stats = GenerationStats()
        involved: set[str] = set()
        started_at = time.perf_counter()
        for task in generate_tasks(args.tasks, args.seed, settings, stats=stats):
            involved.update(task.involved)
        figures.update({"tasks": stats.kept, "task_attempts": stats.attempts,
                        "coverage_tasks": round(len(involved & linked) / max(len(linked), 1), 3),
                        "tasks_s": round(time.perf_counter() - started_at, 1)})
    figures.update({"target": TARGET, "load_average": [round(x, 2) for x in os.getloadavg()]})
    if args.json:
        print(json.dumps(figures))
        return 0
    for key, value in figures.items():
        print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
