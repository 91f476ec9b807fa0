import json

import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.errors import UserError
from compoworld.tasks import Task, build_world, generate_tasks, load_tasks, verify_task


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(generate_tasks(4, seed=2))


def test_generated_tasks_pass_their_gates_again_on_a_rebuilt_world(tasks):
    for task in tasks:
        world = build_world(task)
        assert list(world.distractors) == task.distractors
        assert all(verify_task(task).values())


def test_a_leaking_instruction_fails_the_leak_gate(tasks):
    task = tasks[0]
    step, (name, _) = next((s, kv) for s in task.plan for kv in s.sources.items()
                           if kv[1].kind == "step")
    leaky = task.model_copy(update={"instruction": f"{task.instruction} Use {step.arguments[name]}."})
    result = verify_task(leaky)
    assert result["no_leak"] is False and result["replays"] is True


def test_a_plan_whose_recorded_output_differs_fails_replay(tasks):
    task = tasks[1]
    plan = [s.model_copy() for s in task.plan]
    plan[0] = plan[0].model_copy(update={"output": {"tampered": True}})
    assert verify_task(task.model_copy(update={"plan": plan}))["replays"] is False


def test_data_transformation_arguments_are_sums_of_an_earlier_list():
    found = [t for t in generate_tasks(60, seed=0)
             if "data-transformation" in t.labels.capabilities]
    assert found, "no data-transformation task among 60"
    for task in found:
        for step in task.plan:
            for name, source in step.sources.items():
                if source.kind != "computed":
                    continue
                assert source.step is not None and source.op == "sum" and len(source.paths) >= 2
                output = task.plan[source.step].output
                values = []
                for path in source.paths:
                    value = output
                    for part in path.split("."):
                        value = value[int(part)] if isinstance(value, list) else value[part]
                    values.append(value)
                assert step.arguments[name] == pytest.approx(sum(values))
                assert str(step.arguments[name]) not in task.instruction
                assert "total" in task.instruction


def test_tasks_verify_command(tmp_path, tasks):
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    result = CliRunner().invoke(app, ["tasks", "verify", str(path), "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [line["id"] for line in lines] == [t.id for t in tasks]
    assert all(line["passed"] for line in lines)
    bad = tasks[0].model_copy(update={"instruction": tasks[0].instruction + " " + str(
        next(s.arguments[k] for s in tasks[0].plan for k, v in s.sources.items()
             if v.kind == "step"))})
    path.write_text(bad.model_dump_json() + "\n")
    result = CliRunner().invoke(app, ["tasks", "verify", str(path)])
    assert result.exit_code == 1
    assert "no_leak" in result.output


def test_load_tasks_names_the_bad_line_and_drops_a_torn_tail(tmp_path, tasks):
    path = tmp_path / "t.jsonl"
    line = tasks[0].model_dump_json()
    path.write_text(line + "\n" + line[:40])
    assert len(load_tasks(path)) == 1
    path.write_text("{}\n" + line + "\n")
    with pytest.raises(UserError, match=":1 is not a task"):
        load_tasks(path)
    with pytest.raises(UserError, match="no task file"):
        load_tasks(tmp_path / "missing.jsonl")
