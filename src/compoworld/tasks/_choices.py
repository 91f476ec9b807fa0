"""Which tools a walk may take next, and in what order: the motif stage a tool can fit
(:class:`compoworld.tasks._motifs.Stage`, from what the tool does and its service's domain) and
a random order weighted against tools that many others feed (:func:`spread`)."""

from __future__ import annotations

import random

from compoworld.catalog import service_domain
from compoworld.graph import Key
from compoworld.tasks._context import LINK_TYPES, Context, strong
from compoworld.tasks._motifs import Operation, Stage, tool_operation

_DOMAINS: dict[str, str] = {}
_OPERATIONS: dict[str, tuple[object, Operation]] = {}  # per tool: (its node, what it does)


def _operation(ctx: Context, name: str) -> tuple[Operation, str]:
    """What a tool does (:func:`compoworld.tasks._motifs.tool_operation`) and its service's
    domain, from the graph's node and the catalog's index (no service is built; each computed
    once per node: a walk asks it of every candidate, for every stage)."""
    node = ctx.graph.nodes[name]
    domain = _DOMAINS.get(node.service)
    if domain is None:
        domain = _DOMAINS[node.service] = service_domain(node.service)
    known = _OPERATIONS.get(name)
    if known is None or known[0] is not node:
        known = _OPERATIONS[name] = (node, tool_operation(node))
    return known[1], domain


def admits(ctx: Context, stage: Stage, name: str, touched: set[str]) -> bool:
    """Whether tool ``name`` can fit ``stage`` of a walk that has ``touched`` these services
    (before any call: kind, operation, types, domain, a new service where asked)."""
    node = ctx.graph.nodes[name]
    if stage.new_service and node.service in touched:
        return False
    return stage.admits(node, *_operation(ctx, name))


_GRAPHS_KEPT = 8
"""Graphs whose per-graph figures (:func:`feeders`, :func:`reachable`) are kept: one per
world where a world walks a share of a large catalog (``tasks._context.world_services``)."""

_FEEDERS: dict[int, tuple[object, dict[str, int]]] = {}


def _feeding(ctx: Context, name: str) -> set[str]:
    """The tools whose answers can feed tool ``name`` (a carrying key: within its service any
    strong key, from other services the link types), found through the graph's index."""
    graph = ctx.graph
    node = graph.nodes[name]
    found: set[str] = set()
    for key in node.inputs.values():
        if not strong(key):
            continue
        assert key is not None
        cross = key[0] == "type" and key[1] in LINK_TYPES
        found.update(p for p in graph.producers(key)
                     if p != name and (cross or graph.nodes[p].service == node.service))
    return found


def feeders(ctx: Context) -> dict[str, int]:
    """Per tool, how many tools can feed it (:func:`_feeding`): a tool that many feed is a
    candidate of many walks. Computed once per graph, by key (linear in the index: a key's
    producers are counted once per parameter taking it, not paired with every consumer)."""
    graph = ctx.graph
    found = _FEEDERS.get(id(graph))
    if found is None or found[0] is not graph:
        counts: dict[str, int] = {}
        for name, node in graph.nodes.items():
            total = 0
            for key in set(node.inputs.values()):
                if not strong(key):
                    continue
                assert key is not None
                producers = graph.producers(key)
                if key[0] == "type" and key[1] in LINK_TYPES:
                    total += len(producers)
                else:
                    total += sum(graph.nodes[p].service == node.service for p in producers)
            counts[name] = total
        if len(_FEEDERS) >= _GRAPHS_KEPT:  # one graph per world on a large catalog
            _FEEDERS.clear()
        found = _FEEDERS[id(graph)] = (graph, counts)
    return found[1]


def spread(ctx: Context, names: list[str], rng: random.Random) -> list[str]:
    """``names`` in a random order weighted against overuse: a tool ``k`` tools can feed has
    weight ``1 / k`` (a weighted shuffle, Efraimidis–Spirakis: key ``u ** k``), so hubs that
    every walk reaches come first no more often than tools few walks reach. The weights depend
    only on the graph, and the draws on ``rng``: the same attempt gives the same order
    anywhere."""
    found = feeders(ctx)
    keyed = [(rng.random() ** max(found.get(n, 1), 1), n) for n in names]
    return [n for _, n in sorted(keyed, key=lambda k: -k[0])]


_REACHABLE: dict[int, tuple[object, dict[str, tuple[str, ...]]]] = {}


def reachable(ctx: Context) -> dict[str, tuple[str, ...]]:
    """Per service, the tools a walk can reach from the catalog's starts through carrying
    links (sorted; services with none left out). Found by key, not by pairs: a tool is reached
    once a reached tool returns a key one of its parameters takes (a link type from any
    service, another strong key from its own). Computed once per graph."""
    graph = ctx.graph
    found = _REACHABLE.get(id(graph))
    if found is None or found[0] is not graph:
        reached = set(ctx.starts)
        frontier = sorted(reached)
        offered: set[tuple[Key, str]] = set()  # (key, service or "" for any) already followed
        while frontier:
            name = frontier.pop()
            node = graph.nodes[name]
            for key in sorted(node.outputs):
                if not strong(key):
                    continue
                scope = "" if key[0] == "type" and key[1] in LINK_TYPES else node.service
                if (key, scope) in offered:
                    continue
                offered.add((key, scope))
                for target, _ in graph.consumers(key):
                    if target not in reached and (not scope
                                                  or graph.nodes[target].service == scope):
                        reached.add(target)
                        frontier.append(target)
        by_service: dict[str, list[str]] = {}
        for name in sorted(reached):
            by_service.setdefault(graph.nodes[name].service, []).append(name)
        if len(_REACHABLE) >= _GRAPHS_KEPT:
            _REACHABLE.clear()
        found = _REACHABLE[id(graph)] = (graph, {s: tuple(t) for s, t in by_service.items()})
    return found[1]


def draw_target(ctx: Context, rng: random.Random) -> str:
    """The tool a walk steers towards (:func:`toward`): its service drawn uniformly among
    those a walk can reach, then one of that service's reachable tools uniformly — so every
    service, small or large, is as often a walk's aim, and within one every tool. Drawn with
    the attempt's ``rng`` only: the same attempt aims at the same tool in any process."""
    services = reachable(ctx)
    service = rng.choice(sorted(services))
    return rng.choice(services[service])


def toward(ctx: Context, target: str) -> dict[str, int]:
    """The tools from which a walk reaches ``target`` within two steps, with the number of
    steps (``target`` itself: 0; a tool whose answer feeds it, :func:`_feeding`: 1), and of
    the catalog's starts those whose answer feeds a tool of distance 1 (2). Found by key:
    linear in what the keys' index lists, never in pairs of tools."""
    graph = ctx.graph
    feeding = _feeding(ctx, target)
    distance = {target: 0, **dict.fromkeys(sorted(feeding - {target}), 1)}
    taken: set[tuple[Key, str]] = set()  # (key, service; "" for any) a distance-1 tool takes
    for name in feeding:
        node = graph.nodes[name]
        for key in node.inputs.values():
            if strong(key):
                assert key is not None
                taken.add((key, "" if key[0] == "type" and key[1] in LINK_TYPES
                           else node.service))
    for start in ctx.starts:
        if start not in distance and any((key, "") in taken or (key, graph.nodes[start].service)
                                         in taken for key in graph.nodes[start].outputs):
            distance[start] = 2
    return distance
