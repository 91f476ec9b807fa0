"""Tool schemas cached on disk: the same definitions as building every validator, made once."""

import orjson
import pytest

from compoworld.catalog import load_service, service_names
from compoworld.service import Environment, Service, openai_tools
from compoworld.world import compose
from compoworld.world._schemas import _schemas, tool_definitions


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPOWORLD_CACHE", str(tmp_path))
    _schemas.cache_clear()
    yield tmp_path / "tools"
    _schemas.cache_clear()


def test_the_cached_definitions_are_the_built_ones_byte_for_byte(cache):
    env = Environment([load_service(n) for n in service_names()])
    made = tool_definitions(env)
    assert len(list(cache.glob("*.json"))) == len(service_names())
    _schemas.cache_clear()
    read = tool_definitions(env)  # from the files this time
    assert orjson.dumps(read) == orjson.dumps(made) == orjson.dumps(openai_tools(env.tools))


def test_a_world_gives_its_tools_without_building_validators(cache):
    world = compose(["contacts", "crm"], distractors=1, seed=2)
    world.tools()  # the files made (validators built once, here)
    _schemas.cache_clear()
    fresh = {name: tool for name, tool in world.env.tools.items()}
    for tool in fresh.values():
        tool.__dict__.pop("_compiled", None)  # as in a new process
    assert [t["function"]["name"] for t in world.tools()] == list(world.env.tools)
    assert not any("_compiled" in tool.__dict__ for tool in fresh.values())
    # a call still validates its arguments (the validator is built then, for that tool only)
    envelope = world.call("contacts__list_contacts", {"limit": "many"})
    assert envelope["success"] is False and envelope["error"]["code"] == 400


def test_a_service_not_from_the_catalog_is_not_cached(cache):
    service = Service("scratch", domain="test", description="A scratch service.")
    env = Environment([load_service("contacts"), service])
    assert tool_definitions(env) == openai_tools(env.tools)
    assert [p.name.split("-")[0] for p in cache.glob("*.json")] == ["contacts"]
