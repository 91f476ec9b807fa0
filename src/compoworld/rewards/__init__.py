"""Rewards: rubric pass vectors of rollout groups → rewards and advantages (pure numpy).

Every scheme is vectorized over a batch: ``passes`` has shape ``(B, G, C)`` (``B`` groups of
``G`` rollouts, ``C`` criteria), with an optional ``mask`` ``(B, C)`` for ragged rubrics and
``weights`` ``(B, C)``; :func:`pack_groups` builds the three from nested lists. See
docs/rewards.md for the formulas.

Example:
    >>> import numpy as np
    >>> passes = np.array([[[1, 1, 0], [1, 0, 0], [1, 1, 1], [1, 0, 0]]], dtype=bool)
    >>> rewards = cfr(passes)
    >>> grpo_advantages(rewards).shape
    (1, 4)
"""

from compoworld.rewards._advantages import dr_grpo_advantages, grpo_advantages
from compoworld.rewards._arrays import pack_groups
from compoworld.rewards._registry import SCHEMES, RewardScheme, get_scheme
from compoworld.rewards._schemes import binary, cfr, cfr_weights, gdpo, uniform

__all__ = [
    "SCHEMES",
    "RewardScheme",
    "binary",
    "cfr",
    "cfr_weights",
    "dr_grpo_advantages",
    "gdpo",
    "get_scheme",
    "grpo_advantages",
    "pack_groups",
    "uniform",
]
