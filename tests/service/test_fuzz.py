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


# Boundary values (issue 18): nesting far past the limit, integers past 64 bits, non-finite
# floats, huge lists — all must be a 400 (or a success within the limits), never a raise.

def _nest(leaf, depth, as_dict):
    for _ in range(depth):
        leaf = {"k": leaf} if as_dict else [leaf]
    return leaf


deep = st.builds(_nest, scalars, st.integers(min_value=20, max_value=3_000), st.booleans())
big_integers = st.one_of(st.integers(min_value=2 ** 63, max_value=2 ** 200),
                         st.integers(min_value=-(2 ** 200), max_value=-(2 ** 63) - 1),
                         st.sampled_from([2 ** 63, -(2 ** 63) - 1, 10 ** 40]),
                         st.sampled_from(["9223372036854775808", "-99999999999999999999999"]))
non_finite = st.one_of(st.sampled_from([float("nan"), float("inf"), float("-inf")]),
                       st.sampled_from(["NaN", "Infinity", "-inf", "1e999"]))
boundary = st.one_of(deep, big_integers, non_finite,
                     st.lists(st.sampled_from([*IDS, "a@b.example"]), min_size=1_001,
                              max_size=1_200))
hostile_arguments = st.dictionaries(st.sampled_from(PARAM_NAMES),
                                    st.one_of(boundary, values), min_size=1, max_size=4)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(TOOL_NAMES), args=hostile_arguments)
def test_boundary_values_are_refused_cleanly(name, args):
    env = ENV.fork()
    before = env.snapshot()
    envelope = env.call(name, args)
    assert_envelope(envelope)
    if not envelope["success"]:
        assert env.snapshot() == before
    assert env.failures == [], env.failures


# Values past a limit whatever the parameter's type: refused before any validation.
always_refused = st.one_of(
    st.builds(_nest, scalars, st.integers(min_value=33, max_value=3_000), st.booleans()),
    st.integers(min_value=2 ** 63, max_value=2 ** 200),
    st.integers(min_value=-(2 ** 200), max_value=-(2 ** 63) - 1),
    st.sampled_from([float("nan"), float("inf"), float("-inf")]),
    st.lists(st.sampled_from(IDS), min_size=1_001, max_size=1_200),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(TOOL_NAMES), value=always_refused, data=st.data())
def test_a_value_past_a_limit_is_a_400_naming_the_argument(name, value, data):
    params = [p.name for p in ENV.tools[name].params] or PARAM_NAMES
    key = data.draw(st.sampled_from(params))
    env = ENV.fork()
    before = env.snapshot()
    envelope = env.call(name, {key: value})
    assert_envelope(envelope)
    assert not envelope["success"] and envelope["error"]["code"] == 400, envelope
    message = envelope["error"]["message"]
    assert f"argument '{key}" in message or "values" in message, message
    assert env.snapshot() == before
