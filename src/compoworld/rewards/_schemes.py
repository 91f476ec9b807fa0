"""Reward schemes: a batch of rubric pass vectors → one scalar per rollout.

All functions take ``passes`` ``(B, G, C)``, optional ``mask`` ``(B, C)`` and ``weights``
``(B, C)`` or ``(C,)`` (see :mod:`compoworld.rewards._arrays`) and return ``(B, G)`` floats.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from compoworld.errors import UserError
from compoworld.rewards._arrays import Array, prepare, weighted_mean


def binary(passes: ArrayLike, mask: ArrayLike | None = None, weights: ArrayLike | None = None) -> Array:
    """Full completion: 1.0 when every active criterion passes (fully), else 0.0.

    Active means unmasked with a positive weight. A group with no active criterion gets 0.

    Example:
        >>> binary([[[1, 1, 1], [1, 0, 1]]]).tolist()
        [[1.0, 0.0]]
    """
    x, w = prepare(passes, mask, weights)
    active = (w > 0)[:, None, :]
    done = np.all((x >= 1.0) | ~active, axis=-1) & active.any(axis=-1)
    return done.astype(np.float64)


def uniform(passes: ArrayLike, mask: ArrayLike | None = None, weights: ArrayLike | None = None) -> Array:
    """Partial credit: the weighted mean of the criteria, ``r = Σ_c w_c x_c / Σ_c w_c``.

    Weights default to 1 (the plain mean of passed criteria); pass the rubric's weights for
    explicit weighting. A group with no active criterion gets 0.

    Example:
        >>> uniform([[[1, 0, 1, 0]]]).tolist()
        [[0.5]]
        >>> uniform([[[1, 0]]], weights=[3.0, 1.0]).tolist()
        [[0.75]]
    """
    x, w = prepare(passes, mask, weights)
    return weighted_mean(x, w)


def _focus(x: Array, base: Array, tau: float, floor: float) -> Array:
    """Normalized CFR weights ``(B, C)`` from prepared passes and base weights."""
    if tau <= 0 or not 0 < floor <= 1:
        raise UserError(f"cfr needs tau > 0 and 0 < floor <= 1; got tau={tau}, floor={floor}")
    # G = 1: no group to compare with, the base weights
    focus = np.maximum(floor, 1.0 - x.mean(axis=1)) ** (1.0 / tau) if x.shape[1] > 1 else 1.0
    w = base * focus
    total = w.sum(axis=-1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total > 0)


def cfr_weights(
    passes: ArrayLike,
    mask: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    *,
    tau: float = 1.0,
    floor: float = 0.1,
) -> Array:
    """The CFR criterion weights of each group, ``(B, C)``, normalized to sum to 1 (or all 0).

    See :func:`cfr` for the formula.

    Example:
        >>> cfr_weights([[[1, 1], [1, 0], [1, 0], [1, 0]]]).round(3).tolist()
        [[0.118, 0.882]]
    """
    x, base = prepare(passes, mask, weights)
    return _focus(x, base, tau, floor)


def cfr(
    passes: ArrayLike,
    mask: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    *,
    tau: float = 1.0,
    floor: float = 0.1,
) -> Array:
    """The Completion-Focused Reward: criteria the group still fails weigh more.

    Within group ``b``, with ``p_c`` the mean pass of criterion ``c`` over the ``G`` rollouts
    and ``base_c`` its rubric weight::

        w_c = base_c · max(floor, 1 − p_c) ** (1 / tau)
        r_g = Σ_c w_c · x_gc / Σ_c w_c

    The weights are shared by every rollout of the group, so the reward is a weighted mean:
    bounded in ``[0, 1]``, monotone (passing more never earns less) and invariant to the order
    of rollouts. ``floor`` keeps criteria that the whole group passes in the reward (a rollout
    that breaks them still loses credit); ``tau`` sets the focus: large ``tau`` → uniform,
    small ``tau`` → nearly all weight on the least-passed criteria.

    Edges: all pass or none pass (every ``p_c`` equal) → every factor is equal → the uniform
    reward; ``G = 1`` (no group to compare with) → the uniform reward with the base weights;
    zero-weight and masked criteria take no part; a group with no active criterion gets 0.

    Args:
        passes: ``(B, G, C)`` pass values in ``[0, 1]``.
        mask: ``(B, C)``, True for the real criteria of each group.
        weights: base weights ``(B, C)`` or ``(C,)``, default 1.
        tau: temperature, > 0.
        floor: minimum focus factor, in ``(0, 1]``; ``floor = 1`` gives the uniform reward.

    Example:
        >>> # criterion 0 passed by everyone, criterion 1 by one rollout in four
        >>> cfr([[[1, 1], [1, 0], [1, 0], [1, 0]]]).round(3).tolist()
        [[1.0, 0.118, 0.118, 0.118]]
    """
    x, base = prepare(passes, mask, weights)
    return weighted_mean(x, _focus(x, base, tau, floor))


def gdpo(
    passes: ArrayLike,
    mask: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    *,
    eps: float = 1e-6,
) -> Array:
    """Per-criterion group-normalized signal (GDPO-style), for ablations.

    Each criterion is normalized within its group first, then the criteria are combined::

        a_gc = (x_gc − mean_g x_gc) / (std_g x_gc + eps)
        r_g  = Σ_c w_c · a_gc / Σ_c w_c

    A criterion the whole group agrees on contributes 0, so a rare success on a hard
    criterion is not drowned by easy ones. The result is already group-centered (an
    advantage-like value, **not** bounded in ``[0, 1]``); feed it to
    :func:`grpo_advantages` to rescale it over the group, or use it as is.
    ``G = 1`` gives 0. The standard deviation is the population one (``ddof = 0``).
    """
    x, w = prepare(passes, mask, weights)
    mean = x.mean(axis=1, keepdims=True)
    std = x.std(axis=1, keepdims=True)
    a = (x - mean) / (std + eps)
    total = w.sum(axis=-1)[:, None]
    num = (w[:, None, :] * a).sum(axis=-1)
    return np.divide(num, total, out=np.zeros_like(num), where=total > 0)
