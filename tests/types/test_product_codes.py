"""Product identifiers: GS1 trade item numbers (EAN/UPC) and ISBNs."""

import pytest
from pydantic import TypeAdapter, ValidationError

from compoworld.types import GTIN, ISBN, get_type


@pytest.mark.parametrize(("name", "a", "b"), [
    ("GTIN", "036000291452", "0036000291452"),  # a UPC-A and its EAN-13
    ("GTIN", "0 36000 29145 2", "00036000291452"),
    ("ISBN", "0-306-40615-2", "978-0-306-40615-7"),  # an ISBN-10 and its ISBN-13
    ("ISBN", "978 0306406157", "9780306406157"),
])
def test_the_same_code_written_two_ways_compares_equal(name, a, b):
    semantic = get_type(name)
    assert semantic.normalize(a) == semantic.normalize(b)


def test_different_codes_stay_apart():
    assert get_type("GTIN").normalize("036000291452") != get_type("GTIN").normalize(
        "036000241457")
    assert get_type("ISBN").normalize("0-306-40615-2") != get_type("ISBN").normalize(
        "0-19-852663-6")


def test_check_digits_are_validated():
    assert TypeAdapter(GTIN).validate_python("4006381333931") == "4006381333931"
    assert TypeAdapter(ISBN).validate_python("0-19-852663-6") == "0-19-852663-6"
    with pytest.raises(ValidationError):
        TypeAdapter(GTIN).validate_python("4006381333932")  # wrong check digit
    with pytest.raises(ValidationError):
        TypeAdapter(GTIN).validate_python("12345")  # no GTIN length
    with pytest.raises(ValidationError):
        TypeAdapter(ISBN).validate_python("0-306-40615-3")


def test_codes_are_identifying_and_not_stated_by_users():
    from compoworld.compiler._record import IDENTIFYING_TYPES

    assert {"GTIN", "ISBN"} <= IDENTIFYING_TYPES
    assert not get_type("GTIN").knowable and not get_type("ISBN").knowable
