import json
import xml.etree.ElementTree as ET

from typer.testing import CliRunner

from compoworld.catalog import load_service, load_services
from compoworld.cli import app
from compoworld.graph import build_graph, to_graphml, to_json, user_suppliable


def graph_of(*names):
    return build_graph(load_services(list(names)))


def edge(graph, source, target):
    return next((e for e in graph.edges if (e.source, e.target) == (source, target)), None)


def test_an_email_found_in_one_service_feeds_another():
    graph = graph_of("contacts", "mail")
    found = edge(graph, "contacts__find_contact_by_email", "mail__send_message")
    assert found is not None and found.cross_service
    assert ("to", ("type", "Email")) in found.via


def test_references_link_tools_within_a_service_only():
    graph = graph_of("contacts", "crm")
    listed = edge(graph, "crm__list_accounts", "crm__get_account")
    assert listed is not None and not listed.cross_service
    assert ("account_id", ("ref", "crm", "account")) in listed.via
    # A contacts id is not a crm id: no edge carries a reference across services.
    assert all(k[0] != "ref" for e in graph.edges if e.cross_service for _, k in e.via)


def test_untyped_parameters_make_no_edges():
    graph = graph_of("contacts", "mail")
    into_notes = [e for e in graph.edges if any(p == "notes" for p, _ in e.via)]
    assert into_notes == []


def test_user_suppliable_parameters():
    tools = load_service("contacts").tools
    params = {p.name: p for p in tools["create_contact"].params}
    assert user_suppliable(params["email"]) and user_suppliable(params["first_name"])
    assert not user_suppliable({p.name: p for p in tools["get_contact"].params}["contact_id"])


def test_stats_are_consistent():
    graph = build_graph(load_services())
    stats = graph.stats()
    assert stats["nodes"] == sum(len(s.tools) for s in load_services())
    assert stats["edges"] == len(graph.edges) > stats["cross_service_edges"] > 0
    assert stats["out_degree"]["mean"] == stats["in_degree"]["mean"]
    assert sum(len(c) for c in graph.components()) == stats["nodes"]
    assert sum(stats["edges_by_type"].values()) == sum(len(e.via) for e in graph.edges)


def test_exports_round_trip_counts():
    graph = graph_of("contacts", "mail", "calendar")
    data = to_json(graph)
    assert len(data["nodes"]) == len(graph.nodes) and len(data["links"]) == len(graph.edges)
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    root = ET.fromstring(to_graphml(graph))
    assert len(root.findall(".//g:node", ns)) == len(graph.nodes)
    assert len(root.findall(".//g:edge", ns)) == len(graph.edges)


def test_cli_stats_and_export(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["graph", "stats", "--services", "contacts,mail", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["services"] == 2
    out = tmp_path / "g.graphml"
    result = runner.invoke(app, ["graph", "export", "--format", "graphml", "--out", str(out)])
    assert result.exit_code == 0 and out.read_text().startswith("<?xml")
    bad = runner.invoke(app, ["graph", "export", "--format", "xml", "--out", str(out)])
    assert bad.exit_code == 2
