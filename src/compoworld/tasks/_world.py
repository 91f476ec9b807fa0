"""The world a task runs in, rebuilt from the task alone."""

from __future__ import annotations

from datetime import date

from compoworld.service import Simulator
from compoworld.tasks._model import Task
from compoworld.tasks._planting import plant
from compoworld.world import World, compose


def build_world(task: Task, simulator: Simulator | None = None) -> World:
    """The task's world in its initial state: same services, distractors, seed, date and
    interface as when the task was generated (worlds are deterministic, so this is the one).

    Args:
        task: A generated task.
        simulator: The world model for simulated tools (share one across a rollout group).

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> task = next(generate_tasks(1, seed=3))
        >>> world = build_world(task)
        >>> sorted(world.services) == sorted(task.involved + task.distractors)
        True
    """
    # Drawing all of the task's own distractors from a pool of exactly them gives the same
    # world even if the catalog has grown since the task was generated.
    world = compose(task.involved, distractors=len(task.distractors), pool=task.distractors,
                    seed=task.seed, interface=task.interface,
                    today=date.fromisoformat(task.today), simulator=simulator)
    if task.scenario is not None and task.scenario.planted:
        # The scenario's records (a rule's email, a trap's record) are part of its world.
        plant(world.env, task.scenario.planted)
        world.env.settle()
    return world
