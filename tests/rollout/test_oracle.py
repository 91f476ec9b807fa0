"""The oracle plays each task's reference plan: the reference final state, the rubric passed."""

import asyncio

import orjson

from compoworld.rollout import Episode, OracleAgent, build_world, run_episode
from compoworld.tasks import Task, score


def _tool_calls(episode: Episode) -> list[tuple[str, dict]]:
    """The service tools the episode called, with their arguments (through call_tool in
    gateway mode)."""
    return [(c.arguments["tool_name"], c.arguments.get("arguments") or {})
            if c.name == "call_tool" else (c.name, c.arguments) for c in episode.calls]


def _reference_digest(task: Task) -> str:
    env = build_world(task).env
    for step in task.plan:
        assert env.call(step.tool, step.arguments)["success"]
    return env.digest()


def test_oracle_reaches_the_reference_state_and_passes_the_rubric(tasks: list[Task]) -> None:
    for task in tasks:
        episode = Episode(task)
        trajectory = asyncio.run(episode.run(OracleAgent()))
        assert trajectory.finish_reason == "stop", task.id
        assert all(c.success for c in trajectory.calls), task.id
        assert episode.world.env.digest() == _reference_digest(task), task.id
        results = score(task.rubric, build_world(task).env, episode.world.env,
                        trajectory.final_message, _tool_calls(episode))
        assert [r.id for r in results if not r.passed] == [], task.id


def _asking(task: Task) -> Task | None:
    """The task cut after its first read, asking for that read's answer (generated tasks end
    on a write today, so none asks for one)."""
    from compoworld.tasks._rubric import answer_criteria

    env = build_world(task).env
    for i, step in enumerate(task.plan):
        criteria = (answer_criteria(step, env, plan=task.plan[:i + 1])
                    if env.tools[step.tool].kind == "read" else [])
        if criteria:
            return task.model_copy(update={"plan": task.plan[:i + 1], "rubric": criteria})
    return None


def test_oracle_answers_with_the_values_the_task_asks_for(tasks: list[Task]) -> None:
    asked = [t for t in map(_asking, tasks) if t is not None]
    assert asked, "no task has a read with an answer"
    for task in asked:
        trajectory = asyncio.run(run_episode(task, OracleAgent()))
        (criterion,) = task.rubric
        assert all(str(v) in trajectory.final_message for v in criterion.values)
        results = score(task.rubric, build_world(task).env, build_world(task).env,
                        trajectory.final_message, [])
        assert all(r.passed for r in results), (task.id, trajectory.final_message)


def test_gateway_oracle_discovers_before_calling(gateway_tasks: list[Task]) -> None:
    # (a task with no trap: checking one is a call the plan does not hold)
    task = next(t for t in gateway_tasks if not (t.scenario and t.scenario.traps))
    trajectory = asyncio.run(run_episode(task, OracleAgent()))
    names = [c.name for c in trajectory.calls]
    first_call = names.index("call_tool")
    assert names[0] == "list_services"
    assert {"list_tools", "describe_tool"} <= set(names[:first_call])
    described = {c.arguments["tool_name"] for c in trajectory.calls if c.name == "describe_tool"}
    assert described == {s.tool for s in task.plan}
    assert [c.arguments["tool_name"] for c in trajectory.calls if c.name == "call_tool"] == [
        s.tool for s in task.plan]


def test_step_sourced_arguments_are_read_from_this_episode(direct_tasks: list[Task]) -> None:
    """Where the world answers otherwise, the oracle uses what it saw, not the plan's value."""
    task = next(t for t in direct_tasks if any(
        s.kind == "step" and s.selection is None and s.path
        for step in t.plan for s in step.sources.values()))
    index, name, source = next((i, n, s) for i, step in enumerate(task.plan)
                               for n, s in step.sources.items()
                               if s.kind == "step" and s.selection is None and s.path)
    agent = OracleAgent()
    messages: list[dict] = []
    turn = 0
    while True:  # play the oracle's turns up to the one that makes step ``index``
        reply = asyncio.run(agent.respond(task, messages, []))
        ids = [c.id for c in reply.tool_calls]
        if f"call_step_{index}" in ids:
            break
        messages.append(reply.to_openai())
        for call in reply.tool_calls:
            step = int(call.id.rsplit("_", 1)[1])
            output = orjson.loads(orjson.dumps(task.plan[step].output))
            if step == source.step:  # this episode's answer differs from the plan's
                parts = source.path.split(".")
                holder = output
                for part in parts[:-1]:
                    holder = holder[int(part)] if isinstance(holder, list) else holder[part]
                key = int(parts[-1]) if isinstance(holder, list) else parts[-1]
                holder[key] = "changed@example.com"
            messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                             "content": orjson.dumps({"success": True, "data": output}).decode()})
        turn += 1
        assert turn < 20
    call = next(c for c in reply.tool_calls if c.id == f"call_step_{index}")
    value = orjson.loads(call.arguments)[name]
    assert value in ("changed@example.com", ["changed@example.com"])


def test_independent_steps_share_a_turn(tasks: list[Task]) -> None:
    """Steps that need nothing from each other go in one parallel turn (order kept)."""
    found = False
    for task in tasks:
        trajectory = asyncio.run(run_episode(task, OracleAgent()))
        turns = [m for m in trajectory.messages if m["role"] == "assistant" and m.get("tool_calls")]
        steps = [m for m in turns if any(c["id"].startswith("call_step_") for c in m["tool_calls"])]
        if task.interface == "direct":
            assert len(steps) <= len(task.plan)
        found = found or any(len(m["tool_calls"]) > 1 for m in steps)
    assert found, "no task has independent steps"


def _run(task: Task, agent: OracleAgent | None = None):
    return asyncio.run(run_episode(task, agent or OracleAgent(), timings=False))


def test_every_turn_says_why(tasks: list[Task]) -> None:
    for task in tasks:
        trajectory = _run(task)
        assistant = [m for m in trajectory.messages if m["role"] == "assistant"]
        assert all(len(m.get("reasoning_content") or "") > 30 for m in assistant), task.id
        # arguments drawn from earlier results are said to be
        steps = [m for m in assistant if any(
            c["function"]["name"] not in ("list_services", "list_tools", "describe_tool")
            for c in m.get("tool_calls") or [])]
        sourced = sum(1 for s in task.plan for src in s.sources.values() if src.kind == "step")
        if sourced:
            assert any("call (" in m["reasoning_content"] for m in steps), task.id


def test_gateway_discovery_is_careful(gateway_tasks: list[Task]) -> None:
    for task in gateway_tasks:
        trajectory = _run(task)
        names = [c.name for c in trajectory.calls]
        assert names[0] == "list_services"
        looked = {c.arguments["service"] for c in trajectory.calls if c.name == "list_tools"}
        assert set(task.involved) <= looked and looked - set(task.involved), task.id
        described: set[str] = set()
        for call in trajectory.calls:
            if call.name == "describe_tool":
                described.add(call.arguments["tool_name"])
            if call.name == "call_tool":
                assert call.arguments["tool_name"] in described, task.id


def test_the_report_states_what_changed(tasks: list[Task]) -> None:
    import statistics

    lengths = []
    for task in tasks:
        message = _run(task).final_message
        assert message.startswith("## Summary") and "## What changed" in message
        lengths.append(len(message.split()))
    assert statistics.median(lengths) >= 80, lengths


def test_same_task_same_trajectory(tasks: list[Task]) -> None:
    for task in tasks[:4]:
        assert _run(task).model_dump_json() == _run(task).model_dump_json()


def test_a_stumble_is_a_400_then_the_fix(tasks: list[Task]) -> None:
    from compoworld.scoring import score_trajectory

    for task in tasks:
        trajectory = _run(task, OracleAgent(stumble=True))
        assert trajectory.agent == "oracle-stumble"
        failed = [c for c in trajectory.calls if not c.success]
        assert len(failed) == (1 if any(s.arguments for s in task.plan) else 0), task.id
        assert all(c.code == 400 and c.error_source == "agent" for c in failed)
        assert score_trajectory(task, trajectory).score == 1.0, task.id
        if failed:
            after = next(m for m in trajectory.messages if m["role"] == "assistant"
                         and "That call was refused" in (m.get("reasoning_content") or ""))
            assert after["tool_calls"]


def test_narrators_extend_the_notes(tasks: list[Task]) -> None:
    from compoworld.rollout import Narrator, Note

    class PolicyFirst:
        def notes(self, task: Task, step: int, notes: list[Note]) -> list[Note]:
            return [Note("rule", "The refund policy caps this at 500."), *notes]

    narrator: Narrator = PolicyFirst()
    trajectory = _run(tasks[0], OracleAgent(narrators=[narrator]))
    turns = [m["reasoning_content"] for m in trajectory.messages
             if m["role"] == "assistant" and m.get("tool_calls")]
    if tasks[0].scenario is not None:  # the first turn opens by saying whom the agent works for
        opening = f"I am working for {tasks[0].scenario.persona}, on what they asked for and nothing more. "
        assert turns[0].startswith(opening)
        turns[0] = turns[0].removeprefix(opening)
    assert turns and all(text.startswith("The refund policy caps this at 500.") for text in turns)
