"""Splits by task, by motif and by held-out services: reproducible, order-free, disjoint."""

from __future__ import annotations

import pytest

from compoworld.curate import split_tasks
from compoworld.errors import UserError
from compoworld.tasks import Task, generate_tasks


@pytest.fixture(scope="module")
def many() -> list[Task]:
    return list(generate_tasks(60, seed=11))


def _parts(split) -> list[list[str]]:
    return [split.train, split.validation, split.test]


@pytest.mark.parametrize("by", ["task", "motif", "services"])
def test_splits_are_reproducible_disjoint_and_complete(many, by) -> None:
    split = split_tasks(many, by, seed=2)
    assert split == split_tasks(many, by, seed=2)
    ids = [i for part in _parts(split) for i in part]
    assert sorted(ids) == sorted(t.id for t in many)
    assert split.train and (split.validation or split.test)
    # the order of the file does not matter
    again = split_tasks(list(reversed(many)), by, seed=2)
    assert [set(p) for p in _parts(again)] == [set(p) for p in _parts(split)]
    assert split_tasks(many, by, seed=3) != split


def test_by_task_adding_tasks_moves_none(many) -> None:
    small, big = split_tasks(many[:30], seed=0), split_tasks(many, seed=0)
    for task in many[:30]:
        assert small.of(task.id) == big.of(task.id)
    share = len(big.train) / len(many)
    assert 0.6 < share < 0.95


def test_by_motif_keeps_a_motif_in_one_split(many) -> None:
    motifs = ["invoice-follow-up", "onboard-hire", "triage-tickets", "sync-won-deal"]
    tagged = [t.model_copy(update={"provenance": {**t.provenance, "motif": motifs[i % 4]}})
              for i, t in enumerate(many)]
    split = split_tasks(tagged, "motif", seed=5)
    for motif in motifs:
        homes = {split.of(t.id) for t in tagged if t.provenance["motif"] == motif}
        assert len(homes) == 1
    # without motifs the key falls back to the task id
    bare = [t.model_copy(update={"provenance": {k: v for k, v in t.provenance.items()
                                                if k != "motif"}}) for t in many]
    assert split_tasks(bare, "motif", seed=5) == split_tasks(bare, "task", seed=5).model_copy(
        update={"by": "motif"})


def test_by_services_holds_services_out(many) -> None:
    split = split_tasks(many, "services", seed=1)
    test, validation = (set(split.held_out_services[k]) for k in ("test", "validation"))
    assert test and not test & validation
    by_id = {t.id: t for t in many}
    for task_id in split.train:
        assert not (test | validation) & set(by_id[task_id].involved)
    for task_id in split.test:
        assert test & set(by_id[task_id].involved)
    for task_id in split.validation:
        assert validation & set(by_id[task_id].involved)
        assert not test & set(by_id[task_id].involved)


def test_bad_fractions_and_schemes_are_user_errors(many) -> None:
    with pytest.raises(UserError, match="sum"):
        split_tasks(many, fractions=(0.5, 0.2, 0.2))
    with pytest.raises(UserError, match="task, motif, services"):
        split_tasks(many, "domain")  # type: ignore[arg-type]
