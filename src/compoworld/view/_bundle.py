"""The viewer's data: an index the page filters (one small row per task and per trajectory, the
groups with their rewards, the summary) and the records themselves in chunks the page loads when
it opens one. Data flows one way: Python reads and indexes, the page renders.

Every data file is a script (``CW.receive(name, value)``), so the same files work over the local
server and from disk (a browser refuses ``fetch`` on ``file://`` but runs scripts).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from compoworld.rewards import binary, cfr, cfr_weights, uniform
from compoworld.view._files import Source, read_source
from compoworld.view._summary import summarize_bundle

CHUNK = 50
"""Records per data chunk: a task or trajectory page loads one chunk, never the file."""


@dataclass
class Bundle:
    """Everything the page shows, indexed.

    Attributes:
        sources: The files read, in order.
        tasks: Task records as the files hold them.
        runs: One dict per trajectory: ``trajectory`` (its tools replaced by a toolset key),
            ``scored`` (the scored record without the trajectory, or None), ``file``.
        toolsets: Toolset key → the tools offered (shared by every rollout of a world).
        index: The JSON-able index the page loads first.
    """

    sources: list[Source]
    tasks: list[dict[str, Any]]
    runs: list[dict[str, Any]]
    toolsets: dict[str, list[Any]] = field(default_factory=dict)
    index: dict[str, Any] = field(default_factory=dict)

    def data_files(self) -> Iterator[tuple[str, bytes]]:
        """Every data file of the viewer, as (path under ``data/``, bytes)."""
        yield "index.js", self.script("index")
        for n in range(_chunks(len(self.tasks))):
            yield f"tasks/{n}.js", self.script(f"tasks/{n}")
        for n in range(_chunks(len(self.runs))):
            yield f"runs/{n}.js", self.script(f"runs/{n}")
        for key in self.toolsets:
            yield f"tools/{key}.js", self.script(f"tools/{key}")

    def script(self, name: str) -> bytes:
        """The data file ``data/<name>.js``.

        Raises:
            KeyError: No such data file.
        """
        value: Any
        if name == "index":
            value = self.index
        else:
            kind, _, key = name.partition("/")
            if kind == "tools":
                value = self.toolsets[key]
            elif kind in ("tasks", "runs") and key.isdigit():
                records = self.tasks if kind == "tasks" else self.runs
                n = int(key)
                if n >= _chunks(len(records)):
                    raise KeyError(name)
                value = records[n * CHUNK:(n + 1) * CHUNK]
            else:
                raise KeyError(name)
        body = orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS)
        return b"CW.receive(" + orjson.dumps(name) + b"," + body + b");\n"


def build_bundle(paths: Sequence[str | Path]) -> Bundle:
    """Read tasks, rollouts and scored files and index them for the viewer.

    A trajectory given both in a rollouts file and (scored) in a scored file is shown once,
    with its scores.

    Raises:
        UserError: A file is missing or is not a tasks, rollouts or scored file.
    """
    sources: list[Source] = []
    tasks: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    toolsets: dict[str, list[Any]] = {}
    for path in paths:
        source, records = read_source(path)
        file = len(sources)
        sources.append(source)
        if source.kind == "tasks":
            tasks.extend(records)
        for record in records if source.kind != "tasks" else ():
            if source.kind == "scored":
                trajectory = record.get("trajectory") or {}
                scored = {k: v for k, v in record.items() if k != "trajectory"}
            else:
                trajectory, scored = record, None
            trajectory = dict(trajectory)
            tools = trajectory.pop("tools", None)
            if tools is not None:
                key = hashlib.blake2b(orjson.dumps(tools), digest_size=8).hexdigest()
                toolsets.setdefault(key, tools)
                trajectory["tools"] = {"toolset": key, "count": len(tools)}
            runs.append({"file": file, "trajectory": trajectory, "scored": scored})
    runs = _drop_unscored_duplicates(runs)
    bundle = Bundle(sources, tasks, runs, toolsets)
    bundle.index = _index(bundle)
    return bundle


def _drop_unscored_duplicates(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def key(run: dict[str, Any]) -> tuple[Any, ...]:
        t = run["trajectory"]
        return t.get("task_id"), t.get("rollout_idx"), t.get("agent"), t.get("model")

    scored = {key(r) for r in runs if r["scored"] is not None}
    return [r for r in runs if r["scored"] is not None or key(r) not in scored]


def _chunks(n: int) -> int:
    return (n + CHUNK - 1) // CHUNK


def _index(bundle: Bundle) -> dict[str, Any]:
    task_at = {t.get("id"): i for i, t in enumerate(bundle.tasks)}
    groups: dict[tuple[int, str], list[int]] = {}
    for i, run in enumerate(bundle.runs):
        groups.setdefault((run["file"], run["trajectory"].get("task_id")), []).append(i)
    rewards: dict[int, dict[str, float]] = {}
    group_rows = []
    for (file, task_id), members in groups.items():
        members.sort(key=lambda i: bundle.runs[i]["trajectory"].get("rollout_idx", 0))
        weights, per_run = _group_rewards([bundle.runs[i]["scored"] for i in members])
        rewards.update(zip(members, per_run, strict=True))
        group_rows.append({"task": task_id, "t": task_at.get(task_id, -1), "file": file,
                           "runs": members, "cfr_weights": weights})
    run_rows = [_run_row(i, run, task_at, bundle.tasks, rewards.get(i, {}))
                for i, run in enumerate(bundle.runs)]
    runs_of_task: dict[Any, list[int]] = {}
    for i, run in enumerate(bundle.runs):
        runs_of_task.setdefault(run["trajectory"].get("task_id"), []).append(i)
    task_rows = [_task_row(i, t, [run_rows[j] for j in runs_of_task.get(t.get("id"), [])])
                 for i, t in enumerate(bundle.tasks)]
    return {
        "chunk": CHUNK,
        "sources": [{"path": s.path, "name": Path(s.path).name, "kind": s.kind, "count": s.count,
                     "notes": list(s.notes)} for s in bundle.sources],
        "tasks": task_rows,
        "runs": run_rows,
        "groups": group_rows,
        "summary": summarize_bundle(bundle.tasks, bundle.runs, run_rows),
    }


def _group_rewards(scored: list[dict[str, Any] | None]) -> tuple[list[float] | None, list[dict[str, float]]]:
    """CFR weights of a group and each rollout's rewards (binary, uniform, CFR); nothing for a
    group with an unscored rollout or rubrics of different lengths."""
    if any(s is None for s in scored):
        return None, [{} for _ in scored]
    passes = [[float(p) for p in s["passes"]] for s in scored if s is not None]
    base = scored[0]["weights"] if scored[0] is not None else []
    if not passes or len({len(p) for p in passes}) != 1 or len(base) != len(passes[0]) or not base:
        return None, [{} for _ in scored]
    x = np.asarray([passes], dtype=np.float64)
    w = np.asarray(base, dtype=np.float64)
    schemes = {"cfr": cfr(x, weights=w)[0], "uniform": uniform(x, weights=w)[0],
               "binary": binary(x, weights=w)[0]}
    per_run = [{name: round(float(values[g]), 4) for name, values in schemes.items()}
               for g in range(len(passes))]
    return [round(float(v), 4) for v in cfr_weights(x, weights=w)[0]], per_run


def _task_row(i: int, task: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    labels = task.get("labels") or {}
    provenance = task.get("provenance") or {}
    motif = provenance.get("motif")
    if isinstance(motif, dict):
        motif = motif.get("name") or motif.get("id")
    scored = [r["score"] for r in runs if r["score"] is not None]
    gates = task.get("verification") or {}
    return {
        "i": i, "id": task.get("id"), "domain": labels.get("domain"),
        "caps": labels.get("capabilities") or [], "services": task.get("involved") or [],
        "distractors": task.get("distractors") or [], "motif": motif,
        "interface": task.get("interface"), "steps": len(task.get("plan") or []),
        "criteria": len(task.get("rubric") or []),
        "text": (task.get("instruction") or "")[:240],
        "gates_failed": [k for k, v in gates.items() if v is False],
        "runs": len(runs), "pass": round(sum(scored) / len(scored), 4) if scored else None,
    }


def _run_row(i: int, run: dict[str, Any], task_at: dict[Any, int], tasks: list[dict[str, Any]],
             rewards: dict[str, float]) -> dict[str, Any]:
    t = run["trajectory"]
    s = run["scored"] or {}
    calls = t.get("calls") or []
    failed = [c for c in calls if isinstance(c, dict) and c.get("success") is False]
    env = sum(1 for c in failed if c.get("error_source") == "environment")
    at = task_at.get(t.get("task_id"), -1)
    labels = s.get("labels") or (tasks[at].get("labels") if at >= 0 else None) or {}
    return {
        "i": i, "task": t.get("task_id"), "t": at,
        "r": t.get("rollout_idx"), "agent": t.get("agent"), "model": t.get("model"),
        "file": run["file"], "finish": t.get("finish_reason"), "calls": len(calls),
        "agent_errors": len(failed) - env, "env_errors": max(env, s.get("env_errors") or 0),
        "mismatches": len(s.get("replay_mismatches") or []),
        "score": s.get("score"), "rubric": s.get("rubric_score"),
        "failed": [c.get("id") for c in s.get("criteria") or [] if not c.get("passed")],
        "caps": labels.get("capabilities") or [], "domain": labels.get("domain"),
        "reward": rewards.get("cfr"), "rewards": rewards,
    }
