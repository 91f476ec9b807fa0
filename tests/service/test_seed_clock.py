"""Seeding does not read the wall clock: every catalog service's seeded image is the same
when the clock Faker reads says another year (the world's dates come from its ``today``)."""

from __future__ import annotations

from datetime import date, datetime

import faker.providers.date_time as faker_dates
import pytest

from compoworld.catalog import load_service, service_names
from compoworld.service import Environment

TODAY = date(2026, 3, 2)


class _Later(datetime):
    """``datetime`` whose ``now`` is three years and a few days on."""

    @classmethod
    def now(cls, tz=None):  # type: ignore[no-untyped-def, override]
        return datetime(2029, 7, 19, 15, 30, tzinfo=tz)


@pytest.mark.parametrize("name", service_names())
def test_a_seeded_image_does_not_depend_on_the_clock(name: str, monkeypatch) -> None:
    service = load_service(name)
    now = Environment([service], seed=3, today=TODAY).image()
    monkeypatch.setattr(faker_dates, "datetime", _Later)
    assert faker_dates.datetime.now().year == 2029
    assert Environment([service], seed=3, today=TODAY).image() == now, (
        f"{name}'s seeding reads the clock (a Faker date drawn up to 'now')")
