"""What every catalog test uses: its service's seeded world, and calls that must succeed or
must be refused.

A test module names its service in ``SERVICE`` (e.g. ``SERVICE = "crm"``); tool names in calls
are fully qualified: ``ok(env, "crm__get_account", account_id=...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest

from compoworld.catalog import load_service
from compoworld.service import Environment


def _ok(env: Environment, tool: str, /, **args: Any) -> Any:
    """Call ``tool``, which must succeed with a JSON-serializable envelope; return its data."""
    envelope = env.call(tool, args)
    assert envelope["success"], envelope
    orjson.dumps(envelope)
    return envelope["data"]


def _refused(env: Environment, tool: str, code: int, /, **args: Any) -> str:
    """Call ``tool``, which must fail with ``code`` and leave the state untouched; return the
    error message."""
    before = env.digest()
    envelope = env.call(tool, args)
    assert not envelope["success"], envelope
    assert envelope["error"]["code"] == code, envelope
    assert env.digest() == before, "a refused call changed the state"
    return str(envelope["error"]["message"])


@pytest.fixture(scope="module")
def world(request: pytest.FixtureRequest) -> Environment:
    """The module's ``SERVICE`` seeded with seed 0, shared by the module's tests: never change it."""
    return Environment([load_service(request.module.SERVICE)], seed=0)


@pytest.fixture
def env(world: Environment) -> Environment:
    """A private copy of ``world`` that the test may change."""
    return world.fork()


@pytest.fixture
def ok() -> Callable[..., Any]:
    """``ok(env, tool, **args)``: the data of a call that must succeed."""
    return _ok


@pytest.fixture
def refused() -> Callable[..., str]:
    """``refused(env, tool, code, **args)``: the message of a call that must fail with ``code``
    and leave ``env.digest()`` unchanged."""
    return _refused
