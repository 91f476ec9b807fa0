"""The engine's resource operations: list, search, get, create, update, delete, upsert.

Each builder takes the :class:`~compoworld.service._engine._ToolBuilder` of one tool and
returns the function that runs it against a :class:`Db`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from compoworld.errors import BadArguments
from compoworld.service._db import Db
from compoworld.service._spec import ParamSpec

if TYPE_CHECKING:
    from compoworld.service._engine import _ToolBuilder

def first_page(p: ParamSpec) -> int:
    """The number of the first page of a ``page`` parameter: its ``default`` when 0 or 1, else 1."""
    return p.default if p.default in (0, 1) and not isinstance(p.default, bool) else 1


DEFAULT_LIMIT = 20
MAX_LIMIT = 100


def _page(b: _ToolBuilder, db: Db, args: dict[str, Any], filters: dict[str, Any]) -> dict[str, Any]:
    limit = b.arg(args, "limit", DEFAULT_LIMIT)
    return db.page(b.entity.name, filters, order_by=b.arg(args, "sort_by", None),
                   descending=b.arg(args, "order", "asc") == "desc",
                   limit=limit, offset=_offset(b, args, limit), max_limit=MAX_LIMIT)


def _offset(b: _ToolBuilder, args: dict[str, Any], limit: int) -> int:
    """Where the page starts: a ``cursor`` (a previous page's ``next_offset``), a ``page``
    number, or the ``offset``; the first of them the call gives."""
    for p in b.spec.params:
        if p.role == "cursor" and args.get(p.name) not in (None, ""):
            token = str(args[p.name])
            if not token.isdigit():
                raise BadArguments(f"{p.name} {token!r} is no cursor this service answered (pass "
                                   "a previous page's next_offset, or omit it for the first page)")
            return int(token)
        if p.role == "page" and args.get(p.name) is not None:
            return (int(args[p.name]) - first_page(p)) * limit
    return int(b.arg(args, "offset", 0))


def _op_list(b: _ToolBuilder) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        return _page(b, db, args, b.split(db, args)[2])

    return run


def _op_search(b: _ToolBuilder) -> Callable[..., Any]:
    text_fields = [f.name for f in b.entity.fields
                   if not f.enum and (f.type == "string" or f.type in _TEXT_TYPES)]
    if not text_fields:
        raise b.fail(f"entity {b.entity.name!r} has no text field to search")
    any_text = "|".join(text_fields) + "__contains"

    def run(db: Db, **args: Any) -> Any:
        filters = b.split(db, args)[2]
        query = b.arg(args, "query", "")
        # A record matches when any text field contains the query (case-insensitive).
        return _page(b, db, args, {**filters, any_text: query} if query else filters)

    return run


_TEXT_TYPES = ("PersonName", "FirstName", "LastName", "Email", "CompanyName", "JobTitle", "City",
               "Country", "Address", "ProductName", "Username", "Domain", "URL", "Region")


def _op_get(b: _ToolBuilder) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        return db.get(b.entity.name, b.locate(db, args)[0])

    return run


def _op_create(b: _ToolBuilder) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        return db.insert(b.entity.name, **b.split(db, args)[1])

    return run


def _op_update(b: _ToolBuilder) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        record_id, values = b.locate(db, args)
        return db.update(b.entity.name, record_id, **values)

    return run


def _op_delete(b: _ToolBuilder) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        record = db.delete(b.entity.name, b.locate(db, args)[0])
        return {"id": record["id"], "deleted": True}

    return run


def _op_upsert(b: _ToolBuilder) -> Callable[..., Any]:
    """The record the id (within its scope) or the key filters name is updated; with none,
    one is created holding that id, those keys and the values given (Azure's PUT "Creates or
    updates", ``set_config_value(key, value)``)."""
    def run(db: Db, **args: Any) -> Any:
        record_id, values, filters = b.split(db, args)
        where = {**filters, "id": record_id} if record_id is not None else filters
        rows = db.select(b.entity.name, where, limit=1)
        if rows:
            return db.update(b.entity.name, str(rows[0]["id"]), **values)
        return db.insert(b.entity.name, **{**filters, **values, **(
            {"id": record_id} if record_id is not None else {})})

    return run


OPERATIONS: dict[str, Callable[[_ToolBuilder], Callable[..., Any]]] = {
    "list": _op_list, "search": _op_search, "get": _op_get,
    "create": _op_create, "update": _op_update, "delete": _op_delete, "upsert": _op_upsert,
}
