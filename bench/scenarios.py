"""What generated tasks hold: the figures of the scenarios issue, per setting.

    python bench/scenarios.py [--tasks 1000] [--seed 0] [--setting default|long] [--workers 1]
                              [--json]

One process by default (the speed is one core's, as tasks per second of wall time and per
CPU second, the second meaningful on a busy machine; ``--workers N`` gives the same tasks, byte
for byte, from N processes). Seeded images come from the disk cache (``$COMPOWORLD_CACHE``):
a first run seeds each world's services, a second one reads them. Printed:
yield and verified tasks/s; instruction words (median, min, max) and the share that names a
tool or service identifier; the share of tasks with a rule stored in the world, with a trap,
with a report back (answer criteria); each of the fourteen capability labels' share; involved
services and reference calls per task (median); the share of the catalog's implemented tools
the tasks use; the share of tasks per workflow motif (``provenance["motif"]``), the median
number of motifs a task's walk did in turn, and the share of tasks whose plan has fewer calls
than the setting's fewest steps (what ``--walk-length`` promises); the largest share of tasks
one person (or company) appears in, counted by identity across the run's worlds (see
``_mentions``), and the number of worlds; the share of tasks with a role leak and with a value
copied into 3+ services (``bench/roles.py``). A measurement, not a test: exit 0 whatever the
figures, with the targets beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import sys
import time
import typing
from collections import Counter
from datetime import date

from compoworld.catalog import load_service
from compoworld.tasks import SETTINGS, GenerationStats, Task, generate_tasks
from compoworld.tasks._model import Capability
from compoworld.types import Pool
from roles import figures as role_figures

TARGETS = {"median_words": "120-400", "names_a_tool": 0.0, "rule": 0.40, "trap": 0.25,
           "report": 0.30, "label_min": 0.03, "tools_used": 0.35, "max_person_share": 0.01,
           "tasks_per_s": 50.0}


def _identifiers(tasks: list[Task]) -> tuple[set[str], set[str]]:
    services = {s for t in tasks for s in (*t.involved, *t.distractors)}
    tools = {f"{s}__{name}" for s in services for name in load_service(s).tools}
    return tools | {t.split("__", 1)[1] for t in tools if "_" in t.split("__", 1)[1]}, services


def _cpu_seconds() -> float:
    """CPU time of this process and of its ended children (the workers, once shut down): on
    a shared machine, what the run cost whatever else ran."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _mentions(tasks: list[Task]) -> dict[str, float | int]:
    """The largest share of tasks one person or one company appears in (instruction and plan
    arguments), each task read against its own world's pool (``Pool(task.seed)``: worlds vary
    within a run). A person is found by name or email, a company by name; each is counted by
    identity across worlds — a person by (name, email), a company by (name, domain) — so two
    worlds' people who share a name are two people (``max_person_share``), and also by name
    alone (``max_person_name_share``, ``max_company_name_share``: what a reader of the tasks
    sees recur). Each world's user, who asks every task of that world, and the user's own
    company are left out."""
    pools: dict[tuple[int, str], Pool] = {}
    people, companies = Counter[tuple[str, str]](), Counter[tuple[str, str]]()
    for task in tasks:
        key = (task.seed, task.today)
        if key not in pools:
            pools[key] = Pool(task.seed, today=date.fromisoformat(task.today))
        pool = pools[key]
        text = (task.instruction + " " + json.dumps([s.arguments for s in task.plan])).casefold()
        for person in pool.people:
            if person == pool.user:
                continue
            if person.name.casefold() in text or person.email.casefold() in text:
                people[(person.name, person.email)] += 1
        for company in pool.companies:
            if company == pool.user.company:
                continue
            if company.name.casefold() in text:
                companies[(company.name, company.domain)] += 1
    n = max(len(tasks), 1)

    def top(counts: Counter[tuple[str, str]], *, by_name: bool = False) -> float:
        if by_name:
            names = Counter[str]()
            for (name, _), count in counts.items():
                names[name] += count
            return max(names.values(), default=0) / n
        return max(counts.values(), default=0) / n

    return {"max_person_share": round(top(people), 3),
            "max_company_share": round(top(companies), 3),
            "max_person_name_share": round(top(people, by_name=True), 3),
            "max_company_name_share": round(top(companies, by_name=True), 3),
            "worlds": len(pools)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--setting", choices=sorted(SETTINGS), default="default")
    parser.add_argument("--workers", type=int, default=1, help="processes generating")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    settings = SETTINGS[args.setting]
    list(generate_tasks(1, args.seed, settings))  # load the catalog and graph first
    stats = GenerationStats()
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    tasks = list(generate_tasks(args.tasks, args.seed, settings, stats=stats,
                                start_attempt=10_000, workers=args.workers))
    seconds, cpu_seconds = time.perf_counter() - started, _cpu_seconds() - cpu_started
    n = max(len(tasks), 1)
    words = [len(t.instruction.split()) for t in tasks] or [0]
    tools, services = _identifiers(tasks)
    tool_pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(tools, key=len,
                                                                        reverse=True))) + r")\b")
    service_ids = [s for s in services if "_" in s]
    labels = Counter(c for t in tasks for c in t.labels.capabilities)
    used = {s.tool for t in tasks for s in t.plan}
    reached = {s for t in tasks for s in t.involved}
    implemented = {f"{s}__{name}" for s in reached
                   for name, tool in load_service(s).tools.items() if not tool.simulated}
    figures: dict[str, object] = {
        "setting": args.setting, "workers": args.workers, "tasks": len(tasks), "attempts": stats.attempts,
        "yield": round(stats.yield_rate, 3), "rejected": dict(stats.rejected.most_common()),
        "tasks_per_s": round(len(tasks) / seconds, 1),
        "tasks_per_cpu_s": round(len(tasks) / max(cpu_seconds, 1e-9), 1),
        "words": {"median": statistics.median(words), "min": min(words), "max": max(words)},
        "names_a_tool": round(sum(bool(tool_pattern.search(t.instruction)) for t in tasks) / n, 3),
        "names_a_service_id": round(sum(any(s in t.instruction for s in service_ids)
                                        for t in tasks) / n, 3),
        "rule": round(sum(bool(t.scenario and t.scenario.rule) for t in tasks) / n, 3),
        # a trap: a duplicate to avoid, a namesake, an item held back (a refusal to recover
        # from is error recovery, counted by its label)
        "trap": round(sum(bool(t.scenario and any(x.kind != "refusal" for x in t.scenario.traps))
                          for t in tasks) / n, 3),
        "report": round(sum(any(c.kind == "answer" for c in t.rubric) for t in tasks) / n, 3),
        "labels": {label: round(labels[label] / n, 3)
                   for label in typing.get_args(Capability)},
        "involved_median": statistics.median([len(t.involved) for t in tasks] or [0]),
        "calls_median": statistics.median([len(t.plan) for t in tasks] or [0]),
        "calls_max": max((len(t.plan) for t in tasks), default=0),
        "tools_used": round(len(used & implemented) / max(len(implemented), 1), 3),
        "tools_used_of": len(implemented),
        **_mentions(tasks),
        **{k: v for k, v in role_figures(tasks).items() if k in ("role_leak", "copy_3plus")},
        "motifs": {name: round(count / n, 3) for name, count in sorted(
            Counter(str(t.provenance.get("motif", "")) for t in tasks).items())},
        "motif_pieces_median": statistics.median(
            [1 + ("motif_then" in t.provenance) for t in tasks] or [0]),
        "steps_below_min": round(sum(len(t.plan) < settings.min_steps for t in tasks) / n, 3),
        "load_average": [round(x, 2) for x in os.getloadavg()], "targets": TARGETS,
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    for key, value in figures.items():
        print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
