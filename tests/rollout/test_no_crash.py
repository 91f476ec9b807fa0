"""No single episode can end a run (issue 18, defect 1): hostile arguments from a model, an
environment bug or a task whose world cannot be built are recorded on the trajectory, the run
goes on, and a resume does not run the same pair again."""

from pathlib import Path
from typing import Any

import orjson

from compoworld.models import AssistantMessage, ToolCall
from compoworld.rollout import OracleAgent, Trajectory, rollout
from compoworld.rollout._episode import Episode
from compoworld.tasks import Task


def _lines(path: Path) -> list[Trajectory]:
    return [Trajectory.model_validate_json(line) for line in path.read_bytes().splitlines()]


class Deep:
    """Sends one call whose arguments are nested ``depth`` levels deep, then stops."""

    name, model = "deep", None

    def __init__(self, depth: int) -> None:
        self.depth = depth

    async def respond(self, task: Task, messages: list[dict[str, Any]],
                      tools: list[dict[str, Any]]) -> AssistantMessage:
        if len(messages) > 2:
            return AssistantMessage(content="done")
        raw = '{"x": ' + "[" * self.depth + "]" * self.depth + "}"
        return AssistantMessage(tool_calls=[ToolCall(id="c", name=task.plan[0].tool,
                                                     arguments=raw)])


def test_deeply_nested_arguments_are_refused_and_the_run_goes_on(
        tmp_path: Path, direct_tasks: list[Task]) -> None:
    out = tmp_path / "rollouts.jsonl"
    stats = rollout(direct_tasks[:2], Deep(253), out=out, concurrency=2)
    assert stats.done == 2
    lines = _lines(out)
    assert [t.finish_reason for t in lines] == ["stop", "stop"]
    call = lines[0].calls[0]
    assert call.code == 400 and "levels deep" in (call.error or "")
    assert isinstance(call.arguments, str)  # logged as text, as a call that was not run
    assert rollout(direct_tasks[:2], Deep(253), out=out).skipped == 2


def test_an_exception_out_of_the_environment_is_an_env_error(
        direct_tasks: list[Task], monkeypatch: Any) -> None:
    import asyncio

    episode = Episode(direct_tasks[0])

    def explode(name: str, arguments: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(episode.world.env, "call", explode)
    trajectory = asyncio.run(episode.run(OracleAgent()))
    assert trajectory.finish_reason == "env_error"
    assert "RuntimeError: boom" in (trajectory.error or "")


def test_a_task_whose_world_cannot_be_built_is_recorded_and_the_run_goes_on(
        tmp_path: Path, direct_tasks: list[Task]) -> None:
    bad = direct_tasks[0].model_copy(update={"id": "bad-1", "involved": ["no_such_service"]})
    out = tmp_path / "rollouts.jsonl"
    stats = rollout([bad, direct_tasks[1]], OracleAgent(), out=out, concurrency=1)
    assert stats.done == 2
    reasons = {t.task_id: t for t in _lines(out)}
    assert reasons["bad-1"].finish_reason == "env_error"
    assert "no_such_service" in (reasons["bad-1"].error or "")
    assert reasons[direct_tasks[1].id].finish_reason == "stop"
    again = rollout([bad, direct_tasks[1]], OracleAgent(), out=out)
    assert again.skipped == 2 and again.done == 0


def test_a_trajectory_that_cannot_be_serialized_becomes_an_env_error_line(
        direct_tasks: list[Task]) -> None:
    deep: Any = "x"
    for _ in range(5_000):
        deep = {"a": deep}
    trajectory = Trajectory(task_id="t", rollout_idx=0, agent="a", interface="direct",
                            messages=[{"role": "system", "content": "s"},
                                      {"role": "user", "content": "u"},
                                      {"role": "assistant", "content": deep}],
                            tools=[], calls=[], finish_reason="stop")
    line = orjson.loads(trajectory.to_line())
    assert line["finish_reason"] == "env_error"
    assert len(line["messages"]) == 2
    assert "could not be serialized" in line["error"]
