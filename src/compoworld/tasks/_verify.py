"""The verification gates of a task, run at generation and again by ``tasks verify``."""

from __future__ import annotations

from compoworld.service import Environment
from compoworld.tasks._instruction import leaked
from compoworld.tasks._model import Criterion, Step, Task
from compoworld.tasks._rubric import score
from compoworld.tasks._world import build_world
from compoworld.world import World


def replay(env: Environment, plan: list[Step], skip: int | None = None) -> list[object]:
    """Run the plan's calls again (all but ``skip``); returns the answers' data."""
    outputs = []
    for i, step in enumerate(plan):
        if i == skip:
            continue
        envelope = env.call(step.tool, step.arguments)
        outputs.append(envelope.get("data") if envelope["success"] else envelope)
    return outputs


def gates(world: World, plan: list[Step], rubric: list[Criterion], reference: Environment,
            text: str, answer: Criterion | None) -> dict[str, bool]:
    """The gates: reference passes, doing nothing fails, each state criterion needs its step,
    nothing leaks, and the plan replays identically.

    Args:
        world: The task's world, in its initial state (forked, never called).
        plan: The reference plan.
        rubric: The task's criteria.
        reference: An environment of the world after running the plan.
        text: The instruction.
        answer: The answer criterion, if the task asks to be told something.
    """
    message = " ".join(str(v) for v in (answer.values if answer else []))
    calls = [s.tool for s in plan]
    initial = world.env  # never called: the world's initial state
    passes = all(r.passed for r in score(rubric, initial, reference, message, calls))
    idle = world.fork().env
    does_nothing_fail = not all(r.passed for r in score(rubric, initial, idle, "", []))
    needed = True
    for criterion in (c for c in rubric if c.kind == "state"):
        step_index = int(criterion.id.split("-", 1)[0][1:])
        ablated = world.fork().env
        replay(ablated, plan, skip=step_index)
        result = score([criterion], initial, ablated, message, calls)[0]
        needed = needed and not result.passed
    again = world.fork().env
    replays = replay(again, plan) == [s.output for s in plan] and (
        again.digest() == reference.digest())
    return {"reference_passes": passes, "doing_nothing_fails": does_nothing_fail,
            "steps_needed": needed, "no_leak": not leaked(text, plan), "replays": replays}



def verify_task(task: Task) -> dict[str, bool]:
    """Re-run a task's gates on its rebuilt world: the plan replays with the recorded outputs,
    the reference passes, doing nothing fails, every state criterion needs its step, the
    instruction leaks nothing.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> task = next(generate_tasks(1, seed=3))
        >>> all(verify_task(task).values())
        True
    """
    world = build_world(task)
    reference = world.fork().env
    same_outputs = replay(reference, task.plan) == [s.output for s in task.plan]
    answer = next((c for c in task.rubric if c.kind == "answer"), None)
    result = gates(world, task.plan, task.rubric, reference, task.instruction, answer)
    result["replays"] = result["replays"] and same_outputs
    return result
