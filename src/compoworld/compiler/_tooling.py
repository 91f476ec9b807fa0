"""``ToolPlan`` → tool: the parameters, entity fields and action of one mapped operation.

Shared by every importer: a plan says which operation a source tool is and on which entity;
:func:`emit_plan` turns its inputs (name, JSON schema, required) into parameters with roles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from compoworld.compiler._accepted import first_page, no_effect, paging_role
from compoworld.compiler._assemble import MAX_FIELDS, Assembler
from compoworld.compiler._param_reading import (
    DRY_RUNS,
    EDIT_LISTS,
    EXPRESSIONS,
    LIMITS,
    OPTIONS,
    PAGING,
    PLACES,
    PRESENTATION,
    UPSERT,
    WIDENS,
    WRAPPED,
    constant,
    edits,
    is_flag,
    map_entries,
    members,
    names_records_of,
    option_type,
    param_category,
    protocol,
    range_bound,
    says_direction,
    trial_flag,
)
from compoworld.compiler._rules import identifier, scope_like
from compoworld.service._spec import ActionSpec, ParamSpec, ToolSpec

_READ_OPS = ("list", "search", "get", "count", "summary", "compute")
_NUMERIC = ("Money", "number", "integer", "Quantity", "Percent")
_EFFECTS = {"transition", "send", "count", "summary", "compute"}
_PATCH_DOCUMENTS = {"patch", "patch_data", "patch_file", "patch_type", "json_patch", "diff",
                    "unified_diff"}
"""Inputs that are a patch applied to the record (a JSON patch, a unified diff)."""
_RESERVED_FIELDS = 8
"""Fields of an entity that response fields never take: the parent refs, keys and inputs
that later tools on the same entity add (a full entity would refuse them)."""


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
    """Inputs naming the record by a natural key (a path, a name) instead of an id; beside an
    id, the inputs scoping it (its parents' ids), which the record must match."""
    renames: dict[str, str] = field(default_factory=dict)
    """Inputs naming a field of another name: ``remove_stock_from_watchlist(symbol)`` matches
    the watchlist entry's ``stock``."""
    text: str = ""
    """The source's whole description, when ``description`` is only its first sentence."""
    body: frozenset[str] = frozenset()
    """Inputs from the request body: the record's own values, never transport controls (an
    artifactregistry Tag's ``version`` is no API version)."""
    upsert: bool = False
    """An update that creates the record its id or key names when there is none (``set`` by
    key, a PUT described as "creates or updates"): the engine op ``upsert``."""
    path: frozenset[str] = frozenset()
    """Inputs from the URL path: they name where the record lies, never a value it stores."""
    transport: bool = False
    """Optional transport controls (``fields``, ``alt``, ``pageToken``, an API key) belong to
    the wire protocol, not the operation, and may go unmodelled (OpenAPI query strings); an
    MCP or OpenAI function's every parameter is the operation's own."""


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
    dropped: list[str] = []
    """Declared parameters the mapping has no role for: the tool is then simulated."""

    def drop(name: str, required: bool, why: str) -> None:
        asm.warnings.append(f"{plan.source}: parameter {name!r} {why}")
        if required or not (plan.transport and param_category(name, set()) == "control"):
            dropped.append(name)

    def add(p: ParamSpec) -> None:
        if p.name not in names:
            names.add(p.name)
            params.append(p)

    taken = {t.name for t in asm.tools}  # OpenAPI names repeat (list_results of each parent)
    tool_name, n = plan.name, 2
    while tool_name in taken:
        tool_name, n = f"{plan.name}_{n}", n + 1
    upsert = plan.upsert or (op == "update" and bool(UPSERT.search(plan.text or plan.description
                                                                  or "")))
    if op == "create" and UPSERT.search(plan.text or plan.description or ""):
        # a POST that "creates or updates" names no record: which one it updates is unknown
        asm.opaque(tool_name, plan.description, inputs, record, source=plan.source, writes=True,
                   reason=f"described as creating or updating (an upsert): the mapped {op} "
                          "would refuse or duplicate half of its calls")
        asm.tools[-1] = asm.tools[-1].model_copy(update={"rule": plan.rule})
        return
    given = {identifier(n) for n, _, _ in inputs}
    patch = sorted(given & _PATCH_DOCUMENTS)
    if op in ("update", "create") and (patch or any(
            f"old_{w}" in given and f"new_{w}" in given for w in ("string", "text", "str", "value",
                                                               "content"))):
        # kubectl_patch(patch_data), gitlab's update_issue_description_patch(patch): a diff
        # applied to the record, never a `patch` value stored beside it
        asm.opaque(tool_name, plan.description, inputs, record, source=plan.source, writes=True,
                   reason=f"applies the patch {patch[0]!r} to the record: no field is written "
                          "whole" if patch else "replaces text inside a value (old_* / new_*): "
                          "no field is written whole")
        asm.tools[-1] = asm.tools[-1].model_copy(update={"rule": plan.rule})
        return
    pair = next((n[:-5] for n in sorted(given) if n.endswith("_name") and f"{n[:-5]}_value"
                 in given), None)
    if op == "update" and pair:  # sns SetTopicAttributes(TopicArn, AttributeName, AttributeValue)
        asm.opaque(tool_name, plan.description, inputs, record, source=plan.source, writes=True,
                   reason=f"sets the entry {pair}_name of a map to {pair}_value: no field is "
                          "written whole")
        asm.tools[-1] = asm.tools[-1].model_copy(update={"rule": plan.rule})
        return
    reads = op in ("list", "search", "count", "summary")
    writes = op in ("create", "send", "update", "transition", "compute")
    one = op in ("get", "update", "delete", "transition")
    keyed = one and not plan.id_param
    if plan.id_param and one:
        # an id the source declares integer (bfcl's ticket_id) is taken as one
        declared = next((s.get("type") for n, s, _ in inputs if n == plan.id_param), None)
        add(ParamSpec(name=identifier(plan.id_param), role="id",
                      type="integer" if declared == "integer" else None,
                      description=f"The id of the {entity}."))
    if keyed and not plan.keys and not parents:
        asm.entity(entity).singleton = True
    for name, schema, required in inputs:
        pname, text = identifier(name, "p"), str(schema.get("description") or "")[:300]
        if name == plan.id_param:
            continue
        if one and (name in parents or name in plan.keys):
            # the key, or beside an id its scope: GET /projects/{project_id}/notes/{note_id}
            key = parents.get(name) or asm.add_field(entity, plan.renames.get(name, name),
                                                     schema, description=text)
            if key and key != "id":
                need = keyed or name in parents or bool(required)
                add(ParamSpec(name=pname, role="filter", field=key, required=need,
                              description=text or f"The {key} of the {entity} (identifies it)."))
            continue
        if name in parents:
            if reads or op in ("create", "send", "compute"):
                add(ParamSpec(name=pname, role="filter" if reads else "field",
                              field=parents[name], required=True, description=text))
            continue
        if op not in _READ_OPS and identifier(name) in DRY_RUNS:
            if trial_flag(identifier(name), schema) and not required:
                # Google's validateOnly, gitlab's dry_run: true answers as the call would and
                # writes nothing, which the engine runs as a trial (role dry_run)
                add(ParamSpec(name=pname, role="dry_run", description=text))
            else:  # kubectl's dryRun="server" | "client": a mode, not a flag
                drop(name, required, "decides whether the call writes at all (a dry run)")
            continue
        items = schema.get("items") if schema.get("type") == "array" else None
        records_list = isinstance(items, dict) and (
            items.get("type") == "object" or bool(items.get("properties")))
        if reads and records_list:
            drop(name, required, "is a list of records (a batch), no value to match")
            continue
        if writes and records_list and names_records_of(name, entity):
            # AddFlowMediaStreams(mediaStreams=[...]): many media streams in one call
            drop(name, required, f"is a list of {entity} records (a bulk write)")
            continue
        category = param_category(name, plan.query_names)
        paging = paging_role(name, schema) if op in ("list", "search") else None
        if paging is not None and range_bound(name, schema) is None:
            add(ParamSpec(name=pname, role=paging, description=text,
                          default=first_page(schema) if paging == "page" else None))
            continue
        if no_effect(name, schema, op):
            add(ParamSpec(name=pname, role="option", type=option_type(schema), description=text,
                          required=bool(required) or None))
            continue
        if plan.transport and name not in plan.body and (
                category == "control" or protocol(name, schema, given)
                or (required and constant(schema)) or (not required and (identifier(name) in PRESENTATION or (
                    OPTIONS.match(identifier(name)) and schema.get("type") == "boolean")))):
            continue  # protocol, not operation (see ToolPlan.transport)
        if not plan.transport and identifier(name) in PAGING and range_bound(
                name, schema) is None:
            drop(name, required, "pages by a token or page number (the engine pages by offset)")
            continue
        if category == "control" or (category == "query" and op != "search"):
            category = "value"  # an MCP tool's `key`, `format` or `page`, a message's `text`
        if category == "sort_by" and says_direction(schema):
            category = "order"  # gitlab's `sort`: "asc" or "desc", the order, not the field
        if category == "order" and not set(schema.get("enum") or ["asc", "desc"]) <= {
                "asc", "desc"}:
            drop(name, required, "orders by values the engine does not take (asc / desc)")
            continue
        if category == "query" and schema.get("type", "string") != "string":
            drop(name, required, "is a query that is no text (an object or a list)")
            continue
        if category != "value" and op not in ("list", "search"):
            drop(name, required, f"({category}) has no role in op {op!r}")
            continue
        if category != "value":
            add(ParamSpec(name=pname, role=category, description=text,
                          required=required if category == "query" else None))
            continue
        if not (reads or writes) or (op == "update" and name in plan.path):
            if one and plan.id_param and required and (scope_like(name) or (
                    op == "update" and name in plan.path)) and schema.get(
                    "type", "string") in ("string", "integer"):
                # servicediscovery GetInstance(ServiceId, InstanceId): the instance of that
                # service; the record must lie under it (404 otherwise), as a path parent does;
                # so must an update's: a path names where the record lies, never a value it
                # writes (shoppingcontent PUT /{merchantId}/accounts/{accountId}: the account
                # of that merchant; Azure's .../{resourceType}/{resourceName}/providers/...)
                key = asm.add_field(entity, name, schema, description=text)
                if key and key != "id":
                    add(ParamSpec(name=pname, role="filter", field=key, required=True,
                                  description=text or f"The {key} the {entity} lies under."))
                    continue
            drop(name, required, f"not modelled for op {op!r}")
            continue
        if schema.get("type") == "object" and not schema.get("properties") and (
                pname in WRAPPED or reads):
            # circleci's params: {}, firecrawl's update(id, body): the values wrapped in one
            # object, or an object to match whole: no field of the record
            drop(name, required, "is an object wrapping values, not a field of the record")
            continue
        if reads and schema.get("type") == "boolean" and pname in WIDENS:
            drop(name, required, "widens which records answer (not a field to match)")
            continue
        if reads and pname.startswith(("exclude", "except", "without", "not_")):
            drop(name, required, "is an exclusion filter (not modelled)")
            continue
        if op == "list" and (pname in ("pattern", "glob") or pname.endswith(("_pattern", "_glob"))):
            # elasticsearch's list_indices(indexPattern) "Index pattern of ... indices to list":
            # wildcards matched against names, never equality on an invented field
            drop(name, required, "matches names by a pattern (wildcards), not a value")
            continue
        if op in ("list", "search") and pname == "length" and schema.get("type") in (
                "integer", "number") and any(identifier(n) in ("offset", "start", "skip")
                                             for n in given):
            # desktop_commander's get_more_search_results(sessionId, offset, length): a slice
            # of the results, `length` its size, never equality on a `length` field
            add(ParamSpec(name=pname, role="limit", description=text))
            continue
        if op in ("list", "search") and LIMITS.fullmatch(pname):
            # max_records (AWS MaxRecords, "The maximum number of records to include"): a page
            # size on every importer, never equality on an invented field
            add(ParamSpec(name=pname, role="limit", description=text))
            continue
        if reads and ((OPTIONS.match(pname) and schema.get("type") == "boolean")
                      or EXPRESSIONS.search(pname) or (pname in ("fields", "properties") and
                                                        schema.get("type") == "array")):
            drop(name, required, "says what to answer or holds a filter expression, not a "
                                 "value to match")
            continue
        if reads and (pname.startswith("only_") or pname.endswith("_only")) and is_flag(schema):
            # macie2's onlyAssociated: true narrows to associated accounts, false answers all;
            # elasticache's DefaultOnly: only the default engine version
            drop(name, required, "narrows which records answer when true (no field to match)")
            continue
        if op in ("create", "update") and schema.get("type") == "object" and pname in (
                entity, entity.split("_")[-1]):
            # ses' CreateReceiptRule / UpdateReceiptRule(RuleSetName, Rule={Name, ...}): the
            # rule itself, named by the Name inside it, never a `rule` value of a record
            drop(name, required, f"is the {entity} itself, passed whole (its key lies inside)")
            continue
        if op == "update" and records_list and map_entries(items):
            # memorydb's UpdateParameterGroup(ParameterNameValues=[{ParameterName, ...}])
            drop(name, required, "sets entries of a map (name / value pairs), keeping the rest")
            continue
        if reads and "range" in pname.split("_")[:-1] and {"start", "end", "from", "to", "min",
                "max", "begin"} & set(pname.split("_")[pname.split("_").index("range"):]):
            # kinesis' FragmentSelector.TimestampRange.StartTimestamp: a window on the
            # timestamp the selector's type names, no field of its own
            drop(name, required, "bounds a range held in an object (not modelled)")
            continue
        if op == "update" and pname in EDIT_LISTS and records_list and edits(items):
            # waf's UpdateByteMatchSet(updates=[{Action: INSERT | DELETE, ...}])
            drop(name, required, "is a list of edits (a patch document), no value written whole")
            continue
        bound = range_bound(name, schema) if reads else None
        if bound is not None:
            field_name, cmp = bound
            fname = asm.add_field(entity, field_name, {k: v for k, v in schema.items()
                                                       if k != "description"})
            if fname is None or fname == "id":
                drop(name, required, "bounds a field that cannot be stored")
                continue
            if name.rstrip("<>=") != name:  # `DateSent<`: the wire name has the operator
                pname = f"{identifier(name.rstrip('<>='), 'p')}_{cmp}"
                text = f"{text} (`{name}` in the API.)".strip()
            add(ParamSpec(name=pname, role="filter", field=fname, description=text,
                          required=bool(required), op=cmp))
            continue
        known = identifier(name, "f") in draft.fields or identifier(name, "f") == "id"
        if not known and len(draft.fields) >= MAX_FIELDS - _RESERVED_FIELDS:
            drop(name, required, f"not modelled ({entity} has {len(draft.fields)} fields; the "
                                 "rest is kept for parents)")
            continue
        member = reads and members(name, schema, draft.fields)
        if reads and not member and schema.get("type") == "array":
            # github's labels=[...] (issues holding all of them): no record's list equals it
            drop(name, required, "is a list of values, which no equality on one field matches")
            continue
        if op == "update" and schema.get("type") == "array" and re.fullmatch(
                r"(?:add|remove)_\w+|\w+_to_(?:add|remove)", pname):
            drop(name, required, "adds to or removes from a list (not a value written whole)")
            continue
        if op == "update" and pname.startswith("old_") and f"new_{pname[4:]}" in given:
            # magick's PUT /users/password/{username}(old_password, new_password): the change
            # holds only while the old value matches, a filter the record must match (404)
            fname = asm.add_field(entity, pname[4:], schema, description=text)
            if fname is None or fname == "id":
                drop(name, required, "cannot be stored")
                continue
            add(ParamSpec(name=pname, role="filter", field=fname, description=text,
                          required=bool(required), op="eq"))
            continue
        if op == "update" and (pname == "version" or pname.endswith("_version")) and re.search(
                r"version of the [\w ]{0,40}?(?:being|to be) (?:updated|modified|changed)|"
                r"(?:most recent|latest|current) version", text, re.I):
            # opensearchserverless' UpdateSecurityPolicy(policyVersion) "The version of the
            # policy being updated": the version the update expects (a stale one is refused),
            # never a value written over the record's
            drop(name, required, "is the version the update expects (optimistic concurrency)")
            continue
        if op == "update" and plan.id_param and pname == f"new_{identifier(plan.id_param)}":
            # docdb's ModifyDBInstance(DBInstanceIdentifier, NewDBInstanceIdentifier): a rename
            # of the record's id, which the engine keeps (a later get by the new one would 404)
            drop(name, required, "renames the record's id (ids are kept)")
            continue
        if op == "update" and pname.startswith("new_") and (pname[4:] in (
                *draft.fields, *plan.keys, "name") or f"old_{pname[4:]}" in given):
            name = pname[4:]  # gitlab update_label(new_name): renames the label's `name`
        fname = asm.add_field(entity, member or plan.renames.get(name, name),
                              schema["items"] if member else schema, description=text)
        if fname is None or (fname == "id" and not member):
            if required or fname is None:
                drop(name, required, "cannot be stored")
            continue
        role = "filter" if reads else "field"
        need = bool(required) and op in ("create", "send", "compute", "list", "search")
        within = reads and pname in PLACES  # a folder or prefix holds what is under it
        add(ParamSpec(name=pname, role=role, field=fname, description=text, required=need,
                      op="in" if member else "contains" if within else "eq"))
    if op == "update" and not dropped and {p.field for p in params if p.role == "field"} == {
            "tags"}:
        # iotfleethub's TagResource (POST /tags/{resourceArn}, tags): tags are added to the
        # resource's, never its whole map replaced
        asm.opaque(tool_name, plan.description or _describe(plan), inputs, record,
                   reason="adds tags to the record's (merges a map): the mapped update would "
                          "replace them", source=plan.source, writes=True)
        asm.tools[-1] = asm.tools[-1].model_copy(update={"rule": plan.rule})
        return
    if dropped:
        reason = (f"declared parameter{'s' if len(dropped) > 1 else ''} "
                  f"{', '.join(repr(d) for d in dropped)} ha{'ve' if len(dropped) > 1 else 's'} "
                  f"no role in the mapped {op}")
        asm.opaque(tool_name, plan.description or _describe(plan), inputs, record,
                   reason=reason, source=plan.source, writes=op not in ("list", "search", "get"))
        asm.tools[-1] = asm.tools[-1].model_copy(update={"rule": plan.rule})
        return
    if op == "search" and not any(p.role == "query" for p in params):
        op, rule = "list", f"{plan.rule} (no text query: filtered list)"
        # search_damsires(name): a search matches part of a name, never the whole only
        params = [p.model_copy(update={"op": "contains"}) if p.role == "filter" and p.op == "eq"
                  and asm.entity(entity).fields[p.field or p.name].type == "string"
                  and not asm.entity(entity).fields[p.field or p.name].enum
                  and not p.name.endswith(("id", "_key", "_code", "_arn", "_sid", "_uuid"))
                  else p for p in params]
    else:
        rule = plan.rule
    if upsert:  # Azure's PUT "Creates or updates a job agent", set_config_value(key, value)
        op, rule = "upsert", (rule if plan.upsert else
                              f"{rule.rsplit(' → ', 1)[0]} + creates or updates → upsert")
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
    asm.add_tool(ToolSpec(
        name=tool_name, description=plan.description or _describe(plan), entity=entity,
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
