"""Reward schemes: properties over random batches (hypothesis) and the documented edges."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from compoworld.errors import NotFound, UserError
from compoworld.rewards import (
    SCHEMES,
    RewardScheme,
    binary,
    cfr,
    cfr_weights,
    gdpo,
    get_scheme,
    pack_groups,
    uniform,
)

BOUNDED = {"binary": binary, "uniform": uniform, "cfr": cfr}


@st.composite
def batches(draw: st.DrawFn, partial: bool = False):
    """(passes, mask, weights) for a random batch: ragged rubrics, zero weights included."""
    b = draw(st.integers(1, 4))
    g = draw(st.integers(1, 6))
    c = draw(st.integers(1, 6))
    if partial:
        passes = draw(arrays(np.float64, (b, g, c), elements=st.sampled_from([0.0, 0.25, 0.5, 1.0])))
    else:
        passes = draw(arrays(np.bool_, (b, g, c)))
    mask = draw(arrays(np.bool_, (b, c)))
    weights = draw(arrays(np.float64, (b, c), elements=st.sampled_from([0.0, 0.5, 1.0, 2.0, 5.0])))
    return passes, mask, weights


@given(batches(partial=True), st.sampled_from(sorted(BOUNDED)))
def test_rewards_are_bounded(batch, name) -> None:
    passes, mask, weights = batch
    r = BOUNDED[name](passes, mask, weights)
    assert r.shape == passes.shape[:2]
    assert np.all((r >= 0.0) & (r <= 1.0))


@given(batches(), st.sampled_from(sorted(BOUNDED)))
@settings(max_examples=200)
def test_passing_a_superset_never_earns_less(batch, name) -> None:
    passes, mask, weights = batch
    g = passes.shape[1]
    # rollout 0 of each group gets a superset of rollout 1's passes
    if g < 2:
        passes = np.concatenate([passes, passes], axis=1)
    passes[:, 0, :] |= passes[:, 1, :]
    r = BOUNDED[name](passes, mask, weights)
    assert np.all(r[:, 0] >= r[:, 1] - 1e-12)


@given(batches(partial=True), st.floats(0.1, 5.0), st.floats(0.01, 1.0))
def test_cfr_is_uniform_when_pass_rates_are_equal(batch, tau, floor) -> None:
    passes, mask, weights = batch
    c = passes.shape[2]
    # every criterion of a group gets the same in-group pass rate: a cyclic shift per criterion
    column = passes[:, :, :1]
    equal = np.concatenate([np.roll(column, k, axis=1) for k in range(c)], axis=2)
    np.testing.assert_allclose(cfr(equal, mask, weights, tau=tau, floor=floor),
                               uniform(equal, mask, weights), atol=1e-12)


@given(batches(partial=True), st.sampled_from(SCHEMES), st.randoms(use_true_random=False))
def test_permuting_rollouts_permutes_rewards(batch, name, rnd) -> None:
    passes, mask, weights = batch
    order = list(range(passes.shape[1]))
    rnd.shuffle(order)
    scheme = get_scheme(name)
    np.testing.assert_allclose(scheme(passes[:, order], mask, weights),
                               scheme(passes, mask, weights)[:, order], atol=1e-9)


@given(batches())
def test_masked_and_zero_weight_criteria_take_no_part(batch) -> None:
    passes, mask, weights = batch
    flipped = passes.copy()
    inactive = ~mask | (weights == 0)
    flipped[np.broadcast_to(inactive[:, None, :], passes.shape)] ^= True
    for name in SCHEMES:
        scheme = get_scheme(name)
        np.testing.assert_allclose(scheme(flipped, mask, weights), scheme(passes, mask, weights))


def test_cfr_concentrates_on_what_the_group_fails() -> None:
    # criterion 0: everyone passes; criterion 1: only rollout 0 does
    passes = np.array([[[1, 1], [1, 0], [1, 0], [1, 0]]], dtype=bool)
    w = cfr_weights(passes, floor=0.1)
    assert w[0, 1] > w[0, 0] and w.sum() == pytest.approx(1.0)
    # rollout 0 completes the task: it stands out more under CFR than under uniform
    assert cfr(passes)[0, 0] - cfr(passes)[0, 1] > uniform(passes)[0, 0] - uniform(passes)[0, 1]
    # tau → large: uniform; floor = 1: uniform
    np.testing.assert_allclose(cfr(passes, tau=1e9), uniform(passes), atol=1e-6)
    np.testing.assert_allclose(cfr(passes, floor=1.0), uniform(passes))
    # smaller tau → more focus on the failed criterion
    assert cfr_weights(passes, tau=0.5)[0, 1] > cfr_weights(passes, tau=2.0)[0, 1]


def test_edges() -> None:
    all_pass = np.ones((2, 4, 3), dtype=bool)
    none_pass = np.zeros((2, 4, 3), dtype=bool)
    for scheme in (binary, uniform, cfr):
        assert np.all(scheme(all_pass) == 1.0)
        assert np.all(scheme(none_pass) == 0.0)
    assert np.all(gdpo(all_pass) == 0.0) and np.all(gdpo(none_pass) == 0.0)
    # G = 1: CFR falls back to the base weights
    single = np.array([[[1, 0, 1]]], dtype=bool)
    np.testing.assert_allclose(cfr(single, weights=[1.0, 1.0, 2.0]),
                               uniform(single, weights=[1.0, 1.0, 2.0]))
    assert gdpo(single).tolist() == [[0.0]]
    # every criterion masked or weighted 0: reward 0
    assert uniform(single, weights=[0.0, 0.0, 0.0]).tolist() == [[0.0]]
    assert binary(single, mask=[[False, False, False]]).tolist() == [[0.0]]
    assert cfr(single, mask=[[False, False, False]]).tolist() == [[0.0]]
    # binary ignores a failed zero-weight criterion
    assert binary(single, weights=[1.0, 0.0, 1.0]).tolist() == [[1.0]]


def test_gdpo_rewards_rare_success_on_a_hard_criterion() -> None:
    # criterion 1 is passed by one rollout in four: that rollout gets the top signal
    passes = np.array([[[1, 0, 1], [1, 1, 1], [0, 0, 1], [1, 0, 1]]], dtype=bool)
    r = gdpo(passes)
    assert int(np.argmax(r[0])) == 1
    assert r.sum() == pytest.approx(0.0, abs=1e-9)


def test_pack_groups_and_registry() -> None:
    passes, mask, weights = pack_groups([[[1, 0, 1], [0, 0, 1]], [[1], [1]]], [[1, 2, 1], [3]])
    assert passes.shape == (2, 2, 3) and mask.tolist() == [[True] * 3, [True, False, False]]
    assert uniform(passes, mask, weights)[1].tolist() == [1.0, 1.0]
    assert uniform(passes, mask, weights)[0].tolist() == [0.5, 0.25]
    for name in SCHEMES:
        scheme = get_scheme(name)
        assert isinstance(scheme, RewardScheme) and scheme.name == name
    assert get_scheme("gdpo").centered and not get_scheme("cfr").centered
    with pytest.raises(NotFound, match="did you mean 'cfr'"):
        get_scheme("cfrr")
    with pytest.raises(UserError, match="same number of rollouts"):
        pack_groups([[[1]], [[1], [0]]])


def test_bad_input_says_what_to_change() -> None:
    with pytest.raises(UserError, match=r"\(B, G, C\)"):
        uniform(np.ones((3, 2)))
    with pytest.raises(UserError, match=r"\[0, 1\]"):
        cfr(np.full((1, 2, 2), 2.0))
    with pytest.raises(UserError, match="weights"):
        uniform(np.ones((1, 2, 2)), weights=[1.0, -1.0])
    with pytest.raises(UserError, match="mask"):
        uniform(np.ones((1, 2, 2)), mask=np.ones((2, 2), dtype=bool))
    with pytest.raises(UserError, match="tau"):
        cfr(np.ones((1, 2, 2)), tau=0.0)
