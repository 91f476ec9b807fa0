"""Scored trajectories → reward batches: grouping by task and the reward schemes on them."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from compoworld.errors import UserError
from compoworld.rewards import cfr
from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import ClaimProbe, group_rewards, pass_batch, score_trajectory
from compoworld.tasks import Task, generate_tasks


def _two_writes(task: Task) -> bool:
    return len({c.id.split("-", 1)[0] for c in task.rubric if c.kind == "state"}) >= 2


@pytest.fixture(scope="module")
def groups(tasks, oracle_runs):
    """Two tasks × three rollouts: the oracle, one that stops before its last write, and a
    claimer (shuffled order); the tasks have two writes or more (the session's, else the next
    ones seed 0 generates)."""
    out = []
    pairs = [(t, o) for t, o in zip(tasks, oracle_runs, strict=True) if _two_writes(t)]
    for task in generate_tasks(40, seed=0, start_attempt=1000):
        if len(pairs) >= 2:
            break
        if _two_writes(task):
            pairs.append((task, asyncio.run(run_episode(task, OracleAgent(), timings=False))))
    assert len(pairs) >= 2, "the fixture tasks need two with two writes"
    for task, oracle in pairs[:2]:
        partial = oracle.model_copy(update={"rollout_idx": 1, "calls": oracle.calls[:-1]})
        claim = asyncio.run(run_episode(task, ClaimProbe(), rollout_idx=2, timings=False))
        out += [score_trajectory(task, t) for t in (claim, oracle, partial)]
    return out


def test_pass_batch_groups_by_task_in_rollout_order(groups) -> None:
    keys, passes, mask, weights = pass_batch(groups)
    assert [[i for _, i in row] for row in keys] == [[0, 1, 2], [0, 1, 2]]
    assert passes.shape[:2] == (2, 3) and mask.sum(axis=1).tolist() == [
        len(groups[0].passes), len(groups[3].passes)]
    assert passes[0, 0, : mask[0].sum()].tolist() == [1.0] * int(mask[0].sum())
    np.testing.assert_allclose(cfr(passes, mask, weights)[:, 0], 1.0)


def test_group_rewards_rank_the_oracle_first(groups) -> None:
    for scheme in ("binary", "uniform", "cfr"):
        rewards = group_rewards(groups, scheme)
        task = groups[0].task_id
        assert rewards[(task, 0)] == 1.0 and rewards[(task, 2)] == 0.0
        assert rewards[(task, 0)] > rewards[(task, 1)] >= rewards[(task, 2)]
    task = groups[0].task_id
    # the partial rollout's credit counts for less under CFR: the criteria it passes are common
    assert group_rewards(groups, "cfr")[(task, 1)] < group_rewards(groups, "uniform")[(task, 1)]
    adv = group_rewards(groups, "cfr", advantages=True, tau=0.5)
    assert adv[(task, 0)] > 0 > adv[(task, 2)]
    assert sum(v for (t, _), v in adv.items() if t == task) == pytest.approx(0.0, abs=1e-9)


def test_groups_of_different_sizes_are_refused(groups) -> None:
    with pytest.raises(UserError, match="same number of rollouts"):
        pass_batch(groups[:5])


def test_a_rollout_the_environment_ended_takes_no_part_in_its_group(groups) -> None:
    """An env_error rollout gets no reward, and its group's rewards are those of the group
    without it (it does not lower the pass rates CFR weighs criteria by)."""
    task = groups[0].task_id
    broken = groups[2].model_copy(update={"trajectory": groups[2].trajectory.model_copy(
        update={"finish_reason": "env_error"})})
    with_broken = group_rewards([groups[0], groups[1], broken, *groups[3:]], "cfr", advantages=True)
    without = group_rewards([groups[0], groups[1], *groups[3:]], "cfr", advantages=True)
    assert (task, 1) not in with_broken and with_broken == without
    assert with_broken != group_rewards(groups, "cfr", advantages=True)
