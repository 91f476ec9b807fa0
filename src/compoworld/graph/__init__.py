"""The cross-service dependency graph over tools, its exports, and the typed facts an answer
holds (what can flow into the next call)."""

from compoworld.graph._export import GraphFormat, to_graphml, to_json
from compoworld.graph._facts import Fact, extract_facts
from compoworld.graph._graph import (
    DependencyGraph,
    Edge,
    Key,
    Node,
    build_graph,
    lists_records,
    param_key,
    service_nodes,
    statable,
    user_suppliable,
)
from compoworld.graph._index import index_dir, indexed_graph

__all__ = [
    "DependencyGraph",
    "Edge",
    "Fact",
    "GraphFormat",
    "Key",
    "Node",
    "build_graph",
    "extract_facts",
    "index_dir",
    "indexed_graph",
    "lists_records",
    "param_key",
    "service_nodes",
    "statable",
    "to_graphml",
    "to_json",
    "user_suppliable",
]
