"""``Table``: one entity of one service compiled to SQL — its DDL, its statements, its
record reader — and the tables every environment keeps beside the services' own."""

from __future__ import annotations

import operator
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from compoworld.errors import UserError
from compoworld.service._entity import Column, Entity, entity_columns

_MAX_SELECTS = 256
"""Most select statements kept per table (their texts are also SQLite's statement-cache keys)."""

SEQUENCE_TABLE = "_compoworld_seq"
VERSION_TABLE = "_compoworld_version"
"""One row per service: a hash chained over every write the service's records went through."""


@dataclass(frozen=True)
class Table:
    """One entity of one service, compiled to SQL."""

    service: str
    entity: type[Entity]
    columns: tuple[Column, ...]
    name: str = field(init=False)
    names: tuple[str, ...] = field(init=False)
    by_name: dict[str, Column] = field(init=False)
    decoded: tuple[Column, ...] = field(init=False)
    emails: tuple[Column, ...] = field(init=False)
    select_by_id: str = field(init=False)
    exists_by_id: str = field(init=False)
    to_dict: Callable[[tuple[Any, ...]], dict[str, Any]] = field(
        init=False, compare=False, repr=False)
    """The record of a ``SELECT *`` row, JSON and bool columns decoded (:func:`_record_reader`)."""
    _updates: dict[tuple[str, ...], str] = field(init=False, compare=False, repr=False)
    _selects: dict[tuple[str, str | None, bool, bool], str] = field(
        init=False, compare=False, repr=False)
    _sort_keys: dict[str, Callable[[tuple[Any, ...]], Any]] = field(
        init=False, compare=False, repr=False)
    filters: dict[tuple[str, ...], Any] = field(init=False, compare=False, repr=False)
    """Compiled filter terms by set of keys (``service._query.filter_terms``)."""

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "name", f"{self.service}__{self.entity.entity_name}")
        set_(self, "names", tuple(c.name for c in self.columns))
        set_(self, "by_name", {c.name: c for c in self.columns})
        set_(self, "decoded", tuple(c for c in self.columns if c.needs_decoding))
        set_(self, "emails", tuple(c for c in self.columns if c.semantic == "Email" and c.kind == "str"))
        set_(self, "select_by_id", f'SELECT * FROM "{self.name}" WHERE id = ?')
        set_(self, "exists_by_id", f'SELECT 1 FROM "{self.name}" WHERE id = ?')
        set_(self, "to_dict", _record_reader(self.columns))
        set_(self, "_updates", {})
        set_(self, "_selects", {})
        set_(self, "_sort_keys", {})
        set_(self, "filters", {})

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as what it is compiled from: the compiled reader is not picklable by name.
        return (Table, (self.service, self.entity, self.columns))

    @classmethod
    def of(cls, service: str, entity: type[Entity]) -> Table:
        return cls(service, entity, entity_columns(entity))

    @property
    def entity_name(self) -> str:
        return self.entity.entity_name

    def ddl(self) -> list[str]:
        """CREATE statements: the table, its unique indexes and its sequence row."""
        parts = []
        for c in self.columns:
            sql = f'"{c.name}" {c.sql_type}'
            if c.name == "id":
                sql += " PRIMARY KEY NOT NULL"
            elif not c.nullable:
                sql += " NOT NULL"
            if c.ref:
                sql += f' REFERENCES "{self.service}__{c.ref}"(id)'
            parts.append(sql)
        statements = [f'CREATE TABLE "{self.name}" ({", ".join(parts)}) STRICT']
        for name in self.entity.unique_fields:
            statements.append(
                f'CREATE UNIQUE INDEX "{self.name}__{name}__unique" ON "{self.name}"("{name}")'
            )
        for c in self.columns:  # references are how related records are found: index them
            if c.ref and c.name not in self.entity.unique_fields:
                statements.append(f'CREATE INDEX "{self.name}__{c.name}" ON "{self.name}"("{c.name}")')
        statements.append(
            f"INSERT INTO {SEQUENCE_TABLE}(name, next) VALUES ('{self.name}', 0)"
        )
        return statements

    def update_statement(self, names: tuple[str, ...]) -> str:
        """``UPDATE`` of these columns by id; the text made once per set of columns, so it is
        also the same text each time (SQLite's statement cache is keyed by it)."""
        statement = self._updates.get(names)
        if statement is None:
            assignments = ", ".join(f'"{name}" = ?' for name in names)
            statement = self._updates[names] = (
                f'UPDATE "{self.name}" SET {assignments} WHERE id = ?')
        return statement

    def select_statement(self, clause: str, order_by: str | None, descending: bool,
                         paged: bool) -> str:
        """``SELECT *`` with a ``WHERE`` clause (from ``service._query.where_clause``), in
        ``order_by`` order (ties and default: insertion order), with ``LIMIT ? OFFSET ?`` when
        ``paged``; the text made once per shape, so it is the same text each time."""
        key = (clause, order_by, descending, paged)
        statement = self._selects.get(key)
        if statement is None:
            direction = "DESC" if descending else "ASC"
            if order_by:
                self.column(order_by)
                order = f'"{order_by}" {direction}, rowid'
            else:
                order = f"rowid {direction}"
            statement = f'SELECT * FROM "{self.name}"{clause} ORDER BY {order}'
            if paged:
                statement += " LIMIT ? OFFSET ?"
            if len(self._selects) < _MAX_SELECTS:  # a clause of `IN (?, ...)` varies in length
                self._selects[key] = statement
        return statement

    def sort_key(self, name: str) -> Callable[[tuple[Any, ...]], Any]:
        """The key that sorts ``SELECT *`` rows by column ``name`` as SQLite's ``ORDER BY``
        does. Tables are ``STRICT`` with ``INTEGER``, ``REAL`` and ``TEXT`` columns only, so
        a column's values are all of one Python type (``int``, ``float`` or ``str``) or None;
        None sorts first, as NULL does; text compares by code point, as SQLite's default
        ``BINARY`` collation compares UTF-8 bytes. ``tests/service/test_call_path.py`` checks
        it against ``ORDER BY`` on every column of the hand-written services."""
        key = self._sort_keys.get(name)
        if key is None:
            column = self.column(name)
            index = self.names.index(name)
            if column.nullable:
                def key(row: tuple[Any, ...]) -> tuple[bool, Any]:
                    value = row[index]
                    return (value is not None, value)
            else:
                key = operator.itemgetter(index)
            self._sort_keys[name] = key
        return key

    def column(self, name: str) -> Column:
        try:
            return self.by_name[name]
        except KeyError:
            raise UserError(
                f"entity {self.entity_name!r} has no field {name!r} (fields: {', '.join(self.names)})"
            ) from None


def _record_reader(columns: tuple[Column, ...]) -> Callable[[tuple[Any, ...]], dict[str, Any]]:
    """A function from a row to its record, compiled once per table (as namedtuple does).

    Every row any read returns goes through it. A dict display with constant keys,
    ``{"id": row[0], "name": row[1], "tags": None if row[2] is None else loads(row[2])}``,
    builds the record in half the instructions of ``dict(zip(names, row))``; JSON and bool
    columns are decoded inline, as :meth:`Column.decode` does (None stays None, JSON text is
    parsed by orjson, an integer becomes a bool), without a call per value. Column names are
    checked identifiers, so the source is safe to compile.
    """
    namespace: dict[str, Any] = {"loads": orjson.loads}
    items = []
    for i, column in enumerate(columns):
        value = f"row[{i}]"
        if column.kind == "json":
            value = f"(None if {value} is None else loads({value}))"
        elif column.kind == "bool":
            value = f"(None if {value} is None else bool({value}))"
        items.append(f"{column.name!r}: {value}")
    source = f"def to_dict(row):\n    return {{{', '.join(items)}}}\n"
    exec(compile(source, "<record reader>", "exec"), namespace)
    return typing.cast(Callable[[tuple[Any, ...]], dict[str, Any]], namespace["to_dict"])
