import random

import pytest

from compoworld.tasks import Task, generate_tasks, verify_task
from compoworld.tasks._condition import _threshold, holds


@pytest.fixture(scope="module")
def conditional() -> list[Task]:
    return [t for t in generate_tasks(500, seed=0) if t.condition is not None]


def _value(task: Task):
    assert task.condition is not None
    value = task.plan[task.condition.source].output
    for part in task.condition.path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def test_thresholds_are_strictly_on_the_chosen_side():
    rng = random.Random(0)
    for value in (0.5, 7, 1234.56, 98000, -3.2, "2026-01-05", "2025-12-31T10:00:00"):
        for above in (True, False):
            threshold = _threshold(value, above, rng)
            assert holds(value, "lt" if above else "gt", threshold), (value, threshold)
            assert not holds(value, "gt" if above else "lt", threshold)


def test_a_conditional_write_is_done_exactly_when_the_found_value_says_so(conditional):
    assert {t.condition.holds for t in conditional} == {True, False}
    for task in conditional:
        condition = task.condition
        assert "conditional-branching" in task.labels.capabilities
        assert holds(_value(task), condition.op, condition.threshold) == condition.holds
        assert (task.plan[-1] == condition.then) == condition.holds
        assert "only if" in task.instruction
        rule = task.scenario.rule if task.scenario else None
        if rule is not None and rule.kind == "threshold":  # the limit is in the email only
            assert rule.author in task.instruction and rule.value == condition.threshold
        else:
            assert str(condition.threshold) in task.instruction
        assert str(_value(task)) not in task.instruction  # the agent must look it up
        assert condition.then.tool.split("__")[0] in task.involved


def test_conditional_tasks_pass_every_gate_again_including_the_other_branch(conditional):
    for task in conditional[:4]:
        result = verify_task(task)
        assert result["branch_matters"] and all(result.values()), result
