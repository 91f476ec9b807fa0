"""``ToolPlan`` → tool: the parameters, entity fields and action of one mapped operation.

Shared by every importer: a plan says which operation a source tool is and on which entity;
:func:`emit_plan` turns its inputs (name, JSON schema, required) into parameters with roles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compoworld.compiler._assemble import MAX_FIELDS, Assembler
from compoworld.compiler._rules import identifier
from compoworld.service._spec import ActionSpec, ParamSpec, ToolSpec

_LIMIT = {"limit", "per_page", "page_size", "pagesize", "max_results", "maxresults", "top",
          "size", "max", "max_items", "num_results", "results_per_page"}
_OFFSET = {"offset", "skip", "start", "start_index", "startindex"}
_SORT = {"sort", "sort_by", "order_by", "orderby", "sortby", "sort_field"}
_ORDER = {"order", "direction", "sort_order", "sort_dir", "sort_direction"}
_CONTROL = {"fields", "expand", "include", "format", "pretty", "pretty_print", "prettyprint",
            "alt", "key", "access_token", "callback", "quota_user", "oauth_token",
            "upload_protocol", "upload_type", "xgafv", "api_key", "apikey", "token", "page",
            "page_token", "pagetoken", "cursor", "next_token", "after", "before",
            "starting_after", "ending_before", "continuation_token", "embed", "select",
            "page_number", "pagenumber", "api_version", "version", "jsonp", "user_ip"}
_PLACES = {"path", "prefix", "dir", "directory", "folder", "parent_path"}
_NUMERIC = ("Money", "number", "integer", "Quantity", "Percent")
_EFFECTS = {"transition", "send", "count", "summary", "compute"}
_RESERVED_FIELDS = 8
"""Fields of an entity that response fields never take: the parent refs, keys and inputs
that later tools on the same entity add (a full entity would refuse them)."""


def param_category(name: str, query_names: set[str]) -> str:
    """limit / offset / query / sort_by / order / control / value, from a parameter's name."""
    snake = identifier(name)
    for category, names in (("limit", _LIMIT), ("offset", _OFFSET), ("query", query_names),
                            ("sort_by", _SORT), ("order", _ORDER), ("control", _CONTROL)):
        if snake in names:
            return category
    return "value"


@dataclass
class ToolPlan:
    """What a source tool maps to (``op`` is an engine op or an action effect)."""

    op: str
    entity: str
    rule: str
    source: str
    noun: str = ""
    id_param: str | None = None
    parents: list[tuple[str, str]] = field(default_factory=list)
    method: str = ""
    query_names: set[str] = field(default_factory=set)
    target: str | None = None
    verb: str | None = None
    name: str = ""
    description: str = ""
    keys: list[str] = field(default_factory=list)
    """Inputs naming the record by a natural key (a path, a name) instead of an id."""


def _parent_field(asm: Assembler, plan: ToolPlan, parent: str) -> str:
    asm.entity(parent)
    name = "parent_id" if parent == plan.entity else f"{parent}_id"
    asm.add_field(plan.entity, name, type_="Ref", ref=parent, required=False,
                  description=f"The {parent} this {plan.entity} belongs to.")
    return name


def emit_plan(asm: Assembler, plan: ToolPlan, inputs: list[tuple[str, dict[str, Any], bool]],
              record: dict[str, dict[str, Any]]) -> None:
    """Add the plan's tool (and the fields it needs) to ``asm``."""
    op, entity = plan.op, plan.entity
    draft = asm.entity(entity)
    parents = {p: _parent_field(asm, plan, parent) for p, parent in plan.parents}
    if op in ("list", "get", "search", "create", "update", "compute"):
        room = MAX_FIELDS - _RESERVED_FIELDS  # parents, keys and inputs need fields too
        for name, schema in record.items():
            if identifier(name) not in ("id", f"{entity}_id") and len(draft.fields) < room:
                asm.add_field(entity, name, schema)
    params: list[ParamSpec] = []
    names: set[str] = set()

    def add(p: ParamSpec) -> None:
        if p.name not in names:
            names.add(p.name)
            params.append(p)

    reads = op in ("list", "search", "count", "summary")
    writes = op in ("create", "send", "update", "transition", "compute")
    one = op in ("get", "update", "delete", "transition")
    keyed = one and not plan.id_param
    if plan.id_param and one:
        add(ParamSpec(name=identifier(plan.id_param), role="id",
                      description=f"The id of the {entity}."))
    if keyed and not plan.keys and not parents:
        asm.entity(entity).singleton = True
    for name, schema, required in inputs:
        pname, text = identifier(name, "p"), str(schema.get("description") or "")[:300]
        if name == plan.id_param:
            continue
        if keyed and (name in parents or name in plan.keys):
            key = parents.get(name) or asm.add_field(entity, name, schema, description=text)
            if key and key != "id":
                add(ParamSpec(name=pname, role="filter", field=key, required=True,
                              description=text or f"The {key} of the {entity} (identifies it)."))
            continue
        if name in parents:
            if reads or op in ("create", "send", "compute"):
                add(ParamSpec(name=pname, role="filter" if reads else "field",
                              field=parents[name], required=True, description=text))
            continue
        category = param_category(name, plan.query_names)
        if category == "control" or (category != "value" and op not in ("list", "search")):
            continue
        if category != "value":
            if category == "query" and op != "search":
                continue
            add(ParamSpec(name=pname, role=category, description=text,
                          required=required if category == "query" else None))
            continue
        if not (reads or writes):
            asm.warnings.append(f"{plan.source}: parameter {name!r} not modelled for op {op!r}")
            continue
        if reads and pname.startswith(("exclude", "except", "without", "not_")):
            asm.warnings.append(f"{plan.source}: exclusion filter {name!r} not modelled")
            continue
        known = identifier(name, "f") in draft.fields
        if not known and len(draft.fields) >= MAX_FIELDS - _RESERVED_FIELDS:
            asm.warnings.append(f"{plan.source}: parameter {name!r} not modelled ({entity} has "
                                f"{len(draft.fields)} fields; the rest is kept for parents)")
            continue
        fname = asm.add_field(entity, name, schema, description=text)
        if fname is None or fname == "id":
            continue
        role = "filter" if reads else "field"
        need = bool(required) and op in ("create", "send", "compute", "list", "search")
        within = reads and pname in _PLACES  # a folder or prefix holds what is under it
        add(ParamSpec(name=pname, role=role, field=fname, description=text, required=need,
                      op="contains" if within else "eq"))
    if op == "search" and not any(p.role == "query" for p in params):
        op, rule = "list", f"{plan.rule} (no text query: filtered list)"
    else:
        rule = plan.rule
    action = None
    if op == "transition":
        status = asm.status_field(entity, plan.target or "done")
        action = ActionSpec(effect="transition", set={status: plan.target}, field=status)
    elif op == "summary":
        numeric = [f.name for f in asm.entity(entity).fields.values() if f.type in _NUMERIC]
        action = ActionSpec(effect="summary", field=numeric[0] if numeric else None)
    elif op in _EFFECTS:
        action = ActionSpec(effect=op)
    if op == "compute":
        asm.entity(entity).seed_count = 10
    taken = {t.name for t in asm.tools}
    name, n = plan.name, 2
    while name in taken:
        name, n = f"{plan.name}_{n}", n + 1
    asm.add_tool(ToolSpec(
        name=name, description=plan.description or _describe(plan), entity=entity,
        op="action" if op in _EFFECTS else op, params=params,
        action=action, rule=rule, source=plan.source))


def _describe(plan: ToolPlan) -> str:
    what = plan.entity.replace("_", " ")
    return {"list": f"List {what} records.", "search": f"Search {what} records.",
            "get": f"Get a {what}.", "create": f"Create a {what}.", "update": f"Update a {what}.",
            "delete": f"Delete a {what}.", "count": f"Count {what} records.",
            "summary": f"Summarize {what} records.", "compute": f"Look up a {what}.",
            "send": f"Send a {what}.", "transition": f"{(plan.verb or 'change').title()} a {what}.",
            }.get(plan.op, plan.op)
