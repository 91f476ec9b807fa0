"""The graph's index on disk: each service's nodes (its tools' kinds, the keys they return
and take), made once per service and read at start-up instead of building every service.

Files live under ``$COMPOWORLD_CACHE/graph`` (default ``~/.cache/compoworld``), one per
service, named by what made it: the service's digest (its spec's bytes or its module's
source) and the version of the code that derives nodes from a service (:func:`index_version`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import multiprocessing
import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path

import orjson

from compoworld.graph._graph import DependencyGraph, Node, service_nodes

INDEX_MODULES = (
    "compoworld.graph._graph", "compoworld.graph._index", "compoworld.service._tool",
    "compoworld.service._engine", "compoworld.service._entity", "compoworld.types._builtin",
    "compoworld.types._semantic",
)
"""Modules whose source decides a service's nodes."""


@cache
def index_version() -> str:
    """A digest of the code that derives nodes (:data:`INDEX_MODULES`' source)."""
    digest = hashlib.blake2b(digest_size=12)
    for module in INDEX_MODULES:
        spec = importlib.util.find_spec(module)
        if spec and spec.origin:
            with open(spec.origin, "rb") as source:
                digest.update(source.read())
    return digest.hexdigest()


def index_dir() -> Path:
    """``$COMPOWORLD_CACHE/graph`` (or ``~/.cache/compoworld/graph``)."""
    root = Path(os.environ.get("COMPOWORLD_CACHE") or Path.home() / ".cache" / "compoworld")
    return root / "graph"


def _path(name: str, digest: str) -> Path:
    key = hashlib.blake2b(f"{name}\x00{digest}\x00{index_version()}".encode(),
                          digest_size=16).hexdigest()
    return index_dir() / f"{name}-{key}.json"


def _write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.stem}-",
                                         delete=False) as tmp:
            tmp.write(data)
        os.replace(tmp.name, path)
    except OSError:  # a read-only or full disk: the nodes still serve this process
        pass


def indexed_graph(names: Sequence[str], *, load: Callable[[str], object],
                  digest: Callable[[str], str | None],
                  progress: Callable[[int, int], None] | None = None) -> DependencyGraph:
    """The dependency graph of the named services, from the on-disk index where it holds a
    service (built with ``load(name)`` and written there where not).

    Args:
        names: Service names.
        load: Builds a service by name (``compoworld.catalog.load_service``).
        digest: A service's digest (``compoworld.catalog.service_digest``); None: not cached.
        progress: Called with (done, total) as services are indexed.
    """
    paths = {}
    for name in names:
        key = digest(name)
        paths[name] = _path(name, key) if key is not None else None
    missing = [n for n in names if paths[n] is None or not paths[n].is_file()]  # type: ignore[union-attr]
    made = _made_apart(missing, load) if len(missing) >= PARALLEL_AT else {}
    nodes: dict[str, Node] = {}
    for i, name in enumerate(names):
        path = paths[name]
        if name in made:
            found = [Node.from_json(n) for n in orjson.loads(made[name])]
        elif name not in missing and path is not None:
            found = [Node.from_json(n) for n in orjson.loads(path.read_bytes())]
        else:
            found = service_nodes(load(name))  # type: ignore[arg-type]
        if name in missing and path is not None:
            _write(path, made.get(name) or orjson.dumps([n.to_json() for n in found]))
        nodes.update((n.name, n) for n in found)
        if progress is not None:
            progress(i + 1, len(names))
    return DependencyGraph(nodes)


PARALLEL_AT = 24
"""Services missing from the index (a cold start on a new build) from which their nodes are
made in worker processes (:func:`_made_apart`), one per available core."""


def _nodes_json(job: tuple[list[str], Callable[[str], object]]) -> list[bytes]:
    names, load = job
    return [orjson.dumps([n.to_json() for n in service_nodes(load(name))])  # type: ignore[arg-type]
            for name in names]


def _made_apart(names: list[str], load: Callable[[str], object]) -> dict[str, bytes]:
    """The nodes of ``names`` (as the index's JSON), each service built in a worker process
    (forked where this process runs one thread, else spawned), in contiguous shares: building
    a service is the whole cost of a cold start, and no two services depend on each other.
    The services built there are not kept in this process: a walk builds those it reaches."""
    workers = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                  else os.cpu_count() or 1, 4)
    if workers < 2:
        return {}
    method = ("fork" if "fork" in multiprocessing.get_all_start_methods()
              and threading.active_count() == 1 else "spawn")
    size = -(-len(names) // (workers * 4))
    shares = [names[i:i + size] for i in range(0, len(names), size)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method)) as pool:
        made = list(pool.map(_nodes_json, [(share, load) for share in shares]))
    return {name: data for share, datas in zip(shares, made, strict=True)
            for name, data in zip(share, datas, strict=True)}
