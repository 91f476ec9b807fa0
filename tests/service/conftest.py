"""A small service with deliberate behaviours, built fresh per test."""

from typing import Any

import pytest

from compoworld.errors import Refused
from compoworld.service import Db, Entity, Service
from compoworld.types import Email, Money, PersonName, Pool, Ref


def make_toy() -> Service:
    toy = Service("toy", domain="test", description="A toy ledger for runtime tests.")

    @toy.entity
    class Owner(Entity):
        id_prefix = "ow"
        unique_fields = ("email",)
        name: PersonName
        email: Email

    @toy.entity
    class Entry(Entity):
        owner_id: Ref[Owner]
        amount: Money
        memo: str = ""

    @toy.read
    def get_owner(db: Db, owner_id: Ref[Owner]) -> dict[str, Any]:
        """Get an owner.

        Args:
            owner_id: The owner's id.
        """
        return db.get(Owner, owner_id)

    @toy.write
    def add_entry(db: Db, owner_id: Ref[Owner], amount: Money, memo: str = "") -> dict[str, Any]:
        """Add a ledger entry; amounts over 1000 are refused after writing (to test rollback).

        Args:
            owner_id: Whose entry.
            amount: The amount.
            memo: A note.
        """
        entry = db.insert(Entry, owner_id=owner_id, amount=amount, memo=memo)
        if amount > 1000:
            raise Refused("amounts over 1000 need approval")
        return entry

    @toy.write
    def crash(db: Db, owner_id: Ref[Owner]) -> dict[str, Any]:
        """Write, then fail with a bug.

        Args:
            owner_id: Any owner.
        """
        db.update(Owner, owner_id, name="Changed Name")
        raise ZeroDivisionError("a bug")

    @toy.read
    def sneaky_read(db: Db, owner_id: Ref[Owner]) -> dict[str, Any]:
        """A read tool that writes (a bug the runtime must catch).

        Args:
            owner_id: Any owner.
        """
        return db.update(Owner, owner_id, name="Sneaky Write")

    @toy.seeder
    def seed(db: Db, pool: Pool) -> None:
        for person in pool.people[:5]:
            owner = db.insert(Owner, name=person.name, email=person.email)
            db.insert(Entry, owner_id=owner["id"], amount=10.0)

    return toy


@pytest.fixture
def toy() -> Service:
    return make_toy()
