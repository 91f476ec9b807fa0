"""Mappings decided by the shape of an operation rather than by its verb: one-object reads (a
sub-record of a parent, or a computation of value inputs), writes without an id (a sub-record,
or a collection PUT naming the record in its body), records named by two path parameters, and
the seeded ``compute`` lookups. :mod:`._mapping` calls these.
"""

from __future__ import annotations

from typing import Any

from compoworld.compiler._operation import Operation
from compoworld.compiler._param_reading import param_category
from compoworld.compiler._rules import (
    ARITHMETIC,
    SUBRECORD_NOUNS,
    core_noun,
    entity_name,
    identifier,
    singular,
)
from compoworld.compiler._tooling import ToolPlan

QUERY_NAMES = {"q", "query", "search", "term", "keyword", "keywords", "text", "search_term",
               "search_query"}
"""Parameter names of a text query (``search`` instead of ``list``)."""

_PAGING = ("limit", "offset", "query", "sort_by", "order")
"""Input categories of a listing (:func:`param_category`): a read taking one is a list."""


def read_inputs(op: Operation) -> tuple[list[str], list[str]]:
    """(value inputs, paging / sort / text-query inputs) among the query parameters."""
    values, paging = [], []
    for p in op.params:
        category = param_category(p["name"], QUERY_NAMES) if p["in"] == "query" else "path"
        if category == "value":
            values.append(p["name"])
        elif category in _PAGING:
            paging.append(p["name"])
    return values, paging


_PRIMITIVE = ("string", "integer", "number", "boolean")


def holds_list(record: dict[str, dict[str, Any]]) -> bool:
    """Whether one object answered holds an array of records (objects, or ``$ref``s to them):
    a list in an envelope."""
    for schema in record.values():
        items = schema.get("items") if isinstance(schema, dict) else None
        if isinstance(items, dict) and items and items.get("type") not in _PRIMITIVE:
            return True
    return False


def one_object_read(op: Operation, plan: ToolPlan, noun: str) -> ToolPlan | None:
    """A GET answering one object on a name that is not a singular resource: a list in an
    envelope (simulated), a function of value inputs (compute), or the parent's one record."""
    values, paging = read_inputs(op)
    if paging or holds_list(op.record):
        op.reason = (f"GET {noun!r} returns one object, not a collection: it holds a list "
                     "(an envelope not read) or takes paging inputs")
        return None
    if values:
        return computed_read(op, plan, noun, values)
    if not plan.parents and identifier(noun) not in SUBRECORD_NOUNS:
        # /system/limits: the service's one "limits" record, named in the plural so that it
        # never shares an entity with a collection of "limit" records
        plan.entity, plan.op, plan.rule = identifier(noun), "get", "rest:GET singleton → get"
        return plan
    plan.op, plan.rule = "get", f"rest:GET sub-record {identifier(noun)} → get"
    return plan


_OPTIONS = {"raw", "verbose", "debug", "lang", "locale", "language", "units", "unit", "pretty",
            "mode", "view", "type", "version", "detail", "details", "full", "scope"}
_OPTION_PREFIXES = ("include", "with_", "show", "exclude", "is_", "has_", "use_", "return_",
                    "expand", "fields_")


def _option(name: str) -> bool:
    return identifier(name) in _OPTIONS or identifier(name).startswith(_OPTION_PREFIXES)


def _question(op: Operation, values: list[str]) -> list[str]:
    """The inputs that ask a question (``currency_from``, ``lat``), not presentation options
    (``raw``, ``include_details``) nor other flags."""
    schemas = {p["name"]: p["schema"] for p in op.params}
    return [v for v in values if schemas.get(v, {}).get("type") != "boolean" and not _option(v)]


def computed_read(op: Operation, plan: ToolPlan, noun: str, values: list[str]
                   ) -> ToolPlan | None:
    inputs = {identifier(v) for v in values}
    scalars = [k for k, v in op.record.items() if identifier(k) not in inputs
               and isinstance(v, dict) and v.get("type") in _PRIMITIVE]
    if not scalars:  # /movieupdates?since= answers {movies: [ids]}: a listing, no value
        op.reason = f"GET {noun!r} with inputs {values} answers no value, only lists (a " \
                    "listing, not a computation) has no rule"
        return None
    if not _question(op, values):
        required = [p["name"] for p in op.params if p["required"] and p["name"] in values]
        flags = [v for v in values if not _option(v)]  # cart.disconnect?delete_bridge=true
        if required or flags or (not plan.parents and not op.singleton
                        and identifier(noun) not in SUBRECORD_NOUNS):
            op.reason = f"GET {noun!r} with only option inputs {values} (one object, not a " \
                        "function of its inputs) has no rule"
            return None
        plan.op = "get"  # presentation options (raw, include_details) are dropped, with a warning
        plan.rule = ("rest:GET singleton → get" if op.singleton
                     else f"rest:GET sub-record {identifier(noun)} → get")
        return plan
    computed = compute_plan(op, plan, noun)
    if computed is not None:
        computed.rule = f"compute:singleton {identifier(noun)} read with inputs → compute"
    return computed


def _id_in_body(op: Operation, entity: str) -> str | None:
    """The body field naming the record a collection-level PUT updates (``id``, ``userId``)."""
    names = {identifier(k): k for k in op.body}
    stems = dict.fromkeys([entity, entity.split("_")[-1]])
    for candidate in ("id", *(f"{stem}_id" for stem in stems)):
        if candidate in names and op.body[names[candidate]].get("type") in ("string", "integer"):
            return names[candidate]
    return None


def subrecord_write(op: Operation, plan: ToolPlan) -> ToolPlan | None:
    """PUT / PATCH / DELETE without an id on the one record of a parent (``PUT
    /accounts/{id}/preferences``, ``PATCH /account/settings``); bulk writes stay simulated."""
    noun = identifier(plan.noun)
    last = noun.split("_")[-1]
    one = singular(last) == last or noun in SUBRECORD_NOUNS
    why = f"{op.method} on a collection path (bulk or singleton write) has no rule"
    body_id = _id_in_body(op, plan.entity)
    if op.method in ("PUT", "PATCH") and body_id:  # PUT /users {"userId": ...}
        plan.op, plan.id_param = "update", body_id
        plan.rule = f"rest:{op.method} collection + body id {identifier(body_id)} → update"
        return plan
    listed = op.method_paths.get("GET") and noun not in SUBRECORD_NOUNS  # GET lists: bulk write
    if not one or listed or (not plan.parents and noun not in SUBRECORD_NOUNS):
        op.reason = why
        return None
    if op.method in ("PUT", "PATCH") and op.body_kind is not None and op.body:
        plan.op, plan.rule = "update", f"rest:PUT|PATCH sub-record {noun} → update"
        return plan
    if op.method == "DELETE" and not op.body:
        plan.op, plan.rule = "delete", f"rest:DELETE sub-record {noun} → delete"
        return plan
    op.reason = why
    return None


def path_keys(op: Operation, chain: list[list[str | None]]) -> ToolPlan | None:
    """``/entries/{lang}/{word}``, ``/flag-statuses/{project}/{env}/{flag}``: a record named by
    the path parameters that follow its noun."""
    start = len(chain) - 1
    while start > 0 and not chain[start][0]:
        start -= 1
    noun = identifier(str(chain[start][0]))
    noun = "_".join(core_noun(noun.split("_"))) or noun
    keys = [str(c[1]) for c in chain[start:]]
    if len(noun) < 3:
        op.reason = "the path names no resource"
        return None
    plan = ToolPlan(op="", entity=entity_name(noun), rule="", source=op.source, noun=noun,
                    parents=[(str(p), entity_name(str(n))) for n, p in chain[:start] if n and p],
                    method=op.method, query_names=QUERY_NAMES, keys=keys, transport=True)
    family = {"GET": "list" if op.many else "get", "PUT": "update", "PATCH": "update",
              "DELETE": "delete", "POST": "create"}.get(op.method)
    if family is None or (family == "get" and not op.record) or (
            family in ("update", "create") and not op.body):
        op.reason = f"{op.method} on {noun!r} named by path parameters {keys} has no rule"
        return None
    last = noun.split("_")[-1]
    if family == "get" and singular(last) == last and set(op.method_paths) == {"GET"}:
        # /phoneCodeGeo/{firstName}/{lastName}/{phoneNumber}/{country}: a function of its
        # inputs named by a singular noun with no write beside it, not a stored record
        computed = compute_plan(op, plan, noun)
        if computed is not None:
            computed.keys = []
        return computed
    if family in ("list", "create"):  # the keys filter the list / are fields of the record
        plan.keys = []
    plan.op, plan.rule = family, f"rest:{op.method} item by path keys {', '.join(keys)} → {family}"
    return plan


_UPLOADS = {"bulk", "batch", "upload", "uploads", "import", "imports", "ingest"}
"""Words of an operation that sends data in to be stored: never a question asked."""


def compute_plan(op: Operation, plan: ToolPlan, noun: str) -> ToolPlan | None:
    words = set(identifier(op.operation_id or noun).split("_"))
    if words & ARITHMETIC:
        op.reason = "arithmetic needs a real implementation, not a seeded lookup"
        return None
    if words & _UPLOADS or any(isinstance(v, dict) and v.get("format") == "binary"
                               for v in op.body.values()):
        # walmart's POST /v3/feeds, priceBulkUploads(feedType, file): the `price` in its name
        # asks nothing; it uploads a file of prices (a write), never a seeded lookup
        op.reason = f"a {noun} upload (a bulk write) is no lookup"
        return None
    if not op.record or op.many:
        op.reason = f"a {noun} lookup without a typed single-object response"
        return None
    if not op.params and not op.body:
        op.reason = f"a {noun} lookup without inputs (a singleton, not a function of inputs)"
        return None
    plan.op, plan.rule = "compute", f"compute:{identifier(noun)} → compute"
    return plan
