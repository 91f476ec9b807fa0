"""GRPO and Dr.GRPO advantages from group rewards."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from compoworld.errors import UserError
from compoworld.rewards._arrays import Array


def _rewards(rewards: ArrayLike) -> Array:
    r = np.asarray(rewards, dtype=np.float64)
    if r.ndim != 2:
        raise UserError(f"rewards must have shape (B, G) (groups, rollouts); got {r.shape}")
    if np.isnan(r).any():
        raise UserError("rewards contain NaN")
    return r


def grpo_advantages(rewards: ArrayLike, scale_std: bool = True, eps: float = 1e-4) -> Array:
    """GRPO advantages: ``A_g = (r_g − mean(r)) / (std(r) + eps)`` within each group.

    The standard deviation is the sample one (``ddof = 1``), as TRL's GRPOTrainer computes
    it; a group of one rollout gets advantage 0. ``scale_std=False`` skips the division
    (the same as :func:`dr_grpo_advantages`).

    Args:
        rewards: ``(B, G)`` rewards, one row per group.
        scale_std: divide by the group's standard deviation.
        eps: added to the standard deviation.

    Example:
        >>> grpo_advantages([[1.0, 0.0]]).round(3).tolist()
        [[0.707, -0.707]]
    """
    r = _rewards(rewards)
    centered = r - r.mean(axis=1, keepdims=True) if r.size else r
    if not scale_std or r.shape[1] < 2:
        return centered if r.shape[1] >= 2 else np.zeros_like(r)
    std = r.std(axis=1, ddof=1, keepdims=True)
    return centered / (std + eps)


def dr_grpo_advantages(rewards: ArrayLike) -> Array:
    """Dr.GRPO advantages: ``A_g = r_g − mean(r)`` — no standard-deviation scaling.

    Dividing by the group's standard deviation up-weights groups that are nearly all right or
    all wrong (Liu et al., 2025, "Understanding R1-Zero-Like Training"); Dr.GRPO drops it.

    Example:
        >>> dr_grpo_advantages([[1.0, 0.0, 0.0, 0.0]]).tolist()
        [[0.75, -0.25, -0.25, -0.25]]
    """
    return grpo_advantages(rewards, scale_std=False)
