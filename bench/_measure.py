"""Measuring: calls/s, reset and fork latency, timed samples, RSS and memory per instance."""

from __future__ import annotations

import copy
import gc
import json
import os
import statistics
import subprocess
import sys
import time
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from _workload import Workload
from _world import build
from compoworld.service import Environment

RUNTIME_SCRIPT = Path(__file__).resolve().parent / "runtime.py"
"""The entry point, run again with ``--memory-child`` to measure memory in a fresh process."""

def _warm_up(call: Callable[[str, Any], Mapping[str, Any]],
             passes: Sequence[Sequence[tuple[str, dict[str, Any]]]], seconds: float) -> None:
    warm_until = time.perf_counter() + seconds
    while time.perf_counter() < warm_until:
        for name, args in passes[0][:1000]:
            call(name, args)


def one_run(call: Callable[[str, Any], Mapping[str, Any]],
            passes: Sequence[Sequence[tuple[str, dict[str, Any]]]],
            min_time: float) -> dict[str, Any]:
    """One run of ≥ ``min_time`` s cycling the passes: calls/s by the wall clock and by this
    thread's CPU time (``cpu_calls_per_s``: what other processes on the core do not inflate),
    and the successes, counted in-loop."""
    gc.collect()
    n = good = 0
    p = 0
    limit = int(min_time * 1e9)
    cpu_start = time.thread_time_ns()
    start = time.perf_counter_ns()
    while True:
        for name, args in passes[p % len(passes)]:
            good += call(name, args)["success"]
        n += len(passes[p % len(passes)])
        p += 1
        elapsed = time.perf_counter_ns() - start
        if elapsed >= limit:
            break
    cpu = time.thread_time_ns() - cpu_start
    return {"calls_per_s": n / (elapsed / 1e9), "cpu_calls_per_s": n / (max(cpu, 1) / 1e9),
            "calls": n, "ok": good}


def throughput(call: Callable[[str, Any], Mapping[str, Any]],
               passes: Sequence[Sequence[tuple[str, dict[str, Any]]]], runs: int,
               min_time: float) -> dict[str, Any]:
    """Median calls/s over ``runs`` runs of ≥ ``min_time`` s each; successes counted in-loop."""
    if not passes or not passes[0]:
        return {"calls_per_s": None, "runs": [], "success_rate": None, "calls": 0}
    _warm_up(call, passes, min(0.2, min_time / 2))
    done = [one_run(call, passes, min_time) for _ in range(runs)]
    total = sum(d["calls"] for d in done)
    return {"calls_per_s": statistics.median(d["calls_per_s"] for d in done),
            "runs": [d["calls_per_s"] for d in done],
            "cpu_calls_per_s": statistics.median(d["cpu_calls_per_s"] for d in done),
            "success_rate": sum(d["ok"] for d in done) / total, "calls": total}


class PeerRuns(typing.Protocol):
    def run(self, kind: str, min_time: float) -> dict[str, Any]: ...


def paired_throughput(call: Callable[[str, Any], Mapping[str, Any]], workloads: dict[str, Workload],
                      peer: PeerRuns, rounds: int, min_time: float) -> dict[str, Any]:
    """CompoWorld's runs and the peer's, alternated: in each round, one run of each side back
    to back (CompoWorld first in even rounds, the peer first in odd ones), so both see the
    same load; the ratio of a round is taken within it, and the median over rounds is
    reported (by the wall clock, and by each side's CPU time)."""
    out: dict[str, Any] = {}
    for kind, work in workloads.items():
        if not work.calls:
            continue
        _warm_up(call, work.passes(), min(0.2, min_time / 2))
        ours, theirs = [], []
        for i in range(rounds):
            if i % 2:
                theirs.append(peer.run(kind, min_time))
                ours.append(one_run(call, work.passes(), min_time))
            else:
                ours.append(one_run(call, work.passes(), min_time))
                theirs.append(peer.run(kind, min_time))
        out[kind] = {
            "rounds": rounds,
            "ratio": statistics.median(a["calls_per_s"] / b["calls_per_s"]
                                       for a, b in zip(ours, theirs, strict=True)),
            "cpu_ratio": statistics.median(a["cpu_calls_per_s"] / b["cpu_calls_per_s"]
                                           for a, b in zip(ours, theirs, strict=True)),
            "ratios": [a["calls_per_s"] / b["calls_per_s"] for a, b in zip(ours, theirs,
                                                                            strict=True)],
            "compoworld_calls_per_s": [a["calls_per_s"] for a in ours],
            "peer_calls_per_s": [b["calls_per_s"] for b in theirs],
            "compoworld_cpu_calls_per_s": [a["cpu_calls_per_s"] for a in ours],
            "peer_cpu_calls_per_s": [b["cpu_calls_per_s"] for b in theirs],
            "compoworld_success_rate": sum(a["ok"] for a in ours) / sum(a["calls"] for a in ours),
            "peer_success_rate": sum(b["ok"] for b in theirs) / sum(b["calls"] for b in theirs),
        }
    return out


def per_tool_rates(call: Callable[[str, Any], Mapping[str, Any]], work: Workload,
                   seconds: float) -> dict[str, float | None]:
    """calls/s of each tool of the workload alone (one run of ``seconds``): finds slow tools."""
    return {name: throughput(call, passes, 1, seconds)["calls_per_s"]
            for name, passes in work.per_tool.items()}


def summarize(times_us: list[float]) -> dict[str, Any]:
    times_us = sorted(times_us)
    return {"median": statistics.median(times_us),
            "p95": times_us[int(0.95 * (len(times_us) - 1))],
            "mean": statistics.fmean(times_us), "min": times_us[0], "samples": len(times_us)}


def reset_latency(env: Environment, dirty: tuple[str, dict[str, Any]] | None,
                  samples: int) -> dict[str, Any]:
    """``env.reset()`` after one write (a dirty state, as after an episode); only reset timed."""
    clock = time.perf_counter_ns
    for _ in range(50):
        env.reset()
    gc.collect()
    times = []
    for _ in range(samples):
        if dirty is not None:
            env.call(*dirty)
        start = clock()
        env.reset()
        times.append((clock() - start) / 1e3)
    return summarize(times)


def fork_latency(env: Environment, samples: int) -> dict[str, Any]:
    """``env.fork()``: a new, independent instance; closed again outside the timed region."""
    clock = time.perf_counter_ns
    for _ in range(20):
        env.fork().close()
    gc.collect()
    times = []
    for _ in range(samples):
        start = clock()
        other = env.fork()
        times.append((clock() - start) / 1e3)
        other.close()
    return summarize(times)


def timed_samples(fn: Callable[[], Any], max_samples: int, budget: float) -> dict[str, Any]:
    """Latency of ``fn`` for up to ``max_samples`` samples or ``budget`` seconds (≥ 5 samples)."""
    clock = time.perf_counter_ns
    fn()
    gc.collect()
    times: list[float] = []
    deadline = time.perf_counter() + budget
    while len(times) < max_samples and (len(times) < 5 or time.perf_counter() < deadline):
        start = clock()
        fn()
        times.append((clock() - start) / 1e3)
    return summarize(times)


def rss_bytes() -> int:
    try:
        import psutil
    except ImportError:  # same number psutil reads on Linux
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return int(psutil.Process().memory_info().rss)


def memory_child(kind: str, n: int, *, seed: int, services: str | None) -> None:
    """Hidden mode: RSS growth per instance, in a fresh process so earlier frees don't hide it.

    ``kind`` is ``"compoworld"`` (``n`` forks kept alive) or ``"baseline"`` (``n`` deepcopies of
    the state as dicts); prints one JSON object on stdout for :func:`measure_memory`.
    """
    env, _ = build(services, seed)
    keep: list[Any] = []
    if kind == "compoworld":
        env.fork().close()
        gc.collect()
        before = rss_bytes()
        keep.extend(env.fork() for _ in range(n))
    else:
        initial = {table: {r["id"]: r for r in records} for table, records in env.rows().items()}
        copy.deepcopy(initial)
        gc.collect()
        before = rss_bytes()
        keep.extend(copy.deepcopy(initial) for _ in range(n))
    gc.collect()
    grown = rss_bytes() - before
    print(json.dumps({"memory_per_instance_mb": grown / n / 2**20, "memory_n": n}))


def measure_memory(kind: str, n: int, *, seed: int, services: str | None) -> dict[str, Any]:
    """Memory per instance of ``kind``, measured by ``runtime.py --memory-child`` in a child."""
    command = [sys.executable, str(RUNTIME_SCRIPT), "--memory-child", kind,
               "--mem-n", str(n), "--seed", str(seed)]
    if services:
        command += ["--services", services]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        return {"memory_per_instance_mb": None, "memory_n": n, "error": done.stderr[-2000:]}
    return typing.cast(dict[str, Any], json.loads(done.stdout.strip().splitlines()[-1]))


def profile(env: Environment, read: Workload, write: Workload, seconds: float) -> None:
    """cProfile of the read and write loops (top entries by cumulative and own time)."""
    import cProfile
    import pstats

    for work in (read, write):
        if not work.calls:
            continue
        fork = env.fork()
        call = fork.call
        profiler = cProfile.Profile()
        deadline = time.perf_counter() + seconds
        profiler.enable()
        while time.perf_counter() < deadline:
            for name, args in work.calls:
                call(name, args)
        profiler.disable()
        for order in ("cumulative", "tottime"):
            print(f"\n== {work.kind} loop, by {order} ==")
            pstats.Stats(profiler, stream=sys.stdout).sort_stats(order).print_stats(18)
        fork.close()

