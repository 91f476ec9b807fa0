"""Boundary limits of tool arguments (issue 18, defects 1, 2 and the 20,000-character cap inside
``dict``/``list[Any]``): every hostile value is a 400 naming the limit, never an exception,
a 500, or a value stored differently from how it was given."""

import math

import pytest

from compoworld.catalog import load_service, load_services
from compoworld.service import Environment
from compoworld.service._limits import (
    MAX_DEPTH,
    MAX_INTEGER,
    MAX_LIST_LENGTH,
    MAX_STRING_LENGTH,
    MAX_VALUES,
    check_limits,
)

ENV = Environment(load_services(), seed=0)


def nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


def refused(env, name, arguments, *words):
    before = env.snapshot()
    envelope = env.call(name, arguments)
    assert envelope["success"] is False, envelope
    assert envelope["error"]["code"] == 400, envelope
    for word in words:
        assert word in envelope["error"]["message"], envelope["error"]["message"]
    assert env.snapshot() == before
    assert env.failures == []
    return envelope["error"]["message"]


@pytest.mark.parametrize("depth", [253, 1_000, 20_000])
def test_deep_nesting_is_a_400_naming_the_limit(depth):
    env = ENV.fork()
    message = refused(env, "apideck_crm__create_company",
                      {"name": "Acme", "custom_fields": nested(depth)}, "custom_fields",
                      f"{MAX_DEPTH} levels")
    assert len(message) < 300


def test_nesting_within_the_limit_is_accepted():
    check_limits({"filter": nested(MAX_DEPTH - 1)})
    with pytest.raises(Exception, match="levels deep"):
        check_limits({"filter": nested(MAX_DEPTH + 1)})


@pytest.mark.parametrize("name", ["contacts__list_contacts", "crm__list_deals",
                                  "payments__list_invoices", "helpdesk__list_tickets"])
@pytest.mark.parametrize("offset", [MAX_INTEGER + 1, -(2 ** 63) - 1, 10 ** 30,
                                    "9223372036854775808"])
def test_integers_past_64_bits_are_a_400(name, offset):
    refused(ENV.fork(), name, {"offset": offset}, "offset", "64-bit")


def test_the_largest_64_bit_integer_is_not_refused_by_the_limits():
    envelope = ENV.fork().call("contacts__list_contacts", {"offset": MAX_INTEGER})
    assert envelope["success"] or envelope["error"]["code"] != 500, envelope


@pytest.mark.parametrize("amount", [math.nan, math.inf, -math.inf, "NaN", "Infinity", "1e999"])
def test_non_finite_floats_are_a_400_not_stored_as_null(amount):
    env = ENV.fork()
    account = env.call("crm__list_accounts", {"limit": 1})["data"]["items"][0]["id"]
    refused(env, "crm__create_deal",
            {"account_id": account, "name": "Big", "amount": amount, "close_date": "2031-01-01"}, "amount")


def test_a_finite_float_is_stored_as_given():
    env = ENV.fork()
    account = env.call("crm__list_accounts", {"limit": 1})["data"]["items"][0]["id"]
    envelope = env.call("crm__create_deal", {"account_id": account, "name": "Big",
                                             "amount": 1234.5, "close_date": "2031-01-01"})
    assert envelope["success"], envelope
    assert envelope["data"]["amount"] == 1234.5


def test_a_huge_attendee_list_is_a_400_not_too_many_sql_variables():
    env = Environment([load_service("calendar")], seed=0)
    attendees = [f"p{i}@example.com" for i in range(250_000)]
    refused(env, "calendar__find_free_slot",
            {"date": "2031-01-01", "duration_minutes": 30, "attendees": attendees},
            "attendees", f"{MAX_LIST_LENGTH:,}")
    ok = env.call("calendar__find_free_slot", {"date": "2031-01-01", "duration_minutes": 30,
                                               "attendees": attendees[:MAX_LIST_LENGTH]})
    assert ok["success"], ok


@pytest.mark.parametrize("value", [
    {"note": "a" * (MAX_STRING_LENGTH + 1)},
    ["a" * (MAX_STRING_LENGTH + 1)],
    [{"deep": ["a" * (MAX_STRING_LENGTH + 1)]}],
])
def test_the_string_cap_holds_inside_any_typed_parameters(value):
    env = ENV.fork()
    key = "custom_mappings" if isinstance(value, dict) else "custom_fields"
    refused(env, "apideck_crm__create_company", {"name": "Acme", key: value},
            f"{MAX_STRING_LENGTH:,}")


def test_too_many_values_and_too_much_text_are_refused():
    with pytest.raises(Exception, match="values"):
        check_limits({"x": [[0] * 500 for _ in range(MAX_VALUES // 500 + 1)]})
    with pytest.raises(Exception, match="characters of text"):
        check_limits({"x": ["a" * MAX_STRING_LENGTH] * 11})
    with pytest.raises(Exception, match="key of"):
        check_limits({"x": {"k" * 5_000: 1}})


def test_compoworld_call_refuses_deep_arguments_cleanly():
    from typer.testing import CliRunner

    from compoworld.cli import app

    args = "{" + '"name": "Acme", "custom_fields": ' + "[" * 1_000 + "]" * 1_000 + "}"
    result = CliRunner().invoke(app, ["call", "apideck_crm", "create_company", "--args", args])
    assert result.exit_code == 1
    assert "levels deep" in result.output
    assert "Traceback" not in result.output


def test_the_fast_path_and_the_full_walk_agree():
    """Flat arguments take a shortcut; it must refuse exactly what the full walk refuses."""
    from compoworld.errors import BadArguments
    from compoworld.service._limits import MAX_TEXT, _walk

    cases = [
        {"a": "x" * 20_000, "b": ["y" * 20_000] * 9},  # within
        {f"p{i}": ["y" * 20_000] * 5 for i in range(3)},  # 300,000 characters of text
        {"a": [1, 2, 2 ** 63]},
        {"a": ["ok"] * 1_001},
        {"a": [1.5, float("nan")]},
        {f"k{i}": 1 for i in range(1_001)},
        {"a": [None, "x"]},
    ]
    for arguments in cases:
        try:
            _walk(arguments)
            walked = None
        except BadArguments as error:
            walked = error.message
        try:
            check_limits(arguments)
            checked = None
        except BadArguments as error:
            checked = error.message
        assert checked == walked, (list(arguments)[:3], checked, walked)
    assert MAX_TEXT < 300_000
