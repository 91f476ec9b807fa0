"""Fuzzing tool calls: never an exception out of the runtime, always an envelope, and a failed
call leaves the database byte-identical."""

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compoworld.catalog import load_services
from compoworld.service import Environment

ENV = Environment(load_services(), seed=0)
TOOL_NAMES = sorted(ENV.tools)
PARAM_NAMES = sorted({p.name for t in ENV.tools.values() for p in t.params})
IDS = sorted({r["id"] for rows in ENV.rows().values() for r in rows[:5]})

nasty_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["'; DROP TABLE contacts__contact; --", "\" OR 1=1 --", "%", "_", "\\",
                     "\x00", "💥" * 3, "Robert'); DELETE FROM x;--", "a" * 25_000]),
    st.sampled_from(IDS),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    nasty_text)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=8)
arguments = st.one_of(
    st.dictionaries(st.sampled_from(PARAM_NAMES), values, max_size=6),
    st.dictionaries(st.text(max_size=12), values, max_size=4),
    values,
)
names = st.one_of(st.sampled_from(TOOL_NAMES), st.text(max_size=30), st.none(), st.integers())


def assert_envelope(envelope):
    assert isinstance(envelope, dict)
    orjson.dumps(envelope)
    if envelope["success"]:
        assert set(envelope) == {"success", "data"}
    else:
        assert set(envelope) == {"success", "error"}
        assert envelope["error"]["code"] in (400, 404, 409, 422)
        assert isinstance(envelope["error"]["message"], str) and envelope["error"]["message"]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=names, args=arguments)
def test_any_call_returns_an_envelope_and_failures_leave_no_trace(name, args):
    env = ENV.fork()
    before = env.snapshot()
    envelope = env.call(name, args)
    assert_envelope(envelope)
    if not envelope["success"]:
        assert env.snapshot() == before
    assert env.failures == [], env.failures


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=st.lists(st.tuples(st.sampled_from(TOOL_NAMES),
                                st.dictionaries(st.sampled_from(PARAM_NAMES), values, max_size=6)),
                      min_size=2, max_size=12))
def test_sequences_of_calls_keep_the_contract(calls):
    env = ENV.fork()
    for name, args in calls:
        before = env.snapshot()
        envelope = env.call(name, args)
        assert_envelope(envelope)
        if not envelope["success"]:
            assert env.snapshot() == before
    assert env.failures == [], env.failures
    schema = env._conn.execute("PRAGMA integrity_check").fetchone()[0]
    assert schema == "ok"
    assert env._conn.execute("PRAGMA foreign_key_check").fetchall() == []
