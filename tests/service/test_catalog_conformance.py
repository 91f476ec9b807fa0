import pytest

from compoworld.catalog import load_service, load_services, service_names
from compoworld.errors import NotFound
from compoworld.service import Environment, check_service

HAND_WRITTEN = ("contacts", "mail", "calendar", "crm", "payments", "tasks")


def test_the_catalog_holds_six_hand_written_services_across_three_domains():
    services = [load_service(name) for name in HAND_WRITTEN]
    assert len({s.domain for s in services}) >= 3
    for service in services:
        assert 8 <= len(service.tools) <= 20, service
        assert any(t.kind == "write" for t in service.tools.values())


@pytest.mark.parametrize("name", service_names())
def test_every_service_passes_check_service(name):
    report = check_service(load_service(name))
    assert report.ok, str(report)
    assert report.calls > 0


def _paired(columns: set[str], email_column: str, what: str) -> str | None:
    """The column holding the same person's ``what`` (name/phone): email → name, owner_email →
    owner_name."""
    prefix = email_column.removesuffix("email")
    candidate = f"{prefix}{what}"
    return candidate if candidate in columns and candidate != email_column else None


def test_one_person_means_the_same_in_every_service():
    env = Environment(load_services(), seed=0)
    emails = {p.email: p for p in env.pool.people}
    seen_in: dict[str, set[str]] = {}
    checked = 0
    for service in env.services.values():
        for entity, table in service.tables.items():
            # name/phone columns typed as such (a compiled "data_name" string is not a person's)
            names = {c.name for c in table.columns if c.semantic in ("PersonName", "Phone")}
            email_columns = [c.name for c in table.columns if c.semantic == "Email" and c.kind == "str"]
            for row in env.db(service.name).select(entity):
                for column in email_columns:
                    person = emails.get(row[column])
                    if person is None:
                        continue
                    seen_in.setdefault(person.email, set()).add(service.name)
                    # Where a record stores a person's email with their name or phone, they agree.
                    for what, expected in (("name", person.name), ("phone", person.phone)):
                        paired = _paired(names, column, what)
                        if paired and row[paired] is not None:
                            assert row[paired] == expected, (service.name, entity, row)
                            checked += 1
    assert checked > 500
    shared = [email for email, services in seen_in.items() if len(services) >= 4]
    assert len(shared) >= 20, "people should appear across services"


def test_unknown_service_suggests():
    with pytest.raises(NotFound, match="did you mean 'contacts'"):
        load_service("contact")
