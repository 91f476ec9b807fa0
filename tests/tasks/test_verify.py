import json

import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.errors import UserError
from compoworld.graph import extract_facts
from compoworld.tasks import Task, build_world, generate_tasks, load_tasks, verify_task
from compoworld.tasks._fill import Known, _computed
from compoworld.tasks._rewrite import stated_values
from compoworld.tasks._walk import Walk
from compoworld.world import compose


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(generate_tasks(4, seed=2))


def test_generated_tasks_pass_their_gates_again_on_a_rebuilt_world(tasks):
    for task in tasks:
        world = build_world(task)
        assert list(world.distractors) == task.distractors
        assert all(verify_task(task).values())


def _discovered(task: Task) -> str | None:
    """A value the agent must find (long enough for the leak check, not also stated)."""
    stated = {v.casefold() for v in stated_values(task.plan)}
    found = [str(v) for st in task.plan for k, s in st.sources.items() if s.kind == "step"
             for v in (st.arguments[k] if isinstance(st.arguments[k], list) else [st.arguments[k]])]
    return next((v for v in found if len(v) > 2 and v.casefold() not in stated), None)


def test_a_leaking_instruction_fails_the_leak_gate(tasks):
    task = next(t for t in tasks if _discovered(t))
    leaky = task.model_copy(update={"instruction": f"{task.instruction} Use {_discovered(task)}."})
    result = verify_task(leaky)
    assert result["no_leak"] is False and result["replays"] is True


def test_a_plan_whose_recorded_output_differs_fails_replay(tasks):
    task = tasks[1]
    plan = [s.model_copy() for s in task.plan]
    plan[0] = plan[0].model_copy(update={"output": {"tampered": True}})
    assert verify_task(task.model_copy(update={"plan": plan}))["replays"] is False


def test_a_write_amount_can_be_the_sum_over_a_list_found_earlier():
    world = compose(["payments"], seed=0)
    customer = world.call("payments__list_invoices", {"limit": 1})["data"]["items"][0]["customer_id"]
    listed = world.call("payments__list_invoices", {"customer_id": customer})
    amounts = [item["amount"] for item in listed["data"]["items"]]
    assert len(amounts) >= 2
    walk = Walk()
    tool = world.env.tools["payments__list_invoices"]
    for fact in extract_facts(tool.output_schema, listed["data"], "payments"):
        walk.known.append(Known(fact, 0, "payments"))
    create = world.env.tools["payments__create_invoice"]
    amount = next(p for p in create.params if p.name == "amount")
    value, source = _computed(walk, amount, create)
    assert value == pytest.approx(sum(amounts)) and source.kind == "computed"
    assert (source.op, source.step, len(source.paths)) == ("sum", 0, len(amounts))
    read = world.env.tools["payments__get_invoice"]  # reads never take computed values
    assert _computed(walk, amount, read) is None


@pytest.mark.slow
def test_generated_data_transformation_tasks_sum_what_an_earlier_step_found():
    task = next(t for t in generate_tasks(400, seed=0)
                if "data-transformation" in t.labels.capabilities
                and any(src.op == "sum" for s in t.plan for src in s.sources.values()))
    assert all(verify_task(task).values())
    checked = 0
    for step in task.plan:
        for name, source in step.sources.items():
            if source.kind != "computed" or source.op == "shift":
                continue  # a date moved from a found one: tests/tasks/test_structures.py
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
            assert "the sum of the" in task.instruction
            checked += 1
    assert checked


def test_tasks_verify_command(tmp_path, tasks):
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    result = CliRunner().invoke(app, ["tasks", "verify", str(path), "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [line["id"] for line in lines] == [t.id for t in tasks]
    assert all(line["passed"] for line in lines)
    task = next(t for t in tasks if _discovered(t))
    bad = task.model_copy(update={"instruction": f"{task.instruction} {_discovered(task)}"})
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


def _gate_args(task: Task) -> tuple:
    world = build_world(task)
    reference = world.fork().env
    for step in task.plan:
        reference.call(step.tool, step.arguments)
    return world.env, (lambda: world.fork().env), task.plan, task.rubric, reference


def test_gates_cheapest_first_give_a_passing_task_the_same_verification(tasks):
    from compoworld.tasks._verify import GATE_ORDER, gates
    task = tasks[0]
    initial, scratch, plan, rubric, reference = _gate_args(task)
    every = gates(initial, scratch, plan, rubric, reference, task.instruction, task.condition,
                  scenario=task.scenario)
    first = gates(initial, scratch, plan, rubric, reference, task.instruction, task.condition,
                  scenario=task.scenario, first_failure=True)
    assert all(every.values()) and list(first.items()) == list(every.items())
    assert set(every) <= set(GATE_ORDER)


def test_gates_cheapest_first_stop_at_the_first_that_fails(tasks):
    from compoworld.tasks._verify import GATE_ORDER, gates
    task = next(t for t in tasks if _discovered(t))
    initial, scratch, plan, rubric, reference = _gate_args(task)
    leaky = f"{task.instruction} Use {_discovered(task)}."
    every = gates(initial, scratch, plan, rubric, reference, leaky, task.condition,
                  scenario=task.scenario)
    first = gates(initial, scratch, plan, rubric, reference, leaky, task.condition,
                  scenario=task.scenario, first_failure=True)
    assert every["no_leak"] is False and len(every) > 1
    assert first == {"no_leak": False}  # the cheapest gate: nothing after it ran
    assert GATE_ORDER[0] == "no_leak"


def test_answer_candidates_follow_a_write_to_the_field():
    from compoworld.tasks._check import _candidates
    world = compose(["payments"], seed=0)
    env = world.fork().env
    field = "payments__invoice.number"
    before = _candidates(env, [field])
    assert before and before == _candidates(env, [field])
    invoice = env.call("payments__list_invoices", {"limit": 1})["data"]["items"][0]
    env.db("payments").update("invoice", invoice["id"], number="INV-CACHE-CHECK")
    after = _candidates(env, [field])
    assert "INV-CACHE-CHECK" in after and "INV-CACHE-CHECK" not in before
    env.reset()
    assert _candidates(env, [field]) == before
