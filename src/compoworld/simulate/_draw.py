"""What one simulated call draws its values from: a seeded random stream, the pool, the state.

Kept cheap because the offline world model makes one per call: a ``random.Random`` seeded
once, the world's people and dates looked up in tables built once per process, Faker only for
the semantic types that need it (one instance per thread, drawing from the call's stream), and
the ids of the service's records read at most once per entity and state.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from dataclasses import fields
from datetime import date, timedelta
from typing import Any, cast

from faker import Faker, Generator
from faker.factory import Factory
from faker.providers.lorem.en_US import Provider as _Lorem

from compoworld.service import Db, Table
from compoworld.types import Company, Person, Pool, make_title, person_fact

WORDS: tuple[str, ...] = tuple(_Lorem.word_list)


def _phrases(count: int = 4096) -> tuple[str, ...]:
    """Free text: lorem phrases of 2-6 words, the same in every process (a fixed seed)."""
    rng = random.Random(0x10BE)
    return tuple(" ".join(rng.choices(WORDS, k=rng.randint(2, 6))).capitalize()
                 for _ in range(count))


PHRASES = _phrases()


def _titles(count: int = 4096) -> tuple[str, ...]:
    """Names for things, for untyped fields named like a name or title (see
    :func:`compoworld.types.text_role`), the same in every process (a fixed seed)."""
    rng = random.Random(0x717E)
    return tuple(make_title(rng) for _ in range(count))


TITLES = _titles()
_DAYS = 30  # dates fall within a month either side of the world's today


def _calendar(today: date) -> tuple[tuple[str, ...], tuple[str, ...]]:
    days = [today + timedelta(days=d) for d in range(-_DAYS, _DAYS + 1)]
    times = [f"T{hour:02d}:{minute:02d}:00" for hour in range(8, 19) for minute in (0, 30)]
    return (tuple(day.isoformat() for day in days),
            tuple(day.isoformat() + t for day in days for t in times))


_CALENDARS: dict[date, tuple[tuple[str, ...], tuple[str, ...]]] = {}
_LOCAL = threading.local()
_IDS_KEPT = 4096
_FIRST = 50  # references point at one of the first records


def _probe(cls: type[Any]) -> Any:
    """An instance of a pool dataclass with every field set: tells which semantic types a
    person determines without depending on any one pool's people."""
    values = {f.name: date(2000, 1, 1) if f.name == "birthday"
              else _probe(Company) if f.name == "company" else "x" for f in fields(cls)}
    return cls(**values)


_PROBE: Person = _probe(Person)


def is_person_type(semantic: str) -> bool:
    """Whether a person (or their company) determines values of ``semantic``."""
    return person_fact(_PROBE, semantic) is not None


class IdCache:
    """The ids of the first 50 records per (service, state digest, entity), shared by the
    calls of one simulator (a world and its forks): the digest names the service's state
    exactly, so what was read under it stays true."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: OrderedDict[tuple[str, str, str], tuple[str, ...]] = OrderedDict()

    def get(self, db: Db, digest: str, entity: str) -> tuple[str, ...]:
        key = (db.service, digest, entity)
        with self._lock:
            known = self._known.get(key)
        if known is None:  # one row back: the ids joined by a separator no id contains
            rows = db.sql(f"SELECT group_concat(id, char(31)) AS ids FROM "
                          f"(SELECT id FROM {{{entity}}} ORDER BY rowid LIMIT {_FIRST})")
            joined = rows[0]["ids"] if rows else None
            known = tuple(joined.split("\x1f")) if joined else ()
            with self._lock:
                self._known[key] = known
                if len(self._known) > _IDS_KEPT:
                    self._known.popitem(last=False)
        return known


class Draw:
    """The random stream and world one simulated call draws from.

    Args:
        seed: The call's seed (same seed, same values).
        pool: The world's shared pool (people, companies, today).
        db: The simulated tool's service state.
        digest: The state's digest (keys what is read of it).
        ids: Where the ids read of the state are kept (the simulator's).
        fixed: Values already decided, by property name (e.g. the ids the call asked for).
        creates: The call makes a new record (a write not naming an existing one).
    """

    __slots__ = (
        "_cache",
        "_fake",
        "_ids",
        "creates",
        "dates",
        "datetimes",
        "db",
        "digest",
        "fixed",
        "minted",
        "pool",
        "random",
        "rng",
    )

    def __init__(self, seed: int, pool: Pool, db: Db, digest: str, ids: IdCache,
                 fixed: dict[str, Any] | None = None, *, creates: bool = False) -> None:
        self.rng = random.Random(seed)
        self.random = self.rng.random
        self.pool, self.db, self.digest, self._cache = pool, db, digest, ids
        self.fixed = fixed or {}
        self.creates = creates
        self._fake: Generator | None = None
        calendar = _CALENDARS.get(pool.today)
        if calendar is None:
            calendar = _CALENDARS[pool.today] = _calendar(pool.today)
        self.dates, self.datetimes = calendar
        self._ids: dict[str, tuple[str, ...]] = {}
        self.minted: set[str] = set()

    def index(self, n: int) -> int:
        """A uniform index below ``n``."""
        return int(self.random() * n)

    def person(self) -> Person:
        """Any person of the pool."""
        people = self.pool.people
        return people[int(self.random() * len(people))]

    def stored(self, table: Table, record_id: str) -> dict[str, Any] | None:
        """The record of ``table`` with this id in state, or None."""
        known = self._ids.get(table.entity_name)
        if (known is not None and record_id in known) or self.db.exists(table.entity_name, record_id):
            return self.db.get(table.entity_name, record_id)
        return None

    def new_id(self, table: Table) -> str:
        """A fresh id in the format of ``table``'s entity."""
        minted = f"{table.entity.id_prefix}_{self.rng.getrandbits(32):08x}"
        self.minted.add(minted)
        return minted

    @property
    def fake(self) -> Faker:
        """A Faker drawing from this call's stream (one per thread, shared by its calls).

        A bare ``Generator`` (what a one-locale ``Faker`` proxies to): the same providers,
        without the proxy's per-attribute dispatch.
        """
        if self._fake is None:
            fake = getattr(_LOCAL, "fake", None)
            if fake is None:
                fake = _LOCAL.fake = Factory.create("en_US")
            fake.random = self.rng
            self._fake = fake
        return cast(Faker, self._fake)

    def ids(self, entity: str) -> tuple[str, ...]:
        """The ids of the first 50 records of ``entity`` in state."""
        known = self._ids.get(entity)
        if known is None:  # the call writes nothing until it is answered: read once
            known = self._ids[entity] = self._cache.get(self.db, self.digest, entity)
        return known
