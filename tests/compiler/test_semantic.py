"""Semantic type inference from format, name, description and the owning entity."""

import pytest

from compoworld.compiler import infer_semantic
from compoworld.compiler._rules import core_noun, entity_name, singular, split_verb


@pytest.mark.parametrize(("name", "schema", "description", "entity", "expected"), [
    ("contact", {"type": "string", "format": "email"}, "", "", "Email"),
    ("billingEmail", {"type": "string"}, "", "", "Email"),
    ("mobile", {"type": "string"}, "", "", "Phone"),
    ("first_name", {"type": "string"}, "", "", "FirstName"),
    ("surname", {"type": "string"}, "", "", "LastName"),
    ("name", {"type": "string"}, "", "customer", "PersonName"),
    ("name", {"type": "string"}, "", "company", "CompanyName"),
    ("name", {"type": "string"}, "", "dataset", None),
    ("displayName", {"type": "string"}, "", "model", None),
    ("companyName", {"type": "string"}, "", "", "CompanyName"),
    ("website", {"type": "string"}, "", "", "URL"),
    ("selfLink", {"type": "string"}, "", "", "URL"),
    ("postal_code", {"type": "string"}, "", "", "PostalCode"),
    ("address_city", {"type": "string"}, "", "", "City"),
    ("country_code", {"type": "string"}, "", "", "CountryCode"),
    ("total_price", {"type": "number"}, "", "", "Money"),
    ("total_price", {"type": "string"}, "", "", None),  # the JSON type must fit
    ("total", {"type": "integer"}, "", "", None),  # a count, not an amount
    ("createdAt", {"type": "string"}, "", "", "DateTime"),
    ("birth_date", {"type": "string", "format": "date"}, "", "", "Date"),
    ("updated", {"type": "string"}, "", "", "DateTime"),
    ("completed", {"type": "string"}, "as a RFC 3339 timestamp", "", "DateTime"),
    ("cur", {"type": "string"}, "ISO 4217 currency code", "", "Currency"),
    ("status", {"type": "string", "enum": ["a", "b"]}, "", "", None),
    ("customer_id", {"type": "string"}, "", "", None),  # ids never name the thing
    ("region", {"type": "string"}, "", "", None),  # cloud regions are no provinces
])
def test_inference(name, schema, description, entity, expected):
    assert infer_semantic(name, schema, description, entity) == expected


@pytest.mark.parametrize(("name", "verb", "rest"), [
    ("createPad", "create", ["pad"]),
    ("ticket_get_login_status", "get", ["login", "status"]),
    ("archival_memory_add", "add", ["archival", "memory"]),
    ("list_users", "list", ["users"]),
])
def test_verbs_of_names(name, verb, rest):
    assert split_verb(name) == (verb, rest)


def test_nouns_and_entities():
    assert [singular(w) for w in ("companies", "addresses", "people", "status", "faxes")] == [
        "company", "address", "person", "status", "fax"]
    assert core_noun(["to", "watchlist"]) == ["watchlist"]
    assert core_noun(["user", "by", "email"]) == ["user"]
    assert core_noun(["rate", "based", "rule"]) == ["rate", "based", "rule"]
    assert entity_name("UserGroups") == "user_group"
