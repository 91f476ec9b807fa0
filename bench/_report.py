"""Reporting: progress log, targets, ratios, number formatting and the rich tables."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from _world import EXPECTED_ROWS


@dataclass(frozen=True)
class Target:
    key: str
    label: str
    op: str  # ">=" or "<="
    value: float
    unit: str

    def met(self, measured: float | None) -> bool | None:
        if measured is None:
            return None
        return measured >= self.value if self.op == ">=" else measured <= self.value


TARGETS = (
    Target("read_calls_per_s", "read calls/s (one core)", ">=", 30_000, "calls/s"),
    Target("reset_us", "reset latency (median)", "<=", 50, "µs"),
    Target("new_instance_us", "new environment instance, fork() (median)", "<=", 250, "µs"),
    Target("reset_speedup_vs_baseline", "reset vs deepcopy baseline (× faster)", ">=", 100, "×"),
    Target("memory_per_instance_mb", "memory per environment instance", "<=", 2, "MB"),
)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)



def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _get(d: Mapping[str, Any], *path: str) -> Any:
    for key in path:
        if not isinstance(d, Mapping) or d.get(key) is None:
            return None
        d = d[key]
    return d


def ratios(cw: dict[str, Any], base: dict[str, Any], peer: dict[str, Any]) -> dict[str, Any]:
    return {
        "read_throughput_cw_over_baseline": _ratio(cw["read"]["calls_per_s"],
                                                   base["read"]["calls_per_s"]),
        "write_throughput_cw_over_baseline": _ratio(cw["write"]["calls_per_s"],
                                                    base["write"]["calls_per_s"]),
        "reset_speedup_vs_baseline": _ratio(base["reset_us"]["median"], cw["reset_us"]["median"]),
        "new_instance_speedup_vs_baseline": _ratio(base["new_instance_us"]["median"],
                                                   cw["new_instance_us"]["median"]),
        "memory_cw_over_baseline": _ratio(cw["memory_per_instance_mb"],
                                          base["memory_per_instance_mb"]),
        "read_throughput_cw_over_peer": _get(peer, "paired", "read", "ratio"),
        "read_throughput_cw_over_peer_cpu": _get(peer, "paired", "read", "cpu_ratio"),
        "read_throughput_cw_over_peer_sequential": _ratio(cw["read"]["calls_per_s"],
                                                          _get(peer, "read", "calls_per_s")),
        "read_throughput_cw_over_peer_batched": _ratio(
            cw["read"]["calls_per_s"], _get(peer, "read_batched_50", "calls_per_s")),
        "write_throughput_cw_over_peer": _get(peer, "paired", "write", "ratio"),
        "write_throughput_cw_over_peer_cpu": _get(peer, "paired", "write", "cpu_ratio"),
        "write_throughput_cw_over_peer_sequential": _ratio(cw["write"]["calls_per_s"],
                                                           _get(peer, "write", "calls_per_s")),
        "reset_speedup_vs_peer_rebuild": _ratio(_get(peer, "rebuild_us", "median"),
                                                cw["reset_us"]["median"]),
        "reset_speedup_vs_peer_rebuild_same_size": _ratio(
            _get(peer, "rebuild_scaled_us", "median"), cw["reset_us"]["median"]),
        "new_instance_speedup_vs_peer": _ratio(_get(peer, "new_instance_us", "median"),
                                               cw["new_instance_us"]["median"]),
        "memory_cw_over_peer": _ratio(cw["memory_per_instance_mb"],
                                      _get(peer, "memory_per_instance_mb")),
    }


def _fmt(value: Any, unit: str = "", digits: int = 1) -> str:
    if value is None:
        return "n/a"
    if unit == "calls/s":
        return f"{value:,.0f}"
    if unit == "MB":
        return f"{value:.3f} MB"
    if unit == "µs":
        return f"{value:,.1f} µs"
    if unit == "×":
        return f"{value:,.{digits}f}×"
    if unit == "%":
        return f"{100 * value:.2f}%"
    return f"{value:,.{digits}f}"


def print_report(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 132)
    world, system = report["world"], report["system"]
    cw, base, peer, r = (report["compoworld"], report["baseline"], report["peer"],
                         report["ratios"])
    console.print(f"[bold]CompoWorld runtime benchmark[/bold]{' (quick)' if report['quick'] else ''}"
                  f" — python {system['python']}, sqlite {system['sqlite']}, "
                  f"pydantic {system['pydantic']}")
    console.print(f"pinned to CPU {system['pinned_cpu']} (affinity was "
                  f"{system['affinity_before']}, busy before: {system['cpu_busy_before']}, "
                  f"load average {system['loadavg_before']}); {system['cpu_model']}")
    console.print(f"mounted: {', '.join(world['services'])} — {world['rows']:,} rows, "
                  f"image {world['image_kb']:.0f} KB")
    if world["missing_headline_services"]:
        console.print(f"[yellow]not in the catalog yet: "
                      f"{', '.join(world['missing_headline_services'])} — the world has "
                      f"{world['rows']:,} rows, the targets assume ~{EXPECTED_ROWS:,}[/yellow]")
    for kind in ("read", "write"):
        w = report["workload"][kind]
        console.print(f"{kind} workload: {len(w['tools'])} tools, {w['distinct_calls']:,} distinct"
                      f" calls — {', '.join(w['tools']) or 'none'}")
        for name, why in w["dropped"].items():
            console.print(f"  [yellow]{name}: {why}[/yellow]")

    targets = Table(title="Targets")
    for col in ("figure", "value", "target", "pass"):
        targets.add_column(col, justify="left" if col == "figure" else "right")
    for t in report["targets"].values():
        unit = t["unit"]
        mark = {True: "[green]PASS[/green]", False: "[red]MISS[/red]", None: "n/a"}[t["pass"]]
        targets.add_row(t["label"], _fmt(t["value"], unit),
                        f"{t['op']} {_fmt(t['target'], unit, 0)}", mark)
    console.print(targets)

    comp = Table(title="CompoWorld vs. baseline (dicts + deepcopy) vs. peer (bfcl-eval TicketAPI)")
    for col in ("figure", "CompoWorld", "baseline", "peer", "CW vs baseline", "CW vs peer"):
        comp.add_column(col, justify="left" if col == "figure" else "right")
    comp.add_row("read calls/s", _fmt(cw["read"]["calls_per_s"], "calls/s"),
                 _fmt(base["read"]["calls_per_s"], "calls/s"),
                 _fmt(_get(peer, "read", "calls_per_s"), "calls/s"),
                 _fmt(r["read_throughput_cw_over_baseline"], "×", 2),
                 _fmt(r["read_throughput_cw_over_peer"], "×", 2))
    comp.add_row("  runs alternated: CPU time", "", "", "", "",
                 _fmt(r["read_throughput_cw_over_peer_cpu"], "×", 2))
    comp.add_row("  each side in its own block", "", "", "", "",
                 _fmt(r["read_throughput_cw_over_peer_sequential"], "×", 2))
    comp.add_row("  peer: 50 calls per invocation", "", "",
                 _fmt(_get(peer, "read_batched_50", "calls_per_s"), "calls/s"), "",
                 _fmt(r["read_throughput_cw_over_peer_batched"], "×", 2))
    comp.add_row("write calls/s", _fmt(cw["write"]["calls_per_s"], "calls/s"),
                 _fmt(base["write"]["calls_per_s"], "calls/s"),
                 _fmt(_get(peer, "write", "calls_per_s"), "calls/s"),
                 _fmt(r["write_throughput_cw_over_baseline"], "×", 2),
                 _fmt(r["write_throughput_cw_over_peer"], "×", 2))
    comp.add_row("  runs alternated: CPU time", "", "", "", "",
                 _fmt(r["write_throughput_cw_over_peer_cpu"], "×", 2))
    comp.add_row("  each side in its own block", "", "", "", "",
                 _fmt(r["write_throughput_cw_over_peer_sequential"], "×", 2))
    comp.add_row("read success", _fmt(cw["read"]["success_rate"], "%"),
                 _fmt(base["read"]["success_rate"], "%"),
                 _fmt(_get(peer, "read", "success_rate"), "%"), "", "")
    comp.add_row("write success", _fmt(cw["write"]["success_rate"], "%"),
                 _fmt(base["write"]["success_rate"], "%"),
                 _fmt(_get(peer, "write", "success_rate"), "%"), "", "")
    comp.add_row("reset, median (p95)",
                 f"{_fmt(cw['reset_us']['median'], 'µs')} ({cw['reset_us']['p95']:,.1f})",
                 f"{_fmt(base['reset_us']['median'], 'µs')} ({base['reset_us']['p95']:,.1f})",
                 _fmt(_get(peer, "rebuild_us", "median"), "µs") + " rebuild",
                 _fmt(r["reset_speedup_vs_baseline"], "×") + " faster",
                 _fmt(r["reset_speedup_vs_peer_rebuild"], "×") + " faster")
    comp.add_row(f"  peer rebuild at {_get(peer, 'rebuild_scaled_us', 'tickets') or 'n/a'} tickets"
                 " (= CW rows)", "", "", _fmt(_get(peer, "rebuild_scaled_us", "median"), "µs"), "",
                 _fmt(r["reset_speedup_vs_peer_rebuild_same_size"], "×") + " faster")
    comp.add_row("new instance, median (p95)",
                 f"{_fmt(cw['new_instance_us']['median'], 'µs')} "
                 f"({cw['new_instance_us']['p95']:,.1f})",
                 f"{_fmt(base['new_instance_us']['median'], 'µs')} "
                 f"({base['new_instance_us']['p95']:,.1f})",
                 _fmt(_get(peer, "new_instance_us", "median"), "µs"),
                 _fmt(r["new_instance_speedup_vs_baseline"], "×") + " faster",
                 _fmt(r["new_instance_speedup_vs_peer"], "×") + " faster")
    comp.add_row("memory per instance", _fmt(cw["memory_per_instance_mb"], "MB"),
                 _fmt(base["memory_per_instance_mb"], "MB"),
                 _fmt(_get(peer, "memory_per_instance_mb"), "MB"),
                 _fmt(r["memory_cw_over_baseline"], "×", 2),
                 _fmt(r["memory_cw_over_peer"], "×", 2))
    comp.add_row("state", f"{world['rows']:,} rows, {len(world['services'])} services",
                 f"{world['rows']:,} rows as dicts",
                 f"{peer.get('tickets', 'n/a')} tickets" if peer["available"] else "", "", "")
    console.print(comp)
    tools = Table(title="CompoWorld calls/s per tool (each alone, one run)")
    for col in ("tool", "kind", "calls/s", "µs/call"):
        tools.add_column(col, justify="left" if col == "tool" else "right")
    for kind in ("read", "write"):
        for name, rate in cw[kind].get("per_tool_calls_per_s", {}).items():
            tools.add_row(name, kind, _fmt(rate, "calls/s"),
                          f"{1e6 / rate:.1f}" if rate else "n/a")
    console.print(tools)
    if not peer["available"]:
        console.print(f"[yellow]peer unavailable: {peer['reason']} — set it up with: "
                      f"{peer['setup']}[/yellow]")
    else:
        console.print(f"peer: bfcl-eval {peer['bfcl_eval']}, {peer['backend']} via {peer['path']}"
                      " (one call per invocation unless noted; no argument validation)")
    other = system["pinned_cpu_other_share"]
    if other is not None and other > 0.05:
        console.print(f"[bold yellow]other processes used {100 * other:.0f}% of CPU "
                      f"{system['pinned_cpu']} during the run: the figures are noisy "
                      "(run again on a quiet machine)[/bold yellow]")
    if report["missed"]:
        console.print(f"[bold red]targets missed: {', '.join(report['missed'])}[/bold red]")
    else:
        console.print("[bold green]all targets met[/bold green]")

