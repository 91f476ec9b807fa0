"""GRPO and Dr.GRPO advantages."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from compoworld.errors import UserError
from compoworld.rewards import dr_grpo_advantages, grpo_advantages

rewards = st.tuples(st.integers(1, 5), st.integers(1, 8)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.floats(0, 1)))


@given(rewards)
def test_advantages_are_centered_and_ordered(r) -> None:
    for adv in (grpo_advantages(r), dr_grpo_advantages(r)):
        assert adv.shape == r.shape
        np.testing.assert_allclose(adv.sum(axis=1), 0.0, atol=1e-7)
        # a higher reward never gets a lower advantage within a group
        for row_r, row_a in zip(r, adv, strict=True):
            order = np.argsort(row_r, kind="stable")
            assert np.all(np.diff(row_a[order]) >= -1e-9)


def test_grpo_matches_trl_definition() -> None:
    r = np.array([[1.0, 0.0, 0.5, 0.5], [0.2, 0.2, 0.2, 0.2]])
    adv = grpo_advantages(r, eps=1e-4)
    expected = (r[0] - r[0].mean()) / (r[0].std(ddof=1) + 1e-4)
    np.testing.assert_allclose(adv[0], expected)
    assert np.all(adv[1] == 0.0)  # a group that agrees carries no signal
    np.testing.assert_allclose(grpo_advantages(r, scale_std=False), dr_grpo_advantages(r))
    np.testing.assert_allclose(dr_grpo_advantages(r)[0], [0.5, -0.5, 0.0, 0.0])


def test_single_rollout_groups_get_zero() -> None:
    assert grpo_advantages([[0.7], [0.1]]).tolist() == [[0.0], [0.0]]
    assert dr_grpo_advantages([[0.7]]).tolist() == [[0.0]]


def test_bad_shape() -> None:
    with pytest.raises(UserError, match=r"\(B, G\)"):
        grpo_advantages([1.0, 0.0])
