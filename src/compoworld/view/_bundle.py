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
from compoworld.view._files import Records, Source, read_source
from compoworld.view._summary import summarize_bundle

CHUNKS = {"tasks": 50, "runs": 10}
"""Records per data chunk: a task or trajectory page loads one chunk, never the file (a
trajectory with its calls and results can weigh 100 KB, hence the smaller chunks)."""


@dataclass
class Bundle:
    """Everything the page shows, indexed; the records stay on disk until a page opens them.

    Attributes:
        sources: The files read, in order.
        files: Each file's records (heads in memory, bodies read by offset).
        tasks: (file, position) of each task.
        runs: (file, position) of each trajectory, scored or not.
        index: The JSON-able index the page loads first.
    """

    sources: list[Source]
    files: list[Records]
    tasks: list[tuple[int, int]]
    runs: list[tuple[int, int]]
    index: dict[str, Any] = field(default_factory=dict)
    _toolsets: dict[str, tuple[int, int]] = field(default_factory=dict)

    def head(self, ref: tuple[int, int]) -> dict[str, Any]:
        """The head of a record (the fields the index reads)."""
        return self.files[ref[0]].heads[ref[1]]

    def task(self, i: int) -> dict[str, Any]:
        """Task ``i`` as its file holds it."""
        return self._read([self.tasks[i]])[0]

    def run(self, i: int) -> dict[str, Any]:
        """Trajectory ``i`` as the page gets it (see :meth:`script`)."""
        return self._run(self.runs[i], self._read([self.runs[i]])[0])

    @property
    def toolsets(self) -> list[str]:
        """The keys of the tool lists met so far (one per world, whatever its rollouts)."""
        return list(self._toolsets)

    def data_files(self) -> Iterator[tuple[str, bytes]]:
        """Every data file of the viewer, as (path under ``data/``, bytes)."""
        yield "index.js", self.script("index")
        for kind in ("tasks", "runs"):
            for n in range(_chunks(kind, len(getattr(self, kind)))):
                yield f"{kind}/{n}.js", self.script(f"{kind}/{n}")
        for key in list(self._toolsets):  # every run chunk was made: every toolset is known
            yield f"tools/{key}.js", self.script(f"tools/{key}")

    def script(self, name: str) -> bytes:
        """The data file ``data/<name>.js``.

        Raises:
            KeyError: No such data file.
        """
        value: Any
        kind, _, key = name.partition("/")
        if name == "index":
            value = self.index
        elif kind == "tools" and key in self._toolsets:
            file, at = self._toolsets[key]
            record = self.files[file].read([at])[0]
            holder = (record.get("trajectory") or {}) if self.files[file].kind == "scored" else record
            value = holder.get("tools")
        elif kind in CHUNKS and key.isdigit() and int(key) < _chunks(kind, len(getattr(self, kind))):
            size = CHUNKS[kind]
            refs = getattr(self, kind)[int(key) * size:(int(key) + 1) * size]
            records = self._read(refs)
            value = records if kind == "tasks" else [
                self._run(ref, r) for ref, r in zip(refs, records, strict=True)]
        else:
            raise KeyError(name)
        body = orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS)
        return b"CW.receive(" + orjson.dumps(name) + b"," + body + b");\n"

    def _read(self, refs: list[tuple[int, int]]) -> list[dict[str, Any]]:
        by_file: dict[int, list[int]] = {}
        for file, at in refs:
            by_file.setdefault(file, []).append(at)
        read = {file: dict(zip(ats, self.files[file].read(ats), strict=True))
                for file, ats in by_file.items()}
        return [read[file][at] for file, at in refs]

    def _run(self, ref: tuple[int, int], record: dict[str, Any]) -> dict[str, Any]:
        """A trajectory for the page: ``trajectory`` (tools replaced by a toolset key),
        ``scored`` (the scores without the trajectory, or None)."""
        if self.files[ref[0]].kind == "scored":
            trajectory = dict(record.get("trajectory") or {})
            scored: dict[str, Any] | None = {k: v for k, v in record.items() if k != "trajectory"}
        else:
            trajectory, scored = record, None
        tools = trajectory.pop("tools", None)
        if isinstance(tools, list):
            key = hashlib.blake2b(orjson.dumps(tools), digest_size=8).hexdigest()
            self._toolsets.setdefault(key, ref)
            trajectory["tools"] = {"toolset": key, "count": len(tools)}
        return {"file": ref[0], "trajectory": trajectory, "scored": scored}


def build_bundle(paths: Sequence[str | Path]) -> Bundle:
    """Read tasks, rollouts and scored files and index them for the viewer.

    A trajectory given both in a rollouts file and (scored) in a scored file is shown once,
    with its scores.

    Raises:
        UserError: A file is missing or is not a tasks, rollouts or scored file.
    """
    sources: list[Source] = []
    files: list[Records] = []
    for path in paths:
        source, records = read_source(path)
        sources.append(source)
        files.append(records)
    tasks = [(f, i) for f, r in enumerate(files) if r.kind == "tasks" for i in range(len(r))]
    runs = [(f, i) for f, r in enumerate(files) if r.kind != "tasks" for i in range(len(r))]
    bundle = Bundle(sources, files, tasks, _drop_unscored_duplicates(files, runs))
    bundle.index = _index(bundle)
    return bundle


def _drop_unscored_duplicates(files: list[Records], runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    def key(ref: tuple[int, int]) -> tuple[Any, ...]:
        head = files[ref[0]].heads[ref[1]]
        t = head.get("trajectory", head)
        return t.get("task_id"), t.get("rollout_idx"), t.get("agent"), t.get("model")

    scored = {key(r) for r in runs if files[r[0]].kind == "scored"}
    return [r for r in runs if files[r[0]].kind == "scored" or key(r) not in scored]


def _chunks(kind: str, n: int) -> int:
    return (n + CHUNKS[kind] - 1) // CHUNKS[kind]


def _index(bundle: Bundle) -> dict[str, Any]:
    tasks = [bundle.head(ref) for ref in bundle.tasks]
    runs: list[dict[str, Any]] = []
    for ref in bundle.runs:
        head = bundle.head(ref)
        scored = bundle.files[ref[0]].kind == "scored"
        runs.append({"file": ref[0], "trajectory": head["trajectory"] if scored else head,
                     "scored": head if scored else None})
    task_at = {t.get("id"): i for i, t in enumerate(tasks)}
    groups: dict[tuple[int, str], list[int]] = {}
    for i, run in enumerate(runs):
        groups.setdefault((run["file"], run["trajectory"].get("task_id")), []).append(i)
    rewards: dict[int, dict[str, float]] = {}
    group_rows = []
    for (file, task_id), members in groups.items():
        members.sort(key=lambda i: runs[i]["trajectory"].get("rollout_idx") or 0)
        weights, per_run = _group_rewards([runs[i]["scored"] for i in members])
        rewards.update(zip(members, per_run, strict=True))
        group_rows.append({"task": task_id, "t": task_at.get(task_id, -1), "file": file,
                           "runs": members, "cfr_weights": weights})
    run_rows = [_run_row(i, run, task_at, tasks, rewards.get(i, {})) for i, run in enumerate(runs)]
    runs_of_task: dict[Any, list[int]] = {}
    for i, run in enumerate(runs):
        runs_of_task.setdefault(run["trajectory"].get("task_id"), []).append(i)
    task_rows = [_task_row(i, t, [run_rows[j] for j in runs_of_task.get(t.get("id"), [])])
                 for i, t in enumerate(tasks)]
    return {
        "chunks": CHUNKS,
        "sources": [{"path": s.path, "name": Path(s.path).name, "kind": s.kind, "count": s.count,
                     "notes": list(s.notes)} for s in bundle.sources],
        "tasks": task_rows,
        "runs": run_rows,
        "groups": group_rows,
        "summary": summarize_bundle(tasks, runs, run_rows),
    }


def _group_rewards(scored: list[dict[str, Any] | None]) -> tuple[list[float] | None, list[dict[str, float]]]:
    """CFR weights of a group and each rollout's rewards (binary, uniform, CFR); nothing for a
    group with an unscored rollout or rubrics of different lengths."""
    if any(s is None for s in scored):
        return None, [{} for _ in scored]
    passes = [[float(p or 0) for p in s["passes"]] for s in scored if s is not None]
    base = scored[0]["weights"] if scored[0] is not None else []
    if (not passes or len({len(p) for p in passes}) != 1 or len(base) != len(passes[0]) or not base
            or None in base):
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
    calls = t.get("calls") or {}
    env = calls.get("env_errors", 0)
    at = task_at.get(t.get("task_id"), -1)
    labels = s.get("labels") or (tasks[at].get("labels") if at >= 0 else None) or {}
    return {
        "i": i, "task": t.get("task_id"), "t": at,
        "r": t.get("rollout_idx"), "agent": t.get("agent"), "model": t.get("model"),
        "file": run["file"], "finish": t.get("finish_reason"), "calls": calls.get("n", 0),
        "agent_errors": calls.get("agent_errors", 0), "env_errors": max(env, int(s.get("env_errors") or 0)),
        "mismatches": len(s.get("replay_mismatches") or []),
        "score": s.get("score"), "rubric": s.get("rubric_score"),
        "failed": [c.get("id") for c in s.get("criteria") or [] if not c.get("passed")],
        "caps": labels.get("capabilities") or [], "domain": labels.get("domain"),
        "reward": rewards.get("cfr"), "rewards": rewards,
    }
