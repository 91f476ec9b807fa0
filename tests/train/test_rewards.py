"""Reward functions for GRPOTrainer on hand-made groups of real environments."""

import numpy as np
import pytest

from compoworld.errors import UserError
from compoworld.rewards import cfr, pack_groups, uniform
from compoworld.train import (
    criterion_reward,
    environment_factories,
    final_answer,
    group_reward,
    reward_functions,
    rubric_reward,
    world_key,
)

from .conftest import oracle_answer, play


def _group(task, steps_per_rollout):
    """One environment per rollout, each having played the first k steps of the plan, and
    the completions TRL would hand over (final answer only when the plan was finished)."""
    cls = environment_factories([task])[world_key(task)]
    envs, completions = [], []
    for k in steps_per_rollout:
        envs.append(play(cls(), task, steps=k))
        answer = oracle_answer(task) if k >= len(task.plan) else "I could not finish."
        completions.append([{"role": "assistant", "content": "", "tool_calls": [{"type": "function"}]},
                            {"role": "tool", "name": "x", "content": "{}"},
                            {"role": "assistant", "content": answer}])
    return envs, completions


def test_final_answer_is_the_last_assistant_turn_without_calls():
    assert final_answer("plain text") == "plain text"
    assert final_answer([{"role": "assistant", "content": "done"}]) == "done"
    cut = [{"role": "assistant", "content": "x", "tool_calls": [{"type": "function"}]}]
    assert final_answer(cut) == ""
    assert final_answer([]) == ""


def test_rubric_rewards_match_the_pass_vectors(direct_tasks):
    task = direct_tasks[0]
    envs, completions = _group(task, [len(task.plan), 0])
    passes = [e.episode.passes(final_answer(c)) for e, c in zip(envs, completions, strict=True)]
    assert all(passes[0]) and not all(passes[1])
    got = rubric_reward("uniform")(completions=completions, environments=envs)
    assert got == pytest.approx([float(uniform([[p]])[0, 0]) for p in passes])
    assert rubric_reward("binary")(completions=completions, environments=envs) == [1.0, 0.0]
    state = criterion_reward("state")(completions=completions, environments=envs)
    assert state[0] == 1.0 and state[1] < 1.0
    kinds = {c.kind for c in task.rubric}
    for kind in ("answer", "call"):
        value = criterion_reward(kind)(completions=completions, environments=envs)[0]
        assert value == (1.0 if kind in kinds else None)


def test_cfr_over_consecutive_groups_equals_the_numpy_scheme(direct_tasks):
    a, b = direct_tasks[0], direct_tasks[1]
    envs_a, comp_a = _group(a, [len(a.plan), 0, 1])
    envs_b, comp_b = _group(b, [1, len(b.plan), len(b.plan)])
    envs, completions = envs_a + envs_b, comp_a + comp_b
    logged = {}
    reward = group_reward("cfr", num_generations=3, tau=0.5, floor=0.2)
    got = reward(completions=completions, environments=envs, log_metric=logged.__setitem__)
    groups = [[e.episode.passes(final_answer(c)) for e, c in zip(envs[i:i + 3], completions[i:i + 3],
                                                                strict=True)] for i in (0, 3)]
    passes, mask, weights = pack_groups(groups)
    expected = cfr(passes, mask, weights, tau=0.5, floor=0.2).reshape(-1)
    assert got == pytest.approx(expected.tolist())
    assert got[0] == 1.0 and got[1] <= got[2] < got[0]  # more of the plan done, no less reward
    assert logged["compoworld/full_completion"] == pytest.approx(3 / 6)
    assert reward.__name__ == "group_cfr"


def test_cfr_refuses_rows_that_are_not_whole_groups(direct_tasks):
    a, b = direct_tasks[0], direct_tasks[1]
    envs_a, comp_a = _group(a, [0, 0])
    envs_b, comp_b = _group(b, [0, 0])
    with pytest.raises(UserError, match="mixes tasks"):
        group_reward("cfr", num_generations=2)(completions=[comp_a[0], comp_b[0], comp_a[1], comp_b[1]],
                                               environments=[envs_a[0], envs_b[0], envs_a[1], envs_b[1]])
    with pytest.raises(UserError, match="whole groups of 4"):
        group_reward("cfr", num_generations=4)(completions=comp_a, environments=envs_a)
    with pytest.raises(UserError, match="environment_factory"):
        group_reward("cfr", num_generations=2)(completions=comp_a, environments=None)


def test_reward_functions_of_a_recipe():
    names = [f.__name__ for f in reward_functions("cfr", num_generations=2, per_kind=True)]
    assert names == ["group_cfr", "rubric_uniform", "rubric_binary", "criteria_state",
                     "criteria_answer", "criteria_call", "criteria_no_collateral"]
    assert [f.__name__ for f in reward_functions("uniform", num_generations=2)] == [
        "rubric_uniform", "rubric_binary"]
    with pytest.raises(UserError):
        group_reward("nope", num_generations=2)
    with pytest.raises(UserError):
        rubric_reward("cfr")
    assert np.isfinite(uniform([[[1, 0]]])).all()
