"""The summary page's figures, computed once in Python: pass rates per criterion kind and per
capability, reward distributions, the most-failed criteria, what the tasks cover."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

BINS = 10
_TARGET = re.compile(r"^(?:s\d+-|call-)?(.+?)(?:-(?:new|gone|[a-z]+_[0-9a-f]{6,}))?$")


def target(criterion_id: str) -> str:
    """What a criterion checks across tasks: its table or tool, without step and record ids.

    Example:
        >>> target("s2-mailscript__user-use_2f2d827a"), target("call-mail__send"), target("no-collateral")
        ('mailscript__user', 'mail__send', 'no-collateral')
    """
    match = _TARGET.match(criterion_id)
    return match.group(1) if match else criterion_id


def summarize_bundle(tasks: list[dict[str, Any]], runs: list[dict[str, Any]],
                     run_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Figures over every task and trajectory given (JSON-able)."""
    scored = [(run, row) for run, row in zip(runs, run_rows, strict=True) if run["scored"] is not None]
    checked: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    fails: dict[tuple[Any, str], list[int]] = defaultdict(lambda: [0, 0])
    by_target: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    described = _descriptions(tasks)
    for run, _ in scored:
        task_id = run["trajectory"].get("task_id")
        for c in run["scored"].get("criteria") or []:
            kind = str(c.get("kind"))
            checked[kind] += 1
            passed[kind] += bool(c.get("passed"))
            counts = fails[(task_id, str(c.get("id")))]
            counts[1] += 1
            counts[0] += not c.get("passed")
            family = by_target[(kind, target(str(c.get("id"))))]
            family[1] += 1
            family[0] += not c.get("passed")
    by_cap: dict[str, list[float]] = defaultdict(list)
    by_agent: dict[str, list[float]] = defaultdict(list)
    for _, row in scored:
        for cap in row["caps"]:
            by_cap[cap].append(row["score"] or 0.0)
        by_agent[row["agent"] or "?"].append(row["score"] or 0.0)
    most_failed = sorted(((f, n, task, cid) for (task, cid), (f, n) in fails.items() if f),
                         key=lambda x: (-x[0] / x[1], -x[0], x[2], x[3]))[:25]
    n = len(scored)
    return {
        "tasks": len(tasks), "runs": len(runs), "scored": n,
        "full_completion": _mean([row["score"] or 0.0 for _, row in scored]),
        "mean_rubric": _mean([row["rubric"] or 0.0 for _, row in scored]),
        "mean_cfr": _mean([row["reward"] for _, row in scored if row["reward"] is not None]),
        "env_errors": sum(row["env_errors"] for row in run_rows),
        "agent_errors": sum(row["agent_errors"] for row in run_rows),
        "mismatched": sum(1 for row in run_rows if row["mismatches"]),
        "by_kind": [{"name": k, "rate": passed[k] / checked[k], "n": checked[k]} for k in sorted(checked)],
        "by_capability": [{"name": k, "rate": _mean(v), "n": len(v)} for k, v in sorted(by_cap.items())],
        "by_agent": [{"name": k, "rate": _mean(v), "n": len(v)} for k, v in sorted(by_agent.items())],
        "histograms": {
            "rubric score": _histogram([row["rubric"] for _, row in scored]),
            "CFR reward": _histogram([row["reward"] for _, row in scored]),
        },
        "finish": dict(Counter(str(row["finish"]) for row in run_rows).most_common()),
        "most_failed": [{"task": task, "id": cid, "failed": f, "checked": c,
                         "kind": described.get((task, cid), ("", ""))[0],
                         "description": described.get((task, cid), ("", ""))[1]}
                        for f, c, task, cid in most_failed],
        "failed_by_target": _worst(by_target),
        "task_capabilities": dict(Counter(c for t in tasks for c in (t.get("labels") or {})
                                          .get("capabilities") or []).most_common()),
        "task_lengths": dict(sorted(Counter(len(t.get("plan") or []) for t in tasks).items())),
        "task_interfaces": dict(Counter(str(t.get("interface")) for t in tasks).most_common()),
    }


def _worst(by_target: dict[tuple[str, str], list[int]], n: int = 20) -> list[dict[str, Any]]:
    failing = [(k, t, f, c) for (k, t), (f, c) in by_target.items() if f]
    failing.sort(key=lambda x: (-x[2] / x[3], -x[3], x[0], x[1]))
    return [{"kind": k, "target": t, "failed": f, "checked": c} for k, t, f, c in failing[:n]]


def _descriptions(tasks: list[dict[str, Any]]) -> dict[tuple[Any, Any], tuple[str, str]]:
    return {(t.get("id"), c.get("id")): (str(c.get("kind", "")), str(c.get("description", "")))
            for t in tasks for c in t.get("rubric") or [] if isinstance(c, dict)}


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _histogram(values: list[float | None]) -> list[int]:
    """Counts over ``BINS`` equal bins of ``[0, 1]`` (1.0 falls in the last)."""
    counts = [0] * BINS
    for v in values:
        if v is not None:
            counts[min(BINS - 1, max(0, int(v * BINS)))] += 1
    return counts
