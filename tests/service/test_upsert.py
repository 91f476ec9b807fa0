"""The engine's ``upsert`` op: the record an id (within its scope) or a key names is updated,
and created with that id or key when there is none."""

from __future__ import annotations

from typing import Any

import pytest

from compoworld.service import Environment, ServiceSpec, build_service


def _spec() -> ServiceSpec:
    return ServiceSpec.model_validate({
        "name": "cfg", "domain": "test", "description": "Settings under servers.",
        "entities": [
            {"name": "server", "seed_count": 3, "fields": [{"name": "name", "type": "string"}]},
            {"name": "agent", "seed_count": 4, "fields": [
                {"name": "server_id", "type": "Ref", "ref": "server"},
                {"name": "size", "type": "integer"},
                {"name": "note", "type": "string", "required": False}]},
            {"name": "setting", "seed_count": 3, "fields": [
                {"name": "key", "type": "string"}, {"name": "value", "type": "string"}]},
        ],
        "tools": [
            {"name": "put_agent", "description": "Create or update an agent.", "op": "upsert",
             "entity": "agent", "params": [
                 {"name": "agent_name", "role": "id"},
                 {"name": "server_id", "role": "filter", "field": "server_id", "required": True},
                 {"name": "size", "role": "field"}, {"name": "note", "role": "field"}]},
            {"name": "set_config_value", "description": "Set a value.", "op": "upsert",
             "entity": "setting", "params": [
                 {"name": "key", "role": "filter", "field": "key"},
                 {"name": "value", "role": "field"}]},
        ]})


@pytest.fixture
def env() -> Environment:
    return Environment([build_service(_spec())], seed=2)


def _ok(env: Environment, tool: str, **args: Any) -> Any:
    envelope = env.call(f"cfg__{tool}", args)
    assert envelope["success"], envelope
    return envelope["data"]


def test_an_upsert_by_id_updates_the_record_or_creates_it_under_its_scope(env: Environment) -> None:
    db = env.db("cfg")
    agent = db.select("agent")[0]
    count = db.count("agent")
    updated = _ok(env, "put_agent", agent_name=agent["id"], server_id=agent["server_id"], size=7)
    assert (updated["id"], updated["size"], db.count("agent")) == (agent["id"], 7, count)
    assert updated["note"] == agent["note"]  # a value left out is kept
    server = db.select("server")[1]["id"]
    made = _ok(env, "put_agent", agent_name="nightly", server_id=server, size=3)
    assert made == db.get("agent", "nightly") and made["server_id"] == server
    assert db.count("agent") == count + 1
    again = _ok(env, "put_agent", agent_name="nightly", server_id=server, size=4)
    assert again["size"] == 4 and db.count("agent") == count + 1  # the same record
    missing = env.call("cfg__put_agent", {"agent_name": "x", "server_id": "se_none", "size": 1})
    assert missing["error"]["code"] == 404  # the scope must exist, as Azure's parent must
    without = env.call("cfg__put_agent", {"agent_name": "y", "server_id": server})
    assert without["error"]["code"] == 400  # a new record needs its required values


def test_an_upsert_by_key_sets_the_value_under_the_key(env: Environment) -> None:
    db = env.db("cfg")
    setting = db.select("setting")[0]
    count = db.count("setting")
    assert _ok(env, "set_config_value", key=setting["key"], value="on")["id"] == setting["id"]
    assert db.get("setting", setting["id"])["value"] == "on" and db.count("setting") == count
    made = _ok(env, "set_config_value", key="telemetry", value="off")
    assert (made["key"], made["value"], db.count("setting")) == ("telemetry", "off", count + 1)


def test_an_upsert_id_is_a_name_the_caller_chooses() -> None:
    tool = build_service(_spec()).tools["put_agent"]
    assert tool.kind == "write"
    assert {p.name: p.ref for p in tool.params}["agent_name"] is None  # no Ref: it may be new
    assert set(tool.parameters["required"]) == {"agent_name", "server_id"}
