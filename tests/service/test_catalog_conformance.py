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


def test_one_person_means_the_same_in_every_service():
    env = Environment(load_services(), seed=0)
    emails = {p.email: p for p in env.pool.people}
    seen_in: dict[str, set[str]] = {}
    for service in env.services.values():
        for entity, table in service.tables.items():
            email_columns = [c.name for c in table.columns if c.semantic == "Email"]
            name_columns = [c.name for c in table.columns if c.semantic == "PersonName"]
            phone_columns = [c.name for c in table.columns if c.semantic == "Phone"]
            for row in env.db(service.name).select(entity):
                for column in email_columns:
                    person = emails.get(row[column])
                    if person is None:
                        continue
                    seen_in.setdefault(person.email, set()).add(service.name)
                    # Where a record stores a person's email with a name or phone, they agree.
                    if len(email_columns) == 1:
                        for n in name_columns:
                            assert row[n] in (None, person.name), (service.name, entity, row)
                        for p in phone_columns:
                            assert row[p] in (None, person.phone), (service.name, entity, row)
    shared = [email for email, services in seen_in.items() if len(services) >= 3]
    assert len(shared) >= 20, "people should appear across services"


def test_unknown_service_suggests():
    with pytest.raises(NotFound, match="did you mean 'contacts'"):
        load_service("contact")
