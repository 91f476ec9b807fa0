"""Trials (``compoworld.service.trial``): calls undone by a savepoint rollback, or kept, with
the state, journal and ids exactly as the plain paths (a reset and a replay; no trial) leave
them."""

from __future__ import annotations

from typing import Any

import pytest

from compoworld.catalog import load_service
from compoworld.service import Environment, trial

ADA = {"first_name": "Ada", "last_name": "Byron", "email": "ada@example.com"}
BOB = {"first_name": "Bob", "last_name": "Stone", "email": "bob@example.com"}


def _env() -> Environment:
    return Environment([load_service("contacts")], seed=0)


def _create(env: Environment, values: dict[str, Any]) -> dict[str, Any]:
    envelope = env.call("contacts__create_contact", values)
    assert envelope["success"], envelope
    return envelope["data"]


def _contact_id(env: Environment) -> str:
    return str(env.call("contacts__list_contacts", {"limit": 1})["data"]["items"][0]["id"])


def test_undone_trial_leaves_the_state_journal_and_next_ids_as_before() -> None:
    env, plain = _env(), _env()
    _create(env, ADA)
    _create(plain, ADA)
    with trial(env):
        _create(env, BOB)
        env.call("contacts__delete_contact", {"contact_id": _contact_id(env)})
        assert len(env.changes() or []) > 1
    assert env.digest() == plain.digest()
    assert env.changes() == plain.changes()
    # the ids the trial took are free again: the next record gets the id it would have had
    assert _create(env, BOB)["id"] == _create(plain, BOB)["id"]
    assert env.digest() == plain.digest()


def test_kept_trial_is_as_if_no_trial_was_opened() -> None:
    env, plain = _env(), _env()
    with trial(env) as attempt:
        _create(env, ADA)
        attempt.keep()
    _create(plain, ADA)
    assert env.changes() == plain.changes()
    assert env.digest() == plain.digest()
    env.reset()
    assert env.digest() == _env().digest()


def test_a_failed_call_in_a_trial_rolls_back_only_itself() -> None:
    env = _env()
    with trial(env):
        made = _create(env, ADA)
        refused = env.call("contacts__create_contact", {**BOB, "email": ADA["email"]})
        assert not refused["success"]  # a duplicate email: 409
        assert env.call("contacts__get_contact", {"contact_id": made["id"]})["success"]
    assert not env.call("contacts__get_contact", {"contact_id": made["id"]})["success"]


def test_calls_after_a_trial_keep_their_own_savepoint() -> None:
    env, plain = _env(), _env()
    _create(env, ADA)
    _create(plain, ADA)
    with trial(env):
        _create(env, BOB)
    with trial(env) as attempt:
        env.call("contacts__list_contacts", {"limit": 3})  # a read: no write inside
        attempt.keep()
    # a failed call after the trials rolls back what it did only, not the earlier create
    assert not env.call("contacts__create_contact", {**BOB, "email": ADA["email"]})["success"]
    assert env.digest() == plain.digest()
    assert env.changes() == plain.changes()


def test_trials_nest() -> None:
    env, plain = _env(), _env()
    with trial(env) as outer:
        _create(env, ADA)
        with trial(env):
            _create(env, BOB)
        outer.keep()
    _create(plain, ADA)
    assert env.digest() == plain.digest()


def test_reset_then_trial_and_reset_again() -> None:
    env = _env()
    initial = env.digest()
    with trial(env) as attempt:
        _create(env, ADA)
        attempt.keep()
    env.reset()
    assert env.digest() == initial
    with trial(env):
        _create(env, BOB)
    env.reset()
    assert env.digest() == initial


def test_mounting_inside_a_trial_is_refused_and_reset_recovers() -> None:
    env = _env()
    mail = load_service("mail")
    image = Environment([mail], seed=0).image()
    with pytest.raises(RuntimeError, match="mounted inside a trial"), trial(env):
        env.mount(mail, image)
    env.reset()
    assert env.call("mail__list_messages", {})["success"]
    assert env.digest() == Environment([load_service("contacts"), mail], seed=0).digest()
