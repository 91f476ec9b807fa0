"""CompoWorld runtime benchmark: calls/s, reset and fork latency, memory, vs. a baseline and a peer.

Run from the repository root with the project's virtualenv::

    .venv/bin/python bench/runtime.py --setup-peer   # once: the bfcl-eval peer venv
    .venv/bin/python bench/runtime.py                # human-readable table
    .venv/bin/python bench/runtime.py --json         # exactly one JSON object on stdout
    .venv/bin/python bench/runtime.py --quick        # short run (smoke test)

Figures, on one pinned core, for a world of the six hand-written services (those that exist):
read and write calls/s through ``Environment.call`` (argument validation and envelope included),
``reset()`` and ``fork()`` latency, memory per environment instance; the same workload on a
baseline keeping the state as Python dicts restored with ``copy.deepcopy``; and a peer, the
stateful ``TicketAPI`` backend of bfcl-eval driven through its multi-turn execution path
(``bench/_peer_bfcl.py``, run in its own venv). The calls/s ratios to the peer come from runs
of both sides alternated in the same minute (``peer.paired``; the sequential figures, each
side measured in its own block, are kept beside them). See ``bench/README.md``.

It is a measurement, not a test: the exit code is 0 even when a target is missed.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sqlite3
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

# bench/ is not a package: its modules import one another by name, from this directory, whether
# runtime.py runs as a script or as the memory child (``--memory-child``) it spawns.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _baseline import BaselineEnv
from _machine import Contention, cpu_model, loadavg, pin_cpu
from _measure import (
    fork_latency,
    measure_memory,
    memory_child,
    paired_throughput,
    per_tool_rates,
    profile,
    reset_latency,
    throughput,
    timed_samples,
)
from _peer import (
    BFCL_REQUIREMENT,
    DEFAULT_PEER_VENV,
    SETUP_COMMAND,
    PeerServer,
    run_peer,
    setup_peer,
)
from _report import TARGETS, log, print_report, ratios
from _workload import read_workload, write_workload
from _world import EXPECTED_ROWS, HEADLINE_SERVICES, build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="CompoWorld runtime benchmark (see bench/README.md).")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.add_argument("--quick", action="store_true", help="short run (smoke test)")
    parser.add_argument("--services", help="comma-separated services, or 'all' "
                        f"(default: the six hand-written ones: {','.join(HEADLINE_SERVICES)})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", type=int, help="CPU to pin to (default: the idlest allowed one)")
    parser.add_argument("--runs", type=int, help="throughput runs (median), default 5 / quick 3")
    parser.add_argument("--min-time", type=float, help="seconds per run, default 0.5 / quick 0.1")
    parser.add_argument("--peer-venv", type=Path, default=DEFAULT_PEER_VENV)
    parser.add_argument("--no-peer", action="store_true", help="skip the bfcl-eval peer")
    parser.add_argument("--setup-peer", action="store_true",
                        help=f"create the peer venv ({BFCL_REQUIREMENT}, --no-deps) and exit")
    parser.add_argument("--profile", action="store_true",
                        help="print a cProfile of the read and write loops and exit")
    parser.add_argument("--memory-child", choices=("compoworld", "baseline"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--mem-n", type=int, default=500, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.setup_peer:
        return setup_peer(args.peer_venv)
    if args.memory_child:
        memory_child(args.memory_child, args.mem_n, seed=args.seed, services=args.services)
        return 0

    started = time.perf_counter()
    pinning = pin_cpu(args.cpu)
    pinned = pinning["pinned_cpu"]
    load_before = loadavg()
    contention = Contention(pinned)
    runs = args.runs or (3 if args.quick else 5)
    min_time = args.min_time or (0.1 if args.quick else 0.5)
    mem_n = 100 if args.quick else 500
    base_mem_n = 20 if args.quick else 100

    log(f"building the world (pinned to CPU {pinned})...")
    env, missing = build(args.services, args.seed)
    rows = env.rows()
    n_rows = sum(map(len, rows.values()))
    read = read_workload(env, rows)
    write = write_workload(env, rows)
    if args.profile:
        profile(env, read, write, 1.0 if args.quick else 3.0)
        return 0
    baseline = BaselineEnv.from_environment(env, read, write)

    log(f"memory per instance ({mem_n} forks, {base_mem_n} deepcopies, fresh processes)...")
    cw_mem = measure_memory("compoworld", mem_n, seed=args.seed, services=args.services)
    base_mem = measure_memory("baseline", base_mem_n, seed=args.seed, services=args.services)

    log("CompoWorld read/write calls/s...")
    cw_env = env.fork()
    cw: dict[str, Any] = {
        "read": throughput(cw_env.call, read.passes(), runs, min_time),
        "write": throughput(cw_env.call, write.passes(), runs, min_time),
    }
    per_tool_time = 0.05 if args.quick else 0.2
    cw["read"]["per_tool_calls_per_s"] = per_tool_rates(cw_env.call, read, per_tool_time)
    cw["write"]["per_tool_calls_per_s"] = per_tool_rates(cw_env.call, write, per_tool_time)
    log("CompoWorld reset / fork latency...")
    dirty = write.calls[0] if write.calls else None
    cw["reset_us"] = reset_latency(cw_env, dirty, 500 if args.quick else 3000)
    cw["new_instance_us"] = fork_latency(env, 200 if args.quick else 1000)
    cw["memory_per_instance_mb"] = cw_mem["memory_per_instance_mb"]
    cw["memory_n"] = cw_mem["memory_n"]
    if "error" in cw_mem:
        cw["memory_error"] = cw_mem["error"]
    cw_env.close()

    log("baseline (dicts + deepcopy)...")
    base_env = baseline.new()
    base: dict[str, Any] = {
        "read": throughput(base_env.call, read.passes(), runs, min_time),
        "write": throughput(base_env.call, write.passes(), runs, min_time),
        "reset_us": timed_samples(base_env.reset, 30 if args.quick else 300,
                                  0.3 if args.quick else 1.5),
        "new_instance_us": timed_samples(baseline.new, 20 if args.quick else 200,
                                         0.3 if args.quick else 1.0),
        "memory_per_instance_mb": base_mem["memory_per_instance_mb"],
        "memory_n": base_mem["memory_n"],
    }
    del base_env

    if args.no_peer:
        peer: dict[str, Any] = {"available": False, "reason": "skipped (--no-peer)",
                                "setup": SETUP_COMMAND}
    else:
        log("peer (bfcl-eval TicketAPI through execute_multi_turn_func_call)...")
        peer = run_peer(args.peer_venv, runs=runs, min_time=min_time,
                        samples=100 if args.quick else 500, mem_n=mem_n, tickets=300,
                        scaled_tickets=n_rows)
    if peer["available"]:
        log("CompoWorld and the peer, runs alternated (paired calls/s ratios)...")
        server = PeerServer(args.peer_venv, tickets=300)
        paired_env = env.fork()
        try:
            # Short runs (one pass of a workload: ~0.1 s), many rounds: the two runs of a pair
            # are a fraction of a second apart, so they see the same load.
            peer["paired"] = paired_throughput(paired_env.call, {"read": read, "write": write},
                                               server, 8 * runs, min_time / 20)
        finally:
            server.close()
            paired_env.close()

    r = ratios(cw, base, peer)
    measured = {
        "read_calls_per_s": cw["read"]["calls_per_s"],
        "reset_us": cw["reset_us"]["median"],
        "new_instance_us": cw["new_instance_us"]["median"],
        "reset_speedup_vs_baseline": r["reset_speedup_vs_baseline"],
        "memory_per_instance_mb": cw["memory_per_instance_mb"],
    }
    targets = {
        t.key: {"label": t.label, "op": t.op, "target": t.value, "unit": t.unit,
                "value": measured[t.key], "pass": t.met(measured[t.key])}
        for t in TARGETS
    }
    missed = [k for k, t in targets.items() if t["pass"] is not True]
    report: dict[str, Any] = {
        "benchmark": "compoworld-runtime",
        "quick": args.quick,
        "system": {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "sqlite": sqlite3.sqlite_version,
            "pydantic": metadata.version("pydantic"),
            "compoworld": metadata.version("compoworld"),
            "platform": platform.platform(),
            "cpu_model": cpu_model(),
            **pinning,
            "loadavg_before": load_before,
            "loadavg_after": loadavg(),
            "pinned_cpu_other_share": contention.other_share(),
            "gc_enabled": gc.isenabled(),
            "runs": runs,
            "min_time_s": min_time,
        },
        "world": {
            "services": list(env.services),
            "missing_headline_services": missing,
            "rows": n_rows,
            "rows_by_table": {t: len(v) for t, v in rows.items()},
            "expected_rows": EXPECTED_ROWS,
            "image_kb": len(env.snapshot()) / 1024,
            "seed": args.seed,
        },
        "workload": {
            w.kind: {"tools": w.tools, "dropped": w.dropped, "distinct_calls": len(w.calls)}
            for w in (read, write)
        },
        "compoworld": cw,
        "baseline": base,
        "peer": peer,
        "ratios": r,
        "targets": targets,
        "missed": missed,
        "all_targets_pass": not missed,
        "elapsed_s": time.perf_counter() - started,
    }
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_report(report)
        log(f"done in {report['elapsed_s']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
