"""Linked services: the definition of issue 17's coverage figure, shared by the benchmarks."""

from __future__ import annotations


def linked_services() -> set[str]:
    """Services a link-type value can flow into or out of, to or from another service (the
    catalog is read when called, not on import: start-up probes time it themselves)."""
    from compoworld.tasks._context import LINK_TYPES, context

    graph = context(0).graph
    linked: set[str] = set()
    for key in graph.taken_keys():
        if key[0] == "type" and key[1] in LINK_TYPES:
            takers = {graph.nodes[t].service for t, _ in graph.consumers(key)}
            for maker in {graph.nodes[t].service for t in graph.producers(key)}:
                if takers - {maker}:
                    linked |= {maker} | (takers - {maker})
    return linked
