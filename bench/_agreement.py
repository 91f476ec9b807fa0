"""Per-tool agreement between a real implementation and the compiled service: one way of
counting, shared by the MCP servers (``bench/fidelity.py``) and bfcl-eval's backends
(``bench/fidelity_bfcl.py``).

Every call lands in one of four outcomes: both answered, only ours, only the real one, both
refused. A call both refused says nothing about the tool (an id neither holds, an argument both
reject) and is never agreement: ``agreement`` is the share both answered of the calls at least
one side answered (``None`` when there was none: the tool is ``unmeasured``). ``shape`` is the
share, of the calls both answered with a JSON object, whose keys overlap.
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
            "real_only", "agreement", "shape", "verdict")

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
            "real_only": 0, "shaped": 0, "overlap": 0}


def count(row: dict[str, Any], our_ok: bool, real_ok: bool, ours: Any, real: Any) -> str:
    """Count one call's outcome (and, both having answered objects, whether keys overlap)."""
    outcome = OUTCOMES[(our_ok, real_ok)]
    row["calls"] += 1
    row[outcome] += 1
    if our_ok and real_ok and isinstance(ours, dict) and isinstance(real, dict):
        row["shaped"] += 1
        row["overlap"] += bool(set(ours) & set(real))
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
        row["verdict"] = verdict(row["agreement"], least)


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Tools run and measured, faithful, agreement min / median, moved to simulated."""
    agreements = [r["agreement"] for r in rows if r["agreement"] is not None]
    return {
        "tools_run": len(rows),
        "tools_measured": len(agreements),
        "unmeasured": len(rows) - len(agreements),
        "faithful": sum(r["verdict"] == "faithful" for r in rows),
        "agreement_min": min(agreements) if agreements else None,
        "agreement_median": statistics.median(agreements) if agreements else None,
        "moved_to_simulated": sum(r["verdict"] == "unfaithful" for r in rows),
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
        shape = "n/a" if r["shape"] is None else f"{r['shape']:.0%}"
        agreement = "n/a" if r["agreement"] is None else f"{r['agreement']:.0%}"
        print(f"  {tool:40s} agreement {agreement:>4s} (both answered {r['both_ok']}, "
              f"only ours {r['ours_only']}, only real {r['real_only']}, both refused "
              f"{r['both_refused']} of {r['calls']}) shape {shape} {r['verdict']}")
