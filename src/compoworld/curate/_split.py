"""Reproducible train / validation / test splits of tasks: by task, by motif, by services.

Every scheme hashes a key with the seed (SHA-256), so a task's split depends only on its key,
the seed and the fractions — never on the order of the file or on the other tasks (adding
tasks moves none). ``task``: the key is the task id. ``motif``: the task's workflow motif
(``task.provenance["motif"]``; a task without one is keyed by its id), so all tasks of one
motif land in one split and the evaluation measures motifs never trained on. ``services``:
held-out services — services are drawn in hashed order into the test split, then the
validation split, until the tasks that involve them reach the fraction; a task involving a
test service is a test task, one involving a validation service (and no test service) a
validation task, the rest train on services neither split holds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from compoworld.errors import UserError
from compoworld.tasks import Task

SplitBy = Literal["task", "motif", "services"]
SPLIT_SCHEMES: tuple[SplitBy, ...] = ("task", "motif", "services")
SplitName = Literal["train", "validation", "test"]


class Split(BaseModel):
    """One split of a set of tasks (what ``splits.json`` holds per scheme)."""

    model_config = ConfigDict(extra="forbid")

    by: SplitBy
    seed: int
    fractions: tuple[float, float, float]
    train: list[str]
    validation: list[str]
    test: list[str]
    held_out_services: dict[str, list[str]] = {}
    """``services`` scheme: the services of the validation and test splits."""

    def of(self, task_id: str) -> SplitName:
        """The split holding ``task_id``.

        Raises:
            UserError: The task is in no split.
        """
        for name in ("train", "validation", "test"):
            if task_id in getattr(self, name):
                return name
        raise UserError(f"task {task_id!r} is in no split")


def _unit(seed: int, key: str) -> float:
    digest = hashlib.sha256(f"{seed}\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _count(tasks: Sequence[Task], assigned: dict[str, str], name: str) -> int:
    """Tasks that the services assigned so far put in split ``name`` (test wins)."""
    n = 0
    for task in tasks:
        marks = {assigned.get(s) for s in task.involved}
        n += name in marks and (name == "test" or "test" not in marks)
    return n


def motif_of(task: Task) -> str:
    """The key the ``motif`` scheme splits on: the task's motif, else its id."""
    motif = task.provenance.get("motif")
    return str(motif) if motif else task.id


def split_tasks(tasks: Sequence[Task], by: SplitBy = "task", *, seed: int = 0,
                fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)) -> Split:
    """Split ``tasks`` into train / validation / test (see the module docs).

    Args:
        tasks: The tasks.
        by: ``task``, ``motif`` or ``services``.
        seed: The split's seed.
        fractions: Train, validation and test shares (they sum to 1).

    Raises:
        UserError: An unknown scheme, or fractions that are negative or do not sum to 1.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> tasks = list(generate_tasks(20, seed=0))
        >>> split = split_tasks(tasks, "services", seed=1)
        >>> held = set(split.held_out_services["test"])
        >>> all(held & set(t.involved) for t in tasks if t.id in split.test)
        True
        >>> any(held & set(t.involved) for t in tasks if t.id in split.train)
        False
    """
    if by not in SPLIT_SCHEMES:
        raise UserError(f"split by must be one of {', '.join(SPLIT_SCHEMES)}, got {by!r}")
    if any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise UserError(f"fractions must be three non-negative shares summing to 1, "
                        f"got {fractions}")
    buckets: dict[str, list[str]] = {"train": [], "validation": [], "test": []}
    held: dict[str, list[str]] = {}
    train, validation, _ = fractions
    if by in ("task", "motif"):
        for task in tasks:
            u = _unit(seed, task.id if by == "task" else motif_of(task))
            name = "train" if u < train else "validation" if u < train + validation else "test"
            buckets[name].append(task.id)
    else:
        services = sorted({s for t in tasks for s in t.involved}, key=lambda s: _unit(seed, s))
        assigned: dict[str, str] = {}
        held = {"validation": [], "test": []}
        pool = list(services)
        for name, share in (("test", fractions[2]), ("validation", fractions[1])):
            target = share * len(tasks)
            while pool and _count(tasks, assigned, name) < target:
                service = pool.pop(0)
                assigned[service] = name
                held[name].append(service)
        for task in tasks:
            marks = {assigned.get(s) for s in task.involved}
            name = "test" if "test" in marks else "validation" if "validation" in marks else "train"
            buckets[name].append(task.id)
    return Split(by=by, seed=seed, fractions=fractions, train=buckets["train"],
                 validation=buckets["validation"], test=buckets["test"],
                 held_out_services={k: sorted(v) for k, v in held.items()})
