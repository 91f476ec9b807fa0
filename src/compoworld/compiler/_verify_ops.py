"""The per-operation conformance checks :func:`~compoworld.compiler.verify_spec` runs."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Literal, get_origin

from faker import Faker

from compoworld.service import Environment, Service, ServiceSpec, qualified_name, sample_arguments
from compoworld.service._spec import ToolSpec
from compoworld.service._tool import Tool
from compoworld.types import get_type


class CheckFailed(Exception):
    """A conformance check failed; the message is the simulated reason."""


@dataclass
class Context:
    """What the checks of one service share."""

    spec: ServiceSpec
    service: Service
    env: Environment
    rng: random.Random
    done: list[str] = field(default_factory=list)
    pristine: bool = True
    """Whether the state is still the seeded one (so a fork must answer the same)."""

    def call(self, tool: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
        return dict(self.env.call(qualified_name(self.spec.name, tool.name), args))

    def ok(self, tool: ToolSpec, args: dict[str, Any], what: str) -> Any:
        """Call; fail unless it succeeds with data matching the declared output."""
        envelope = self.call(tool, args)
        if not envelope["success"]:
            raise CheckFailed(f"{what}: {envelope['error']['code']} "
                              f"{envelope['error']['message'][:160]}")
        runtime = self.service.tools[tool.name]
        if runtime.kind == "write":
            self.pristine = False
        if runtime.output is not None:
            try:
                runtime.output.validate_python(envelope["data"])
            except ValueError as error:
                raise CheckFailed(f"{what}: output does not match its schema: "
                                  f"{str(error).splitlines()[0]}") from None
        return envelope["data"]

    def error(self, tool: ToolSpec, args: dict[str, Any], code: int, what: str) -> str:
        envelope = self.call(tool, args)
        if envelope["success"] or envelope["error"]["code"] != code:
            raise CheckFailed(f"{what}: expected error {code}, got {str(envelope)[:160]}")
        return str(envelope["error"]["message"])


def records(ctx: Context, entity: str) -> list[dict[str, Any]]:
    return ctx.env.db(ctx.spec.name).select(entity, limit=200)


def pick_record(ctx: Context, entity: str, tool: ToolSpec | None = None) -> dict[str, Any]:
    """A random seeded record (one whose ``tool`` key fields are all set, when given)."""
    rows = records(ctx, entity)
    keys = [p.field or p.name for p in (tool.params if tool else []) if p.role == "filter"]
    if tool is not None and keys:  # keys, or the scope beside an id
        rows = [r for r in rows if all(r.get(k) is not None for k in keys)]
    if not rows:
        raise CheckFailed(f"no {entity} record in the seeded state to act on")
    return rows[ctx.rng.randrange(len(rows))]


def located(ctx: Context, tool: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    """The record a get / update / delete / transition call with ``args`` acts on."""
    db = ctx.env.db(ctx.spec.name)
    for p in tool.params:
        if p.role == "id":
            return db.get(tool.entity, args[p.name])
    where = {p.field or p.name: args[p.name] for p in tool.params
             if p.role == "filter" and p.name in args}
    rows = db.select(tool.entity, where, limit=1)
    if not rows:
        raise CheckFailed(f"no {tool.entity} matches the key {where!r}")
    return rows[0]


def valid_args(ctx: Context, tool: ToolSpec, record: dict[str, Any] | None) -> dict[str, Any]:
    """Valid arguments: sampled, with id / filters / inputs taken from ``record`` when given
    (on a call acting on one record every filter it declares: its key, its scope, the old
    value a compare-and-set must match)."""
    runtime: Tool = ctx.service.tools[tool.name]
    args = sample_arguments(runtime, ctx.env, ctx.spec.name, ctx.rng, optional=False)
    one = tool.op in ("get", "update", "delete", "upsert") or bool(
        tool.action and tool.action.effect == "transition")
    for p in tool.params:
        if p.role == "id" and record is not None:
            args[p.name] = record["id"]
        elif (p.role == "filter" and record is not None and (p.name in args or one)
              and p.op in ("eq", "contains", "in", "gte", "lte")
              and record.get(p.field or p.name) is not None):
            value = record[p.field or p.name]  # a value the record itself matches
            args[p.name] = [value] if p.op == "in" else value
    return args


def matches(value: Any, op: str, wanted: Any) -> bool:
    if value is None:
        return op == "ne"
    checks = {"eq": lambda: value == wanted, "ne": lambda: value != wanted,
              "gt": lambda: value > wanted, "gte": lambda: value >= wanted,
              "lt": lambda: value < wanted, "lte": lambda: value <= wanted,
              "contains": lambda: str(wanted).lower() in str(value).lower(),
              "in": lambda: value in wanted}
    return bool(checks[op]())


def common_checks(ctx: Context, tool: ToolSpec, record: dict[str, Any] | None) -> dict[str, Any]:
    """Missing required arguments → 400 naming them; unknown ids → 404. Returns valid args."""
    runtime = ctx.service.tools[tool.name]
    args = valid_args(ctx, tool, record)
    for param in runtime.params:
        if param.required:
            message = ctx.error(tool, {k: v for k, v in args.items() if k != param.name}, 400,
                                f"without {param.name!r}")
            if param.name not in message:
                raise CheckFailed(f"the 400 without {param.name!r} does not name it: {message}")
        if param.ref and not param.is_list:
            ctx.error(tool, {**args, param.name: "zz_unknown"}, 404, f"unknown id in {param.name!r}")
    keyed = [p for p in tool.params if p.role == "filter"] if tool.op in (
        "get", "update", "delete") or (tool.action and tool.action.effect == "transition") else []
    text_keys = [p.name for p in keyed if isinstance(args.get(p.name), str)]
    probe = _unknown_keys(ctx, tool, text_keys)
    if probe:
        ctx.error(tool, {**args, **probe}, 404, "unknown key")
    ctx.done.append("errors")
    return args


def _unknown_keys(ctx: Context, tool: ToolSpec, names: list[str]) -> dict[str, Any]:
    """Valid values naming no record: ``zz_unknown`` for a plain string, a fresh value of the
    key's semantic type (an email, a country code) otherwise; enumerated keys keep their
    value, and when every key is enumerated there is no unknown record to name (``{}``)."""
    params = {p.name: p for p in ctx.service.tools[tool.name].params}
    fake = Faker()
    fake.seed_instance(ctx.rng.randrange(2**32))
    probe: dict[str, Any] = {}
    for name in names:
        param = params.get(name)
        if param is not None and get_origin(param.annotation) is Literal:
            continue
        semantic = param.semantic if param is not None and not param.ref else None
        probe[name] = get_type(semantic).generate(fake) if semantic else "zz_unknown"
    return probe


def checked_read(ctx: Context, tool: ToolSpec, args: dict[str, Any], what: str) -> Any:
    """A read: succeeds, writes nothing, and gives the same data on a fresh copy of the world."""
    db = ctx.env.db(ctx.spec.name)
    before = db.digest()
    data = ctx.ok(tool, args, what)
    if db.digest() != before:
        raise CheckFailed(f"{what}: a read changed the state")
    if ctx.pristine:
        fork = ctx.env.fork()
        again = fork.call(qualified_name(ctx.spec.name, tool.name), args)
        fork.close()
        if again.get("data") != data:
            raise CheckFailed(f"{what}: the same call on the same seed gave a different result")
    ctx.done.append("read")
    return data


def check_op(ctx: Context, tool: ToolSpec) -> None:
    """Run the checks of ``tool``'s operation; raise :class:`CheckFailed` on the first failure."""
    from compoworld.compiler._verify_checks import CHECKS, check_dry_run

    kind = tool.action.effect if tool.op == "action" and tool.action else tool.op
    CHECKS[kind](ctx, tool)
    if any(p.role == "dry_run" for p in tool.params):
        check_dry_run(ctx, tool)

