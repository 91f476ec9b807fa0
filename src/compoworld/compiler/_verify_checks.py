"""One conformance check per operation / action effect (see :mod:`._verify`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from faker import Faker

from compoworld.compiler._verify_ops import (
    CheckFailed,
    Context,
    checked_read,
    common_checks,
    located,
    matches,
    pick_record,
    records,
    valid_args,
)
from compoworld.service._crud import DEFAULT_LIMIT, first_page
from compoworld.service._spec import ToolSpec
from compoworld.types import get_type, semantic_types

_PLAIN = ("string", "integer", "boolean")


def _copy(ctx: Context, entity: str, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A new record in the state, a copy of a seeded one (unique values made unique)."""
    base = base or pick_record(ctx, entity)
    unique = next((e.unique for e in ctx.spec.entities if e.name == entity), [])
    values = {k: (f"copy.{v}" if k in unique and isinstance(v, str) else v)
              for k, v in base.items() if k != "id"}
    ctx.pristine = False
    return ctx.env.db(ctx.spec.name).insert(entity, **values)


def _where(tool: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    where = {}
    for p in tool.params:
        if p.role == "filter" and args.get(p.name) is not None:
            name = p.field or p.name
            where[name if p.op == "eq" else f"{name}__{p.op}"] = args[p.name]
    return where


def _paged(tool: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    return {**args, **{p.name: 100 for p in tool.params if p.role == "limit"}}


def _required(ctx: Context, tool: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    runtime = ctx.service.tools[tool.name]
    return {p.name: args[p.name] for p in runtime.params if p.required and p.name in args}


def _filter_value(p: Any, value: Any) -> Any:
    if p.op == "in":
        return [value]
    if p.op == "contains":
        return str(value)[:4]
    return value


def check_list(ctx: Context, tool: ToolSpec) -> None:
    base = pick_record(ctx, tool.entity)
    args = common_checks(ctx, tool, base)
    required = _paged(tool, _required(ctx, tool, args))
    query = next((p for p in tool.params if p.role == "query"), None)
    if query is not None and query.name in required:
        required[query.name] = ""  # an empty text matches everything
    before = checked_read(ctx, tool, required, "list")["total"]
    matching = {(p.field or p.name): required[p.name][0] if p.op == "in" else required[p.name]
                for p in tool.params if p.role == "filter" and p.name in required
                and p.op in ("eq", "contains", "in", "gte", "lte") and required[p.name] != []}
    added = _copy(ctx, tool.entity, {**base, **matching})
    data = checked_read(ctx, tool, required, "list after adding a record")
    if data["total"] != before + 1:
        raise CheckFailed(f"list total went from {before} to {data['total']} after adding a "
                          "matching record")
    if data["total"] <= len(data["items"]) and added["id"] not in [i["id"] for i in data["items"]]:
        raise CheckFailed("list does not include a record added to the state")
    for p in tool.params:
        if p.role != "filter" or p.name in required:
            continue
        value = added.get(p.field or p.name)
        if value is None or isinstance(value, list | dict):
            continue
        wanted = _filter_value(p, value)
        page = checked_read(ctx, tool, {**required, p.name: wanted}, f"filter {p.name!r}")
        for item in page["items"]:
            if not matches(item.get(p.field or p.name), p.op, wanted):
                raise CheckFailed(f"filter {p.name!r}={wanted!r} returned a record whose "
                                  f"{p.field or p.name} is {item.get(p.field or p.name)!r}")
        ids = [i["id"] for i in page["items"]]
        included = p.op in ("eq", "in", "contains", "gte", "lte")
        if included and page["total"] <= len(ids) and added["id"] not in ids:
            raise CheckFailed(f"filter {p.name!r}={wanted!r} left out a matching record")
    _check_paging(ctx, tool, required)
    ctx.done.append("list")


def _check_paging(ctx: Context, tool: ToolSpec, args: dict[str, Any]) -> None:
    """A ``page`` number and a ``cursor`` start where the pages before them end: the second
    page of one record a page is the second record of the whole listing; a token the service
    never answered is refused (400)."""
    paging = [p for p in tool.params if p.role in ("page", "cursor")]
    if not paging:
        return
    first = checked_read(ctx, tool, args, "list for paging")
    whole, total = [i["id"] for i in first["items"]], first["total"]
    size = {p.name: 1 for p in tool.params if p.role == "limit"}
    step = 1 if size else DEFAULT_LIMIT  # without a page size, pages of the default size
    for p in paging:
        value: Any = (first_page(p) + 1) if p.role == "page" else str(step)
        page = checked_read(ctx, tool, {**args, **size, p.name: value}, f"paging by {p.name!r}")
        ids = [i["id"] for i in page["items"]]
        expected = whole[step:step + 1] if size else None
        if (expected is not None and ids != expected) or set(ids) & set(whole[:step]) or (
                bool(ids) != (total > step)):
            raise CheckFailed(f"{p.name}={value!r} answered {ids[:3]}, not the records after the "
                              f"first {step}")
        if p.role == "cursor":
            ctx.error(tool, {**args, p.name: "zz_unknown"}, 400, f"a {p.name!r} never answered")


def check_search(ctx: Context, tool: ToolSpec) -> None:
    check_list(ctx, tool)
    runtime = ctx.service.tools[tool.name]
    required = {p.name for p in runtime.params if p.required}
    needed = [p.field or p.name for p in tool.params if p.role == "filter" and p.name in required]
    rows = [r for r in records(ctx, tool.entity) if all(r.get(k) is not None for k in needed)]
    if not rows:  # the record searched for must be reachable through the required filters
        raise CheckFailed(f"no {tool.entity} record with its required filters set to search for")
    record = rows[ctx.rng.randrange(len(rows))]
    args = _paged(tool, _required(ctx, tool, common_checks(ctx, tool, record)))
    query = next((p for p in tool.params if p.role == "query"), None)
    if query is None:
        return
    texts = [v for v in record.values() if isinstance(v, str) and len(v) >= 3]
    for text in texts:
        page = checked_read(ctx, tool, {**args, query.name: text}, "search")
        if page["total"] and record["id"] in [i["id"] for i in page["items"]]:
            ctx.done.append("search")
            return
    if texts:
        raise CheckFailed("search for a record's own text did not find it")


def check_get(ctx: Context, tool: ToolSpec) -> None:
    record = pick_record(ctx, tool.entity, tool)
    args = common_checks(ctx, tool, record)
    data = checked_read(ctx, tool, args, "get")
    wanted = located(ctx, tool, args)
    if data != wanted:
        raise CheckFailed(f"get returned {data.get('id')!r}, not the record asked for "
                          f"({wanted['id']!r})")
    ctx.done.append("get")


def check_create(ctx: Context, tool: ToolSpec) -> None:
    args = common_checks(ctx, tool, None)
    db = ctx.env.db(ctx.spec.name)
    before = db.count(tool.entity)
    data = ctx.ok(tool, args, "create")
    if db.count(tool.entity) != before + 1 or db.get(tool.entity, data["id"]) != data:
        raise CheckFailed("the created record does not read back as returned")
    _given_stored(ctx, tool, args, data)
    ctx.done.append("create")


def _given_stored(ctx: Context, tool: ToolSpec, args: dict[str, Any], data: dict[str, Any]) -> None:
    fields = {f.name: f for e in ctx.spec.entities if e.name == tool.entity for f in e.fields}
    for p in tool.params:
        f = fields.get(p.field or p.name)
        stored = data.get(f.name) if f is not None else None
        if p.role == "field" and p.name in args and f is not None and f.type in _PLAIN \
                and stored != args[p.name]:
            raise CheckFailed(f"{p.name!r}={args[p.name]!r} was stored as {data.get(f.name)!r}")


def check_update(ctx: Context, tool: ToolSpec) -> None:
    record = pick_record(ctx, tool.entity, tool)
    args = common_checks(ctx, tool, record)
    from compoworld.service import sample_arguments

    runtime = ctx.service.tools[tool.name]
    extra = sample_arguments(runtime, ctx.env, ctx.spec.name, ctx.rng, optional=True)
    args.update({k: v for k, v in extra.items() if k not in args})
    target = located(ctx, tool, args)["id"]
    data = ctx.ok(tool, args, "update")
    if data["id"] != target or ctx.env.db(ctx.spec.name).get(tool.entity, target) != data:
        raise CheckFailed("the update is not visible in a later read")
    _given_stored(ctx, tool, args, data)
    ctx.done.append("update")


def _keyed_copy(ctx: Context, tool: ToolSpec, base: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``base`` that ``tool``'s key names alone: its text key fields get fresh values
    (of their semantic type, else ``copy.<n>``), so the key does not also name ``base`` (a seeded
    record another record may still reference). Refs and enumerated keys keep their value."""
    fields = {f.name: f for e in ctx.spec.entities if e.name == tool.entity for f in e.fields}
    fake = Faker()
    fake.seed_instance(ctx.rng.randrange(2**32))
    fresh: dict[str, Any] = {}
    known = {t.name for t in semantic_types()}
    for p in tool.params:
        f = fields.get(p.field or p.name)
        if p.role != "filter" or f is None or f.ref or f.enum or not isinstance(
                base.get(f.name), str):
            continue
        value = get_type(f.type).generate(fake) if f.type in known else None
        fresh[f.name] = value if isinstance(value, str) else f"copy.{ctx.rng.randrange(10**9)}"
    return _copy(ctx, tool.entity, {**base, **fresh})


def check_delete(ctx: Context, tool: ToolSpec) -> None:
    keyed = not any(p.role == "id" for p in tool.params)
    base = pick_record(ctx, tool.entity, tool)
    added = _keyed_copy(ctx, tool, base) if keyed else _copy(ctx, tool.entity, base)
    args = common_checks(ctx, tool, added)  # a fresh copy: no record references it
    db = ctx.env.db(ctx.spec.name)
    for _ in range(len(records(ctx, tool.entity)) + 1):  # keyed: every match, then 404
        target = located(ctx, tool, args)["id"] if keyed else added["id"]
        envelope = ctx.call(tool, args)
        if not envelope["success"]:  # a 409 too: the key names a record still referenced
            whose = "" if target == added["id"] else f" (the key names {target!r}, not the copy)"
            raise CheckFailed(f"delete{whose}: {envelope['error']['code']} "
                              f"{envelope['error']['message'][:160]}")
        if db.exists(tool.entity, target):
            raise CheckFailed("the deleted record still exists")
        if not keyed:
            break
        try:
            located(ctx, tool, args)
        except CheckFailed:
            break
    ctx.pristine = False
    ctx.error(tool, args, 404, "delete of a deleted record")
    ctx.done.append("delete")


def _transition_start(ctx: Context, tool: ToolSpec) -> tuple[str, Any]:
    """(status field, a value the transition may start from)."""
    assert tool.action is not None
    field = tool.action.field or next(iter(tool.action.set))
    target = tool.action.set.get(field)
    enum = next(f.enum for e in ctx.spec.entities if e.name == tool.entity
                for f in e.fields if f.name == field) or []
    starts: list[Any] = tool.action.allowed_from or [v for v in enum if v != target] or [None]
    return field, starts[0]


def check_transition(ctx: Context, tool: ToolSpec) -> None:
    assert tool.action is not None
    field, start = _transition_start(ctx, tool)
    target = tool.action.set.get(field)
    record = pick_record(ctx, tool.entity, tool)
    db = ctx.env.db(ctx.spec.name)
    args = common_checks(ctx, tool, record)
    record = db.update(tool.entity, located(ctx, tool, args)["id"], **{field: start})
    ctx.pristine = False
    data = ctx.ok(tool, args, "transition")
    if data.get(field) != target or db.get(tool.entity, record["id"])[field] != target:
        raise CheckFailed(f"{field} is {data.get(field)!r} after the action, not {target!r}")
    ctx.error(tool, args, 422, "repeating the transition")
    ctx.done.append("transition")


def check_send(ctx: Context, tool: ToolSpec) -> None:
    assert tool.action is not None
    args = common_checks(ctx, tool, None)
    data = ctx.ok(tool, args, "send")
    stored = ctx.env.db(ctx.spec.name).get(tool.entity, data["id"])
    if stored != data or any(stored.get(k) != v for k, v in tool.action.set.items()):
        raise CheckFailed("the sent record is not stored as returned")
    _given_stored(ctx, tool, args, data)
    ctx.done.append("send")


def check_count(ctx: Context, tool: ToolSpec) -> None:
    record = pick_record(ctx, tool.entity)
    args = common_checks(ctx, tool, record)
    data = checked_read(ctx, tool, args, "count")
    rows = records(ctx, tool.entity)
    expected = ctx.env.db(ctx.spec.name).count(tool.entity, _where(tool, args))
    assert tool.action is not None
    if tool.action.effect == "summary" and tool.action.field:
        wanted = _where(tool, args)
        expected = sum(1 for r in ctx.env.db(ctx.spec.name).select(tool.entity, wanted)
                       if r[tool.action.field] is not None)
    if data["count"] != expected:
        raise CheckFailed(f"count is {data['count']}, the state holds {expected} (of {len(rows)})")
    ctx.done.append("count")


def check_compute(ctx: Context, tool: ToolSpec) -> None:
    record = pick_record(ctx, tool.entity)
    args = common_checks(ctx, tool, None)
    checked_read(ctx, tool, args, "compute")
    inputs = {p.name: record[p.field or p.name] for p in tool.params
              if record.get(p.field or p.name) is not None}
    if inputs and len(inputs) == len(tool.params):
        data = checked_read(ctx, tool, inputs, "compute on a seeded question")
        if {k: v for k, v in data.items()} != {k: v for k, v in record.items() if k != "id"}:
            raise CheckFailed("compute disagrees with the seeded answer to the same question")
    ctx.done.append("compute")


def check_upsert(ctx: Context, tool: ToolSpec) -> None:
    """The record the call names is updated in place; a name (id or text key) no record has
    makes a new one holding it and the values given, which the same call then updates."""
    check_update(ctx, tool)
    ctx.done.remove("update")
    db = ctx.env.db(ctx.spec.name)
    base = pick_record(ctx, tool.entity, tool)
    unique = next((e.unique for e in ctx.spec.entities if e.name == tool.entity), [])
    args: dict[str, Any] = {}
    for p in tool.params:
        value = base.get(p.field or p.name)
        if p.role in ("field", "filter") and value is not None:
            args[p.name] = f"copy.{value}" if (p.field or p.name) in unique and isinstance(
                value, str) else value
    fresh = _keyed_copy(ctx, tool, base)  # fresh text keys; the copy is removed again
    db.delete(tool.entity, fresh["id"])
    named = False
    for p in tool.params:
        if p.role == "id":
            args[p.name], named = f"new.{ctx.rng.randrange(10**9)}", True
        elif p.role == "filter" and fresh.get(p.field or p.name) != base.get(p.field or p.name):
            args[p.name], named = fresh[p.field or p.name], True
    if not named:
        raise CheckFailed("no id or text key names a record that does not exist yet")
    before = db.count(tool.entity)
    made = ctx.ok(tool, args, "upsert of a new record")
    if db.count(tool.entity) != before + 1 or db.get(tool.entity, made["id"]) != made:
        raise CheckFailed("an upsert naming no record did not create it")
    _given_stored(ctx, tool, args, made)
    again = ctx.ok(tool, args, "the same upsert again")
    if again["id"] != made["id"] or db.count(tool.entity) != before + 1:
        raise CheckFailed("the same upsert twice made two records")
    ctx.done.append("upsert")


def check_dry_run(ctx: Context, tool: ToolSpec) -> None:
    """A write's dry-run flag (role ``dry_run``), on a fresh copy of the world: the call with it
    set answers what the same call without it answers, and leaves the state as it was."""
    flag = next(p.name for p in tool.params if p.role == "dry_run")
    ctx.env.reset()
    ctx.pristine = True
    kind = tool.action.effect if tool.op == "action" and tool.action else tool.op
    record = None
    if kind == "delete":
        base = pick_record(ctx, tool.entity, tool)
        keyed = not any(p.role == "id" for p in tool.params)
        record = _keyed_copy(ctx, tool, base) if keyed else _copy(ctx, tool.entity, base)
    elif kind in ("update", "upsert", "transition"):
        record = pick_record(ctx, tool.entity, tool)
    args = valid_args(ctx, tool, record)
    if kind == "transition":
        field, start = _transition_start(ctx, tool)
        ctx.env.db(ctx.spec.name).update(tool.entity, located(ctx, tool, args)["id"],
                                         **{field: start})
    db = ctx.env.db(ctx.spec.name)
    before = db.digest()
    trial = ctx.ok(tool, {**args, flag: True}, "dry run")
    if db.digest() != before:
        raise CheckFailed(f"a call with {flag}=true changed the state")
    real = ctx.ok(tool, args, "the same call without the dry run")
    if real != trial:
        raise CheckFailed(f"a call with {flag}=true answers otherwise than the real call")
    ctx.done.append("dry_run")


CHECKS: dict[str, Callable[[Context, ToolSpec], None]] = {
    "list": check_list, "search": check_search, "get": check_get, "create": check_create,
    "update": check_update, "delete": check_delete, "upsert": check_upsert,
    "transition": check_transition,
    "send": check_send, "count": check_count, "summary": check_count, "compute": check_compute,
}
