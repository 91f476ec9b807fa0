"""The cross-service dependency graph: which tool's output can feed which tool's input."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Node:
    """A tool in the graph."""

    name: str
    service: str
    kind: str
    outputs: frozenset[Key]
    inputs: dict[str, Key | None]
    suppliable: dict[str, bool]
    required: frozenset[str]


@dataclass(frozen=True)
class Edge:
    """``source`` returns something ``target`` needs: ``via`` lists what, per parameter."""

    source: str
    target: str
    via: tuple[tuple[str, Key], ...]

    @property
    def cross_service(self) -> bool:
        return self.source.split(SEPARATOR)[0] != self.target.split(SEPARATOR)[0]


@dataclass
class DependencyGraph:
    """Nodes are tools (``service__tool``); an edge A → B exists where a field A returns has the
    semantic type (or entity reference) of a parameter B takes. Edges across services are what
    composition adds.

    Example:
        >>> from compoworld.catalog import load_services
        >>> graph = build_graph(load_services(["contacts", "mail"]))
        >>> any(e.cross_service for e in graph.edges)
        True
    """

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)

    _by_source: dict[str, list[Edge]] = field(default_factory=dict, init=False, repr=False)
    _by_target: dict[str, list[Edge]] = field(default_factory=dict, init=False, repr=False)
    _indexed: int = field(default=-1, init=False, repr=False)

    def _index(self) -> None:
        if self._indexed == len(self.edges):
            return
        self._by_source, self._by_target = defaultdict(list), defaultdict(list)
        for edge in self.edges:
            self._by_source[edge.source].append(edge)
            self._by_target[edge.target].append(edge)
        self._indexed = len(self.edges)

    def successors(self, name: str) -> list[Edge]:
        """Edges out of ``name`` (indexed once: walks ask this at every step)."""
        self._index()
        return self._by_source.get(name, [])

    def predecessors(self, name: str) -> list[Edge]:
        self._index()
        return self._by_target.get(name, [])

    def stats(self) -> dict[str, Any]:
        """Counts and spreads: nodes, edges, cross-service edges, components, degrees."""
        out_degree: dict[str, int] = defaultdict(int)
        in_degree: dict[str, int] = defaultdict(int)
        by_key: dict[str, int] = defaultdict(int)
        for edge in self.edges:
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
            "edges": len(self.edges),
            "cross_service_edges": sum(e.cross_service for e in self.edges),
            "services": len({n.service for n in self.nodes.values()}),
            "components": len(components),
            "largest_component": max((len(c) for c in components), default=0),
            "isolated_tools": sum(len(c) == 1 for c in components),
            "out_degree": spread(out_degree),
            "in_degree": spread(in_degree),
            "edges_by_type": dict(sorted(by_key.items(), key=lambda kv: (-kv[1], kv[0]))),
        }

    def components(self) -> list[set[str]]:
        """Weakly connected components, largest first."""
        parent = {n: n for n in self.nodes}

        def root(n: str) -> str:
            while parent[n] != n:
                parent[n] = parent[parent[n]]
                n = parent[n]
            return n

        for edge in self.edges:
            parent[root(edge.source)] = root(edge.target)
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
    )


def build_graph(services: Iterable[Service]) -> DependencyGraph:
    """The dependency graph of a set of services (e.g. a world's, or the whole catalog)."""
    graph = DependencyGraph()
    for service in services:
        for tool in service.tools.values():
            node = _node(service, tool)
            graph.nodes[node.name] = node
    needs: dict[Key, list[tuple[str, str]]] = defaultdict(list)
    for node in graph.nodes.values():
        for param, key in node.inputs.items():
            if key is not None:
                needs[key].append((node.name, param))
    for source in graph.nodes.values():
        via: dict[str, list[tuple[str, Key]]] = defaultdict(list)
        for key in sorted(source.outputs):
            for target, param in needs.get(key, ()):
                if target != source.name:
                    via[target].append((param, key))
        for target in sorted(via):
            graph.edges.append(Edge(source.name, target, tuple(via[target])))
    return graph
