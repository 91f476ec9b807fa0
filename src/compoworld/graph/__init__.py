"""The cross-service dependency graph over tools, and its exports."""

from compoworld.graph._export import GraphFormat, to_graphml, to_json
from compoworld.graph._graph import (
    DependencyGraph,
    Edge,
    Key,
    Node,
    build_graph,
    param_key,
    user_suppliable,
)

__all__ = [
    "DependencyGraph",
    "Edge",
    "GraphFormat",
    "Key",
    "Node",
    "build_graph",
    "param_key",
    "to_graphml",
    "to_json",
    "user_suppliable",
]
