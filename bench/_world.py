"""The world the benchmark mounts: the headline services, chosen from the catalog and seeded."""

from __future__ import annotations

from compoworld.catalog import load_services
from compoworld.service import Environment, Service

HEADLINE_SERVICES = ("contacts", "mail", "calendar", "crm", "payments", "tasks")
"""The six hand-written services: the headline world (~2,000 rows once all exist)."""
EXPECTED_ROWS = 2000


def choose_services(spec: str | None) -> tuple[list[Service], list[str]]:
    """The services to mount and the headline services missing from the catalog."""
    catalog = {s.name: s for s in load_services()}
    if spec == "all":
        return list(catalog.values()), []
    wanted = spec.split(",") if spec else list(HEADLINE_SERVICES)
    unknown = [n for n in wanted if n not in catalog]
    if spec and unknown:
        raise SystemExit(f"unknown services: {', '.join(unknown)} (catalog: {', '.join(catalog)})")
    return [catalog[n] for n in wanted if n in catalog], unknown


def build(spec: str | None, seed: int) -> tuple[Environment, list[str]]:
    services, missing = choose_services(spec)
    if not services:
        raise SystemExit("none of the headline services exist yet; pass --services all")
    return Environment(services, seed=seed), missing

