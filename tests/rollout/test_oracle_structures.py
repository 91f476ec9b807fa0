"""The oracle plays each structure of a task: it finds and reads the rule's email and says what
it sets, checks an idempotency trap with a real read before the create (and makes the create
when the record is not there), narrates fan-outs, conditions and report-backs; a new kind of
structure plugs in as one function."""

import asyncio

import orjson
import pytest

from compoworld.rollout import OracleAgent, run_episode
from compoworld.rollout import _plays as plays
from compoworld.rollout._narration import Note
from compoworld.scoring import score_trajectory
from compoworld.tasks import GenerationSettings, Task, generate_tasks
from compoworld.tasks._trap_check import trap_check


@pytest.fixture(scope="session")
def many() -> list[Task]:
    return [*generate_tasks(40, seed=0),
            *generate_tasks(40, seed=1, settings=GenerationSettings(interface="gateway"))]


def _run(task: Task):
    return asyncio.run(run_episode(task, OracleAgent(), timings=False))


def _service_calls(trajectory) -> list[tuple[str, dict, str]]:
    return [(c.arguments["tool_name"], c.arguments.get("arguments") or {}, c.call_id)
            if c.name == "call_tool" else (c.name, c.arguments, c.call_id)
            for c in trajectory.calls if c.name not in ("list_services", "list_tools",
                                                        "describe_tool")]


def _reasoning_of(trajectory, call_id: str) -> str:
    return next(m["reasoning_content"] for m in trajectory.messages if m["role"] == "assistant"
                and any(c["id"] == call_id for c in m.get("tool_calls") or []))


def _after(trajectory, call_id: str) -> str:
    """The reasoning of the assistant turn after the one that made ``call_id``."""
    turns = [m for m in trajectory.messages if m["role"] == "assistant"]
    at = next(i for i, m in enumerate(turns)
              if any(c["id"] == call_id for c in m.get("tool_calls") or []))
    return turns[at + 1]["reasoning_content"]


def _checkable_idempotency(task) -> bool:
    """An idempotency trap an agent can check (a refusal's "check" is the refused call)."""
    return bool(task.scenario and task.scenario.traps
                and task.scenario.traps[0].kind == "idempotency" and trap_check(task, 0))


def test_a_checkable_trap_is_checked_with_a_real_read_before_the_create(many):
    checked = [t for t in many if _checkable_idempotency(t)]
    assert len(checked) >= 3
    for task in checked:
        trap, check = task.scenario.traps[0], trap_check(task, 0)
        planted = next(p.values["id"] for p in task.scenario.planted
                       if f"{p.service}__{p.entity}" == trap.table)
        trajectory = _run(task)
        calls = _service_calls(trajectory)
        made = next(c for c in trajectory.calls if c.call_id == "call_check_0")
        assert made.success and planted in orjson.dumps(
            next(m for m in trajectory.messages if m.get("tool_call_id") == "call_check_0")
            ["content"]).decode()
        assert [t for t, _, i in calls if i == "call_check_0"] == [check.tool]
        assert trap.step.tool not in [t for t, _, i in calls if i.startswith("call_trap")]
        assert "unless there already is one" in _reasoning_of(trajectory, "call_check_0")
        # the check comes after every call whose answer gives the create a value it compares
        turns = [[c["id"] for c in m.get("tool_calls") or []] for m in trajectory.messages
                 if m["role"] == "assistant"]
        at = next(i for i, ids in enumerate(turns) if "call_check_0" in ids)
        for source in trap.step.sources.values():
            if source.step is not None:
                assert any(f"call_step_{source.step}" in ids for ids in turns[:at]), task.id
        found = _after(trajectory, "call_check_0")
        assert found.startswith("There already is one: ")
        shown = found.split("`")[1]  # the record it names is one the check's answer holds
        result = next(m for m in trajectory.messages if m.get("tool_call_id") == "call_check_0")
        assert f'"id":"{shown}"' in result["content"].replace(" ", "")
        assert f"(`{shown}`), so I left it as it is" in trajectory.final_message
        assert score_trajectory(task, trajectory).score == 1.0, task.id


def _check_key(task: Task) -> tuple[str, int, int, str]:
    """The key ``tasks._trap_check.trap_check`` keeps trap 0's check of ``task`` under (other
    tests' tasks may share its id: same seed, other settings)."""
    return (task.id, task.seed, 0, orjson.dumps(task.scenario.traps[0].model_dump()).decode())


def _without_the_plant(task: Task) -> Task:
    """``task`` in a world where the trap's record is not planted (the check is the same read)."""
    from compoworld.tasks import _trap_check

    service, entity = task.scenario.traps[0].table.split("__")
    check = trap_check(task, 0)
    empty = task.model_copy(update={"scenario": task.scenario.model_copy(update={"planted": [
        p for p in task.scenario.planted if (p.service, p.entity) != (service, entity)]})})
    _trap_check._FOUND[_check_key(empty)] = check
    return empty


def test_when_the_check_finds_nothing_the_oracle_creates_the_record(many):
    # A seeded record may share the values the check filters by (then there already is one
    # even without the plant): the first task whose check finds nothing once it is removed.
    for task in (t for t in many if _checkable_idempotency(t)):
        trajectory = _run(_without_the_plant(task))
        if "so I create it" in _after(trajectory, "call_check_0"):
            break
    else:
        raise AssertionError("no trap task whose check finds nothing without its plant")
    created = [c for c in trajectory.calls if c.call_id == "call_trap_0"]
    assert len(created) == 1 and created[0].success
    assert "(there was none yet)" in trajectory.final_message


def test_an_uncheckable_trap_is_said_so(many):
    # Generation keeps only traps a read can show (gate trap_checkable); a task from elsewhere
    # may hold one no read shows: the same task with its check taken away stands for it.
    checked = next(t for t in many if _checkable_idempotency(t))
    from compoworld.tasks import _trap_check
    task = checked.model_copy(update={"id": checked.id + "-unchecked"})
    _trap_check._FOUND[_check_key(task)] = None
    trajectory = _run(task)
    assert not any(c.call_id.startswith(("call_check", "call_trap")) for c in trajectory.calls)
    reasoning = " ".join(m["reasoning_content"] for m in trajectory.messages
                         if m["role"] == "assistant")
    assert "so I cannot check" in reasoning
    assert "I could not check whether" in trajectory.final_message
    assert score_trajectory(task, trajectory).score == 1.0


def test_the_rules_email_is_looked_for_then_applied(many):
    ruled = [t for t in many if t.scenario and t.scenario.rule]
    assert any(t.scenario.rule.kind == "value" for t in ruled)
    assert any(t.scenario.rule.kind == "selection" for t in ruled)
    for task in ruled:
        rule = task.scenario.rule
        trajectory = _run(task)
        first = _reasoning_of(trajectory, "call_step_0")
        assert f"{rule.author} emailed about this (\"{rule.subject}\")" in first
        assert "look for that email" in first
        if rule.kind in ("exception", "threshold"):  # the write held back / the limit
            reasoning = " ".join(m["reasoning_content"] for m in trajectory.messages
                                 if m["role"] == "assistant")
            said = ("holds one back" if rule.kind == "exception" else "sets the limit")
            assert f"{rule.author.split()[0]}'s email {said}" in reasoning, task.id
            assert score_trajectory(task, trajectory).score == 1.0
            continue
        applied = _reasoning_of(trajectory, f"call_step_{rule.step}")
        assert f"{rule.author.split()[0]}'s email" in applied
        if rule.kind == "value":
            assert f"please use {rule.value} as the" in applied  # quoted from the email read
        else:
            assert "always go with the one with the" in applied
        assert rule.author in trajectory.final_message
        assert score_trajectory(task, trajectory).score == 1.0


def test_the_persona_is_who_the_oracle_works_for(many):
    task = next(t for t in many if t.scenario)
    trajectory = _run(task)
    first = next(m for m in trajectory.messages if m["role"] == "assistant")
    assert first["reasoning_content"].startswith(f"I am working for {task.scenario.persona}")


def test_fan_out_condition_and_report_back_are_narrated(many):
    fan = next(t for t in many if "fan-out" in plays.structures(t))
    copies = sum(any(s.each for s in step.sources.values()) for step in fan.plan)
    trajectory = _run(fan)
    assert f"{copies} came back, so I" in " ".join(
        m["reasoning_content"] for m in trajectory.messages if m["role"] == "assistant")
    assert f"once for each of the {copies}" in trajectory.final_message

    conditional = next(t for t in many if "condition" in plays.structures(t))
    trajectory = _run(conditional)
    said = " ".join(m["reasoning_content"] for m in trajectory.messages if m["role"] == "assistant")
    assert "The request says to do this only if" in said
    assert "## Checks" in trajectory.final_message and str(
        conditional.condition.threshold) in trajectory.final_message.split("## Checks")[1]

    back = next(t for t in many if "report-back" in plays.structures(t))
    criterion = next(c for c in back.rubric if c.kind == "answer" and c.step is not None)
    trajectory = _run(back)
    assert f"the {plays.ordinal(criterion.step)} call found" in " ".join(
        m["reasoning_content"] for m in trajectory.messages if m["role"] == "assistant")
    assert all(str(v) in trajectory.final_message for v in criterion.values)


def test_a_new_kind_of_structure_plugs_in(many, monkeypatch):
    def decoys(task, seen):
        return plays.Play(notes={("first", 0): [Note("check", "Two of these look alike.")]},
                          report=["I told the look-alikes apart."])

    monkeypatch.setitem(plays.PLAYS, "decoys", decoys)  # type: ignore[arg-type]
    trajectory = _run(many[0])
    first = next(m for m in trajectory.messages if m["role"] == "assistant")
    assert "Two of these look alike." in first["reasoning_content"]
    assert "- I told the look-alikes apart." in trajectory.final_message
    assert "decoys" in plays.structures(many[0])
