"""Generic seeding of declared entities from the shared pool (used by the engine).

Each field's drawer is compiled once per service (:func:`entities_seeder`): what the field's type
and name decide (an enum's choices, a code's prefix, whether a date may lie ahead, a semantic
type's generator) is looked up then, not per value. Records go in through an
:class:`~compoworld.service._bulk.InsertBatch` per entity. Both are pure speed: the values
drawn, the random draws consumed and the rows, ids and versions written are those of drawing
each value afresh and calling ``Db.insert`` per record, so seeded images are byte-identical.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from faker import Faker

from compoworld.errors import CompoWorldError
from compoworld.service._bulk import insert_batch
from compoworld.service._db import Db
from compoworld.service._spec import EntitySpec, FieldSpec
from compoworld.types import Person, Pool, get_type, make_code, make_title, person_fact, text_role

_SCHEDULE_WORDS = ("due", "deadline", "start", "end", "until", "expir", "schedul", "renew", "next")

Drawer = Callable[[random.Random, Faker, Person, Pool, dict[str, list[str]]], Any]
"""Draws one field's value: ``(rnd, fake, person, pool, refs) -> value``."""


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


def _typed(f: FieldSpec) -> Callable[[random.Random, Faker, Pool], Any]:
    """The drawer of a value that is no enum, reference or person's fact, by type and name."""
    if f.type in ("Date", "DateTime"):
        # Records happened in the past; only schedule-like fields (due, start, ...) may be ahead.
        low, high = (-30, 90) if any(word in f.name for word in _SCHEDULE_WORDS) else (-180, 0)
        if f.type == "Date":
            return lambda rnd, fake, pool: pool.day(rnd.randint(low, high)).isoformat()
        return lambda rnd, fake, pool: (f"{pool.day(rnd.randint(low, high)).isoformat()}"
                                        f"T{rnd.randint(8, 18):02d}:00:00")
    if f.type == "string":
        role = text_role(f.name)
        if role == "code":
            name = f.name
            return lambda rnd, fake, pool: make_code(name, rnd)
        if role == "title":
            return lambda rnd, fake, pool: make_title(rnd)
        return lambda rnd, fake, pool: fake.sentence(nb_words=4).rstrip(".")
    simple: dict[str, Callable[[random.Random, Faker, Pool], Any]] = {
        "integer": lambda rnd, fake, pool: rnd.randint(0, 100),
        "number": lambda rnd, fake, pool: round(rnd.uniform(0, 1000), 2),
        "boolean": lambda rnd, fake, pool: rnd.random() < 0.5,
        "array": lambda rnd, fake, pool: [],
        "object": lambda rnd, fake, pool: {},
    }
    if f.type in simple:
        return simple[f.type]
    generate = get_type(f.type).generate
    return lambda rnd, fake, pool: generate(fake)


def _drawer(f: FieldSpec) -> Drawer:
    """One field's drawer: null now and then when optional, else an enum's choice, a seeded
    record's id, the person's fact (their email, their company's name...) or a typed value."""
    if f.enum:
        choices = f.enum

        def value(rnd: random.Random, fake: Faker, person: Person, pool: Pool,
                  refs: dict[str, list[str]]) -> Any:
            return rnd.choice(choices)
    elif f.type == "Ref":
        ref = f.ref or ""

        def value(rnd: random.Random, fake: Faker, person: Person, pool: Pool,
                  refs: dict[str, list[str]]) -> Any:
            ids = refs.get(ref, [])
            return rnd.choice(ids) if ids else None
    else:
        typed, semantic = _typed(f), f.type

        def value(rnd: random.Random, fake: Faker, person: Person, pool: Pool,
                  refs: dict[str, list[str]]) -> Any:
            fact = person_fact(person, semantic)
            return fact if fact is not None else typed(rnd, fake, pool)
    if f.required:
        return value

    def optional(rnd: random.Random, fake: Faker, person: Person, pool: Pool,
                 refs: dict[str, list[str]]) -> Any:
        return None if rnd.random() < 0.15 else value(rnd, fake, person, pool, refs)

    return optional


def entities_seeder(entities: Sequence[EntitySpec]) -> Callable[[Db, Pool], None]:
    """The seeder of ``entities`` (``seeder(db, pool)``), each field's drawer compiled now:
    :func:`build_service` makes one per service, so seeding a world draws only values.

    Each entity gets ``seed_count`` records; people-typed fields come from pool people. A
    record whose values collide with a unique field is retried with other values, then
    skipped, so seeding never fails on an unlucky draw.
    """
    plan = [(entity, tuple((f.name, _drawer(f)) for f in entity.fields if f.name != "id"))
            for entity in _order(entities)]

    def seed(db: Db, pool: Pool) -> None:
        refs: dict[str, list[str]] = {}
        people = pool.people
        for entity, drawers in plan:
            fake = pool.faker(f"{db.service}.{entity.name}")
            rnd = fake.random
            ids: list[str] = []
            with insert_batch(db, entity.name) as batch:
                for _ in range(entity.seed_count):
                    for _attempt in range(5):
                        person = rnd.choice(people)
                        values = {name: draw(rnd, fake, person, pool, refs)
                                  for name, draw in drawers}
                        try:
                            ids.append(batch.add(**values)["id"])
                            break
                        except CompoWorldError:
                            continue
            refs[entity.name] = ids

    return seed


def seed_entities(db: Db, pool: Pool, entities: Sequence[EntitySpec]) -> None:
    """Seed ``entities`` into ``db`` from ``pool`` (see :func:`entities_seeder`)."""
    entities_seeder(entities)(db, pool)
