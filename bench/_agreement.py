"""Per-tool agreement between a real implementation and the compiled service: one way of
counting, shared by the MCP servers (``bench/fidelity.py``) and bfcl-eval's backends
(``bench/fidelity_bfcl.py``).

Every call lands in one of four outcomes: both answered, only ours, only the real one, both
refused. A call both refused says nothing about the tool (an id neither holds, an argument both
reject) and is never agreement: ``agreement`` is the share both answered of the calls at least
one side answered (``None`` when there was none: the tool is ``unmeasured``). ``shape`` is the
share, of the calls both answered with a JSON object, whose keys overlap; ``values``, of those
whose keys overlap, the share where every shared key but ``id`` holds the same value on both
sides (a read after the same writes showing the same effect; an id each side generates is
its own and is left out). ``values`` is reported, not part of the verdict.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

OUTCOMES = {(True, True): "both_ok", (False, False): "both_refused",
            (True, False): "ours_only", (False, True): "real_only"}
RECORDED = ("source", "calls", "informative", "both_ok", "both_refused", "ours_only",
            "real_only", "agreement", "shape", "values", "verdict")

_REFUSAL = re.compile(
    r"^\W*(error|failed|failure|invalid|unknown|cannot|can't|unable|no such)\b"
    r"|\b(not found|does not exist|doesn't exist|is required|not allowed|access denied)\b",
    re.IGNORECASE)


def refuses(value: dict[str, Any]) -> bool:
    """A JSON answer saying it refused: ``{"error": ...}``, ``{"success": false}``,
    ``{"status": "error" | "task_not_found" | "failed"}``."""
    status = value.get("status")
    return bool(value.get("error")) or value.get("success") is False or (
        isinstance(status, str) and bool(re.search(r"error|not_found|fail|invalid", status)))


def read_answer(text: str, ok: bool = True) -> tuple[bool, dict[str, Any] | None]:
    """(success, the JSON object answered or None) of a real answer given as text: a JSON
    object saying it refused (:func:`refuses`), or plain text whose first line reads as a
    refusal (``Error: ...``, ``Task not found``), is a refusal even when ``ok``."""
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return ok and not _REFUSAL.search(" ".join(text.split())[:160]), None
    if isinstance(value, dict):
        return ok and not refuses(value), value
    return ok, None


def new_row(source: str | None) -> dict[str, Any]:
    return {"source": source, "calls": 0, "both_ok": 0, "both_refused": 0, "ours_only": 0,
            "real_only": 0, "shaped": 0, "overlap": 0, "same_values": 0}


def count(row: dict[str, Any], our_ok: bool, real_ok: bool, ours: Any, real: Any) -> str:
    """Count one call's outcome (and, both having answered objects, whether keys overlap and
    the shared ones hold the same values)."""
    outcome = OUTCOMES[(our_ok, real_ok)]
    row["calls"] += 1
    row[outcome] += 1
    if our_ok and real_ok and isinstance(ours, dict) and isinstance(real, dict):
        shared = set(ours) & set(real)
        row["shaped"] += 1
        row["overlap"] += bool(shared)
        row["same_values"] += bool(shared) and all(ours[k] == real[k] for k in shared - {"id"})
    return outcome


def verdict(agreement: float | None, least: float) -> str:
    """``faithful`` / ``unfaithful`` by the agreement, ``unmeasured`` without one."""
    if agreement is None:
        return "unmeasured"
    return "faithful" if agreement >= least else "unfaithful"


def finish(rows: dict[str, dict[str, Any]], least: float) -> None:
    """Add ``informative``, ``agreement``, ``shape`` and ``verdict`` to every row."""
    for row in rows.values():
        row["informative"] = row["calls"] - row["both_refused"]
        row["agreement"] = (row["both_ok"] / row["informative"] if row["informative"]
                            else None)
        row["shape"] = row["overlap"] / row["shaped"] if row["shaped"] else None
        row["values"] = row["same_values"] / row["overlap"] if row["overlap"] else None
        row["verdict"] = verdict(row["agreement"], least)


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Tools run and measured, faithful, agreement min / median, moved to simulated, and the
    median ``values`` of the tools that have one."""
    agreements = [r["agreement"] for r in rows if r["agreement"] is not None]
    values = [r["values"] for r in rows if r.get("values") is not None]
    return {
        "tools_run": len(rows),
        "tools_measured": len(agreements),
        "unmeasured": len(rows) - len(agreements),
        "faithful": sum(r["verdict"] == "faithful" for r in rows),
        "agreement_min": min(agreements) if agreements else None,
        "agreement_median": statistics.median(agreements) if agreements else None,
        "moved_to_simulated": sum(r["verdict"] == "unfaithful" for r in rows),
        "values_measured": len(values),
        "values_median": statistics.median(values) if values else None,
    }


def write_measurements(path: Path, summary: dict[str, Any],
                       services: dict[str, dict[str, dict[str, Any]]]) -> None:
    """``{"summary", "servers": {service: {tool: measurement}}}``: what
    :func:`compoworld.compiler.apply_fidelity` and ``catalog build --fidelity`` read."""
    measured = {service: {tool: {k: row[k] for k in RECORDED} for tool, row in sorted(rows.items())}
                for service, rows in sorted(services.items())}
    path.write_text(json.dumps({"summary": summary, "servers": measured}, indent=1,
                               sort_keys=True) + "\n")


def print_rows(rows: dict[str, dict[str, Any]]) -> None:
    for tool, r in rows.items():
        agreement, shape, values = ("n/a" if r[k] is None else f"{r[k]:.0%}"
                                    for k in ("agreement", "shape", "values"))
        print(f"  {tool:40s} agreement {agreement:>4s} (both answered {r['both_ok']}, "
              f"only ours {r['ours_only']}, only real {r['real_only']}, both refused "
              f"{r['both_refused']} of {r['calls']}) shape {shape} values {values} "
              f"{r['verdict']}")
