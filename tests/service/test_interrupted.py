"""An environment whose operation was interrupted part-way (Ctrl-C, Ray cancelling a running
task: a KeyboardInterrupt between any two lines) is whole again at its next reset.

This is the defect of issue 17 behind the Ray generation test's failures: a Ray worker keeps
its generation environments between tasks, and a task cancelled while one of them mounted a
service or settled left no episode open, an image still attached, or a service half-mounted;
the worker's next task failed on it ("cannot rollback - no transaction is active" in
``Environment._settle``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

from compoworld.catalog import load_service
from compoworld.service import Environment

NAMES = ("contacts", "crm", "mail")
LIFECYCLE_FILES = ("service/_environment.py", "service/_image.py")


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    return {name: load_service(name) for name in NAMES}


@pytest.fixture(scope="module")
def images(services: dict[str, Any]) -> dict[str, bytes]:
    return {name: Environment([s], seed=3).image() for name, s in services.items()}


def episodes(env: Environment, services: dict[str, Any], images: dict[str, bytes]) -> Any:
    """What task generation does to its environments: mount services mid-episode, call,
    snapshot and restore, reset; the states and answers seen along the way."""
    env.reset()
    env.mount(services["crm"], images["crm"])
    contact = env.db("contacts").select("contact", limit=1)[0]
    seen = [env.call("contacts__set_favorite", {"contact_id": contact["id"],
                                                "favorite": not contact["favorite"]}),
            env.call("crm__list_accounts", {"limit": 2})]
    env.reset()
    env.mount(services["mail"], images["mail"])
    seen.append(env.call("mail__list_messages", {"limit": 2}))
    taken = env.snapshot()
    env.reset()
    env.restore(taken)
    env.reset()
    return seen, env.rows(), env.fork().rows(), sorted(env.services), sorted(env.tools)


class InterruptAt:
    """A tracer raising KeyboardInterrupt at the ``at``-th line run in the lifecycle code,
    where Python delivers an asynchronous KeyboardInterrupt (between two lines)."""

    def __init__(self, at: int) -> None:
        self.at, self.lines, self.fired = at, 0, False

    def __call__(self, frame: FrameType, event: str, arg: object) -> Callable[..., Any] | None:
        if not frame.f_code.co_filename.endswith(LIFECYCLE_FILES):
            return None
        if event == "line" and not self.fired:
            self.lines += 1
            if self.lines == self.at:
                self.fired = True
                raise KeyboardInterrupt
        return self


def interrupted(at: int, run: Callable[[], object]) -> bool:
    """Run ``run`` interrupted at the ``at``-th lifecycle line; whether it got that far."""
    tracer = InterruptAt(at)
    sys.settrace(tracer)
    try:
        run()
    except KeyboardInterrupt:
        pass
    finally:
        sys.settrace(None)
    return tracer.fired


def test_an_interrupted_operation_leaves_an_environment_whole_at_its_next_reset(services, images):
    expected = episodes(Environment([services["contacts"]], seed=3), services, images)
    broken, at = [], 0
    while True:
        at += 5  # every fifth line of the ~1,000 the episodes run in the lifecycle code
        env = Environment([services["contacts"]], seed=3)
        if not interrupted(at, lambda env=env: episodes(env, services, images)):
            break
        try:
            again = episodes(env, services, images)  # starts with a reset
        except Exception as error:
            broken.append((at, repr(error)))
            continue
        if again != expected:
            broken.append((at, "another state"))
    assert at > 600, "the episodes ran fewer lifecycle lines than this test was written for"
    assert broken == []


def test_an_interrupted_settle_has_taken_effect_or_none(services, images):
    def planted(env: Environment) -> None:
        env.mount(services["crm"], images["crm"])
        env.plant("contacts", "contact", {"name": "Ada Byron", "first_name": "Ada",
                                          "last_name": "Byron", "email": "ada@example.org"})
        env.settle()

    before = Environment([services["contacts"], services["crm"]], seed=3).rows()
    settled = Environment([services["contacts"]], seed=3)
    planted(settled)
    after = settled.rows()
    outcomes, at = set(), 0
    while True:
        at += 2
        env = Environment([services["contacts"]], seed=3)
        if not interrupted(at, lambda env=env: planted(env)):
            break
        env.reset()
        state = env.rows()
        assert state in (before, after, {k: v for k, v in before.items()
                                         if k.startswith("contacts__")}), at
        assert env.fork().rows() == state
        assert env.call("contacts__list_contacts", {"limit": 1})["success"]
        outcomes.add("settled" if state == after else "not settled")
    assert outcomes == {"settled", "not settled"} and at > 100


def test_reset_rebuilds_when_sqlite_ended_the_episode_itself(services, images):
    """SQLite rolls a transaction back by itself on some errors (out of memory, a full disk)."""
    env = Environment([services["contacts"]], seed=3)
    fresh = Environment([services["contacts"], services["crm"]], seed=3)
    env.mount(services["crm"], images["crm"])
    env._conn.execute("ROLLBACK")  # what SQLite does on SQLITE_NOMEM or SQLITE_FULL
    env.reset()
    assert env.rows() == fresh.rows() and env.fork().rows() == fresh.rows()
    contact = env.db("contacts").select("contact", limit=1)[0]
    assert env.call("contacts__set_favorite", {"contact_id": contact["id"],
                                               "favorite": True})["success"]
    env.reset()
    assert env.rows() == fresh.rows()
