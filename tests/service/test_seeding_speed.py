"""Seeding's and building's fast paths give exactly what the plain paths give.

``InsertBatch`` against ``Db.insert`` record by record, the compiled field drawers against
drawing each value afresh, a second ``build_service`` of a spec against the first, the shared
Faker of compute actions against a fresh one, and ``fill`` run as one script.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from compoworld.errors import BadArguments, CompoWorldError, Conflict, RecordNotFound
from compoworld.service import Db, Environment, ServiceSpec, build_service
from compoworld.service._bulk import insert_batch
from compoworld.service._connection import _connect
from compoworld.service._db import SEQUENCE_TABLE, VERSION_TABLE, Change
from compoworld.service._image import create_tables, fill
from compoworld.service._seed import _order
from compoworld.service._spec import FieldSpec
from compoworld.types import Person, Pool, get_type, make_code, make_title, person_fact, text_role


def _spec(seed_count: int = 12, name: str = "depot") -> ServiceSpec:
    return ServiceSpec.model_validate({
        "name": name, "domain": "operations", "description": "Sites and the parts they hold.",
        "entities": [
            {"name": "site", "seed_count": seed_count, "unique": ["code"], "fields": [
                {"name": "code", "type": "string", "enum": ["A", "B", "C", "D", "E", "F"]},
                {"name": "manager_email", "type": "Email"},
                {"name": "city", "type": "City", "required": False},
                {"name": "opened_on", "type": "Date"},
                {"name": "renewal_due", "type": "Date", "required": False}]},
            {"name": "part", "seed_count": seed_count * 2, "fields": [
                {"name": "site_id", "type": "Ref", "ref": "site"},
                {"name": "replaces_id", "type": "Ref", "ref": "part", "required": False},
                {"name": "part_number", "type": "string"},
                {"name": "display_name", "type": "string"},
                {"name": "notes", "type": "string", "required": False},
                {"name": "count", "type": "integer"}, {"name": "weight", "type": "number"},
                {"name": "fragile", "type": "boolean"}, {"name": "tags", "type": "array"},
                {"name": "checked_at", "type": "DateTime"}, {"name": "price", "type": "Money"},
                {"name": "supplier", "type": "CompanyName"}]},
        ],
        "tools": [
            {"name": "list_parts", "description": "List parts.", "op": "list", "entity": "part"},
            {"name": "get_part_quote", "description": "A part's quote.", "op": "action",
             "entity": "part", "action": {"effect": "compute"},
             "params": [{"name": "part_number", "role": "field", "required": True}]},
        ],
    })


def _empty_db(service: Any) -> tuple[sqlite3.Connection, Db, list[Change]]:
    conn = _connect()
    conn.execute(f"CREATE TABLE {SEQUENCE_TABLE} (name TEXT PRIMARY KEY, next INTEGER NOT NULL)")
    conn.execute(f"CREATE TABLE {VERSION_TABLE} (service TEXT PRIMARY KEY, version TEXT NOT NULL)")
    create_tables(conn, service)
    journal: list[Change] = []
    return conn, Db(conn, service.name, service.tables, Pool(0).today, journal), journal


SITES: list[dict[str, Any]] = [
    {"code": "A", "manager_email": "Ann@Example.com", "opened_on": "2026-01-02"},
    {"code": "B", "manager_email": "bo@example.com", "opened_on": "2026-01-03", "city": "Oslo"},
    {"code": "A", "manager_email": "again@example.com", "opened_on": "2026-01-04"},  # taken
    {"code": "C", "manager_email": "not an email", "opened_on": "2026-01-05"},  # invalid
    {"code": "C", "manager_email": "cy@example.com", "opened_on": "2026-01-06"},
]


def _parts(site_ids: list[str]) -> list[dict[str, Any]]:
    base = {"part_number": "PAR-1", "display_name": "Bolt", "count": 3, "weight": 1.5,
            "fragile": False, "tags": ["x"], "checked_at": "2026-01-02T09:00:00",
            "price": 12.5, "supplier": "Acme"}
    return [{**base, "site_id": site_ids[0]},
            {**base, "site_id": "si_missing"},  # no such site
            {**base, "site_id": site_ids[1], "replaces_id": None, "count": "many"},  # invalid
            {**base, "site_id": site_ids[1]}]


def test_a_batch_writes_byte_for_byte_what_inserting_one_by_one_writes():
    service = build_service(_spec(seed_count=0))
    plain_conn, plain, plain_journal = _empty_db(service)
    batch_conn, bulk, batch_journal = _empty_db(service)
    plain_errors, batch_errors = [], []
    plain_sites = []
    for values in SITES:
        try:
            plain_sites.append(plain.insert("site", **dict(values))["id"])
        except CompoWorldError as error:
            plain_errors.append(type(error))
    batch_sites = []
    with insert_batch(bulk, "site") as batch:
        for values in SITES:
            try:
                batch_sites.append(batch.add(**dict(values))["id"])
            except CompoWorldError as error:
                batch_errors.append(type(error))
    assert batch_sites == plain_sites and len(plain_sites) == 3
    parts = _parts(plain_sites)
    for values in parts:
        try:
            plain.insert("part", **dict(values))
        except CompoWorldError as error:
            plain_errors.append(type(error))
    with insert_batch(bulk, "part") as batch:
        for values in parts:
            try:
                batch.add(**dict(values))
            except CompoWorldError as error:
                batch_errors.append(type(error))
    assert batch_errors == plain_errors == [Conflict, BadArguments, RecordNotFound, BadArguments]
    assert batch_journal == plain_journal
    assert bulk.digest() == plain.digest()
    assert batch_conn.serialize() == plain_conn.serialize()  # rows, sequences, version, pages


def test_a_batch_refuses_what_insert_refuses_and_checks_references_to_its_own_rows():
    service = build_service(_spec(seed_count=0))
    _, db, _ = _empty_db(service)
    with insert_batch(db, "site") as batch:
        site = batch.add(code="A", manager_email="a@example.com", opened_on="2026-01-02")
        with pytest.raises(Conflict, match="already has code 'A'"):
            batch.add(code="A", manager_email="b@example.com", opened_on="2026-01-02")
        with pytest.raises(Conflict, match="already exists"):
            batch.add(id=site["id"], code="B", manager_email="b@example.com",
                      opened_on="2026-01-02")
    with insert_batch(db, "part") as batch:
        values = _parts([site["id"], site["id"]])[0]
        first = batch.add(**values)
        second = batch.add(**{**values, "replaces_id": first["id"]})  # a row of this batch
        with pytest.raises(RecordNotFound, match="part 'pa_nope' not found"):
            batch.add(**{**values, "replaces_id": "pa_nope"})
    assert db.get("part", second["id"])["replaces_id"] == first["id"]
    assert db.count("part") == 2


# The seeding this module's fast path must equal: each value drawn afresh, each record
# inserted with ``Db.insert`` (what service._seed did before its drawers were compiled).
def _reference_value(f: FieldSpec, fake: Any, person: Person, pool: Pool,
                     refs: dict[str, list[str]]) -> Any:
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
        words = ("due", "deadline", "start", "end", "until", "expir", "schedul", "renew", "next")
        ahead = any(word in f.name for word in words)
        day = pool.day(rnd.randint(-30, 90) if ahead else rnd.randint(-180, 0)).isoformat()
        return day if f.type == "Date" else f"{day}T{rnd.randint(8, 18):02d}:00:00"
    if f.type == "string":
        role = text_role(f.name)
        if role == "code":
            return make_code(f.name, rnd)
        if role == "title":
            return make_title(rnd)
        return fake.sentence(nb_words=4).rstrip(".")
    simple = {"integer": lambda: rnd.randint(0, 100),
              "number": lambda: round(rnd.uniform(0, 1000), 2),
              "boolean": lambda: rnd.random() < 0.5, "array": list, "object": dict}
    if f.type in simple:
        return simple[f.type]()
    return get_type(f.type).generate(fake)


def _reference_seed(db: Db, pool: Pool, spec: ServiceSpec) -> None:
    refs: dict[str, list[str]] = {}
    for entity in _order(spec.entities):
        fake = pool.faker(f"{db.service}.{entity.name}")
        ids: list[str] = []
        for _ in range(entity.seed_count):
            for _attempt in range(5):
                person = fake.random.choice(pool.people)
                values = {f.name: _reference_value(f, fake, person, pool, refs)
                          for f in entity.fields if f.name != "id"}
                try:
                    ids.append(db.insert(entity.name, **values)["id"])
                    break
                except CompoWorldError:
                    continue
        refs[entity.name] = ids


@pytest.mark.parametrize("seed", [0, 5])
def test_compiled_seeding_gives_the_image_of_drawing_and_inserting_each_value(seed):
    spec = _spec(seed_count=12)  # 12 sites over 6 codes: unique conflicts, retries, skips
    service = build_service(spec)
    pool = Pool(seed)
    reference_conn, reference, _ = _empty_db(service)
    _reference_seed(reference, pool, spec)
    seeded_conn, seeded, _ = _empty_db(service)
    service.seed(seeded, pool)
    assert seeded.count("site") == 6 and seeded.count("part") == 24
    assert seeded_conn.serialize() == reference_conn.serialize()


def test_building_a_spec_again_shares_its_models_and_tools_but_not_its_declarations():
    spec = _spec()
    first, again = build_service(spec), build_service(spec)
    assert first is not again
    assert again.entities["part"] is first.entities["part"]
    assert again.tools["list_parts"] is first.tools["list_parts"]
    extra: list[str] = []
    again.seeder(lambda db, pool: extra.append(db.service))
    assert Environment([first], seed=2).image() == Environment([again], seed=2).image()
    assert extra == ["depot"]  # only the copy ran the seeder added to it
    other = build_service(_spec(name="depot_b"))
    assert other.entities["part"] is not first.entities["part"]


def test_compute_answers_do_not_depend_on_other_compute_calls():
    first, second = build_service(_spec()), build_service(_spec(name="annex"))
    args = {"part_number": "PAR-123456"}
    alone = Environment([first], seed=4).call("depot__get_part_quote", args)
    assert alone["success"], alone
    env = Environment([first, second], seed=4)
    env.call("annex__get_part_quote", {"part_number": "PAR-654321"})
    assert env.call("depot__get_part_quote", args) == alone
    env.call("annex__get_part_quote", {"part_number": "PAR-111111"})
    assert env.call("depot__get_part_quote", args) == alone


def test_a_fill_that_fails_leaves_nothing_of_the_service():
    depot, annex = build_service(_spec()), build_service(_spec(name="annex"))
    env = Environment([depot], seed=1)
    conn = _connect()
    conn.execute(f"CREATE TABLE {SEQUENCE_TABLE} (name TEXT PRIMARY KEY, next INTEGER NOT NULL)")
    conn.execute(f"CREATE TABLE {VERSION_TABLE} (service TEXT PRIMARY KEY, version TEXT NOT NULL)")
    with pytest.raises(sqlite3.OperationalError, match=r"no such table: cw_image\.annex__site"):
        fill(conn, annex, env.image())  # the depot's image holds no annex tables
    assert not conn.in_transaction
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert sorted(tables) == sorted([SEQUENCE_TABLE, VERSION_TABLE])
    assert conn.execute(f"SELECT count(*) FROM {VERSION_TABLE}").fetchone()[0] == 0
    fill(conn, depot, env.image())  # and the connection still takes a good image
    assert conn.execute('SELECT count(*) FROM "depot__part"').fetchone()[0] == 24
