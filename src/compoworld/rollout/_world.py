"""The world of a rollout: the task's world with a world model attached."""

from __future__ import annotations

from compoworld.service import Simulator
from compoworld.simulate import OfflineSimulator
from compoworld.tasks import Task
from compoworld.tasks import build_world as task_world
from compoworld.world import World


def build_world(task: Task, simulator: Simulator | None = None) -> World:
    """The world ``task`` was generated on (:func:`compoworld.tasks.build_world`), in its
    initial state, with a world model for simulated tools.

    Args:
        task: The task.
        simulator: The world model. Share one across a rollout group so every rollout sees the
            same answers; None attaches a new offline simulator.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> task = next(generate_tasks(1, seed=0))
        >>> world = build_world(task)
        >>> sorted(world.services) == sorted(task.involved + task.distractors)
        True
    """
    world = task_world(task, simulator)
    if simulator is None:
        # Attached now, not lazily by the environment on its first simulated call: forks of
        # this world (the rollouts of a group) then share one simulator and its cache.
        world.env.simulator = OfflineSimulator(world.env.pool)
    return world
