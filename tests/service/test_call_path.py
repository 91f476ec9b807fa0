"""The fast paths of ``Environment.call`` answer exactly what the plain paths would.

- A record read twice in one call is read from SQLite once (``RecentRow``): never after a
  write, never across calls, never after a failed call's rollback.
- ``Db._validate`` calls pydantic's compiled validator and serializer directly: the same
  record as ``model_validate(...).model_dump()`` and the same refusals.
- One cursor per ``Db``: no statement is left running between calls (a reset, a restore and a
  fork work right after any call).
- Filters compiled once per set of keys (``service._query``) select what the keys say.
- A whole result (no page) is sorted in Python, in the order ``ORDER BY "field", rowid`` gives.
"""

from __future__ import annotations

from typing import Any

import pytest

from compoworld.catalog import load_service, service_names
from compoworld.errors import BadArguments, Refused
from compoworld.service import Db, Entity, Environment, Service
from compoworld.service._db import RecentRow
from compoworld.types import Pool

HAND_WRITTEN = ("contacts", "mail", "calendar", "crm", "payments", "tasks")


class _NeverRemembers(RecentRow):
    """The plain path: every read goes to SQLite."""

    @property  # type: ignore[override]
    def active(self) -> bool:
        return False

    @active.setter
    def active(self, value: bool) -> None:
        pass


def _plain(env: Environment) -> Environment:
    """``env`` with the row memory switched off (for comparing against the fast path)."""
    plain = _NeverRemembers()
    env._recent = plain
    for db in env._dbs.values():
        db._recent = plain
    return env


def _reread_service() -> Service:
    service = Service("reread", domain="test", description="Reads, writes and reads again.")

    @service.entity
    class Note(Entity):
        id_prefix = "nt"
        text: str
        version: int = 0

    @service.write
    def bump(db: Db, note_id: str, text: str, fail: bool = False) -> dict[str, Any]:
        """Read a note, change it, read it again; optionally refuse after writing.

        Args:
            note_id: The note.
            text: The new text.
            fail: Refuse after the write (so the call is rolled back).
        """
        before = db.get(Note, note_id)
        again = db.get(Note, note_id)
        assert again == before and again is not before  # a new dict from the same row
        db.update(Note, note_id, text=text, version=before["version"] + 1)
        after = db.get(Note, note_id)
        if fail:
            raise Refused("refused after writing")
        return {"before": before, "after": after}

    @service.read
    def read_note(db: Db, note_id: str) -> dict[str, Any]:
        """Read a note.

        Args:
            note_id: The note.
        """
        return db.get(Note, note_id)

    @service.seeder
    def seed(db: Db, pool: Pool) -> None:
        db.insert(Note, id="nt_1", text="first")

    return service


def test_a_read_after_a_write_in_the_same_call_sees_the_write() -> None:
    env = Environment([_reread_service()], seed=0)
    answer = env.call("reread__bump", {"note_id": "nt_1", "text": "second"})
    assert answer["success"], answer
    assert answer["data"]["before"]["text"] == "first"
    assert answer["data"]["after"] == {"id": "nt_1", "text": "second", "version": 1}


def test_no_row_is_remembered_across_calls_or_past_a_rollback() -> None:
    env = Environment([_reread_service()], seed=0)
    env.call("reread__read_note", {"note_id": "nt_1"})
    env.db("reread").update("note", "nt_1", text="changed between calls")
    assert env.call("reread__read_note", {"note_id": "nt_1"})["data"]["text"] == (
        "changed between calls")
    refused = env.call("reread__bump", {"note_id": "nt_1", "text": "undone", "fail": True})
    assert refused["error"]["code"] == 422
    assert env.call("reread__read_note", {"note_id": "nt_1"})["data"]["text"] == (
        "changed between calls")
    env.reset()
    assert env.call("reread__read_note", {"note_id": "nt_1"})["data"]["text"] == "first"


def test_a_write_call_reads_its_record_from_sqlite_once() -> None:
    # update_deal reads the deal (is it open?), then Db.update reads it again to merge.
    env = Environment([load_service("crm")], seed=0)
    statements: list[str] = []
    for deal in env.db("crm").select("deal"):
        statements.clear()
        env._conn.set_trace_callback(statements.append)
        answer = env.call("crm__update_deal", {"deal_id": deal["id"], "name": "Renamed"})
        env._conn.set_trace_callback(None)
        if answer["success"]:
            break
    assert answer["success"], answer
    reads = [s for s in statements if s.startswith('SELECT * FROM "crm__deal"')]
    assert len(reads) == 1, statements


def _workload(env: Environment) -> list[tuple[str, dict[str, Any]]]:
    """Reads, in-place writes, a refused write and an unknown id on every hand-written service."""
    rows = env.rows()
    calls: list[tuple[str, dict[str, Any]]] = []
    for name, service in env.services.items():
        for tool in service.tools.values():
            ids = [p for p in tool.params if p.required]
            if len(ids) != 1 or ids[0].ref is None:
                continue
            table = service.tables[ids[0].ref].name
            for record in rows[table][:4]:
                args: dict[str, Any] = {ids[0].name: record["id"]}
                texts = [p.name for p in tool.params if p.name in ("notes", "description",
                                                                   "body", "name")]
                if tool.kind == "write" and texts:
                    args[texts[0]] = f"changed {record['id']}"
                calls.append((f"{name}__{tool.name}", args))
            calls.append((f"{name}__{tool.name}", {ids[0].name: "no_such_id"}))
    return calls


def test_the_fast_path_gives_the_same_envelopes_journal_and_state() -> None:
    services = [load_service(name) for name in HAND_WRITTEN]
    fast, plain = Environment(services, seed=5), _plain(Environment(services, seed=5))
    calls = _workload(fast)
    assert sum(1 for name, _ in calls if fast.tools[name].kind == "write") > 20
    outcomes = {True: 0, False: 0}
    for name, args in calls:
        answer = fast.call(name, args)
        assert answer == plain.call(name, args), name
        outcomes[answer["success"]] += 1
    assert outcomes[True] > 50 and outcomes[False] > 10  # both paths were exercised
    assert fast.changes() == plain.changes() and fast.changes()
    assert fast.digest() == plain.digest()
    assert fast.failures == plain.failures == []


def _entity_records(env: Environment) -> list[tuple[Any, dict[str, Any]]]:
    out = []
    for name, service in env.services.items():
        db = env.db(name)
        for entity, table in service.tables.items():
            out.extend((table, record) for record in db.select(entity, limit=3))
    return out


@pytest.mark.parametrize("name", service_names())
def test_validation_without_pydantic_wrappers_gives_the_model_record(name: str) -> None:
    env = Environment([load_service(name)], seed=1)
    records = _entity_records(env)
    assert records
    for table, record in records:
        assert Db._validate(table, dict(record)) == table.entity.model_validate(
            dict(record)).model_dump()
        for column in table.columns[1:]:
            bad = {**record, column.name: {"not": "a value"}}
            if column.kind == "json":
                continue
            with pytest.raises(BadArguments) as refused:
                Db._validate(table, bad)
            assert refused.value.message.startswith(f"{table.entity_name}.{column.name}:")


def test_no_statement_is_left_running_after_a_call() -> None:
    services = [load_service(name) for name in ("crm", "payments")]
    env = Environment(services, seed=2)
    for name, args in _workload(env):
        env.call(name, args)
        taken = env.snapshot()  # commits: fails while a statement still runs
        env.restore(taken)
    env.reset()
    assert env.fork().digest() == Environment(services, seed=2).digest()


@pytest.mark.parametrize("name", service_names())
def test_the_compiled_record_reader_decodes_as_the_columns_do(name: str) -> None:
    env = Environment([load_service(name)], seed=1)
    for table in env.services[name].tables.values():
        rows = env._conn.execute(f'SELECT * FROM "{table.name}" LIMIT 20').fetchall()
        for row in rows:
            expected = {c.name: c.decode(v) for c, v in zip(table.columns, row, strict=True)}
            record = table.to_dict(row)
            assert record == expected  # and of the same types (True == 1, so compare them too)
            assert [type(v) for v in record.values()] == [type(v) for v in expected.values()]
        nulls = tuple(None for _ in table.columns)
        assert table.to_dict(nulls) == dict.fromkeys(table.names)


def test_the_module_making_the_tables_ddl_is_part_of_the_seeding_version() -> None:
    # Table (its DDL decides what an image holds) moved out of _db.py into _table.py: a change
    # to it must still make another seeded image, not reuse one cached on disk.
    from compoworld.service._image import SEEDING_MODULES
    from compoworld.service._table import Table

    assert Table.__module__ in SEEDING_MODULES and Db.__module__ in SEEDING_MODULES


@pytest.mark.parametrize("name", service_names())
def test_whole_results_are_sorted_as_sqlite_orders_them(name: str) -> None:
    env = Environment([load_service(name)], seed=1)
    db = env.db(name)
    for entity, table in env.services[name].tables.items():
        for column in table.names:
            for descending in (False, True):
                direction = "DESC" if descending else "ASC"
                expected = [table.to_dict(row) for row in env._conn.execute(
                    f'SELECT * FROM "{table.name}" ORDER BY "{column}" {direction}, rowid')]
                assert db.select(entity, order_by=column, descending=descending) == expected
                paged = db.select(entity, order_by=column, descending=descending, limit=1000)
                assert paged == expected, (table.name, column, direction)


def _matches(record: dict[str, Any], key: str, value: Any) -> bool:
    """What a filter key means, in Python (strings compared as stored: emails lower case)."""
    name, _, op = key.partition("__")
    if "|" in name:
        return any(str(value).lower() in str(record[n] or "").lower() for n in name.split("|")
                   if record[n] is not None)
    field = record[name]
    op = op or "eq"
    if op == "isnull":
        return (field is None) == bool(value)
    if op == "in":
        return field is not None and field in value  # SQL: NULL IN (...) is not true
    if op == "contains":
        return field is not None and str(value).lower() in str(field).lower()
    if value is None:
        return (field is None) == (op == "eq")
    if field is None:
        return False
    return {"eq": field == value, "ne": field != value, "gt": field > value,
            "gte": field >= value, "lt": field < value, "lte": field <= value}[op]


@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_compiled_filters_select_what_their_keys_say(name: str) -> None:
    env = Environment([load_service(name)], seed=1)
    db = env.db(name)
    checked = 0
    for entity, table in env.services[name].tables.items():
        records = db.select(entity)
        if len(records) < 3:
            continue
        texts = [c.name for c in table.columns if c.kind == "str"]
        for column in table.columns:
            if column.kind == "json":
                continue
            value = records[len(records) // 2][column.name]
            others = [r[column.name] for r in records[:3]]
            filters: list[dict[str, Any]] = [{f"{column.name}__isnull": True},
                                             {f"{column.name}__isnull": False},
                                             {column.name: None}, {f"{column.name}__ne": None},
                                             {f"{column.name}__in": others},
                                             {f"{column.name}__in": []}]
            if value is not None:
                filters += [{column.name: value}, {f"{column.name}__ne": value}]
                if column.kind != "bool":
                    filters += [{f"{column.name}__{op}": value} for op in ("gt", "gte", "lt", "lte")]
                if column.kind == "str":
                    filters += [{f"{column.name}__contains": value[1:4].upper()},
                                {f"{column.name}__contains": "%"}, {f"{column.name}__contains": "_"}]
            if len(texts) >= 2 and value is not None and column.kind == "str":
                filters.append({f"{texts[0]}|{texts[1]}__contains": value[:3],
                                f"{column.name}__ne": None})
            for where in filters:
                expected = [r for r in records if all(_matches(r, k, v) for k, v in where.items())]
                assert db.select(entity, where) == expected, (table.name, where)
                assert db.count(entity, where) == len(expected), (table.name, where)
                checked += 1
    assert checked > 50
