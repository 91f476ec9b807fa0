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
  every gate) — costly on a full catalog (~3.5 tasks per CPU-second there), so a smaller N
  is usual; with them the yield, the rejections per gate, CPU seconds and tasks per
  CPU-second (``--attempts 0 --tasks N`` measures generation alone).

Per attempt, also the cause (``causes``, :func:`cause`): why the service the walk aimed at
(``tasks._choices.draw_target``) did or did not end up in the plan, from what became of each
start the walk considered (``walk(trace=...)``, which changes no draw).

Each coverage is the share of linked services that appear at least once. Also printed: how
many linked services have a start, how many a walk can reach at all (``linked_reachable``:
from a start through carrying links, ``tasks._choices.reachable`` on the whole catalog — the
ceiling of every coverage), how many the walks' starts came from, the services walked
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

from _linked import linked_services
from compoworld.service import SEPARATOR
from compoworld.tasks import GenerationSettings, GenerationStats, generate_tasks
from compoworld.tasks._choices import draw_target, reachable
from compoworld.tasks._context import Context, context, world_context
from compoworld.tasks._generate import _plan, world_seed
from compoworld.tasks._walk import walk
from compoworld.types import derive_seed

TARGET = 0.70


def _services(tools: list[str]) -> set[str]:
    return {t.split(SEPARATOR, 1)[0] for t in tools}


def _target(ctx: Context, state: object) -> str:
    """The target a walk whose ``rng`` had ``state`` drew (its first draw)."""
    rng = random.Random()
    rng.setstate(state)  # type: ignore[arg-type]
    return draw_target(ctx, rng)


_FAILED = ("needs", "fill", "stage", "call", "no-op", "role")


def cause(ctx: Context, target: str, trace: list[tuple[str, str]], walked: set[str] | None,
          planned: set[str]) -> str:
    """Why the attempt's aimed service (``target``'s) did or did not end up in its plan:
    ``in-plan``; ``pruned`` (walked, not planned); else, from what became of the aimed
    service's own starts (``trace``, :data:`compoworld.tasks._walk_outcomes.OUTCOMES`): ``no-start``
    (it has none), ``not-tried`` (none considered: the walk was kept, or gave up, first),
    ``start-motif`` (the motif's first stage admits none), ``start-<reason>`` (the last one
    admitted failed, no call of it taken), or ``<outcome>`` of the last one called; then
    ``/kept`` where a walk from elsewhere was kept, ``/none`` where no walk was."""
    aimed = ctx.graph.nodes[target].service
    if aimed in planned:
        return "in-plan"
    if walked is not None and aimed in walked:
        return "pruned"
    own = [(n, o) for n, o in trace if ctx.graph.nodes[n].service == aimed]
    called = [o for _, o in own if o not in _FAILED and o != "motif"]
    failed = [o for _, o in own if o in _FAILED]
    if called:
        why = called[-1]
    elif failed:
        why = "start-" + failed[-1]
    elif own:
        why = "start-motif"
    elif aimed not in {ctx.graph.nodes[n].service for n in ctx.starts}:
        why = "no-start"
    else:
        why = "not-tried"
    return f"{why}/{'kept' if walked is not None else 'none'}"


def walk_coverage(attempts: int, seed: int, settings: GenerationSettings
                  ) -> dict[str, object]:
    """Walk attempts ``0 .. attempts - 1`` of run ``seed`` as generation does; what they reach."""
    walked_in, planned_in, started_in = Counter[str](), Counter[str](), Counter[str]()
    causes = Counter[str]()
    fake = Faker("en_US")
    made = 0
    for attempt in range(attempts):
        rng = random.Random(derive_seed(seed, "task", attempt))
        fake.seed_instance(derive_seed(seed, "task-text", attempt))
        ctx = world_context(world_seed(seed, attempt), settings.services)
        env = ctx.fresh_work()
        trace: list[tuple[str, str]] = []
        length = rng.randint(settings.min_steps, settings.max_steps)
        aimed = rng.getstate()  # the walk draws its target first: drawn again from here
        walked = walk(ctx, rng, fake, length, trace=trace)
        target = _target(ctx, aimed)
        if walked is None:
            causes[cause(ctx, target, trace, None, set())] += 1
            continue
        made += 1
        walked_in.update(_services([s.tool for s in walked.steps]))
        started_in[walked.services[0]] += 1
        plan, _ = _plan(walked, env)
        planned = _services([s.tool for s in plan])
        planned_in.update(planned)
        causes[cause(ctx, target, trace, set(walked.services), planned)] += 1
    return {"walks": made, "walked": walked_in, "planned": planned_in, "started": started_in,
            "causes": causes}


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
    can_reach = set(reachable(ctx)) & linked  # a walk can reach them at all: the ceiling
    ready_s, ready_cpu = time.perf_counter() - wall, time.process_time() - cpu
    found = walk_coverage(args.attempts, args.seed, settings)
    walked, planned, started = found["walked"], found["planned"], found["started"]
    assert isinstance(walked, Counter) and isinstance(planned, Counter)
    assert isinstance(started, Counter)
    causes = found["causes"]
    assert isinstance(causes, Counter)
    walks = max(int(str(found["walks"])), 1)

    def share(counts: Counter[str]) -> float:
        return round(len(set(counts) & linked) / max(len(linked), 1), 3)

    figures: dict[str, object] = {
        "services": len({n.service for n in ctx.graph.nodes.values()}),
        "linked_services": len(linked), "linked_with_a_start": len(with_start),
        "linked_reachable": len(can_reach),
        "attempts": args.attempts, "walks": found["walks"],
        "coverage_walks": share(walked), "coverage_plans": share(planned),
        "started_from": len(set(started) & linked),
        "causes": dict(sorted(causes.items(), key=lambda c: (-c[1], c[0]))),
        "most_walked": [(s, round(c / walks, 3)) for s, c in walked.most_common(5)],
        "ready_s": round(ready_s, 1), "ready_cpu_s": round(ready_cpu, 1),
        "walk_s": round(time.perf_counter() - wall - ready_s, 1),
        "walk_cpu_s": round(time.process_time() - cpu - ready_cpu, 1),
    }
    if args.tasks:
        stats = GenerationStats()
        involved: set[str] = set()
        started_at, started_cpu = time.perf_counter(), time.process_time()
        for task in generate_tasks(args.tasks, args.seed, settings, stats=stats):
            involved.update(task.involved)
        tasks_cpu = time.process_time() - started_cpu
        figures.update({"tasks": stats.kept, "task_attempts": stats.attempts,
                        "yield": round(stats.yield_rate, 3),
                        "rejected": dict(stats.rejected.most_common()),
                        "coverage_tasks": round(len(involved & linked) / max(len(linked), 1), 3),
                        "tasks_s": round(time.perf_counter() - started_at, 1),
                        "tasks_cpu_s": round(tasks_cpu, 1),
                        "tasks_per_cpu_s": round(stats.kept / max(tasks_cpu, 1e-9), 2)})
    figures.update({"target": TARGET, "load_average": [round(x, 2) for x in os.getloadavg()]})
    if args.json:
        print(json.dumps(figures))
        return 0
    for key, value in figures.items():
        if key != "causes":
            print(f"{key:>20}: {value}")
    print("why the aimed service is or is not in the plan (attempts):")
    for key, count in causes.most_common():
        print(f"{count:>8}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
