import asyncio

import pytest

from compoworld.models import AssistantMessage, ModelError
from compoworld.tasks import Task, check_rewrite, generate_tasks, rewrite_instructions
from compoworld.tasks._rewrite import stated_values


@pytest.fixture(scope="module")
def task() -> Task:
    return next(t for t in generate_tasks(10, seed=4)
                if stated_values(t.plan) and _discovered(t) is not None)


def _discovered(task: Task) -> str | None:
    """A value the agent must find (long enough for the leak check, not also stated)."""
    stated = {v.casefold() for v in stated_values(task.plan)}
    found = [str(v) for st in task.plan for k, s in st.sources.items() if s.kind == "step"
             for v in (st.arguments[k] if isinstance(st.arguments[k], list) else [st.arguments[k]])]
    return next((v for v in found if len(v) > 2 and v.casefold() not in stated), None)


class _Texts:
    """Hands back fixed replies: the rewrite gate is the stage under test, not a model."""

    model = "scripted"

    def __init__(self, *replies: str | Exception) -> None:
        self.replies = list(replies)

    async def chat(self, messages, tools=None, **_):
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return AssistantMessage(content=reply)


def test_a_faithful_rewrite_passes_and_keeps_the_template(task):
    text = "Hi! Could you please help me with this: " + task.instruction
    assert check_rewrite(text, task) is None
    (done,), outcomes = asyncio.run(rewrite_instructions([task], _Texts(text)))
    assert outcomes == {"rewritten": 1}
    assert done.instruction == text
    assert done.provenance["instruction_template"] == task.instruction


def test_rewrites_that_drop_or_leak_values_are_rejected(task):
    value = stated_values(task.plan)[0]
    dropped = task.instruction.replace(value, "something")
    discovered = _discovered(task)
    leaking = f"{task.instruction} (it is {discovered})"
    assert check_rewrite(dropped, task) == "dropped a stated value"
    assert check_rewrite(leaking, task) == "leaks a value to discover"
    assert check_rewrite("", task) == "empty"
    tasks, outcomes = asyncio.run(rewrite_instructions(
        [task, task, task], _Texts(dropped, leaking, ModelError("down")), concurrency=1))
    assert [t.instruction for t in tasks] == [task.instruction] * 3
    assert outcomes == {"dropped a stated value": 1, "leaks a value to discover": 1,
                        "model error": 1}
