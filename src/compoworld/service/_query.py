"""Filters compiled once per shape: the SQL of a ``where`` mapping's keys and how values bind.

:class:`~compoworld.service.Db` filters with Django-style keys (``"amount__gte"``,
``"name|email__contains"``). What a key means — its column, its operator, its SQL, whether its
value is lower-cased or JSON-encoded — depends on the key alone, so it is worked out once per
table and set of keys (:func:`filter_terms`, cached on the :class:`Table`) and a call only binds
its values (:func:`where_clause`). The SQL is the same text the keys always gave.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from compoworld.errors import UserError
from compoworld.service._entity import Column
from compoworld.service._table import Table

Term = Callable[[Any, list[Any]], str]
"""One key of a filter, compiled: given the key's value, appends its parameters to the list
and returns its SQL condition."""

_OPERATORS = {"eq": "=", "ne": "!=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


def like_pattern(value: Any) -> str:
    """``value`` as a case-insensitive substring pattern (``LIKE ? ESCAPE '\\'``)."""
    text = str(value).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{text}%"


def where_clause(table: Table, where: Mapping[str, Any] | None) -> tuple[str, list[Any]]:
    """``(" WHERE …", params)`` for a filter (``("", [])`` for none).

    Raises:
        UserError: a key names no field of the table or an unknown operator.
    """
    if not where:
        return "", []
    terms = filter_terms(table, tuple(where))
    params: list[Any] = []
    if len(terms) == 1:
        return " WHERE " + terms[0](next(iter(where.values())), params), params
    return " WHERE " + " AND ".join(
        [term(value, params) for term, value in zip(terms, where.values(), strict=True)]
    ), params


def filter_terms(table: Table, keys: tuple[str, ...]) -> tuple[Term, ...]:
    """The compiled terms of these keys of ``table``, made once per set of keys."""
    cache = table.filters
    terms = cache.get(keys)
    if terms is None:
        terms = cache[keys] = tuple(_term(table, key) for key in keys)
    return terms


def _term(table: Table, key: str) -> Term:
    name, _, op = key.partition("__")
    op = op or "eq"
    if "|" in name:  # "a|b__contains": any of the fields matches
        if op != "contains":
            raise UserError(f"alternative fields ({key!r}) only work with 'contains'")
        names = name.split("|")
        for field_name in names:
            table.column(field_name)
        either = "(" + " OR ".join(f"\"{n}\" LIKE ? ESCAPE '\\'" for n in names) + ")"

        def alternatives(value: Any, params: list[Any]) -> str:
            params.extend([like_pattern(value)] * len(names))
            return either

        return alternatives
    column = table.column(name)
    encode = _encoder(column, lower=column.semantic == "Email" and op in ("eq", "ne", "in"))
    quoted = f'"{name}"'
    if op == "contains":
        like = f"{quoted} LIKE ? ESCAPE '\\'"

        def contains(value: Any, params: list[Any]) -> str:
            params.append(like_pattern(value))
            return like

        return contains
    if op == "in":
        def in_(value: Any, params: list[Any]) -> str:
            values = list(value)
            if not values:
                return "0"
            params.extend(encode(v) for v in values)
            return f'{quoted} IN ({", ".join("?" * len(values))})'

        return in_
    if op == "isnull":
        null, not_null = f"{quoted} IS NULL", f"{quoted} IS NOT NULL"
        return lambda value, params: null if value else not_null
    if op not in _OPERATORS:
        raise UserError(f"unknown filter operator {op!r} in {key!r}")
    compare = f"{quoted} {_OPERATORS[op]} ?"
    if op in ("eq", "ne"):
        is_null = f"{quoted} IS {'' if op == 'eq' else 'NOT '}NULL"

        def equal(value: Any, params: list[Any]) -> str:
            if value is None:
                return is_null
            params.append(encode(value))
            return compare

        return equal

    def ordered(value: Any, params: list[Any]) -> str:
        params.append(encode(value))
        return compare

    return ordered


def _encoder(column: Column, *, lower: bool) -> Callable[[Any], Any]:
    """How a filter value of ``column`` is bound: stored form, emails lower-cased."""
    if lower:
        encode = column.encode
        return lambda value: encode(value.lower() if isinstance(value, str) else value)
    return column.encode
