"""From scored trajectories to reward batches: group by task, pack, apply a reward scheme."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from compoworld.rewards import get_scheme, grpo_advantages, pack_groups
from compoworld.scoring._model import ScoredTrajectory

Key = tuple[str, int]
"""(task id, rollout index)."""


def _groups(scored: Sequence[ScoredTrajectory]) -> tuple[list[list[Key]], list[list[ScoredTrajectory]]]:
    """``scored`` grouped by task (first-seen order), rollouts by index, with their keys."""
    groups: dict[str, list[ScoredTrajectory]] = {}
    for s in scored:
        groups.setdefault(s.task_id, []).append(s)
    ordered = [sorted(g, key=lambda s: s.rollout_idx) for g in groups.values()]
    return [[(s.task_id, s.rollout_idx) for s in g] for g in ordered], ordered


def pass_batch(scored: Sequence[ScoredTrajectory]) -> tuple[
        list[list[Key]], NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]:
    """Group ``scored`` by task (first-seen order, rollouts by index) and pack the groups.

    Returns:
        The keys of each group, then ``passes (B, G, C)``, ``mask (B, C)`` and
        ``weights (B, C)`` for :mod:`compoworld.rewards`.

    Raises:
        UserError: The groups differ in size (every task needs the same number of rollouts).
    """
    keys, ordered = _groups(scored)
    passes, mask, weights = pack_groups([[[float(p) for p in s.passes] for s in g] for g in ordered],
                                        [g[0].weights for g in ordered])
    return keys, passes, mask, weights


def group_rewards(scored: Sequence[ScoredTrajectory], scheme: str = "cfr", *,
                  advantages: bool = False, **params: Any) -> dict[Key, float]:
    """The reward (or GRPO advantage) of each scored trajectory under a reward scheme.

    A trajectory the environment ended (``finish_reason == "env_error"``) says nothing about
    the agent: it takes no part in its group (the group's pass rates, CFR weights and
    advantages are those of the other rollouts) and gets no reward. Each group is scored on
    its own, so groups may differ in size once such rollouts are left out.

    Args:
        scored: Scored trajectories; each task's rollouts form one group.
        scheme: ``binary``, ``uniform``, ``cfr`` or ``gdpo``.
        advantages: Return GRPO advantages of the rewards instead.
        **params: The scheme's parameters (e.g. ``tau``, ``floor`` for CFR).

    Returns:
        (task id, rollout index) → value, for every trajectory the environment did not end.
    """
    compute = get_scheme(scheme, **params)
    judged = [s for s in scored if s.trajectory.finish_reason != "env_error"]
    out: dict[Key, float] = {}
    for keys, group in zip(*_groups(judged), strict=True):
        passes, mask, weights = pack_groups([[[float(p) for p in s.passes] for s in group]],
                                            [group[0].weights])
        values = compute(passes, mask, weights)
        if advantages:
            values = grpo_advantages(values)
        out.update((key, float(v)) for key, v in zip(keys, values[0], strict=True))
    return out
