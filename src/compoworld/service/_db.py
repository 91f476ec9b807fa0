"""``Db``: what a tool sees of the state — its own service's tables in the environment's SQLite.

All SQL is parameterized; identifiers (tables, columns) come only from declared entities.
"""

from __future__ import annotations

import hashlib
import sqlite3
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

import orjson
from pydantic import ValidationError

from compoworld.errors import BadArguments, Conflict, RecordNotFound, UserError, closest
from compoworld.service._entity import Entity
from compoworld.service._query import where_clause
from compoworld.service._table import SEQUENCE_TABLE, VERSION_TABLE, Table
from compoworld.types._pool import WORKDAY_START


def chain(previous: str, change: str) -> str:
    """The next version hash (registered in SQLite as ``cw_chain``)."""
    return hashlib.blake2b(f"{previous}\x00{change}".encode(), digest_size=16).hexdigest()


ChangeOrigin = Literal["tool", "world"]
"""Who wrote a change: a tool's own effect (``tool``), or the world model writing back what
it invented to answer a read (``world``: so later reads agree; no effect of the agent's)."""


@dataclass(frozen=True)
class Change:
    """One record written through a :class:`Db`: its table, id, and the record before and
    after (None before an insert, None after a delete), and who wrote it."""

    table: str
    record_id: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    origin: ChangeOrigin = "tool"


def sequence_id(table: Table, n: int) -> str:
    """The id of the ``n``-th record drawn from ``table``'s sequence (``ct_1a2b3c4d``)."""
    digest = hashlib.blake2b(f"{table.name}:{n}".encode(), digest_size=4).hexdigest()
    return f"{table.entity.id_prefix}_{digest}"


_MAX_QUERIES = 256
"""Most :meth:`Db.sql` query texts kept per handle with their placeholders filled in."""


class RecentRow:
    """The rows a tool call has read by id, shared by the :class:`Db` handles of one environment.

    A write tool reads its record (to check it may change) and :meth:`Db.update` reads it again
    (to merge the change): the second read is answered from here. Only while a write tool's
    call runs (``active``, set by the environment around the tool) and only until the next
    write: every
    write through a ``Db`` (and any :meth:`Db.sql`) forgets them all, and tools reach the state
    only through their ``Db``, so a remembered row is what the ``SELECT`` would return. A row is
    the tuple SQLite gave (immutable); each read builds a new record dict from it.
    """

    __slots__ = ("active", "rows")

    def __init__(self) -> None:
        self.active = False
        self.rows: dict[tuple[str, str], tuple[Any, ...]] = {}

    def forget(self) -> None:
        if self.rows:
            self.rows.clear()


class Db:
    """A tool's handle on its service's tables.

    Records go in and come out as plain dicts. Filters in ``where`` use Django-style suffixes:
    ``{"status": "open", "amount__gte": 100, "name__contains": "ada", "id__in": [...]}``
    (operators: ``eq``, ``ne``, ``gt``, ``gte``, ``lt``, ``lte``, ``contains`` — case-insensitive
    substring —, ``in``, ``isnull``); ``"name|email__contains": "ada"`` matches either field.

    Example:
        >>> # inside a tool: ``def get_contact(db: Db, contact_id: Ref["contact"]) -> dict``
        >>> # return db.get("contact", contact_id)   # RecordNotFound (404) if missing
    """

    __slots__ = ("_conn", "_cursor", "_journal", "_lookup", "_queries", "_recent", "_tables", "now",
                 "service", "today")

    def __init__(
        self, conn: sqlite3.Connection, service: str, tables: dict[str, Table], today: date,
        journal: list[Change] | None = None, recent: RecentRow | None = None,
    ) -> None:
        self._conn = conn
        # One cursor for every statement whose rows are taken whole at once (``fetchone`` of
        # a single row, ``fetchall``): no statement of it is left running, and a call saves
        # making a cursor per statement.
        self._cursor = conn.cursor()
        self._journal = journal
        self._recent = recent or RecentRow()
        self._tables = tables
        # Tables by what tools name them with (an entity's name or its class), filled by
        # ``table``: one dict lookup per read instead of resolving the entity every time.
        self._lookup: dict[type[Entity] | str, Table] = {}
        self._queries: dict[str, str] = {}  # ``sql``'s query texts, placeholders filled in
        self.service = service
        self.today = today
        self.now = datetime.combine(today, WORKDAY_START)

    def table(self, entity: type[Entity] | str) -> Table:
        """The compiled table of ``entity`` (a class or its name)."""
        table = self._lookup.get(entity)
        if table is not None:
            return table
        name = entity if isinstance(entity, str) else entity.entity_name
        try:
            table = self._lookup[entity] = self._tables[name]
            return table
        except KeyError:
            raise UserError(
                f"service {self.service!r} has no entity {name!r} "
                f"(entities: {', '.join(self._tables)})"
            ) from None

    # -- reads ---------------------------------------------------------------------------

    def get(self, entity: type[Entity] | str, record_id: str) -> dict[str, Any]:
        """The record with this id. Raises RecordNotFound (404) if there is none."""
        table = self._lookup.get(entity) or self.table(entity)
        recent = self._recent
        if recent.active and type(record_id) is str:
            key = (table.name, record_id)
            row = recent.rows.get(key)
            if row is None:
                row = self._cursor.execute(table.select_by_id, (record_id,)).fetchone()
                if row is None:
                    raise RecordNotFound(self._missing(table, record_id))
                recent.rows[key] = row
            return table.to_dict(row)  # read again in the same call, nothing written since
        row = self._cursor.execute(table.select_by_id, (record_id,)).fetchone()
        if row is None:
            raise RecordNotFound(self._missing(table, record_id))
        return table.to_dict(row)

    def _missing(self, table: Table, record_id: object) -> str:
        """"<entity> 'x' not found", with what exists: the closest id, or how ids look."""
        message = f"{table.entity_name} {record_id!r} not found"
        ids = [r for (r,) in self._conn.execute(f'SELECT id FROM "{table.name}"')]
        suggestions = closest(str(record_id), ids, n=1)
        if suggestions:
            return f"{message}; did you mean {suggestions[0]!r}?"
        if ids:
            return f"{message} ({len(ids)} {table.entity_name} records exist, ids like {ids[0]!r})"
        return f"{message} (there are no {table.entity_name} records)"

    def exists(self, entity: type[Entity] | str, record_id: str) -> bool:
        table = self._lookup.get(entity) or self.table(entity)
        return self._cursor.execute(table.exists_by_id, (record_id,)).fetchone() is not None

    def select(
        self,
        entity: type[Entity] | str,
        where: dict[str, Any] | None = None,
        *,
        order_by: str | None = None,
        descending: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        """Records matching ``where``, in ``order_by`` order (ties and default: insertion order)."""
        table = self._lookup.get(entity) or self.table(entity)
        clause, params = where_clause(table, where)
        paged = limit is not None or bool(offset)
        if paged:  # SQLite orders the rows, to know which to keep
            params += [-1 if limit is None else limit, offset]
            query = table.select_statement(clause, order_by, descending, paged)
            return list(map(table.to_dict, self._cursor.execute(query, params).fetchall()))
        # All matching rows: SQLite gives them in rowid order (an index on the filtered field
        # holds them in that order already) and a stable sort by the field keeps that order
        # among ties, as ``ORDER BY "field", rowid`` would, without SQLite's temporary b-tree.
        key = table.sort_key(order_by) if order_by else None
        query = table.select_statement(clause, None, descending and key is None, paged)
        rows = self._cursor.execute(query, params).fetchall()
        if key is not None:
            rows.sort(key=key, reverse=descending)
        return list(map(table.to_dict, rows))

    def page(
        self,
        entity: type[Entity] | str,
        where: dict[str, Any] | None = None,
        *,
        order_by: str | None = None,
        descending: bool = False,
        limit: int = 20,
        offset: int = 0,
        max_limit: int = 100,
    ) -> dict[str, Any]:
        """One page of :meth:`select` as ``{"items", "total", "next_offset"}`` — the shape every
        list tool returns. ``next_offset`` is None on the last page.

        Raises:
            BadArguments: ``limit`` outside 1..``max_limit`` or a negative ``offset`` (400).
        """
        if not 1 <= limit <= max_limit:
            raise BadArguments(f"limit must be between 1 and {max_limit}, got {limit}")
        if offset < 0:
            raise BadArguments(f"offset must not be negative, got {offset}")
        items = self.select(entity, where, order_by=order_by, descending=descending, limit=limit,
                            offset=offset)
        total = self.count(entity, where)
        more = offset + len(items) < total
        return {"items": items, "total": total, "next_offset": offset + len(items) if more else None}

    def find(self, entity: type[Entity] | str, **where: Any) -> dict[str, Any] | None:
        """The first record whose fields equal (or match) ``where``, or None."""
        rows = self.select(entity, where, limit=1)
        return rows[0] if rows else None

    def count(self, entity: type[Entity] | str, where: dict[str, Any] | None = None) -> int:
        table = self.table(entity)
        clause, params = where_clause(table, where)
        query = f'SELECT count(*) FROM "{table.name}"{clause}'
        return int(self._cursor.execute(query, params).fetchone()[0])

    def sql(self, query: str, params: tuple[Any, ...] | list[Any] = ()) -> list[dict[str, Any]]:
        """Run a read query; ``{entity}`` placeholders name this service's tables.

        Example: ``db.sql("SELECT sum(amount) AS total FROM {invoice} WHERE status = ?", ["paid"])``
        """
        text = self._queries.get(query)
        if text is None:  # placeholders filled in once per query text
            names = {name: f'"{table.name}"' for name, table in self._tables.items()}
            text = query.format(**names)
            if len(self._queries) < _MAX_QUERIES:
                self._queries[query] = text
        self._recent.forget()  # meant for reads; should a query write, no remembered row is stale
        rows = self._cursor.execute(text, params).fetchall()
        columns = [d[0] for d in self._cursor.description or ()]
        return [dict(zip(columns, row, strict=True)) for row in rows]

    def digest(self) -> str:
        """The version of this service's records: a hash chained over every write since the
        empty state. Equal histories give equal digests (and so equal simulated answers); it
        costs one read, whatever the size of the state."""
        row = self._conn.execute(f"SELECT version FROM {VERSION_TABLE} WHERE service = ?",
                                 (self.service,)).fetchone()
        return str(row[0])

    def _changed(self, table: Table, record_id: str, before: dict[str, Any] | None,
                 after: dict[str, Any] | None, delta: dict[str, Any] | None = None) -> None:
        """Advance the service's version (by what changed) and note the change in the journal."""
        change = f"{table.name}\x00{record_id}\x00" + orjson.dumps(
            after if delta is None else delta, option=orjson.OPT_SORT_KEYS, default=str).decode()
        self._cursor.execute(f"UPDATE {VERSION_TABLE} SET version = cw_chain(version, ?) "
                             "WHERE service = ?", (change, self.service))
        if self._journal is not None:
            self._journal.append(Change(table.name, record_id, before, after))

    # -- writes --------------------------------------------------------------------------

    def insert(self, entity: type[Entity] | str, **values: Any) -> dict[str, Any]:
        """Validate and insert a record; ``id`` is generated unless given. Returns the record.

        Raises:
            BadArguments: a value does not fit the entity's field types (400).
            RecordNotFound: a ``Ref`` field names a record that does not exist (404).
            Conflict: a unique field's value is taken, or the id exists (409).
        """
        table = self.table(entity)
        if values.get("id") is None:
            values["id"] = self._new_id(table)
        elif self.exists(table.entity_name, values["id"]):
            raise Conflict(f"{table.entity_name} {values['id']!r} already exists")
        record = self._validate(table, values)
        self._check_refs(table, record)
        self._check_unique(table, record)
        columns = ", ".join(f'"{name}"' for name in table.names)
        marks = ", ".join("?" * len(table.names))
        self._recent.forget()  # before any write statement (see RecentRow)
        self._cursor.execute(
            f'INSERT INTO "{table.name}" ({columns}) VALUES ({marks})',
            [c.encode(record[c.name]) for c in table.columns],
        )
        self._changed(table, record["id"], None, record)
        return record

    def update(self, entity: type[Entity] | str, record_id: str, **changes: Any) -> dict[str, Any]:
        """Change some fields of a record (partial update). Returns the updated record."""
        table = self.table(entity)
        current = self.get(table.entity_name, record_id)
        changes.pop("id", None)
        if not changes:
            return current
        record = self._validate(table, {**current, **changes})
        changed = {k: record[k] for k in changes}
        self._check_refs(table, changed)
        self._check_unique(table, changed, exclude=record_id)
        self._recent.forget()
        self._cursor.execute(
            table.update_statement(tuple(changed)),
            [*(table.by_name[k].encode(v) for k, v in changed.items()), record_id],
        )
        self._changed(table, record_id, current, record, changed)
        return record

    def delete(self, entity: type[Entity] | str, record_id: str) -> dict[str, Any]:
        """Delete a record. Raises Conflict (409) while other records reference it."""
        table = self.table(entity)
        record = self.get(table.entity_name, record_id)
        for other, field in self.referrers(table.entity_name):
            n = self.count(other, {field: record_id})
            if n:
                raise Conflict(
                    f"{table.entity_name} {record_id!r} is still referenced by "
                    f"{n} {other} record(s) (field {field!r})"
                )
        self._recent.forget()
        self._cursor.execute(f'DELETE FROM "{table.name}" WHERE id = ?', (record_id,))
        self._changed(table, record_id, record, None)
        return record

    @contextmanager
    def dry_run(self) -> Iterator[None]:
        """A dry run inside one call (a tool's ``dry_run`` parameter): whatever the block writes
        is undone when it ends, raise or not — the records, the service's version and the
        journal are as before; what the block computed (the answer the call would have given)
        is the caller's to keep. (Across calls, ``service.trial`` does this for a whole
        environment.)"""
        mark = len(self._journal) if self._journal is not None else 0
        self._recent.forget()
        self._cursor.execute("SAVEPOINT dry_run")
        try:
            yield
        finally:
            self._recent.forget()
            self._cursor.execute("ROLLBACK TO dry_run")
            self._cursor.execute("RELEASE dry_run")
            if self._journal is not None:
                del self._journal[mark:]

    def referrers(self, entity: str) -> list[tuple[str, str]]:
        """(entity, field) of every ``Ref`` field that refers to ``entity`` records: what keeps
        a delete of one from going through while a record still refers to it."""
        return [(other.entity_name, column.name) for other in self._tables.values()
                for column in other.columns if column.ref == entity]

    # -- helpers -------------------------------------------------------------------------

    def _new_id(self, table: Table) -> str:
        while True:
            (n,) = self._cursor.execute(
                f"UPDATE {SEQUENCE_TABLE} SET next = next + 1 WHERE name = ? RETURNING next",
                (table.name,),
            ).fetchone()
            record_id = sequence_id(table, n)
            if not self.exists(table.entity_name, record_id):
                return record_id

    @staticmethod
    def _validate(table: Table, values: dict[str, Any]) -> dict[str, Any]:
        for column in table.emails:  # emails are case-insensitive: stored lower case
            value = values.get(column.name)
            if isinstance(value, str):
                values[column.name] = value.strip().lower()
        entity = table.entity
        try:
            # model_validate(values).model_dump() without pydantic's Python wrappers around
            # the compiled validator and serializer (same calls, same defaults, same record;
            # tests/service/test_call_path.py compares the two on every catalog entity).
            return typing.cast(dict[str, Any], entity.__pydantic_serializer__.to_python(
                entity.__pydantic_validator__.validate_python(values)))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or table.entity_name
            raise BadArguments(f"{table.entity_name}.{where}: {first['msg']}") from None

    def _check_refs(self, table: Table, values: dict[str, Any]) -> None:
        for name, value in values.items():
            column = table.by_name[name]
            if column.ref and value is not None and not self.exists(column.ref, value):
                missing = self._missing(self.table(column.ref), value)
                raise RecordNotFound(f"{missing} (field {name!r})")

    def _check_unique(
        self, table: Table, values: dict[str, Any], exclude: str | None = None
    ) -> None:
        for name in table.entity.unique_fields:
            if name not in values or values[name] is None:
                continue
            query = f'SELECT id FROM "{table.name}" WHERE "{name}" = ? AND id IS NOT ?'
            row = self._cursor.execute(query, (values[name], exclude)).fetchone()
            if row is not None:
                raise Conflict(
                    f"{table.entity_name} {row[0]!r} already has {name} {values[name]!r}"
                )
