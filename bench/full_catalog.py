"""The full catalog as an everyday source: start-up, task worlds, rollout + scoring, steady
generation and service coverage, on a built catalog (``COMPOWORLD_CATALOG`` or ``--catalog``).

    python bench/full_catalog.py --catalog DIR [--tasks 10000] [--workers 2] [--json]

Each figure is measured in its own process, so caches and memory of one phase do not flatter
another: *cold* start-up runs with an empty disk cache (a new ``COMPOWORLD_CACHE``), *warm*
start-up again with the cache the cold run filled. Each probe also says where its wall time
went besides its own CPU (``/proc/self/schedstat``): ``runqueue_wait_s``, waiting for a core
(the machine's load), and ``blocked_s``, the rest (disk, sleeps, locks). Start-up is the time from the process
start to the generation context being ready (the graph read from its index) and to the first
verified task. The world phase composes ``--worlds`` worlds of 17 services drawn from the
catalog; the generation phase generates ``--tasks`` tasks with ``--workers`` processes (steady
rate: from the tenth of them on) and counts the linked services they involve (a service is
*linked* when a value of an identifying type — email, phone, person's or company's name — can
flow between it and another service); the rollout phase runs the oracle on ``--rollouts`` of
them and scores each trajectory, timing world (and, within it, building the services the
process has not built yet), episode and scoring. The load average is
printed with the figures: on a shared machine wall times say as much about the load as about
the code.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _linked import linked_services

STARTED = time.perf_counter()

TARGETS = {"warm_startup_s": 15.0, "cold_startup_s": 120.0, "peak_rss_mb": 1536.0,
           "world_ms": 100.0, "rollout_overhead_ms": 200.0, "tasks_per_s": 40.0,
           "coverage": 0.70}


def _cpu_s(children: bool = False) -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _waits() -> dict[str, float]:
    """Where this process's wall time went besides its CPU: waiting for a CPU on the run queue
    (the load) and, the rest, blocked (I/O, sleeps, locks), from the kernel's ``schedstat``
    (Linux; empty elsewhere)."""
    try:
        with open("/proc/self/schedstat") as stats:
            on_cpu, runqueue, _ = (int(x) for x in stats.read().split())
    except (OSError, ValueError):
        return {}
    wall = time.perf_counter() - STARTED
    return {"on_cpu_s": round(on_cpu / 1e9, 2), "runqueue_wait_s": round(runqueue / 1e9, 2),
            "blocked_s": round(max(0.0, wall - (on_cpu + runqueue) / 1e9), 2)}


def _rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _children_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)


def probe_startup(seed: int) -> dict[str, Any]:
    from compoworld.tasks import generate_tasks
    from compoworld.tasks._context import context

    ctx = context(seed)
    ready = time.perf_counter() - STARTED
    next(iter(generate_tasks(1, seed=seed)))
    return {"context_s": round(ready, 2), "first_task_s": round(time.perf_counter() - STARTED, 2),
            # with the index's worker processes (a cold start builds services there)
            "cpu_s": round(_cpu_s() + _cpu_s(children=True), 2), **_waits(),
            "tools": len(ctx.graph.nodes), "services": len({n.service for n in
                                                            ctx.graph.nodes.values()}),
            "rss_mb": _rss_mb(), "workers_rss_mb": _children_rss_mb()}


def probe_worlds(seed: int, count: int, size: int) -> dict[str, Any]:
    from compoworld.catalog import load_service, service_names
    from compoworld.types import DEFAULT_TODAY
    from compoworld.world import compose, service_image
    from compoworld.world._world import _seeded

    names = service_names()
    rng = random.Random(seed)
    sets = [rng.sample(names, size) for _ in range(count)]
    for chosen in sets:  # warm caches: images on disk, services built (as after earlier worlds)
        for name in chosen:
            load_service(name)
            service_image(name, seed, DEFAULT_TODAY)
    service_image.cache_clear()  # read from disk, not memory
    _seeded.cache_clear()
    first, cpu = [], []
    for chosen in sets:
        start, spent = time.perf_counter(), time.process_time()
        compose(chosen, seed=seed)
        first.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - spent) * 1000)
    return {"worlds": count, "services_per_world": size,
            "world_ms_median": round(statistics.median(first), 1),
            "world_cpu_ms_median": round(statistics.median(cpu), 1),
            "world_ms_max": round(max(first), 1), "rss_mb": _rss_mb(), **_waits()}


def probe_rollouts(tasks_file: str, count: int) -> dict[str, Any]:
    from compoworld.catalog import load_service
    from compoworld.rollout import OracleAgent, build_world, run_episode
    from compoworld.scoring import score_trajectory
    from compoworld.tasks import load_tasks

    tasks = load_tasks(tasks_file)
    step = max(1, len(tasks) // count)
    chosen = tasks[::step][:count]
    worlds, services, episodes, scores, cpu, passed = [], [], [], [], [], 0
    agent = OracleAgent()
    for task in chosen:
        spent = time.process_time()
        start = time.perf_counter()
        for name in [*task.involved, *task.distractors]:  # built once per process: the first
            load_service(name)  # task to mount a service pays for its models (part of world_ms)
        loaded = time.perf_counter()
        world = build_world(task)
        built = time.perf_counter()
        services.append((loaded - start) * 1000)
        trajectory = asyncio.run(run_episode(task, agent, world=world, timings=False))
        ran = time.perf_counter()
        scored = score_trajectory(task, trajectory)
        done = time.perf_counter()
        worlds.append((built - start) * 1000)
        episodes.append((ran - built) * 1000)
        scores.append((done - ran) * 1000)
        cpu.append((time.process_time() - spent) * 1000)
        passed += scored.score == 1.0
    total = [w + e + s for w, e, s in zip(worlds, episodes, scores, strict=True)]
    return {"tasks": len(chosen), "oracle_full_completion": passed,
            "world_ms_median": round(statistics.median(worlds), 1),
            "services_ms_median": round(statistics.median(services), 1),
            "services_ms_mean": round(statistics.fmean(services), 1),
            "episode_ms_median": round(statistics.median(episodes), 1),
            "score_ms_median": round(statistics.median(scores), 1),
            "per_task_ms_median": round(statistics.median(total), 1),
            "per_task_ms_mean": round(statistics.fmean(total), 1),
            "per_task_cpu_ms_median": round(statistics.median(cpu), 1), "rss_mb": _rss_mb(),
            **_waits()}


def probe_generate(seed: int, count: int, workers: int, out: str) -> dict[str, Any]:
    from compoworld.tasks import GenerationStats, generate_tasks

    linked = linked_services()
    stats = GenerationStats()
    seen: set[str] = set()
    stamps: list[float] = []
    start = time.perf_counter()
    with open(out, "w") as sink:
        for task in generate_tasks(count, seed=seed, stats=stats, workers=workers):
            sink.write(task.model_dump_json() + "\n")
            seen.update(task.involved)
            stamps.append(time.perf_counter() - start)
            if len(stamps) % 500 == 0:
                print(f"  {len(stamps)} tasks, {stamps[-1]:.0f} s, {len(seen & linked)}/"
                      f"{len(linked)} linked services", file=sys.stderr, flush=True)
    tenth = len(stamps) // 10
    steady = ((len(stamps) - tenth) / (stamps[-1] - stamps[tenth])
              if len(stamps) > tenth + 1 and stamps[-1] > stamps[tenth] else 0.0)
    # Worker CPU counts once the workers have finished: measured over the whole run.
    cpu_total = _cpu_s() + _cpu_s(children=True)
    return {"tasks": stats.kept, "attempts": stats.attempts, "yield": round(stats.yield_rate, 3),
            "tasks_per_cpu_s": round(stats.kept / cpu_total, 2) if cpu_total else 0.0,
            "rejected": dict(stats.rejected), "wall_s": round(stamps[-1] if stamps else 0, 1),
            "steady_tasks_per_s": round(steady, 2), "workers": workers,
            "services_involved": len(seen), "linked_services": len(linked),
            "linked_involved": len(seen & linked),
            "coverage": round(len(seen & linked) / len(linked), 3) if linked else 0.0,
            "rss_mb": _rss_mb(), "workers_rss_mb": _children_rss_mb()}


def _probe(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run this script as a probe in a new process; its last stdout line is the JSON."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--probe", *args], env=env, text=True,
                          stdout=subprocess.PIPE, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process_s"] = round(time.perf_counter() - start, 2)
    return result


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", default=os.environ.get("COMPOWORLD_CATALOG"),
                        help="a built catalog directory (default: $COMPOWORLD_CATALOG)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", type=int, default=10_000, help="tasks generated (coverage)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worlds", type=int, default=20)
    parser.add_argument("--rollouts", type=int, default=50)
    parser.add_argument("--cache", help="the warm disk cache to use (default: a new one)")
    parser.add_argument("--skip-cold", action="store_true", help="no cold start-up run")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--probe", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        kind, *rest = args.probe
        result = {"startup": lambda: probe_startup(int(rest[0])),
                  "worlds": lambda: probe_worlds(int(rest[0]), int(rest[1]), int(rest[2])),
                  "generate": lambda: probe_generate(int(rest[0]), int(rest[1]), int(rest[2]),
                                                     rest[3]),
                  "rollouts": lambda: probe_rollouts(rest[0], int(rest[1]))}[kind]()
        print(json.dumps(result))
        return 0
    if not args.catalog:
        parser.error("no catalog: pass --catalog DIR or set COMPOWORLD_CATALOG "
                     "(bench/catalog_build.py --out DIR builds one)")
    work = Path(tempfile.mkdtemp(prefix="cw-full-catalog-"))
    cache = Path(args.cache) if args.cache else work / "cache"
    env = {**os.environ, "COMPOWORLD_CATALOG": args.catalog, "COMPOWORLD_CACHE": str(cache)}
    report: dict[str, Any] = {"catalog": args.catalog, "load_before": _load()}

    def phase(name: str, probe: list[str]) -> None:
        print(f"{name} ...", file=sys.stderr, flush=True)
        report[name] = _probe(probe, env)
        report[name]["load"] = _load()
        print(f"{name}: {report[name]}", file=sys.stderr, flush=True)

    if not args.skip_cold:
        phase("cold_startup", ["startup", str(args.seed)])
    phase("warm_startup", ["startup", str(args.seed)])
    phase("worlds", ["worlds", str(args.seed), str(args.worlds), "17"])
    tasks_file = str(work / "tasks.jsonl")
    phase("generate", ["generate", str(args.seed), str(args.tasks), str(args.workers),
                       tasks_file])
    phase("rollouts", ["rollouts", tasks_file, str(args.rollouts)])
    generation = report["generate"]
    peak = max([report[k]["rss_mb"] for k in report if isinstance(report[k], dict)]
               + [generation["rss_mb"] + generation["workers"] * generation["workers_rss_mb"]])
    figures = {
        "cold_startup_s": report.get("cold_startup", {}).get("first_task_s"),
        "warm_startup_s": report["warm_startup"]["first_task_s"],
        "peak_rss_mb": peak,
        "world_ms": report["worlds"]["world_ms_median"],
        "rollout_overhead_ms": report["rollouts"]["per_task_ms_median"],
        "tasks_per_s": report["generate"]["steady_tasks_per_s"],
        "coverage": report["generate"]["coverage"],
    }
    lower = {"tasks_per_s", "coverage"}
    report["figures"] = figures
    # CPU time: what the same work costs on an idle machine (wall time on a shared one is
    # mostly waiting); generation's is per CPU-second times the workers (the cores used).
    report["cpu_figures"] = {
        "cold_startup_cpu_s": report.get("cold_startup", {}).get("cpu_s"),
        "warm_startup_cpu_s": report["warm_startup"]["cpu_s"],
        "world_cpu_ms": report["worlds"]["world_cpu_ms_median"],
        "rollout_overhead_cpu_ms": report["rollouts"]["per_task_cpu_ms_median"],
        "tasks_per_s_on_idle_cores": round(generation["tasks_per_cpu_s"] * args.workers, 2),
    }
    report["targets"] = TARGETS
    report["met"] = {k: (v is not None and (v >= TARGETS[k] if k in lower else v <= TARGETS[k]))
                     for k, v in figures.items()}
    report["load_after"] = _load()
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in figures.items():
            mark = "ok" if report["met"][key] else "MISSED"
            side = ">=" if key in lower else "<="
            print(f"{key:22} {value!s:>10}   target {side} {TARGETS[key]:<8} {mark}")
        for key, value in report["cpu_figures"].items():
            print(f"{key:26} {value!s:>10}   (CPU time)")
        print(f"load average before {report['load_before']}, after {report['load_after']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
