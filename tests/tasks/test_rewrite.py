import asyncio
import re

import pytest

from compoworld.catalog import load_service
from compoworld.models import AssistantMessage, ModelError
from compoworld.tasks import Task, check_rewrite, generate_tasks, rewrite_instructions
from compoworld.tasks._rewrite import _prompt, _scenario_lines, names_identifier, stated_values
from compoworld.tasks._service_names import display_name


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
    dropped = re.sub(re.escape(value), "something", task.instruction, flags=re.IGNORECASE)
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


@pytest.fixture(scope="module")
def ruled() -> Task:
    """A task whose scenario stores a value rule in the world."""
    return next(t for t in generate_tasks(40, seed=4)
                if t.scenario is not None and t.scenario.rule is not None
                and t.scenario.rule.kind == "value" and len(str(t.scenario.rule.value)) > 2
                and str(t.scenario.rule.value).casefold() not in t.instruction.casefold())


def test_the_prompt_carries_the_scenario_never_the_rule(ruled):
    prompt = _prompt(ruled)
    rule = ruled.scenario.rule
    assert ruled.today in prompt and ruled.scenario.persona in prompt
    assert rule.author in prompt and ruled.instruction in prompt
    assert str(rule.value).casefold() not in _scenario_lines(ruled).casefold()
    for name in ruled.involved:  # the services as a person names them, never their ids
        assert display_name(load_service(name)) in prompt


def test_rewrites_that_state_the_rule_drop_its_pointer_or_name_a_tool_are_rejected(ruled):
    rule = ruled.scenario.rule
    stating = f"{ruled.instruction} (the note says {rule.value})"
    assert check_rewrite(stating, ruled) == "leaks a value to discover"
    author = rule.author.split()[0]
    if author in ruled.instruction:
        assert check_rewrite(ruled.instruction.replace(author, "someone"), ruled) == (
            "lost the rule's pointer")
    tool = ruled.plan[-1].tool
    assert check_rewrite(f"{ruled.instruction} Use {tool}.", ruled) == "names a tool"
    assert tool in names_identifier(f"call {tool} now", ruled)
    assert names_identifier("call the billing team now", ruled) == []
    assert check_rewrite("Hello! " + ruled.instruction, ruled) is None
