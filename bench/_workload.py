"""The read and write workloads: which tools are called, with which precomputed arguments."""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from compoworld.service import Environment, Param, Service, Tool, qualified_name

READ_IDS_PER_TOOL = 1000
WRITE_IDS_PER_TOOL = 500
FREE_TEXT_PREFERENCE = ("notes", "note", "description", "body", "comment", "summary", "memo",
                        "title", "subject", "name")


@dataclass
class Workload:
    """Precomputed ``(qualified tool name, arguments)`` calls and how they were chosen."""

    kind: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    alternate: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)
    per_tool: dict[str, list[list[tuple[str, dict[str, Any]]]]] = field(default_factory=dict)

    def passes(self) -> list[list[tuple[str, dict[str, Any]]]]:
        """The lists to cycle: writes alternate two value sets so every update changes a value."""
        return [self.calls, self.alternate] if self.alternate else [self.calls]


def _is_free_text(param: Param) -> bool:
    """A plain ``str`` / ``str | None`` parameter without a semantic type (free text)."""
    if param.semantic is not None:
        return False
    annotation = param.annotation
    if annotation is str:
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(annotation) if a is not type(None)] == [str]
    return False


def _single_ref(tool: Tool) -> Param | None:
    """The tool's only required parameter, if there is exactly one and it is a Ref."""
    required = [p for p in tool.params if p.required]
    if len(required) == 1 and required[0].ref is not None:
        return required[0]
    return None


def _interleave(per_tool: dict[str, list[dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    longest = max((len(v) for v in per_tool.values()), default=0)
    return [(name, args[i % len(args)]) for i in range(longest)
            for name, args in per_tool.items()]


def _ids(env: Environment, service: Service, entity: str, rows: dict[str, list[dict[str, Any]]],
         cap: int) -> list[str]:
    return [r["id"] for r in rows[service.tables[entity].name][:cap]]


def _preflight(env: Environment, name: str, passes: Sequence[list[dict[str, Any]]],
               repeats: int) -> tuple[list[int], int, str | None, int]:
    """Run ``repeats`` rounds of every pass on a fresh fork.

    Returns the indexes whose calls all succeeded, the number of failed calls, the first
    error, and the change in the total row count.
    """
    probe = env.fork()
    before = sum(map(len, probe.rows().values()))
    bad: set[int] = set()
    failed, first = 0, None
    for _ in range(repeats):
        for arglist in passes:
            for i, args in enumerate(arglist):
                result = probe.call(name, args)
                if not result["success"]:
                    bad.add(i)
                    failed += 1
                    first = first or str(result["error"])
    delta = sum(map(len, probe.rows().values())) - before
    probe.close()
    return [i for i in range(len(passes[0])) if i not in bad], failed, first, delta


def read_workload(env: Environment, rows: dict[str, list[dict[str, Any]]]) -> Workload:
    """Point reads: every ``get_*`` read tool whose required parameters are exactly one Ref.

    Each tool cycles over the seeded ids of its entity; ids whose call fails in a preflight on
    a fork are dropped and reported (a seeded id that cannot be read is a catalog bug).
    """
    work = Workload("read")
    per_tool: dict[str, list[dict[str, Any]]] = {}
    for service in env.services.values():
        for tool in service.tools.values():
            name = qualified_name(service.name, tool.name)
            ref = _single_ref(tool)
            if tool.kind != "read" or ref is None or not tool.name.startswith("get_"):
                continue
            assert ref.ref is not None
            ids = _ids(env, service, ref.ref, rows, READ_IDS_PER_TOOL)
            arglist = [{ref.name: i} for i in ids]
            good, failed, first, _ = _preflight(env, name, [arglist], 1)
            if failed:
                work.dropped[name] = (f"{len(ids) - len(good)}/{len(ids)} ids dropped, "
                                       f"preflight failed, e.g. {first}")
            if not good:
                work.dropped.setdefault(name, f"no seeded {ref.ref} records")
                continue
            per_tool[name] = [arglist[i] for i in good]
            work.tools[name] = {"param": ref.name, "entity": ref.ref,
                                "table": service.tables[ref.ref].name, "ids": len(good)}
    work.calls = _interleave(per_tool)
    work.per_tool = {n: [[(n, a) for a in v]] for n, v in per_tool.items()}
    return work


def write_workload(env: Environment, rows: dict[str, list[dict[str, Any]]]) -> Workload:
    """Repeatable in-place updates: write tools taking one required Ref plus optional free text.

    Each candidate sets its free-text field on the seeded ids of its entity, with distinct
    values. On a fresh fork, two rounds of two value sets are run: ids with any failing call
    are dropped (e.g. a sent message is not an editable draft), and a tool is kept only if the
    row count did not change (an update, not an insert or delete).
    """
    work = Workload("write")
    per_tool: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    rank = {n: i for i, n in enumerate(FREE_TEXT_PREFERENCE)}
    for service in env.services.values():
        for tool in service.tools.values():
            name = qualified_name(service.name, tool.name)
            ref = _single_ref(tool)
            if tool.kind != "write" or ref is None:
                continue
            texts = [p for p in tool.params if not p.required and _is_free_text(p)]
            if not texts:
                continue
            text = min(texts, key=lambda p: rank.get(p.name, len(rank)))
            assert ref.ref is not None
            ids = _ids(env, service, ref.ref, rows, WRITE_IDS_PER_TOOL)
            passes = tuple(
                [{ref.name: record_id, text.name: f"benchmark {text.name} {i}{suffix}"}
                 for i, record_id in enumerate(ids)]
                for suffix in ("a", "b")
            )
            good, failed, first, delta = _preflight(env, name, passes, 2) if ids else ([], 0,
                                                                                      None, 0)
            if delta:
                work.dropped[name] = f"not an in-place update (row count changed by {delta})"
                continue
            if failed:
                work.dropped[name] = (f"{len(ids) - len(good)}/{len(ids)} ids dropped, "
                                       f"preflight failed, e.g. {first}")
            if not good:
                work.dropped.setdefault(name, f"no seeded {ref.ref} records")
                continue
            per_tool[name] = ([passes[0][i] for i in good], [passes[1][i] for i in good])
            work.tools[name] = {"param": ref.name, "entity": ref.ref, "field": text.name,
                                "table": service.tables[ref.ref].name, "ids": len(good)}
    work.calls = _interleave({n: p[0] for n, p in per_tool.items()})
    work.alternate = _interleave({n: p[1] for n, p in per_tool.items()})
    work.per_tool = {n: [[(n, a) for a in v] for v in p] for n, p in per_tool.items()}
    return work

