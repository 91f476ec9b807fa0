"""Role leaks and copies in generated tasks: the shares issue 14 item 2 asks about.

    python bench/roles.py [--tasks 1000] [--seed 0] [--setting default|long] [--json]
    python bench/roles.py --file tasks.jsonl [--json]

Generates tasks as ``bench/scenarios.py`` does (the same attempts: from 10,000) or reads a
tasks file, and reads each with :func:`compoworld.tasks._role_audit.audit` against its own
world's pool: the share of tasks with a role leak (any kind, and per kind: ``staff as
customer``, ``customer as applicant``, ``outside as staff``, ``not a person's``, ``user as
subject``, ``colleague as customer``...), and the
share with one found value written into 3 services or more. A measurement: exit 0 whatever
the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from datetime import date

from compoworld.catalog import load_service
from compoworld.service import Tool
from compoworld.tasks import SETTINGS, Task, generate_tasks
from compoworld.tasks._role_audit import audit
from compoworld.types import Pool


def figures(tasks: list[Task]) -> dict[str, object]:
    """The shares over ``tasks`` (each read against ``Pool(task.seed, today)``)."""
    pools: dict[tuple[int, str], Pool] = {}
    tools: dict[str, Tool] = {}
    loaded: set[str] = set()
    leaky, copying, kinds = 0, 0, Counter[str]()
    examples: list[str] = []
    for task in tasks:
        key = (task.seed, task.today)
        if key not in pools:
            pools[key] = Pool(task.seed, today=date.fromisoformat(task.today))
        for service in task.involved:
            if service not in loaded:
                loaded.add(service)
                tools.update({f"{service}__{n}": t for n, t in load_service(service).tools.items()})
        found = audit(task, pools[key], tools)
        leaky += bool(found.leaks)
        copying += bool(found.copies)
        kinds.update({line.split(":")[0] for line in found.leaks})
        if found.leaks and len(examples) < 5:
            examples.append(f"{task.id}: {found.leaks[0]}")
    n = max(len(tasks), 1)
    return {"tasks": len(tasks), "role_leak": round(leaky / n, 3),
            "role_leak_kinds": {k: round(v / n, 3) for k, v in kinds.most_common()},
            "copy_3plus": round(copying / n, 3), "examples": examples,
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--setting", choices=sorted(SETTINGS), default="default")
    parser.add_argument("--file", help="read tasks from this JSONL file instead")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.file:
        with open(args.file, encoding="utf-8") as lines:
            tasks = [Task.model_validate_json(line) for line in lines if line.strip()]
    else:
        tasks = list(generate_tasks(args.tasks, args.seed, SETTINGS[args.setting],
                                    start_attempt=10_000))
    result = figures(tasks)
    if args.json:
        print(json.dumps(result))
        return 0
    for key, value in result.items():
        print(f"{key:>16}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
