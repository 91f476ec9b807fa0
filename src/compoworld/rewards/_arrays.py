"""Shape checks and packing shared by every reward scheme.

Every scheme takes ``passes`` of shape ``(B, G, C)`` — ``B`` groups, ``G`` rollouts per group,
``C`` criteria (padded to the longest rubric of the batch) — with values in ``[0, 1]`` (bools
or partial credit), an optional ``mask`` ``(B, C)`` marking the real criteria of each group,
and optional ``weights`` ``(B, C)`` or ``(C,)``. A criterion that is masked out or has weight 0
takes no part in any scheme.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from compoworld.errors import UserError

Array = NDArray[np.float64]


def prepare(
    passes: ArrayLike, mask: ArrayLike | None = None, weights: ArrayLike | None = None
) -> tuple[Array, Array]:
    """Checks shapes and values; returns ``(passes, active_weights)`` as float arrays.

    ``passes`` comes back ``(B, G, C)`` with masked entries set to 0; ``active_weights``
    ``(B, C)`` is the base weight of each criterion, 0 where masked out.

    Raises:
        UserError: a shape does not match, a value is outside ``[0, 1]`` or NaN, or a
            weight is negative.
    """
    x = np.asarray(passes, dtype=np.float64)
    if x.ndim != 3:
        raise UserError(f"passes must have shape (B, G, C) (groups, rollouts, criteria); got {x.shape}")
    b, _, c = x.shape
    if x.size and (np.isnan(x).any() or x.min() < 0.0 or x.max() > 1.0):
        raise UserError("passes must be booleans or floats in [0, 1] (no NaN)")
    if weights is None:
        w = np.ones((b, c))
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape == (c,):
            w = np.broadcast_to(w, (b, c))
        if w.shape != (b, c):
            raise UserError(f"weights must have shape (B, C) = {(b, c)} or (C,) = {(c,)}; got {w.shape}")
        if w.size and (np.isnan(w).any() or w.min() < 0.0):
            raise UserError("weights must be non-negative numbers")
    if mask is not None:
        m = np.asarray(mask, dtype=bool)
        if m.shape != (b, c):
            raise UserError(f"mask must have shape (B, C) = {(b, c)}; got {m.shape}")
        w = np.where(m, w, 0.0)
        x = np.where(m[:, None, :], x, 0.0)
    return x, np.array(w, dtype=np.float64)


def weighted_mean(x: Array, w: Array) -> Array:
    """``Σ_c w·x / Σ_c w`` per rollout, with ``w`` ``(B, C)`` or ``(B, G, C)``; 0 where ``Σ w = 0``."""
    if w.ndim == 2:
        w = w[:, None, :]
    total = w.sum(axis=-1)
    num = (w * x).sum(axis=-1)
    out = np.divide(num, total, out=np.zeros_like(num), where=total > 0)
    return np.clip(out, 0.0, 1.0)


def pack_groups(
    groups: Sequence[Sequence[Sequence[float]]],
    weights: Sequence[Sequence[float]] | None = None,
) -> tuple[Array, NDArray[np.bool_], Array]:
    """Packs ragged per-group pass vectors into ``(passes, mask, weights)`` arrays.

    Args:
        groups: ``groups[b][g][c]``: criterion ``c`` of rollout ``g`` of group ``b``. Every
            rollout of a group has the same number of criteria (the group's task rubric);
            groups may differ in criteria count and must share the rollout count ``G``.
        weights: ``weights[b][c]``, the rubric weights of group ``b``; default all 1.

    Returns:
        ``passes`` ``(B, G, C)``, ``mask`` ``(B, C)`` and ``weights`` ``(B, C)``, padded
        with zeros to the longest rubric.

    Example:
        >>> passes, mask, w = pack_groups([[[1, 0], [1, 1]], [[1], [0]]])
        >>> passes.shape, mask.tolist()
        ((2, 2, 2), [[True, True], [True, False]])
    """
    if not groups:
        return np.zeros((0, 0, 0)), np.zeros((0, 0), dtype=bool), np.zeros((0, 0))
    sizes = {len(group) for group in groups}
    if len(sizes) != 1:
        raise UserError(f"every group must have the same number of rollouts; got sizes {sorted(sizes)}")
    g = sizes.pop()
    c = max((len(rollout) for group in groups for rollout in group), default=0)
    passes = np.zeros((len(groups), g, c))
    mask = np.zeros((len(groups), c), dtype=bool)
    out_w = np.zeros((len(groups), c))
    for b, group in enumerate(groups):
        lengths = {len(rollout) for rollout in group}
        if len(lengths) > 1:
            raise UserError(f"group {b}: rollouts disagree on the number of criteria {sorted(lengths)}")
        n = lengths.pop() if lengths else 0
        if n:
            passes[b, :, :n] = np.asarray(group, dtype=np.float64)
        mask[b, :n] = True
        if weights is None:
            out_w[b, :n] = 1.0
        else:
            if len(weights[b]) != n:
                raise UserError(f"group {b}: {len(weights[b])} weights for {n} criteria")
            out_w[b, :n] = np.asarray(weights[b], dtype=np.float64)
    return passes, mask, out_w
