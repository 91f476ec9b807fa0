"""A bad rollout is data, not a crash: malformed calls, unknown tools, huge arguments, broken
tools, failing agents and spent budgets all end up in the trajectory."""

import asyncio
from typing import Any

import orjson
import pytest

from compoworld.errors import UserError
from compoworld.models import AssistantMessage, ModelError, ToolCall, Usage
from compoworld.rollout import MAX_ARGUMENT_CHARS, Episode, Trajectory, run_episode
from compoworld.service import Db, Environment, Service
from compoworld.tasks import Task
from compoworld.world import World


def _call(name: str, arguments: str, call_id: str = "c1") -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


def _envelope(message: dict[str, Any]) -> dict[str, Any]:
    return orjson.loads(message["content"])


class Scripted:
    """Plays fixed turns, then a final answer (drives the loop; the episode is under test)."""

    name, model = "scripted", None

    def __init__(self, turns: list[list[ToolCall]], *, delay: float = 0.0,
                 tokens: int = 0) -> None:
        self.turns, self.delay, self.tokens = turns, delay, tokens

    async def respond(self, task: Task, messages: list[dict[str, Any]],
                      tools: list[dict[str, Any]]) -> AssistantMessage:
        await asyncio.sleep(self.delay)
        done = sum(m["role"] == "assistant" for m in messages)
        usage = Usage(prompt_tokens=10, completion_tokens=self.tokens)
        if done < len(self.turns):
            return AssistantMessage(tool_calls=self.turns[done], usage=usage)
        return AssistantMessage(content="All done.", usage=usage)


def test_reset_gives_the_prompt_the_instruction_and_the_tools(direct_tasks: list[Task]) -> None:
    task = direct_tasks[0]
    episode = Episode(task)
    messages, tools = episode.reset()
    assert messages == [{"role": "system", "content": task.system_prompt},
                        {"role": "user", "content": task.instruction}]
    assert task.today in messages[0]["content"]
    names = {t["function"]["name"] for t in tools}
    assert {s.tool for s in task.plan} <= names


def test_malformed_and_non_object_arguments_are_answered_and_counted(
        direct_tasks: list[Task]) -> None:
    task = direct_tasks[0]
    tool = task.plan[0].tool
    episode = Episode(task)
    replies = episode.step(AssistantMessage(tool_calls=[
        _call(tool, '{"email": "a@b.c"', "a"), _call(tool, "[1, 2]", "b"),
        _call(tool, orjson.dumps(task.plan[0].arguments).decode(), "c")]))
    first, second, third = map(_envelope, replies)
    assert first["error"]["code"] == 400 and "not valid JSON" in first["error"]["message"]
    assert "JSON object" in second["error"]["message"]
    assert third["success"], "a good call in the same turn still runs"
    assert episode.malformed_calls == 2
    assert [c.error_source for c in episode.calls] == ["agent", "agent", None]
    assert episode.calls[0].arguments == '{"email": "a@b.c"'
    assert [r["tool_call_id"] for r in replies] == ["a", "b", "c"]
    assert not episode.done


def test_unknown_tool_is_a_404_envelope(direct_tasks: list[Task],
                                        gateway_tasks: list[Task]) -> None:
    for task in (direct_tasks[0], gateway_tasks[0]):
        episode = Episode(task)
        (reply,) = episode.step(AssistantMessage(tool_calls=[_call("no_such_tool", "{}")]))
        envelope = _envelope(reply)
        assert envelope["error"]["code"] == 404
        assert episode.calls[0].error_source == "agent"


def test_huge_arguments_are_refused_without_parsing(direct_tasks: list[Task]) -> None:
    episode = Episode(direct_tasks[0])
    huge = orjson.dumps({"email": "x" * (MAX_ARGUMENT_CHARS + 10)}).decode()
    (reply,) = episode.step(AssistantMessage(tool_calls=[_call(direct_tasks[0].plan[0].tool, huge)]))
    assert "limit" in _envelope(reply)["error"]["message"]
    assert len(episode.calls[0].arguments) < 3_000  # the log keeps a prefix, not the megabytes
    assert episode.malformed_calls == 1
    line = episode.to_trajectory("scripted").model_dump_json()
    assert Trajectory.model_validate_json(line).calls[0].code == 400


def test_repeated_call_ids_are_made_unique(direct_tasks: list[Task]) -> None:
    episode = Episode(direct_tasks[0])
    tool = direct_tasks[0].plan[0].tool
    arguments = orjson.dumps(direct_tasks[0].plan[0].arguments).decode()
    replies = episode.step(AssistantMessage(tool_calls=[_call(tool, arguments, ""),
                                                        _call(tool, arguments, "x"),
                                                        _call(tool, arguments, "x")]))
    ids = [r["tool_call_id"] for r in replies]
    assert len(set(ids)) == 3 and all(ids)
    sent = [c["id"] for c in episode.messages[-4]["tool_calls"]]
    assert sent == ids, "the assistant message and the tool messages agree"


def _broken_world() -> World:
    service = Service("flaky", domain="test", description="A service with a broken tool.")

    @service.read(returns=dict)
    def crash_now(db: Db) -> dict[str, Any]:
        """Always fails (a bug in the tool)."""
        raise RuntimeError("bug")

    env = Environment([service])
    return World(env=env, involved=("flaky",), distractors=(), interface="direct", seed=0)


def test_a_broken_tool_is_an_environment_error(direct_tasks: list[Task]) -> None:
    agent = Scripted([[_call("flaky__crash_now", "{}")], [_call("flaky__nope", "{}")]])
    trajectory = asyncio.run(run_episode(direct_tasks[0], agent, world=_broken_world()))
    assert trajectory.finish_reason == "stop"
    assert [(c.code, c.error_source) for c in trajectory.calls] == [(500, "environment"),
                                                                     (404, "agent")]


class Failing:
    name, model = "failing", "m"

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def respond(self, task: Task, messages: list[dict[str, Any]],
                      tools: list[dict[str, Any]]) -> AssistantMessage:
        raise self.error


@pytest.mark.parametrize("error", [ModelError("endpoint down"), RuntimeError("agent bug")])
def test_a_failing_agent_ends_the_episode_as_model_error(direct_tasks: list[Task],
                                                         error: Exception) -> None:
    trajectory = asyncio.run(run_episode(direct_tasks[0], Failing(error)))
    assert trajectory.finish_reason == "model_error"
    assert trajectory.error is not None and str(error) in trajectory.error
    assert trajectory.model == "m" and len(trajectory.messages) == 2


def test_budgets_truncate(direct_tasks: list[Task]) -> None:
    task = direct_tasks[0]
    loop = [[_call(task.plan[0].tool, orjson.dumps(task.plan[0].arguments).decode(), f"c{i}")]
            for i in range(50)]
    steps = asyncio.run(run_episode(task, Scripted(loop), max_steps=3))
    assert (steps.finish_reason, steps.n_steps, len(steps.calls)) == ("max_steps", 3, 3)
    tokens = asyncio.run(run_episode(task, Scripted(loop, tokens=40), max_tokens=100))
    assert (tokens.finish_reason, tokens.n_steps) == ("max_tokens", 3)
    assert tokens.usage == {"prompt_tokens": 30, "completion_tokens": 120}
    slow = asyncio.run(run_episode(task, Scripted(loop, delay=0.2), time_limit=0.3))
    assert slow.finish_reason == "timeout" and slow.n_steps <= 2
    assert slow.timings.model_s > 0.25


def test_a_finished_episode_refuses_more_steps(direct_tasks: list[Task]) -> None:
    episode = Episode(direct_tasks[0])
    assert episode.step(AssistantMessage(content="done")) == []
    assert episode.final_message == "done" and episode.finish_reason == "stop"
    with pytest.raises(UserError, match="has ended"):
        episode.step(AssistantMessage(content="again"))
    episode.reset()
    assert not episode.done and episode.calls == []


def test_calls_past_the_turn_limit_are_refused_and_not_replayable(direct_tasks: list[Task]) -> None:
    from compoworld.rollout._episode import MAX_CALLS_PER_TURN

    step = direct_tasks[0].plan[0]
    arguments = orjson.dumps(step.arguments).decode()
    episode = Episode(direct_tasks[0])
    replies = episode.step(AssistantMessage(tool_calls=[
        _call(step.tool, arguments, f"c{i}") for i in range(MAX_CALLS_PER_TURN + 2)]))
    assert all(_envelope(r)["success"] for r in replies[:MAX_CALLS_PER_TURN])
    assert all("too many calls" in _envelope(r)["error"]["message"]
               for r in replies[MAX_CALLS_PER_TURN:])
    assert all(isinstance(c.arguments, str) for c in episode.calls[MAX_CALLS_PER_TURN:])
