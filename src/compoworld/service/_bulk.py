"""``InsertBatch``: many inserts into one table, checked in Python as :meth:`Db.insert` checks
them and written with one ``executemany`` (seeding's fast path).

A batch writes what the same :meth:`Db.insert` calls, one by one, would have written: the same
ids (drawn from the table's sequence, which a refused record still advances), the same rows in
the same order, the same sequence value and the same version chain, so a service seeded through
batches has a byte-identical image. What it saves is a round of SQL per record: the id, unique
and reference checks run against sets kept in memory, the version hash is chained in Python,
and the rows go in together.

While a batch is open nothing else may write to the service's tables (its checks read the
tables once, when it opens).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

from compoworld.errors import Conflict, RecordNotFound
from compoworld.service._db import SEQUENCE_TABLE, VERSION_TABLE, Change, Db, chain, sequence_id


class InsertBatch:
    """Inserts into one entity's table, written when the batch is flushed.

    Example:
        >>> from compoworld.catalog import load_service
        >>> from compoworld.service import Environment
        >>> env = Environment([load_service("contacts")], seed=0)
        >>> db = env.db("contacts")
        >>> with insert_batch(db, "contact") as batch:
        ...     record = batch.add(name="Ada Lovelace", first_name="Ada", last_name="Lovelace",
        ...                        email="ADA@example.com")
        ...     db.exists("contact", record["id"])  # queued, not written yet
        False
        >>> db.get("contact", record["id"])["email"]
        'ada@example.com'
    """

    def __init__(self, db: Db, entity: str) -> None:
        self.db = db
        self.table = table = db.table(entity)
        conn = db._conn
        self._ids = {row[0] for row in conn.execute(f'SELECT id FROM "{table.name}"')}
        (self._next,) = conn.execute(f"SELECT next FROM {SEQUENCE_TABLE} WHERE name = ?",
                                     (table.name,)).fetchone()
        self._version = db.digest()
        self._unique: dict[str, set[Any]] = {
            name: {row[0] for row in conn.execute(
                f'SELECT "{name}" FROM "{table.name}" WHERE "{name}" IS NOT NULL')}
            for name in table.entity.unique_fields}
        self._refs: dict[str, set[str]] = {}
        for column in table.columns:
            if column.ref and column.ref not in self._refs:
                self._refs[column.ref] = self._ids if column.ref == table.entity_name else {
                    row[0] for row in conn.execute(f'SELECT id FROM "{db.table(column.ref).name}"')}
        self._ref_columns = tuple(c for c in table.columns if c.ref)
        self._rows: list[list[Any]] = []
        columns = ", ".join(f'"{name}"' for name in table.names)
        marks = ", ".join("?" * len(table.names))
        self._insert = f'INSERT INTO "{table.name}" ({columns}) VALUES ({marks})'

    def add(self, **values: Any) -> dict[str, Any]:
        """Check and queue one record, as :meth:`Db.insert` would insert it; returns the record.

        Raises:
            BadArguments: a value does not fit the entity's field types (400).
            RecordNotFound: a ``Ref`` field names a record that does not exist (404).
            Conflict: a unique field's value is taken, or the id exists (409).
        """
        table = self.table
        if values.get("id") is None:
            while True:  # Db._new_id: every draw advances the sequence, a refused record's too
                self._next += 1
                record_id = sequence_id(table, self._next)
                if record_id not in self._ids:
                    break
            values["id"] = record_id
        elif values["id"] in self._ids:
            raise Conflict(f"{table.entity_name} {values['id']!r} already exists")
        record = Db._validate(table, values)
        for column in self._ref_columns:
            value = record[column.name]
            if value is not None and value not in self._refs[column.ref or ""]:
                raise RecordNotFound(f"{column.ref} {value!r} not found (field {column.name!r})")
        for name, taken in self._unique.items():
            value = record[name]
            if value is not None and value in taken:
                raise Conflict(f"{table.entity_name} already has {name} {value!r}")
        self._ids.add(record["id"])
        for name, taken in self._unique.items():
            if record[name] is not None:
                taken.add(record[name])
        self._rows.append([c.encode(record[c.name]) for c in table.columns])
        change = f"{table.name}\x00{record['id']}\x00" + orjson.dumps(
            record, option=orjson.OPT_SORT_KEYS, default=str).decode()
        self._version = chain(self._version, change)
        if self.db._journal is not None:
            self.db._journal.append(Change(table.name, record["id"], None, record))
        return record

    def flush(self) -> None:
        """Write the queued rows, the sequence and the service's version."""
        conn = self.db._conn
        if self._rows:
            conn.executemany(self._insert, self._rows)
            self._rows = []
        conn.execute(f"UPDATE {SEQUENCE_TABLE} SET next = ? WHERE name = ?",
                     (self._next, self.table.name))
        conn.execute(f"UPDATE {VERSION_TABLE} SET version = ? WHERE service = ?",
                     (self._version, self.db.service))


@contextmanager
def insert_batch(db: Db, entity: str) -> Iterator[InsertBatch]:
    """An :class:`InsertBatch` on ``entity``, flushed when the block ends without an error."""
    batch = InsertBatch(db, entity)
    yield batch
    batch.flush()
