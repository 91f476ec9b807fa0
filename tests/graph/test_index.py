"""The graph's index on disk: read back instead of building services."""

import pytest

from compoworld.catalog import load_service, load_services, service_digest
from compoworld.graph import build_graph, indexed_graph

NAMES = ["contacts", "crm", "mail"]


def test_index_is_the_graph_and_is_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPOWORLD_CACHE", str(tmp_path))
    built = build_graph(load_services(NAMES))
    first = indexed_graph(NAMES, load=load_service, digest=service_digest)
    assert first.nodes == built.nodes
    assert len(list((tmp_path / "graph").glob("*.json"))) == len(NAMES)

    def refuse(name):
        raise AssertionError(f"{name} built although its index is on disk")

    seen = []
    again = indexed_graph(NAMES, load=refuse, digest=service_digest,
                          progress=lambda done, total: seen.append((done, total)))
    assert again.nodes == built.nodes and seen[-1] == (3, 3)
    assert again.edges == built.edges
    assert [e.target for e in again.successors("contacts__find_contact_by_email")] == [
        e.target for e in built.edges if e.source == "contacts__find_contact_by_email"]


def test_a_service_without_digest_is_built(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPOWORLD_CACHE", str(tmp_path))
    graph = indexed_graph(["contacts"], load=load_service, digest=lambda name: None)
    assert graph.nodes and not (tmp_path / "graph").exists()


def test_components_through_the_index_match_the_edges():
    graph = build_graph(load_services())
    parent = {n: n for n in graph.nodes}

    def root(n):
        while parent[n] != n:
            n = parent[n]
        return n

    for edge in graph.edges:
        parent[root(edge.source)] = root(edge.target)
    groups = {}
    for n in graph.nodes:
        groups.setdefault(root(n), set()).add(n)
    expected = sorted(groups.values(), key=lambda g: (-len(g), min(g)))
    assert graph.components() == expected


@pytest.mark.parametrize("name", ["contacts__list_contacts"])
def test_predecessors_are_the_edges_into_a_tool(name):
    graph = build_graph(load_services(NAMES))
    assert graph.predecessors(name) == [e for e in graph.edges if e.target == name]


def test_a_cold_index_is_made_in_worker_processes_as_in_this_one(tmp_path, monkeypatch):
    from compoworld.catalog import service_names
    from compoworld.graph import _index

    names = service_names()
    assert len(names) >= _index.PARALLEL_AT
    monkeypatch.setenv("COMPOWORLD_CACHE", str(tmp_path / "apart"))
    monkeypatch.setattr(_index.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    made_apart = _index._made_apart
    counts = []

    def spy(missing, load):
        made = made_apart(missing, load)
        counts.append(len(made))
        return made

    monkeypatch.setattr(_index, "_made_apart", spy)
    apart = indexed_graph(names, load=load_service, digest=service_digest)
    assert counts == [len(names)]  # every service's nodes came from the workers
    files = sorted(p.name for p in (tmp_path / "apart" / "graph").glob("*.json"))
    assert len(files) == len(names)
    monkeypatch.setenv("COMPOWORLD_CACHE", str(tmp_path / "here"))
    monkeypatch.setattr(_index, "PARALLEL_AT", len(names) + 1)  # one process
    here = indexed_graph(names, load=load_service, digest=service_digest)
    assert list(apart.nodes) == list(here.nodes) and apart.nodes == here.nodes
    assert files == sorted(p.name for p in (tmp_path / "here" / "graph").glob("*.json"))
    for name in files:
        assert ((tmp_path / "apart" / "graph" / name).read_bytes()
                == (tmp_path / "here" / "graph" / name).read_bytes())
