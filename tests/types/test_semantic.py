import pytest
from faker import Faker
from pydantic import TypeAdapter, ValidationError

from compoworld.errors import NotFound
from compoworld.types import Date, Email, Phone, Pool, Ref, get_type, semantic_types

REQUIRED = ("PersonName", "FirstName", "LastName", "Email", "Phone", "CompanyName", "JobTitle",
            "Address", "City", "Country", "PostalCode", "Date", "DateTime", "Money", "Currency",
            "Percent", "URL", "Domain", "Username", "IBAN", "AccountNumber", "ProductName", "SKU",
            "OrderNumber", "TrackingNumber", "Color", "Language", "Timezone")


def test_registry_has_the_shared_vocabulary():
    names = {t.name for t in semantic_types()}
    assert set(REQUIRED) <= names
    assert len(names) >= 25


@pytest.mark.parametrize("semantic", semantic_types(), ids=lambda t: t.name)
def test_generated_values_are_valid_deterministic_and_normalize_idempotently(semantic):
    def values(seed):
        fake = Faker("en_US")
        fake.seed_instance(seed)
        return [semantic.generate(fake) for _ in range(20)]

    generated = values(1)
    assert generated == values(1)
    assert generated != values(2) or semantic.name in ("Currency", "DurationMinutes")
    adapter = TypeAdapter(semantic.annotation)
    for value in generated:
        assert adapter.validate_python(value) == value
        once = semantic.normalize(value)
        assert semantic.normalize(once) == once
    schema = adapter.json_schema()
    assert schema["type"] == semantic.json_type
    assert schema["x-semantic-type"] == semantic.name


@pytest.mark.parametrize(("name", "a", "b"), [
    ("Phone", "(415) 555-0134", "+1 415 555 0134"),
    ("Phone", "+1-415-555-0134", "415.555.0134"),
    ("Email", " Ada.Lovelace@Example.COM", "ada.lovelace@example.com"),
    ("Date", "March 2, 2026", "2026-03-02"),
    ("Date", "03/02/2026", "2026-03-02T09:30:00"),
    ("DateTime", "2026-03-02T10:00:00+01:00", "2026-03-02T09:00:00Z"),
    ("Money", "$1,234.50", 1234.5),
    ("Currency", "usd", "USD"),
    ("PersonName", "  ada   LOVELACE ", "Ada Lovelace"),
    ("URL", "HTTPS://Example.com/a/", "https://example.com/a"),
    ("Domain", "www.Example.com.", "example.com"),
    ("IBAN", "gb82 west 1234 5698 7654 32", "GB82WEST12345698765432"),
    ("Percent", "12.5 %", 12.5),
])
def test_normalizers_make_equal_facts_compare_equal(name, a, b):
    semantic = get_type(name)
    assert semantic.normalize(a) == semantic.normalize(b)


def test_normalizers_keep_different_facts_apart():
    assert get_type("Phone").normalize("415-555-0134") != get_type("Phone").normalize("415-555-0135")
    assert get_type("Date").normalize("2026-03-02") != get_type("Date").normalize("2026-02-03")


def test_validation_rejects_malformed_values():
    with pytest.raises(ValidationError):
        TypeAdapter(Email).validate_python("not an email")
    with pytest.raises(ValidationError):
        TypeAdapter(Date).validate_python("2026-02-30")
    with pytest.raises(ValidationError):
        TypeAdapter(Phone).validate_python("call me")


def test_unknown_type_suggests_the_closest():
    with pytest.raises(NotFound, match="did you mean 'Email'"):
        get_type("Emial")


def test_ref_is_a_string_with_x_ref():
    schema = TypeAdapter(Ref["contact"]).json_schema()
    assert schema == {"type": "string", "x-ref": "contact"}


def test_pool_is_deterministic_and_consistent():
    a, b, c = Pool(3), Pool(3), Pool(4)
    assert a.people == b.people and a.companies == b.companies
    assert a.people != c.people
    emails = [p.email for p in a.people]
    assert len(set(emails)) == len(emails)
    for person in a.people:
        assert person.email.endswith("@" + person.company.domain)
        assert person.company in a.companies
        TypeAdapter(Email).validate_python(person.email)
        TypeAdapter(Phone).validate_python(person.phone)


def test_pool_streams_are_independent_of_order():
    pool = Pool(0)
    first = pool.faker("mail").name()
    pool.faker("contacts").name()
    assert pool.faker("mail").name() == first
    assert pool.rng("x").random() == Pool(0).rng("x").random()


def test_public_aliases_match_the_registry():
    import typing

    import compoworld.types as types_module

    for semantic in semantic_types():
        alias = getattr(types_module, semantic.name)
        assert typing.get_args(alias) == typing.get_args(semantic.annotation), semantic.name
