"""The cross-service dependency graph: which tool's output can feed which tool's input."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from compoworld.service import SEPARATOR, Param, Service, Tool
from compoworld.types import get_type

Key = tuple[str, ...]
"""What flows along an edge: ``("type", "Email")`` or ``("ref", service, entity)``."""


def _output_keys(schema: Any, service: str) -> Iterator[Key]:
    """Every semantic type and entity reference anywhere in an output schema."""
    if isinstance(schema, dict):
        if "x-semantic-type" in schema:
            yield ("type", schema["x-semantic-type"])
        if "x-ref" in schema:
            yield ("ref", service, schema["x-ref"])
        for value in schema.values():
            yield from _output_keys(value, service)
    elif isinstance(schema, list):
        for value in schema:
            yield from _output_keys(value, service)


def param_key(param: Param, service: str) -> Key | None:
    """What a parameter needs, as a graph key (None for untyped text, numbers, flags)."""
    if param.ref:
        return ("ref", service, param.ref)
    if param.semantic:
        return ("type", param.semantic)
    return None


def user_suppliable(param: Param) -> bool:
    """Whether a user could state this value in an instruction (a name, an email, a date, free
    text) rather than the agent having to look it up (an id)."""
    if param.ref:
        return False
    return param.semantic is None or get_type(param.semantic).knowable


def statable(param: Param) -> bool:
    """Whether a user can state a value for this parameter (one of fixed choices, or a value
    of a knowable semantic type): what a walk may start from."""
    return bool(param.choices) or (param.semantic not in (None, "Ref")
                                   and get_type(param.semantic).knowable)


@dataclass(frozen=True)
class Node:
    """A tool in the graph (plain data: what the index on disk holds of a tool).

    Attributes:
        statable: Parameters a user can state (see :func:`statable`).
    """

    name: str
    service: str
    kind: str
    outputs: frozenset[Key]
    inputs: dict[str, Key | None]
    suppliable: dict[str, bool]
    required: frozenset[str]
    statable: frozenset[str] = frozenset()
    lists: bool = False
    """Whether the tool's answer holds a list of records (:func:`lists_records`)."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "service": self.service, "kind": self.kind,
                "outputs": sorted(self.outputs), "inputs": self.inputs,
                "suppliable": self.suppliable, "required": sorted(self.required),
                "statable": sorted(self.statable), "lists": self.lists}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Node:
        return cls(name=data["name"], service=data["service"], kind=data["kind"],
                   outputs=frozenset(tuple(k) for k in data["outputs"]),
                   inputs={p: (tuple(k) if k else None) for p, k in data["inputs"].items()},
                   suppliable=data["suppliable"], required=frozenset(data["required"]),
                   statable=frozenset(data["statable"]), lists=bool(data.get("lists")))


@dataclass(frozen=True)
class Edge:
    """``source`` returns something ``target`` needs: ``via`` lists what, per parameter."""

    source: str
    target: str
    via: tuple[tuple[str, Key], ...]

    @property
    def cross_service(self) -> bool:
        return self.source.split(SEPARATOR)[0] != self.target.split(SEPARATOR)[0]


class DependencyGraph:
    """Nodes are tools (``service__tool``); an edge A → B exists where a field A returns has the
    semantic type (or entity reference) of a parameter B takes. Edges across services are what
    composition adds.

    The graph is stored as an index, linear in the number of tools: per key (a semantic type
    or an entity reference), the tools that return it and the parameters that take it. Edges
    are found through it (:meth:`successors`, :meth:`consumers`); :attr:`edges` lists them all
    (for exports and statistics: it grows with the square of the tools, so nothing that runs
    per task asks for it).

    Example:
        >>> from compoworld.catalog import load_services
        >>> graph = build_graph(load_services(["contacts", "mail"]))
        >>> any(e.cross_service for e in graph.edges)
        True
    """

    def __init__(self, nodes: dict[str, Node] | None = None) -> None:
        self.nodes: dict[str, Node] = nodes if nodes is not None else {}
        self._needs: dict[Key, list[tuple[str, str]]] = {}
        self._makes: dict[Key, list[str]] = {}
        self._indexed = -1

    def _index(self) -> None:
        if self._indexed == len(self.nodes):
            return
        needs: dict[Key, list[tuple[str, str]]] = defaultdict(list)
        makes: dict[Key, list[str]] = defaultdict(list)
        for node in self.nodes.values():
            for param, key in node.inputs.items():
                if key is not None:
                    needs[key].append((node.name, param))
            for key in node.outputs:
                makes[key].append(node.name)
        self._needs, self._makes, self._indexed = dict(needs), dict(makes), len(self.nodes)

    def consumers(self, key: Key) -> list[tuple[str, str]]:
        """``(tool, parameter)`` pairs that take a value of ``key``, in node order."""
        self._index()
        return self._needs.get(key, [])

    def producers(self, key: Key) -> list[str]:
        """Tools whose answers hold a value of ``key``, in node order."""
        self._index()
        return self._makes.get(key, [])

    def taken_keys(self) -> list[Key]:
        """Every key some parameter takes."""
        self._index()
        return list(self._needs)

    def successors(self, name: str) -> list[Edge]:
        """Edges out of ``name``, by target name (found through the index)."""
        source = self.nodes[name]
        via: dict[str, list[tuple[str, Key]]] = defaultdict(list)
        for key in sorted(source.outputs):
            for target, param in self.consumers(key):
                if target != name:
                    via[target].append((param, key))
        return [Edge(name, target, tuple(via[target])) for target in sorted(via)]

    def predecessors(self, name: str) -> list[Edge]:
        """Edges into ``name``, in node order of their sources."""
        sources = {s for key in self.nodes[name].inputs.values() if key is not None
                   for s in self.producers(key) if s != name}
        return [e for s in self.nodes if s in sources for e in self.successors(s)
                if e.target == name]

    @property
    def edges(self) -> list[Edge]:
        """Every edge, source by source (quadratic in the tools: for exports and stats)."""
        return [e for name in self.nodes for e in self.successors(name)]

    def stats(self) -> dict[str, Any]:
        """Counts and spreads: nodes, edges, cross-service edges, components, degrees."""
        out_degree: dict[str, int] = defaultdict(int)
        in_degree: dict[str, int] = defaultdict(int)
        by_key: dict[str, int] = defaultdict(int)
        edges = self.edges
        for edge in edges:
            out_degree[edge.source] += 1
            in_degree[edge.target] += 1
            for _, key in edge.via:
                by_key[key[1] if key[0] == "type" else "Ref"] += 1

        def spread(degrees: dict[str, int]) -> dict[str, float]:
            values = [degrees.get(n, 0) for n in self.nodes] or [0]
            return {"min": min(values), "median": statistics.median(values), "max": max(values),
                    "mean": round(statistics.fmean(values), 2)}

        components = self.components()
        return {
            "nodes": len(self.nodes),
            "edges": len(edges),
            "cross_service_edges": sum(e.cross_service for e in edges),
            "services": len({n.service for n in self.nodes.values()}),
            "components": len(components),
            "largest_component": max((len(c) for c in components), default=0),
            "isolated_tools": sum(len(c) == 1 for c in components),
            "out_degree": spread(out_degree),
            "in_degree": spread(in_degree),
            "edges_by_type": dict(sorted(by_key.items(), key=lambda kv: (-kv[1], kv[0]))),
        }

    def components(self) -> list[set[str]]:
        """Weakly connected components, largest first (through the index: linear)."""
        parent = {n: n for n in self.nodes}

        def root(n: str) -> str:
            while parent[n] != n:
                parent[n] = parent[parent[n]]
                n = parent[n]
            return n

        self._index()
        for key, needs in self._needs.items():
            makers = self._makes.get(key, [])
            tools = list(dict.fromkeys([*makers, *(t for t, _ in needs)]))
            if makers and len(tools) > 1 and not (len(makers) == 1 and all(
                    t == makers[0] for t, _ in needs)):  # an edge exists: all of them are joined
                for tool in tools[1:]:
                    parent[root(tool)] = root(tools[0])
        groups: dict[str, set[str]] = defaultdict(set)
        for n in self.nodes:
            groups[root(n)].add(n)
        return sorted(groups.values(), key=lambda g: (-len(g), min(g)))


def _node(service: Service, tool: Tool) -> Node:
    inputs = {p.name: param_key(p, service.name) for p in tool.params}
    return Node(
        name=f"{service.name}{SEPARATOR}{tool.name}", service=service.name, kind=tool.kind,
        outputs=frozenset(_output_keys(tool.output_schema, service.name)), inputs=inputs,
        suppliable={p.name: user_suppliable(p) for p in tool.params},
        required=frozenset(p.name for p in tool.params if p.required),
        statable=frozenset(p.name for p in tool.params if statable(p)),
        lists=lists_records(tool.output_schema),
    )


def lists_records(schema: Any) -> bool:
    """Whether an output schema holds a list of records (at the top or one level down), not
    of plain values (tags, emails).

    Example:
        >>> lists_records({"type": "object", "properties": {"items": {"type": "array",
        ...     "items": {"type": "object"}}}})
        True
    """
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "array":
        return True
    return any(isinstance(p, dict) and p.get("type") == "array" and _record(p.get("items"))
               for p in (schema.get("properties") or {}).values())


def _record(schema: Any) -> bool:
    return isinstance(schema, dict) and (schema.get("type") == "object" or "properties" in schema
                                         or "$ref" in schema)


def service_nodes(service: Service) -> list[Node]:
    """The graph's nodes of one service's tools (what the on-disk index keeps per service)."""
    return [_node(service, tool) for tool in service.tools.values()]


def build_graph(services: Iterable[Service]) -> DependencyGraph:
    """The dependency graph of a set of services (e.g. a world's, or the whole catalog)."""
    return DependencyGraph({n.name: n for s in services for n in service_nodes(s)})
