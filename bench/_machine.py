"""The machine: CPU pinning, per-CPU busy time, contention on the pinned CPU, load, CPU model."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _cpu_times() -> dict[int, tuple[int, int]]:
    """Per-CPU (idle, total) jiffies from /proc/stat."""
    out = {}
    for line in Path("/proc/stat").read_text().splitlines():
        name, *fields = line.split()
        if name.startswith("cpu") and name[3:].isdigit():
            values = [int(v) for v in fields]
            out[int(name[3:])] = (values[3] + values[4], sum(values[:8]))
    return out


def cpu_busy(cpus: Sequence[int], seconds: float = 0.3) -> dict[int, float]:
    """Fraction of time each CPU was busy over ``seconds`` (other work on a shared machine)."""
    try:
        first = _cpu_times()
        time.sleep(seconds)
        second = _cpu_times()
    except (OSError, ValueError, IndexError):
        return {}
    busy = {}
    for cpu in cpus:
        if cpu in first and cpu in second:
            idle = second[cpu][0] - first[cpu][0]
            total = second[cpu][1] - first[cpu][1]
            busy[cpu] = 1 - idle / total if total else 0.0
    return busy


class Contention:
    """How much of the pinned CPU other processes used while the benchmark ran."""

    def __init__(self, cpu: int | None) -> None:
        self.cpu = cpu
        self.start = self._sample()

    def _sample(self) -> tuple[float, float, float] | None:
        if self.cpu is None:
            return None
        try:
            idle, total = _cpu_times()[self.cpu]
        except (OSError, KeyError, ValueError, IndexError):
            return None
        own = os.times()
        tick = os.sysconf("SC_CLK_TCK")
        return ((total - idle) / tick, own.user + own.system + own.children_user
                + own.children_system, time.monotonic())

    def other_share(self) -> float | None:
        """Fraction of wall time the pinned CPU spent on other processes (0 = quiet)."""
        end = self._sample()
        if self.start is None or end is None or end[2] <= self.start[2]:
            return None
        busy = end[0] - self.start[0]
        own = end[1] - self.start[1]
        return round(max(0.0, busy - own) / (end[2] - self.start[2]), 3)


def pin_cpu(cpu: int | None) -> dict[str, Any]:
    """Pin this process (and its children) to one CPU: the given one, else the idlest."""
    if not hasattr(os, "sched_getaffinity"):
        return {"affinity_before": None, "pinned_cpu": None, "cpu_busy_before": {}}
    before = sorted(os.sched_getaffinity(0))
    busy = cpu_busy(before)
    if cpu is None:
        cpu = min(before, key=lambda c: (busy.get(c, 1.0), -c))
    os.sched_setaffinity(0, {cpu})
    return {"affinity_before": before, "pinned_cpu": cpu,
            "cpu_busy_before": {str(c): round(b, 3) for c, b in busy.items()}}


def loadavg() -> list[float] | None:
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
