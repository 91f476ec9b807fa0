"""Near-duplicate trajectories: the same calls with the same arguments and (nearly) the same
words, which teach nothing twice."""

from __future__ import annotations

import re
from collections.abc import Sequence

import orjson

from compoworld.rollout import Trajectory

_WORD = re.compile(r"\w+")


def fingerprint(trajectory: Trajectory) -> frozenset[str]:
    """Word 3-shingles of what the agent did: each call (name and canonical arguments) and
    each assistant text (content and reasoning), lower-cased."""
    parts = [f"{c.name} {orjson.dumps(c.arguments, option=orjson.OPT_SORT_KEYS).decode()}"
             for c in trajectory.calls]
    for m in trajectory.messages:
        if m.get("role") == "assistant":
            parts += [m.get("reasoning_content") or "", m.get("content") or ""]
    words = _WORD.findall(" ".join(parts).lower())
    if len(words) < 3:
        return frozenset([" ".join(words)])
    return frozenset(" ".join(words[i:i + 3]) for i in range(len(words) - 2))


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two fingerprints."""
    return len(a & b) / len(a | b) if a or b else 1.0


def near_duplicates(trajectories: Sequence[Trajectory], threshold: float = 0.9) -> set[int]:
    """Indices of the trajectories that repeat an earlier one of the same task: Jaccard
    similarity of their :func:`fingerprint` at least ``threshold`` (1.0: exact repeats only).
    The first of each family is kept, so the result depends only on the order given.

    Example:
        >>> import asyncio
        >>> from compoworld.tasks import generate_tasks
        >>> from compoworld.rollout import OracleAgent, run_episode
        >>> task = next(generate_tasks(1, seed=0))
        >>> runs = [asyncio.run(run_episode(task, OracleAgent(), rollout_idx=i)) for i in (0, 1)]
        >>> near_duplicates(runs)
        {1}
    """
    kept: dict[str, list[frozenset[str]]] = {}
    out = set()
    for index, trajectory in enumerate(trajectories):
        mine = fingerprint(trajectory)
        family = kept.setdefault(trajectory.task_id, [])
        if any(similarity(mine, other) >= threshold for other in family):
            out.add(index)
        else:
            family.append(mine)
    return out
