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
from compoworld.compiler._rules import identifier, key_like, scope_like
from compoworld.compiler._semantic import singular
from compoworld.service._spec import ActionSpec, ParamSpec, ToolSpec

_LIMIT = {"limit", "per_page", "page_size", "pagesize", "max_results", "maxresults", "top",
          "size", "max", "max_items", "num_results", "results_per_page", "k", "top_k", "topk"}
_OFFSET = {"offset", "skip", "start", "start_index", "startindex"}
_SORT = {"sort", "sort_by", "order_by", "orderby", "sortby", "sort_field"}
_ORDER = {"order", "direction", "sort_order", "sort_dir", "sort_direction"}
_CONTROL = {"fields", "expand", "include", "format", "pretty", "pretty_print", "prettyprint",
            "alt", "key", "access_token", "callback", "quota_user", "oauth_token",
            "upload_protocol", "upload_type", "xgafv", "api_key", "apikey", "token", "page",
            "page_token", "pagetoken", "cursor", "next_token", "after", "before",
            "starting_after", "ending_before", "continuation_token", "embed", "select",
            "page_number", "pagenumber", "api_version", "version", "jsonp", "user_ip"}
_PAGING = {"page", "cursor", "start_cursor", "page_token", "pagetoken", "next_token",
           "next_page_token", "continuation_token", "after", "before", "starting_after",
           "ending_before", "page_number", "pagenumber", "next_cursor", "pagination_token",
           "offset_token", "marker", "next_marker", "start_key", "exclusive_start_key"}
"""Paging by a token or a page number, which the engine's offset paging cannot honour."""
_LIMITS = re.compile(r"(?:max|maximum)_(?:records|results|items|rows|entries|count|hits)|"
                     r"(?:records|results|items|rows|entries)_(?:max|limit)")
"""``max_records``: how many to answer, a page size, never a bound of a field."""
_OPTIONS = re.compile(r"(?:include|show|with|return|expand|fetch)_")
"""``include_hidden``, ``show_archived``: whether more is answered, never equality."""
_EXPRESSIONS = re.compile(r"(?:^|_)(?:filter|filters|formula|expression|jql|cql|sql|where)$|"
                          r"^filter_by")
"""``filter``, ``filter_by_formula``, ``jql``: a filter language, not a value to match."""
_PROTOCOL = {"signature", "sig", "devid", "dev_id", "api_signature", "hmac", "read_mask",
             "api_version", "apiversion", "client_secret", "app_secret", "auth", "auth_token",
             "authorization", "session_token", "nonce", "timestamp_signature"}
"""Request signing, credentials and versions of the wire protocol (ptv's ``devid`` +
``signature``, ``api-version``), required or not: on an OpenAPI query string they are the
protocol's, as headers are."""
_PRESENTATION = {"raw", "pretty", "debug", "verbose", "pass_through", "minify", "compact",
                 "human", "envelope", "suppress_response_codes"}
"""Options of how an answer is rendered or relayed (apideck's ``raw`` "include the raw
response, for debugging"), never of what it holds: transport, on an OpenAPI query string."""
_PLACES = {"path", "prefix", "dir", "directory", "folder", "parent_path"}
_DRY_RUNS = {"dry_run", "dryrun", "validate_only", "validateonly", "preview", "preview_only",
             "simulate", "what_if", "whatif", "check_only", "test_only"}
"""Flags that make a write change nothing (gitlab's ``dry_run`` "preview changes", Google's
``validateOnly``): the engine cannot honour them, so a write declaring one is simulated."""
_READ_OPS = ("list", "search", "get", "count", "summary", "compute")
_WRAPPED = {"body", "params", "payload", "data", "input", "inputs", "args",
            "arguments", "request", "changes", "updates"}
"""Names of one object input holding the values of a call, not a field of its record
(``fields`` / ``attributes`` / ``properties`` are often the record's own nested object:
an Airtable record is ``{id, fields: {...}}``)."""
_EDIT_LISTS = {"updates", "changes", "operations", "patches", "edits", "actions",
               "instructions", "ops"}
"""Names of an update's list of edit objects (an action and a value each, see ``_edits``)."""
_WIDENS = {"all", "everything", "recursive", "deep", "any"}
"""Booleans of a read that widen which records answer (gitlab's ``all``: "Return all
statuses, not only the latest ones"), never a field of the records."""


def _edits(items: Any) -> bool:
    """Whether list items are edits: each names its action (``{Action: INSERT | DELETE, ...}``,
    JSON Patch's ``op``), so the list is no value stored (an alert's ``actions`` is one)."""
    props = items.get("properties") if isinstance(items, dict) else None
    return isinstance(props, dict) and bool(
        {identifier(k) for k in props} & {"action", "op", "operation", "change_type"})


def _is_flag(schema: dict[str, Any]) -> bool:
    """A boolean, or a string that takes ``true`` / ``false`` (AWS query flags)."""
    if schema.get("type") == "boolean":
        return True
    enum = {str(v).lower() for v in schema.get("enum") or []}
    text = str(schema.get("description") or "").lower()
    return schema.get("type") in ("string", None) and (
        (bool(enum) and enum <= {"true", "false"}) or (
            not enum and bool(re.search(r"\b(?:true|false)\b", text))))


def _says_direction(schema: dict[str, Any]) -> bool:
    enum = {str(v).lower() for v in schema.get("enum") or []}
    if enum:
        return enum <= {"asc", "desc", "ascending", "descending"}
    return bool(re.search(r"\basc(ending)?\b.*\bdesc(ending)?\b",
                          str(schema.get("description") or ""), re.I))
_UPSERT = re.compile(r"\b(?:creates?|adds?|inserts?)\b[^.;]{0,80}?\bor (?:updates?|replaces?|"
                     r"overwrites?)\b|\b(?:create|add|insert)-or-(?:update|replace)\b|\bupserts?\b",
                     re.I)
"""A description saying the call creates a record or updates the existing one (AWS
``PutRemediationExceptions``: "adds a new exception or updates an existing"): an upsert, which
neither create (a duplicate) nor update (a 404) reproduces."""
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
    """Inputs naming the record by a natural key (a path, a name) instead of an id; beside an
    id, the inputs scoping it (its parents' ids), which the record must match."""
    text: str = ""
    """The source's whole description, when ``description`` is only its first sentence."""
    body: frozenset[str] = frozenset()
    """Inputs from the request body: the record's own values, never transport controls (an
    artifactregistry Tag's ``version`` is no API version)."""
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
    if op in ("create", "update") and _UPSERT.search(plan.text or plan.description or ""):
        asm.opaque(tool_name, plan.description, inputs, record, source=plan.source, writes=True,
                   reason=f"described as creating or updating (an upsert): the mapped {op} "
                          "would refuse or duplicate half of its calls")
        asm.tools[-1] = asm.tools[-1].model_copy(update={"rule": plan.rule})
        return
    given = {identifier(n) for n, _, _ in inputs}
    if op in ("update", "create") and any(
            f"old_{w}" in given and f"new_{w}" in given for w in ("string", "text", "str", "value",
                                                               "content")):
        asm.opaque(tool_name, plan.description, inputs, record, source=plan.source, writes=True,
                   reason="replaces text inside a value (old_* / new_*): no field is written "
                          "whole")
        asm.tools[-1] = asm.tools[-1].model_copy(update={"rule": plan.rule})
        return
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
        if one and (name in parents or name in plan.keys):
            # the key, or beside an id its scope: GET /projects/{project_id}/notes/{note_id}
            key = parents.get(name) or asm.add_field(entity, name, schema, description=text)
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
        if op not in _READ_OPS and identifier(name) in _DRY_RUNS:
            drop(name, required, "decides whether the call writes at all (a dry run)")
            continue
        items = schema.get("items") if schema.get("type") == "array" else None
        records_list = isinstance(items, dict) and (
            items.get("type") == "object" or bool(items.get("properties")))
        if reads and records_list:
            drop(name, required, "is a list of records (a batch), no value to match")
            continue
        if writes and records_list and _names_records_of(name, entity):
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
            add(ParamSpec(name=pname, role="option", type=_option_type(schema), description=text,
                          required=bool(required) or None))
            continue
        if plan.transport and name not in plan.body and (
                category == "control" or identifier(name) in _PROTOCOL or (
                not required and (identifier(name) in _PRESENTATION or (
                    _OPTIONS.match(identifier(name)) and schema.get("type") == "boolean")))):
            continue  # protocol, not operation (see ToolPlan.transport)
        if not plan.transport and identifier(name) in _PAGING and range_bound(
                name, schema) is None:
            drop(name, required, "pages by a token or page number (the engine pages by offset)")
            continue
        if category == "control" or (category == "query" and op != "search"):
            category = "value"  # an MCP tool's `key`, `format` or `page`, a message's `text`
        if category == "sort_by" and _says_direction(schema):
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
        if not (reads or writes):
            if one and plan.id_param and required and scope_like(name) and schema.get(
                    "type", "string") in ("string", "integer"):
                # servicediscovery GetInstance(ServiceId, InstanceId): the instance of that
                # service; the record must lie under it (404 otherwise), as a path parent does
                key = asm.add_field(entity, name, schema, description=text)
                if key and key != "id":
                    add(ParamSpec(name=pname, role="filter", field=key, required=True,
                                  description=text or f"The {key} the {entity} lies under."))
                    continue
            drop(name, required, f"not modelled for op {op!r}")
            continue
        if schema.get("type") == "object" and not schema.get("properties") and (
                pname in _WRAPPED or reads):
            # circleci's params: {}, firecrawl's update(id, body): the values wrapped in one
            # object, or an object to match whole: no field of the record
            drop(name, required, "is an object wrapping values, not a field of the record")
            continue
        if reads and schema.get("type") == "boolean" and pname in _WIDENS:
            drop(name, required, "widens which records answer (not a field to match)")
            continue
        if reads and pname.startswith(("exclude", "except", "without", "not_")):
            drop(name, required, "is an exclusion filter (not modelled)")
            continue
        if reads and not plan.transport and _LIMITS.fullmatch(pname):
            add(ParamSpec(name=pname, role="limit", description=text))  # max_records
            continue
        if reads and ((_OPTIONS.match(pname) and schema.get("type") == "boolean")
                      or _EXPRESSIONS.search(pname) or (pname in ("fields", "properties") and
                                                        schema.get("type") == "array")):
            drop(name, required, "says what to answer or holds a filter expression, not a "
                                 "value to match")
            continue
        if reads and pname.startswith("only_") and _is_flag(schema):
            # macie2's onlyAssociated: true narrows to associated accounts, false answers all
            drop(name, required, "narrows which records answer when true (no field to match)")
            continue
        if op == "update" and pname in _EDIT_LISTS and records_list and _edits(items):
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
        member = reads and _members(name, schema, draft.fields)
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
        if op == "update" and pname.startswith("new_") and (pname[4:] in (
                *draft.fields, *plan.keys, "name") or f"old_{pname[4:]}" in given):
            name = pname[4:]  # gitlab update_label(new_name): renames the label's `name`
        fname = asm.add_field(entity, member or name,
                              schema["items"] if member else schema, description=text)
        if fname is None or (fname == "id" and not member):
            if required or fname is None:
                drop(name, required, "cannot be stored")
            continue
        role = "filter" if reads else "field"
        need = bool(required) and op in ("create", "send", "compute", "list", "search")
        within = reads and pname in _PLACES  # a folder or prefix holds what is under it
        add(ParamSpec(name=pname, role=role, field=fname, description=text, required=need,
                      op="in" if member else "contains" if within else "eq"))
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


_LOWER = ("min", "minimum", "from", "since", "after", "start", "gte", "gt", "earliest",
          "oldest", "newer", "later")
_UPPER = ("max", "maximum", "to", "until", "before", "end", "lte", "lt", "latest", "newest",
          "older", "earlier")
_TIME_BASES = {"created": "created_at", "updated": "updated_at", "modified": "updated_at",
               "changed": "updated_at", "sent": "sent_at", "posted": "posted_at",
               "published": "published_at", "due": "due_date"}


def range_bound(name: str, schema: dict[str, Any]) -> tuple[str, str] | None:
    """(bounded field, comparison) of a range or time-window filter, or None.

    ``min_price`` / ``price_min`` / ``minimum_price`` → (``price``, ``gte``); ``max_*`` →
    ``lte``; ``MessageDate>`` / ``MessageDate<`` → ``gt`` / ``lt``; ``created_after`` /
    ``updated_since`` → (``created_at`` / ``updated_at``, ``gt`` / ``gte``); a bare ``since``
    / ``until`` bounds ``created_at``. Plain ``from`` / ``to`` (a route, a sender) and
    ``start`` / ``end`` alone are no bounds.
    """
    raw = name.strip()
    if raw.endswith((">=", "<=")):
        return identifier(raw[:-2], "f"), "gte" if raw.endswith(">=") else "lte"
    if raw.endswith((">", "<")) and len(raw) > 1:
        return identifier(raw[:-1], "f"), "gt" if raw.endswith(">") else "lt"
    if schema.get("type") in ("boolean", "array", "object"):
        return None
    parts = identifier(name, "f").split("_")
    if parts in (["since"], ["until"]):
        return "created_at", "gte" if parts == ["since"] else "lte"
    if parts in (["after"], ["before"]) and (
            schema.get("format") in ("date", "date-time")
            or re.search(r"\b(date|time|timestamp|ISO ?8601|YYYY)", str(schema.get(
                "description") or ""), re.I)):
        return "created_at", "gt" if parts == ["after"] else "lt"  # not a paging cursor
    if len(parts) < 2:
        return None
    head, tail, rest_head, rest_tail = parts[0], parts[-1], parts[1:], parts[:-1]
    for words, rest in ((head, rest_head), (tail, rest_tail)):
        if words in ("from", "to", "start", "end") and not (
                rest[-1:] in (["date"], ["time"], ["at"]) or rest[0] in _TIME_BASES):
            continue  # from_address, to_email, start_index: no bound
        lower, upper = words in _LOWER, words in _UPPER
        if not (lower or upper):
            continue
        base = "_".join(rest)
        base = _TIME_BASES.get(base, base)
        cmp = ("gt" if words in ("after", "gt", "newer", "later") else "gte") if lower else (
            "lt" if words in ("before", "lt", "older", "earlier") else "lte")
        return base, cmp
    return None


def _names_records_of(name: str, entity: str) -> bool:
    """Whether a list input is named for the records the tool writes (``mediaStreams`` of a
    ``media_stream``, ``transactions`` of a ``bank_transaction``), not records related to them
    (``RelatedOpsItems``, ``lineItemInvoices``: a qualifier word the entity lacks)."""
    words = identifier(name).split("_")
    words[-1] = singular(words[-1])
    own = entity.split("_")
    return words[-1] == own[-1] and set(words) <= set(own)


def _option_type(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    return kind if kind in ("string", "integer", "number", "boolean", "array", "object") else "string"


def _members(name: str, schema: dict[str, Any], fields: dict[str, Any]) -> str | None:
    """The field a plural list filter names its members of (``paths`` → ``path``, ``ids`` →
    ``id``, ``statuses`` → ``status``), or a singular one names when the record holds it as one
    value (``region``): records whose field is one of the values."""
    items = schema.get("items")
    if schema.get("type") != "array" or not isinstance(items, dict) or items.get(
            "type", "string") not in ("string", "integer", "number"):
        return None
    snake = identifier(name, "f")
    one = singular(snake.split("_")[-1])
    member = "_".join([*snake.split("_")[:-1], one])
    if member == snake:  # theracingapi's region=[gb, ire]: a scalar field's values
        known = fields.get(snake)
        return snake if known is not None and known.type != "array" else None
    return member if member == "id" or member in fields or key_like(member) else None


def _describe(plan: ToolPlan) -> str:
    what = plan.entity.replace("_", " ")
    return {"list": f"List {what} records.", "search": f"Search {what} records.",
            "get": f"Get a {what}.", "create": f"Create a {what}.", "update": f"Update a {what}.",
            "delete": f"Delete a {what}.", "count": f"Count {what} records.",
            "summary": f"Summarize {what} records.", "compute": f"Look up a {what}.",
            "send": f"Send a {what}.", "transition": f"{(plan.verb or 'change').title()} a {what}.",
            }.get(plan.op, plan.op)
