"""Writing the dependency graph as JSON (node-link) or GraphML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Literal

from compoworld.graph._graph import DependencyGraph, Key

GraphFormat = Literal["json", "graphml"]


def _key_text(key: Key) -> str:
    return key[1] if key[0] == "type" else f"Ref[{key[1]}.{key[2]}]"


def to_json(graph: DependencyGraph) -> dict[str, Any]:
    """Node-link JSON (the shape networkx's ``node_link_graph`` reads)."""
    return {
        "directed": True,
        "multigraph": False,
        "nodes": [{"id": n.name, "service": n.service, "kind": n.kind,
                   "outputs": sorted(_key_text(k) for k in n.outputs),
                   "inputs": {p: (_key_text(k) if k else None) for p, k in n.inputs.items()},
                   "user_suppliable": n.suppliable}
                  for n in graph.nodes.values()],
        "links": [{"source": e.source, "target": e.target, "cross_service": e.cross_service,
                   "via": [{"param": p, "type": _key_text(k)} for p, k in e.via]}
                  for e in graph.edges],
    }


def to_graphml(graph: DependencyGraph) -> str:
    """GraphML text (Gephi, yEd, networkx ``read_graphml``)."""
    root = ET.Element("graphml", xmlns="http://graphml.graphdrawing.org/xmlns")
    for key_id, domain, name, kind in (("d0", "node", "service", "string"),
                                       ("d1", "node", "kind", "string"),
                                       ("d2", "edge", "via", "string"),
                                       ("d3", "edge", "cross_service", "boolean")):
        ET.SubElement(root, "key", {"id": key_id, "for": domain, "attr.name": name,
                                    "attr.type": kind})
    body = ET.SubElement(root, "graph", id="dependencies", edgedefault="directed")
    for node in graph.nodes.values():
        element = ET.SubElement(body, "node", id=node.name)
        ET.SubElement(element, "data", key="d0").text = node.service
        ET.SubElement(element, "data", key="d1").text = node.kind
    for i, edge in enumerate(graph.edges):
        element = ET.SubElement(body, "edge", id=f"e{i}", source=edge.source, target=edge.target)
        ET.SubElement(element, "data", key="d2").text = ", ".join(
            f"{p}:{_key_text(k)}" for p, k in edge.via)
        ET.SubElement(element, "data", key="d3").text = str(edge.cross_service).lower()
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
