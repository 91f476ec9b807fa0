"""Tasks and environments shared by the training tests."""

import pytest

from compoworld.tasks import GenerationSettings, generate_tasks


@pytest.fixture(scope="session")
def direct_tasks():
    """Three small direct-interface tasks (no distractors: small worlds)."""
    settings = GenerationSettings(min_steps=2, max_steps=3, distractors=0, interface="direct")
    return list(generate_tasks(3, seed=0, settings=settings))


@pytest.fixture(scope="session")
def gateway_tasks():
    """Two small gateway-interface tasks (four meta-tools: short prompts for the small model)."""
    settings = GenerationSettings(min_steps=2, max_steps=3, distractors=0, interface="gateway")
    return list(generate_tasks(2, seed=0, settings=settings))


def oracle_answer(task):
    """The final message the reference plan supports: every value the answer criteria ask for."""
    return " ".join(str(v) for c in task.rubric if c.kind == "answer" for v in c.values)


def play(env, task, steps=None):
    """Run the first ``steps`` steps of ``task``'s reference plan through the environment's tool
    methods (as TRL calls them), after a reset."""
    env.reset(task=task.model_dump_json(), task_id=task.id)
    for step in task.plan[:steps]:
        if task.interface == "gateway":
            env.call_tool(tool_name=step.tool, arguments=step.arguments)
        else:
            getattr(env, step.tool)(**step.arguments)
    return env
