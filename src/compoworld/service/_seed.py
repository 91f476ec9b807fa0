"""Generic seeding of declared entities from the shared pool (used by the engine)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from faker import Faker

from compoworld.errors import CompoWorldError
from compoworld.service._db import Db
from compoworld.service._spec import EntitySpec, FieldSpec
from compoworld.types import Person, Pool, get_type, make_code, make_title, person_fact, text_role

_SCHEDULE_WORDS = ("due", "deadline", "start", "end", "until", "expir", "schedul", "renew", "next")


def _order(entities: Sequence[EntitySpec]) -> list[EntitySpec]:
    """Entities sorted so that every referenced entity is seeded before its referrers."""
    by_name = {e.name: e for e in entities}
    done: dict[str, EntitySpec] = {}

    def visit(entity: EntitySpec, path: tuple[str, ...]) -> None:
        if entity.name in done or entity.name in path:
            return
        for f in entity.fields:
            if f.type == "Ref" and f.ref in by_name and f.ref != entity.name:
                visit(by_name[f.ref], (*path, entity.name))
        done[entity.name] = entity

    for entity in entities:
        visit(entity, ())
    return list(done.values())


def _value(f: FieldSpec, fake: Faker, person: Person, pool: Pool, refs: dict[str, list[str]]) -> Any:
    rnd = fake.random
    if not f.required and rnd.random() < 0.15:
        return None
    if f.enum:
        return rnd.choice(f.enum)
    if f.type == "Ref":
        ids = refs.get(f.ref or "", [])
        return rnd.choice(ids) if ids else None
    fact = person_fact(person, f.type)
    if fact is not None:
        return fact
    if f.type in ("Date", "DateTime"):
        # Records happened in the past; only schedule-like fields (due, start, ...) may be ahead.
        ahead = any(word in f.name for word in _SCHEDULE_WORDS)
        day = pool.day(rnd.randint(-30, 90) if ahead else rnd.randint(-180, 0)).isoformat()
        return day if f.type == "Date" else f"{day}T{rnd.randint(8, 18):02d}:00:00"
    if f.type == "string":
        role = text_role(f.name)
        if role == "code":
            return make_code(f.name, rnd)
        if role == "title":
            return make_title(rnd)
        return fake.sentence(nb_words=4).rstrip(".")
    if f.type == "integer":
        return rnd.randint(0, 100)
    if f.type == "number":
        return round(rnd.uniform(0, 1000), 2)
    if f.type == "boolean":
        return rnd.random() < 0.5
    if f.type == "array":
        return []
    if f.type == "object":
        return {}
    return get_type(f.type).generate(fake)


def seed_entities(db: Db, pool: Pool, entities: Sequence[EntitySpec]) -> None:
    """Insert ``seed_count`` records per entity; people-typed fields come from pool people.

    A record whose values collide with a unique field is retried with other values, then
    skipped, so seeding never fails on an unlucky draw.
    """
    refs: dict[str, list[str]] = {}
    for entity in _order(entities):
        fake = pool.faker(f"{db.service}.{entity.name}")
        ids: list[str] = []
        for _ in range(entity.seed_count):
            for _attempt in range(5):
                person = fake.random.choice(pool.people)
                values = {f.name: _value(f, fake, person, pool, refs)
                          for f in entity.fields if f.name != "id"}
                try:
                    ids.append(db.insert(entity.name, **values)["id"])
                    break
                except CompoWorldError:
                    continue
        refs[entity.name] = ids
