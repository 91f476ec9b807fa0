"""The engine's ``dry_run`` role: a write called with its dry-run flag answers what the real
call answers and leaves no trace (records, version, journal, id sequence)."""

from __future__ import annotations

from typing import Any

import pytest

from compoworld.errors import UserError
from compoworld.service import Environment, ServiceSpec, build_service

_FIELDS = [{"name": "title", "type": "string"}, {"name": "size", "type": "integer"},
           {"name": "status", "type": "string", "enum": ["open", "closed"]}]
_DRY = {"name": "validate_only", "role": "dry_run"}


def _spec(extra: list[dict[str, Any]] | None = None) -> ServiceSpec:
    tools = [
        {"name": "create_job", "description": "Create a job.", "op": "create", "entity": "job",
         "params": [{"name": "title", "role": "field"}, {"name": "size", "role": "field"},
                    {"name": "status", "role": "field"}, _DRY]},
        {"name": "update_job", "description": "Update a job.", "op": "update", "entity": "job",
         "params": [{"name": "job_id", "role": "id"}, {"name": "size", "role": "field"}, _DRY]},
        {"name": "delete_job", "description": "Delete a job.", "op": "delete", "entity": "job",
         "params": [{"name": "job_id", "role": "id"}, _DRY]},
        {"name": "close_job", "description": "Close a job.", "op": "action", "entity": "job",
         "action": {"effect": "transition", "set": {"status": "closed"}, "field": "status"},
         "params": [{"name": "job_id", "role": "id"}, _DRY]},
        *(extra or []),
    ]
    return ServiceSpec.model_validate({
        "name": "jobs", "domain": "test", "description": "Jobs.",
        "entities": [{"name": "job", "seed_count": 5, "fields": _FIELDS}], "tools": tools})


@pytest.fixture
def env() -> Environment:
    return Environment([build_service(_spec())], seed=1)


def _same_as_real(env: Environment, tool: str, args: dict[str, Any]) -> None:
    before, rows, changes = env.digest(), env.rows(), env.changes()
    dry = env.call(f"jobs__{tool}", {**args, "validate_only": True})
    assert dry["success"], dry
    assert (env.digest(), env.rows(), env.changes()) == (before, rows, changes)
    real = env.call(f"jobs__{tool}", args)  # omitted flag: a real write
    assert real["success"], real
    assert real["data"] == dry["data"]  # the same answer, the same new id
    assert env.digest() != before and len(env.changes() or []) == len(changes or []) + 1


def test_a_dry_run_answers_as_the_real_call_and_writes_nothing(env: Environment) -> None:
    job = env.db("jobs").select("job")[0]
    env.db("jobs").update("job", job["id"], status="open")
    _same_as_real(env, "create_job", {"title": "Roof", "size": 3, "status": "open"})
    _same_as_real(env, "update_job", {"job_id": job["id"], "size": 99})
    _same_as_real(env, "close_job", {"job_id": job["id"]})
    fresh = env.db("jobs").insert("job", title="Spare", size=1, status="open")
    _same_as_real(env, "delete_job", {"job_id": fresh["id"]})


def test_a_dry_run_refuses_as_the_real_call_would(env: Environment) -> None:
    before = env.digest()
    refused = env.call("jobs__update_job", {"job_id": "jo_missing", "size": 1,
                                            "validate_only": True})
    assert not refused["success"] and refused["error"]["code"] == 404
    assert env.digest() == before
    assert env.call("jobs__create_job", {"title": "A", "size": 1, "status": "open",
                                         "validate_only": False})["success"]
    assert env.digest() != before  # false: the write happens


def test_dry_run_is_a_boolean_of_writes_only() -> None:
    tool = build_service(_spec()).tools["create_job"]
    assert tool.parameters["properties"]["validate_only"]["type"] == "boolean"
    assert "validate_only" not in tool.parameters["required"]
    listing = {"name": "list_jobs", "description": "List jobs.", "op": "list", "entity": "job",
               "params": [_DRY]}
    with pytest.raises(UserError, match="role 'dry_run', not allowed for op 'list'"):
        build_service(_spec([listing]))
