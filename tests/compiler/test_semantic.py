"""Semantic type inference from format, name, description and the owning entity."""

import pytest

from compoworld.compiler import infer_semantic
from compoworld.compiler._rules import core_noun, entity_name, plural, singular, split_verb
from compoworld.compiler._semantic import field_type


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
    # people and companies by role
    ("customer_name", {"type": "string"}, "", "", "PersonName"),
    ("author_display_name", {"type": "string"}, "", "", "PersonName"),
    ("changed_by_name", {"type": "string"}, "", "", "PersonName"),
    ("user_name", {"type": "string"}, "", "", "Username"),  # a handle, not a person's name
    ("client_name", {"type": "string"}, "", "", None),  # an OAuth application's
    ("vendor_name", {"type": "string"}, "", "", "CompanyName"),
    ("brand_name", {"type": "string"}, "", "", None),
    ("name", {"type": "string"}, "", "product", "ProductName"),  # never a PersonName
    ("name", {"type": "string"}, "", "product_variant", None),
    ("name_given_name", {"type": "string"}, "", "", "FirstName"),
    ("full_name", {"type": "string"}, "", "follower", "PersonName"),
    ("full_name", {"type": "string"}, "", "repository", None),  # owner/name
    ("repository_full_name", {"type": "string"}, "", "", None),
    ("brand_family_name", {"type": "string"}, "", "", None),
    ("mac_address", {"type": "string"}, "", "", None),  # no street address
    ("billing_address", {"type": "string"}, "", "", "Address"),
    ("sender_name", {"type": "string"}, "Resource name for a Google Chat user", "", None),
    ("sender_name", {"type": "string"}, "", "", "PersonName"),
    ("display", {"type": "string"}, "The name shown instead of the email address", "", None),
    # URLs, places, phones
    ("transactions_href", {"type": "string"}, "", "", "URL"),
    ("siteurl", {"type": "string"}, "", "", "URL"),
    ("appandroid", {"type": "string"}, "URL of the app in Google Play", "", "URL"),
    ("token", {"type": "string"}, "URL-safe base64 token", "", None),
    ("prefix", {"type": "string"}, "The URL path prefix", "", None),
    ("postal_address_town_name", {"type": "string"}, "", "", "City"),
    ("outlet_suburb", {"type": "string"}, "", "", "City"),
    ("fax_number", {"type": "string"}, "", "", "Phone"),
    # the spec's own example must fit the type
    ("domain", {"type": "string"}, "the site it belongs to, example: netherlands", "", None),
    ("domain", {"type": "string"}, "example: acme.com", "", "Domain"),
    ("email", {"type": "string", "example": "jdoe"}, "", "", None),
    ("email", {"type": "string"}, "For example, the user's email", "", "Email"),
    ("website", {"type": "string", "example": "https://acme.com"}, "", "", "URL"),
    # credits, payees, places, account holders
    ("author", {"type": "string"}, "", "", "PersonName"),
    ("author", {"type": "object"}, "", "", None),  # a record, not a name
    ("illustrator", {"type": "string"}, "", "", "PersonName"),
    ("publisher", {"type": "string"}, "", "", "CompanyName"),
    ("payee_name", {"type": "string"}, "", "", "CompanyName"),
    ("name", {"type": "string"}, "", "publisher", "CompanyName"),
    ("name", {"type": "string"}, "", "city", "City"),
    ("debtor_account_name", {"type": "string"}, "", "", "PersonName"),
    ("account_name", {"type": "string"}, "", "", None),  # a budget's "Checking"
    ("owners", {"type": "string"}, "The email addresses of all verified owners.", "", "Email"),
    # product identifiers: chompthis.com, ean-search.org, isbndb.com, spotify, google
    # manufacturers
    ("barcode", {"type": "string"}, "EAN/UPC barcode", "", "GTIN"),
    ("barcode", {"type": "string"}, "base64 encoded PNG image", "", None),  # ean-search.org
    ("barcode", {"type": "string"}, "", "", None),
    ("ean", {"type": "string"}, "", "", "GTIN"),
    ("ean", {"type": "integer"}, "", "", None),  # a number loses the leading zeros
    ("external_ids_upc", {"type": "string"}, "", "", "GTIN"),
    ("gtin", {"type": "string", "example": "abc"}, "", "", None),
    ("isbn13", {"type": "string"}, "", "", "ISBN"),
    ("isbn", {"type": "string", "example": "0-306-40615-2"}, "", "", "ISBN"),
    ("code", {"type": "string"}, "The UPC prefix of the company", "", None),
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


@pytest.mark.parametrize(("name", "schema", "description", "expected"), [
    ("authors", {"type": "array", "items": {"type": "string"}}, "", ("array", "PersonName")),
    ("emails", {"type": "array", "items": {"type": "string"}}, "", ("array", "Email")),
    ("phone_numbers", {"type": "array", "items": {"type": "string"}}, "", ("array", "Phone")),
    ("owners", {"type": "array", "items": {"type": "string"}},
     "The email addresses of all verified owners.", ("array", "Email")),
    ("tags", {"type": "array", "items": {"type": "string"}}, "", ("array", "string")),
    ("email", {"type": "array", "items": {"type": "string"}}, "", ("array", "Email")),
    ("addresses", {"type": "array", "items": {"type": "object"}}, "", ("array", None)),
    ("gtin", {"type": "array", "items": {"type": "string"}}, "", ("array", "GTIN")),
])
def test_lists_of_typed_values(name, schema, description, expected):
    """A list holds the type its singular name (or its description) gives one value."""
    assert field_type(name, schema, description) == expected


def test_nouns_and_entities():
    assert [singular(w) for w in ("companies", "addresses", "people", "status", "faxes")] == [
        "company", "address", "person", "status", "fax"]
    assert [plural(w) for w in ("series", "status", "company")] == [
        "series", "statuses", "companies"]
    assert core_noun(["to", "watchlist"]) == ["watchlist"]
    assert core_noun(["user", "by", "email"]) == ["user"]
    assert core_noun(["rate", "based", "rule"]) == ["rate", "based", "rule"]
    assert entity_name("UserGroups") == "user_group"
