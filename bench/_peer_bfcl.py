"""Peer figures: bfcl-eval's stateful ``TicketAPI`` driven through bfcl's own multi-turn path.

This script runs inside the *peer* virtualenv (made by ``bench/runtime.py --setup-peer``), which
holds ``bfcl-eval`` installed with ``--no-deps`` and nothing else: the multi-turn execution path
(``bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils`` and the ``TicketAPI`` backend) only
imports the standard library, so nothing has to be stubbed. It must not import compoworld.

It prints one JSON object on stdout. ``bench/runtime.py`` runs it as a subprocess (inheriting
the CPU pinning) and prints CompoWorld/peer ratios.

What is measured, the way bfcl runs a multi-turn test entry:

* read calls/s: ``execute_multi_turn_func_call(["get_ticket(ticket_id=N)"], ...)`` — one call per
  invocation (one agent step), the same test entry id every time so the ``TicketAPI`` instance
  kept in the module's globals is reused (bfcl's normal path for later turns). The call string
  is rewritten with a regex, checked against a deny list, ``eval``-ed, and the result dict is
  ``json.dumps``-ed — that is bfcl's envelope. bfcl does no argument validation.
* the same with 50 calls per invocation (the per-invocation set-up amortised away);
* write calls/s: ``edit_ticket(ticket_id=N, updates={"description": "..."})``;
* rebuild: what bfcl does for each new test entry: ``TicketAPI()`` +
  ``_load_scenario(copy.deepcopy(config))`` (bfcl has no reset; a fresh entry is a fresh
  instance); with ``--scaled-tickets N`` also for a scenario of N tickets (as many as
  CompoWorld's world has rows, to compare at equal state size);
* new instance via the path: ``execute_multi_turn_func_call([], config, ...)`` with a new test
  entry id (adds the class lookup and method mapping to the rebuild);
* memory per instance: RSS growth over N instances kept alive in the path's globals, / N.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import platform
import random
import re
import statistics
import sys
import time
from importlib import metadata
from typing import Any

from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.ticket_api import TicketAPI

CLASS = "TicketAPI"
MODEL = "compoworld_bench"

_TOPICS = (
    "VPN drops every few minutes", "Laptop battery drains fast", "Cannot access shared drive",
    "Password reset link expired", "Printer on 3rd floor jammed", "Invoice PDF renders blank",
    "Email sync fails on mobile", "New hire needs accounts", "Monitor flickers after update",
    "Slow database queries in reporting", "Calendar invites arrive twice", "Badge reader broken",
    "Software licence renewal", "Wi-Fi weak in meeting room B", "Expense tool rejects receipts",
)
_DETAILS = (
    "Started after this morning's update; restarting did not help.",
    "Affects the whole team since Monday; we need a workaround before the client call.",
    "Error message says the session token is invalid. Screenshot attached in the chat.",
    "Happens intermittently, mostly in the afternoon when the office is busy.",
    "User is travelling and can only reach us by phone until Friday.",
    "Tried the steps in the knowledge base article; the problem persists.",
)
_STATUSES = ("Open", "In Progress", "Resolved", "Closed")
_USERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")


def scenario(tickets: int, seed: int = 0) -> dict[str, Any]:
    """A TicketAPI initial config in the format ``TicketAPI._load_scenario`` reads."""
    rng = random.Random(seed)
    queue = [
        {
            "id": i,
            "title": rng.choice(_TOPICS),
            "description": f"{rng.choice(_DETAILS)} {rng.choice(_DETAILS)}",
            "status": rng.choice(_STATUSES),
            "priority": rng.randint(1, 5),
            "created_by": rng.choice(_USERS),
        }
        for i in range(1, tickets + 1)
    ]
    return {"ticket_queue": queue, "ticket_counter": tickets + 1, "current_user": "alice"}


def rss_bytes() -> int:
    """Resident set size, from /proc (what psutil reads too)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def instance_global(test_entry_id: str) -> str:
    """The globals key ``execute_multi_turn_func_call`` stores the instance under."""
    return re.sub(r"[-./:]", "_", f"{MODEL}_{test_entry_id}_{CLASS}_instance")


def execute(calls: list[str], config: dict[str, Any], entry: str) -> list[str]:
    results, _ = multi_turn_utils.execute_multi_turn_func_call(calls, config, [CLASS], MODEL, entry)
    return results


def warm_up(invocations: list[list[str]], config: dict[str, Any], entry: str) -> None:
    for batch in invocations[: max(1, len(invocations) // 10)]:
        execute(batch, config, entry)


def one_run(invocations: list[list[str]], config: dict[str, Any], entry: str, min_time: float,
            ok_prefix: str) -> dict[str, Any]:
    """One run of ≥ ``min_time`` s cycling ``invocations``: calls/s by the wall clock and by
    this thread's CPU time (``cpu_calls_per_s``: what other processes on the core do not
    inflate), and the successful calls."""
    per_run = sum(len(x) for x in invocations)
    gc.collect()
    results: list[str] = []
    n = 0
    limit = int(min_time * 1e9)
    cpu_start = time.thread_time_ns()
    start = time.perf_counter_ns()
    while True:
        for batch in invocations:
            results.extend(execute(batch, config, entry))
        n += per_run
        elapsed = time.perf_counter_ns() - start
        if elapsed >= limit:
            break
    cpu = time.thread_time_ns() - cpu_start
    return {"calls_per_s": n / (elapsed / 1e9), "cpu_calls_per_s": n / (max(cpu, 1) / 1e9),
            "calls": len(results), "ok": sum(r.startswith(ok_prefix) for r in results)}


def throughput(invocations: list[list[str]], config: dict[str, Any], entry: str, runs: int,
               min_time: float, ok_prefix: str) -> dict[str, Any]:
    """Median over ``runs`` of calls/s, each run ≥ ``min_time`` s, cycling ``invocations``."""
    warm_up(invocations, config, entry)
    done = [one_run(invocations, config, entry, min_time, ok_prefix) for _ in range(runs)]
    rates = [d["calls_per_s"] for d in done]
    total, ok = sum(d["calls"] for d in done), sum(d["ok"] for d in done)
    return {"calls_per_s": statistics.median(rates), "runs": rates,
            "cpu_calls_per_s": statistics.median(d["cpu_calls_per_s"] for d in done),
            "success_rate": ok / total if total else 0.0, "calls": total}


def serve(config: dict[str, Any], workloads: dict[str, tuple[list[list[str]], str]]) -> None:
    """Paired mode (``--serve``): one run per request, so that ``bench/runtime.py`` can
    alternate the peer's runs with CompoWorld's under the same load. A request is a line
    ``{"kind": "read" | "write", "min_time": s}`` on stdin; the answer, one JSON line of
    :func:`one_run`; the process ends at end of input."""
    for kind, (invocations, _) in workloads.items():
        warm_up(invocations, config, kind)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        invocations, ok_prefix = workloads[request["kind"]]
        print(json.dumps(one_run(invocations, config, request["kind"], request["min_time"],
                                 ok_prefix)), flush=True)


def read_invocations(ids: list[int]) -> list[list[str]]:
    """One ``get_ticket`` call per invocation (one agent step), cycling the tickets."""
    return [[f"get_ticket(ticket_id={ids[i % len(ids)]})"] for i in range(max(len(ids), 1000))]


def write_invocations(ids: list[int]) -> list[list[str]]:
    """One ``edit_ticket`` call per invocation, each setting a new description."""
    return [[f"edit_ticket(ticket_id={ids[i % len(ids)]}, "
             f"updates={{'description': 'benchmark note {i}'}})"]
            for i in range(max(len(ids), 1000))]


def latency(fn: Any, samples: int) -> dict[str, Any]:
    times = []
    for _ in range(samples):
        start = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - start) / 1e3)
    times.sort()
    return {"median": statistics.median(times), "p95": times[int(0.95 * (len(times) - 1))],
            "mean": statistics.fmean(times), "samples": len(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tickets", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--samples", type=int, default=300, help="latency samples")
    parser.add_argument("--mem-n", type=int, default=500)
    parser.add_argument("--scaled-tickets", type=int, default=0,
                        help="also time the rebuild with this many tickets (CompoWorld's rows)")
    parser.add_argument("--check", action="store_true", help="import and one call, then exit")
    parser.add_argument("--serve", action="store_true",
                        help="paired mode: one throughput run per request on stdin (see serve)")
    args = parser.parse_args()

    config = {CLASS: scenario(args.tickets)}
    ids = [t["id"] for t in config[CLASS]["ticket_queue"]]
    out: dict[str, Any] = {
        "bfcl_eval": metadata.version("bfcl-eval"),
        "python": platform.python_version(),
        "backend": f"{CLASS} (bfcl_eval.eval_checker.multi_turn_eval.func_source_code.ticket_api)",
        "path": "multi_turn_utils.execute_multi_turn_func_call",
        "tickets": args.tickets,
        "scenario_json_kb": len(json.dumps(config)) / 1024,
    }
    first = execute([f"get_ticket(ticket_id={ids[0]})"], config, "check")
    if not first[0].startswith('{"id": '):
        raise SystemExit(f"unexpected get_ticket result through bfcl's path: {first[0][:200]}")
    vars(multi_turn_utils).pop(instance_global("check"))
    if args.check:
        print(json.dumps({**out, "check": "ok"}))
        return
    if args.serve:
        serve(config, {"read": (read_invocations(ids), '{"id": '),
                       "write": (write_invocations(ids), '{"status": "Ticket')})
        return

    # Memory first, while the heap is fresh: N instances kept alive where bfcl keeps them.
    gc.collect()
    before = rss_bytes()
    for i in range(args.mem_n):
        execute([], config, f"mem_{i}")
    gc.collect()
    out["memory_per_instance_mb"] = (rss_bytes() - before) / args.mem_n / 2**20
    out["memory_n"] = args.mem_n
    for i in range(args.mem_n):
        vars(multi_turn_utils).pop(instance_global(f"mem_{i}"))
    gc.collect()

    reads = read_invocations(ids)
    out["read"] = throughput(reads, config, "read", args.runs, args.min_time, '{"id": ')
    flat = [call for (call,) in reads]
    batched = [flat[i : i + 50] for i in range(0, len(flat), 50)]
    out["read_batched_50"] = throughput(batched, config, "read", args.runs, args.min_time,
                                        '{"id": ')
    out["write"] = throughput(write_invocations(ids), config, "write", args.runs, args.min_time,
                              '{"status": "Ticket')

    def rebuild() -> None:
        instance = TicketAPI()
        instance._load_scenario(copy.deepcopy(config[CLASS]), long_context=False)

    rebuild()
    out["rebuild_us"] = latency(rebuild, args.samples)
    if args.scaled_tickets:
        scaled = scenario(args.scaled_tickets)

        def rebuild_scaled() -> None:
            TicketAPI()._load_scenario(copy.deepcopy(scaled), long_context=False)

        rebuild_scaled()
        out["rebuild_scaled_us"] = {"tickets": args.scaled_tickets,
                                    **latency(rebuild_scaled, max(20, args.samples // 5))}

    counter = iter(range(10**9))

    def new_instance() -> None:
        execute([], config, f"new_{next(counter)}")

    for _ in range(10):
        new_instance()
    out["new_instance_us"] = latency(new_instance, args.samples)
    for key in [k for k in vars(multi_turn_utils) if k.startswith(f"{MODEL}_new_")]:
        vars(multi_turn_utils).pop(key)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
