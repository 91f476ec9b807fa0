"""The environment_factory adapter: tools as TRL sees them, reset, calls, rubric checks."""

import inspect

import orjson
import pytest
from transformers.utils import get_json_schema

from compoworld.errors import UserError
from compoworld.rollout import build_world
from compoworld.train import TaskEnvironment, environment_factories, rl_rows, world_key
from compoworld.train._environment import _python_names

from .conftest import oracle_answer, play


def _tools(cls):
    """The methods TRL exposes as tools: public functions of the class but reset/get_reward."""
    return [name for name, _ in inspect.getmembers(cls, predicate=inspect.isfunction)
            if not name.startswith("_") and name not in ("reset", "get_reward")]


def test_one_class_per_world_with_the_worlds_tools(direct_tasks):
    factories = environment_factories(direct_tasks)
    assert set(factories) == {world_key(t) for t in direct_tasks}
    for task in direct_tasks:
        cls = factories[world_key(task)]
        assert issubclass(cls, TaskEnvironment)
        expected = {t["function"]["name"] for t in build_world(task).tools()}
        assert set(_tools(cls)) == expected


def test_schemas_as_transformers_builds_them_match_the_tools(direct_tasks):
    task = direct_tasks[0]
    env = environment_factories([task])[world_key(task)]()
    for tool in build_world(task).tools():
        spec = tool["function"]
        built = get_json_schema(getattr(env, spec["name"]))["function"]
        assert built["name"] == spec["name"]
        assert built["description"].startswith(spec["description"].split("\n")[0].strip())
        # parameters that are not Python names are shown under one (``from`` → ``from_``)
        python = _python_names(spec["parameters"]["properties"])
        properties = {python[k]: v for k, v in spec["parameters"]["properties"].items()}
        assert set(built["parameters"]["properties"]) == set(properties)
        assert set(built["parameters"].get("required", [])) == {
            python[k] for k in spec["parameters"].get("required", [])}
        for name, schema in properties.items():
            got = built["parameters"]["properties"][name]
            if "enum" in schema:
                assert got["enum"] == schema["enum"]
            if schema.get("type") in ("string", "integer", "number", "boolean", "array"):
                assert got["type"] == schema["type"]


def test_gateway_world_has_the_four_meta_tools(gateway_tasks):
    cls = environment_factories(gateway_tasks[:1])[world_key(gateway_tasks[0])]
    assert sorted(_tools(cls)) == ["call_tool", "describe_tool", "list_services", "list_tools"]
    schema = get_json_schema(cls().call_tool)["function"]["parameters"]
    assert schema["properties"]["arguments"]["type"] == "object" and schema["required"] == ["tool_name"]


def test_reference_plan_through_the_tools_passes_every_criterion(direct_tasks, gateway_tasks):
    for task in [*direct_tasks, *gateway_tasks]:
        env = play(environment_factories([task])[world_key(task)](), task)
        assert env.episode.passes(oracle_answer(task)) == [True] * len(task.rubric)
        assert all(call.success for call in env.episode.calls)
        # a reset gives a fresh world: doing nothing fails
        env.reset(task=task.model_dump_json())
        assert not all(env.episode.passes(""))


def test_a_refused_call_is_an_envelope_not_an_exception(direct_tasks):
    task = direct_tasks[0]
    env = play(environment_factories([task])[world_key(task)](), task, steps=0)
    reply = orjson.loads(getattr(env, task.plan[0].tool)(unknown_argument=1))
    assert reply["success"] is False and reply["error"]["code"] == 400
    assert env.episode.calls[-1].success is False


def test_rows_route_to_their_world_and_bad_rows_are_refused(direct_tasks):
    rows = rl_rows(direct_tasks)
    assert [r["environment"] for r in rows] == [world_key(t) for t in direct_tasks]
    factories = environment_factories(direct_tasks)
    env = factories[rows[0]["environment"]]()
    env.reset(**{k: v for k, v in rows[0].items() if k != "environment"})
    with pytest.raises(UserError, match="'task' column"):
        env.reset(prompt=rows[0]["prompt"])
    other = next((r for r in rows if r["environment"] != rows[0]["environment"]), None)
    if other is not None:
        with pytest.raises(UserError, match="world"):
            env.reset(task=other["task"])
    with pytest.raises(UserError, match="no tasks"):
        environment_factories([])


def test_parameters_that_are_not_python_names_are_renamed_and_mapped_back():
    from compoworld.train._environment import _tool_method

    method = _tool_method("mail__search", {"description": "Search.", "parameters": {
        "type": "object", "required": ["from"],
        "properties": {"from": {"type": "string", "description": "Sender."},
                       "page-size": {"type": "integer", "description": "Size.", "default": 20}}}})
    schema = get_json_schema(method)["function"]["parameters"]
    assert set(schema["properties"]) == {"from_", "page_size"} and schema["required"] == ["from_"]
    assert "Default: 20." in schema["properties"]["page_size"]["description"]

    class Recorder(TaskEnvironment):
        def _call(self, name, arguments):
            return orjson.dumps([name, arguments]).decode()

    Recorder.mail__search = method
    assert orjson.loads(Recorder().mail__search(from_="a@b.co", page_size=5)) == [
        "mail__search", {"from": "a@b.co", "page-size": 5}]
