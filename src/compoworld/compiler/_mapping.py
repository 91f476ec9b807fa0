"""REST structure → operation: the decision for one OpenAPI operation and its emission.

:func:`map_operation` only decides (so the caller can cap the tools, preferring mapped ones);
:meth:`Operation.emit` then adds the entity fields, parameters and the tool to the assembler.
"""

from __future__ import annotations

import re

from compoworld.compiler._assemble import Assembler
from compoworld.compiler._operation import (
    QUALIFIERS,
    Operation,
    echoes_method,
    opid_verb,
    read_path,
)
from compoworld.compiler._param_reading import constant, param_category, protocol
from compoworld.compiler._rules import (
    COMPUTE_NOUNS,
    COMPUTE_VERBS,
    MESSAGE_FIELDS,
    MESSAGE_NOUNS,
    SEARCH_VERBS,
    SEND_NOUNS,
    TRANSITIONS,
    classify_verb,
    core_noun,
    entity_name,
    identifier,
    natural_keys,
    singular,
    split_verb,
)
from compoworld.compiler._shape_rules import (
    QUERY_NAMES,
    compute_plan,
    computed_read,
    holds_list,
    one_object_read,
    path_keys,
    read_inputs,
    subrecord_write,
)
from compoworld.compiler._tooling import ToolPlan

_QUERY_NAMES = QUERY_NAMES


_ID_SUFFIXES = ("id", "arn", "sid", "uuid", "identifier")
"""``<entity>_<suffix>`` names the parameter identifying a record in RPC-style APIs."""


def _id_in_params(op: Operation, entity: str) -> str | None:
    names = {identifier(p["name"]): p["name"] for p in op.params if p["required"]}
    names.update({identifier(k): k for k in op.body if k in op.body_required})
    stems = dict.fromkeys([entity, entity.split("_")[0], entity.split("_")[-1]])  # ordered
    for candidate in ("id", *(f"{stem}_{suffix}" for stem in stems for suffix in _ID_SUFFIXES)):
        if candidate in names:
            return names[candidate]
    return None




_OWN_IDS = ("id", "sid", "uuid", "guid", "key", "number", "code", "name", "slug")


def _own_id(param: str, noun: str) -> bool:
    """Whether a path parameter names a record of ``noun`` itself (``{id}``, ``{AccountId}``
    after ``/accounts``, ``{partNumber}`` after ``/Part``): then an array answer is an envelope
    around that one record (Xero's ``{"ExpenseClaims": [...]}``), not a filtered list."""
    name, entity = identifier(param), entity_name(noun)
    stems = {entity, entity.split("_")[-1], identifier(noun)}
    return name in _OWN_IDS or name in stems or any(
        name == f"{stem}_{suffix}" for stem in stems for suffix in _OWN_IDS)


def _plural(word: str | None) -> bool:
    last = identifier(str(word or "")).split("_")[-1]
    return len(last) > 3 and singular(last) != last


_GROUPS = {"resource", "source", "activity"}
"""Plurals that only group the collections under them (``/data-sources/checkpoint-firewalls``,
``/resources/campaigns``, ``/activities/calls``): before another plural they name no relation."""


def _grouping(word: str | None) -> bool:
    return singular(identifier(str(word or "")).split("_")[-1]) in _GROUPS


def _by_key(word: str) -> bool:
    """``by_ids``, ``by_square``, ``by_country``: a literal saying how a listing is selected
    (``/conversations/byIds``, ``/safety-rated-locations/by-square``), not a resource."""
    words = word.split("_")
    return len(words) > 1 and words[0] == "by"


def _keyed_noun(chain: list[list[str | None]]) -> bool:
    """Whether the path's trailing parameters follow a noun that has a parameter itself."""
    start = len(chain) - 1
    while start > 0 and not chain[start][0]:
        start -= 1
    return bool(chain[start][0] and chain[start][1] and all(c[1] for c in chain[start:]))


_PARTICLES = {"in", "out", "up", "off", "on"}
"""Particles making a phrasal verb of a word (``check_in``, ``check_out``): a compute verb
followed by one names another action."""

_CONVERSION = re.compile(r"^[A-Za-z]+[-_]to[-_][A-Za-z]+$|^[a-z]+To[A-Z][a-z]+$")
"""A path word naming a conversion: ``text-to-speech``, ``speech_to_text``, ``htmlToPdf``."""


def map_operation(op: Operation, asm: Assembler) -> ToolPlan | None:
    """The tool plan of an operation, or None (``op.reason`` says why it stays simulated).

    An update must have something to update: a PUT / PATCH / POST whose body has no fields
    (none, a list, a JSON-patch document) and no value inputs is a relation or a bulk call
    (``PUT /user/follows/people/{id}``), not an update.
    """
    plan = _map(op)
    if plan is not None and plan.op == "update" and not op.body and not read_inputs(op)[0]:
        op.reason = (f"{op.method} {plan.noun!r} without fields to update (no body, a list or a "
                     "patch document: a relation or a bulk write) has no rule")
        return None
    return plan


def _map(op: Operation) -> ToolPlan | None:
    chain, verb = read_path(op)
    op.chain = chain
    if len(chain) >= 2 and not chain[-1][0] and verb is None and _keyed_noun(chain):
        return path_keys(op, chain)
    if not chain or not chain[-1][0]:
        op.reason = "the path names no resource"
        return None
    conversion = next((str(c[0]) for c in chain if c[0] and _CONVERSION.match(str(c[0]))), None)
    if conversion:  # POST /v1/text-to-speech/{voice_id}: speech made from text, no text record
        op.reason = f"{conversion!r} names a conversion (one form into another), no resource"
        return None
    last_word = identifier(str(chain[-1][0]))
    if (op.many and (last_word in QUALIFIERS or _by_key(last_word)) and not chain[-1][1]
            and len(chain) > 1 and chain[-2][0] and not chain[-2][1]
            and (op.method == "GET" or verb is not None)):  # not POST /messages/failed
        chain = [*chain[:-2], [chain[-2][0], None]]  # /users/{id}/media/recent: the media
        op.chain = chain
    if (len(chain) > 1 and chain[-2][0] and not chain[-2][1] and _plural(chain[-2][0])
            and _plural(chain[-1][0]) and not _grouping(chain[-2][0])):
        # /reposts/playlists/{id}, /likes/tracks/{id}: a repost of a playlist, not the playlist
        chain = [*chain[:-2], [f"{chain[-2][0]}_{chain[-1][0]}", chain[-1][1]]]
        op.chain = chain
    noun, id_param = str(chain[-1][0]), chain[-1][1]
    raw = identifier(noun).split("_")
    if id_param and raw[-1] in SEARCH_VERBS | {"search"} and op.method == "GET":
        op.reason = f"a search by the path parameter {id_param!r} has no rule"
        return None
    noun = "_".join(core_noun(raw)) or identifier(noun)
    if id_param and "by" in raw[1:] and singular(noun) != noun:
        id_param = None  # /PlayersByTeam/{teamid}: the players of a team, a filtered list
    filtered_by = None
    if id_param and op.method == "GET" and op.many and op.segments[-1].startswith("{") and (
            verb is None or classify_verb(verb) in ("summary", "count")) and not _own_id(
            id_param, noun):
        # /Players/{team}, /TeamSeasonStats/{season} answering an array: a list filtered by
        # the parameter, never the get of one record
        last = identifier(id_param).split("_")[-1]
        if singular(last) != last and singular(last) in (*_OWN_IDS, "identifier"):
            op.reason = (f"the path parameter {id_param!r} names several records (a list of "
                         "ids in one string) and has no rule")
            return None
        filtered_by, id_param, verb = id_param, None, None
    entity = entity_name(noun)
    parents = [(str(p), entity_name(str(n))) for n, p in chain[:-1] if n and p]
    plan = ToolPlan(op="", entity=entity, rule="", source=op.source, noun=noun,
                    id_param=id_param, parents=parents, method=op.method,
                    query_names=_QUERY_NAMES, transport=True)
    writes = op.method != "GET"
    if writes and op.body_kind == "other":
        op.reason = f"non-JSON request body ({op.body_media}) is not modelled"
        return None
    words = set(identifier(noun).split("_")) | {verb or ""}
    path_words = {w for c in chain if c[0] for w in identifier(str(c[0])).split("_")}
    if verb is None and op.rpc:
        op.reason = (f"RPC operation {op.segments[-1]!r}: verb {split_verb(op.segments[-1])[0]!r} "
                     "has no rule")
        return None
    if verb is None and op.singleton and not id_param:
        return _singleton(op, plan)
    if verb is None:
        kind = "item" if id_param else "collection"
        last_words = set(identifier(str(chain[-1][0])).split("_"))
        if last_words & _PARTICLES:  # check_in, sign_up: a phrasal verb, never the check verb
            last_words -= COMPUTE_VERBS
        if (kind == "collection" and op.method == "GET"
                and (words & COMPUTE_NOUNS or path_words & COMPUTE_VERBS)) or (
                op.method == "POST" and last_words & COMPUTE_VERBS and not op.many):
            return compute_plan(op, plan, noun)  # /shipping/calculate, /lookup/{country}
        if op.method == "POST" and kind == "collection" and identifier(noun) in MESSAGE_NOUNS:
            plan.op, plan.verb = "send", "send"
            plan.rule = f"action:POST {identifier(noun)} → send {entity}"
            return plan
        rest = {("GET", "collection"): ("list", "rest:GET collection → list"),
                ("GET", "item"): ("get", "rest:GET item → get"),
                ("POST", "collection"): ("create", "rest:POST collection → create"),
                ("PUT", "item"): ("update", "rest:PUT|PATCH item → update"),
                ("PATCH", "item"): ("update", "rest:PUT|PATCH item → update"),
                ("POST", "item"): ("update", "rest:POST item → update"),
                ("DELETE", "item"): ("delete", "rest:DELETE item → delete")}
        if (op.method, kind) not in rest:
            return subrecord_write(op, plan)
        plan.op, plan.rule = rest[(op.method, kind)]
        named_words = identifier(re.split(r"[_.#/:]", op.operation_id)[-1]).split("_")
        if op.method == "PUT" and "update" not in named_words and "create" in (
                classify_verb(opid_verb(op) or ""), classify_verb(named_words[0])):
            # Azure's SubscriptionDefinitions_Create: PUT .../{name} creates the record the
            # path names (a client-chosen id); the mapped update would refuse it (404)
            op.reason = (f"PUT {op.operation_id!r} creates the {entity} its path names (a "
                         "client-chosen id), which neither create nor update reproduces")
            return None
        if op.method == "POST":  # POST is where RPC hides: the operation id's verb decides
            named = opid_verb(op)
            family = classify_verb(named) if named else None
            if named in COMPUTE_VERBS and not op.many:  # calculate_rates, validateAddress
                return compute_plan(op, plan, noun)
            if named and family is None and named not in TRANSITIONS:
                op.reason = f"POST operation {op.operation_id!r}: verb {named!r} has no rule"
                return None
            if (family is not None and family != plan.op) or named in TRANSITIONS:
                verb = named
        if verb is None:
            mapped = _rest(op, plan, noun)
            if mapped is not None and filtered_by:
                mapped.rule = f"rest:GET item answering an array → list filtered by {filtered_by}"
            return mapped
    if op.get_reads and classify_verb(verb) in ("create", "update", "delete", "send"):
        op.reason = f"GET whose path or name says {verb!r} (a write) has no rule"
        return None
    return _verb(op, plan, verb)


def _rest(op: Operation, plan: ToolPlan, noun: str) -> ToolPlan | None:
    last = identifier(noun).split("_")[-1]
    if plan.op == "list" and op.record and not op.many:
        return one_object_read(op, plan, noun)
    if plan.op == "list" and not op.record and singular(last) == last:
        op.reason = f"GET {noun!r}: a singular name without a response schema (a singleton?)"
        return None
    named = opid_verb(op) if plan.op == "create" else None
    if named and classify_verb(named) == "create" and op.body:
        plan.verb, plan.rule = named, f"rpc:verb {named} → create"  # addShipment, createPad
    elif plan.op == "create" and singular(last) == last and op.method_paths.get("GET") is None:
        if last in COMPUTE_NOUNS and not op.many:  # POST /shipping/quote: a question asked
            return compute_plan(op, plan, noun)
        op.reason = (f"POST to {noun!r}, a singular name (an RPC call, not a collection), "
                     "has no rule")
        return None
    if plan.op == "list" and any(identifier(p["name"]) in _QUERY_NAMES for p in op.params):
        plan.op, plan.rule = "search", "rest:GET collection + text query → search"
    return plan


def _singleton(op: Operation, plan: ToolPlan) -> ToolPlan | None:
    """A path whose GET answers one object (``/settings``, ``/users/{id}/profile``): get /
    update / delete act on that record, named by its parents (or the service's one record)."""
    family = {"GET": "get", "PUT": "update", "PATCH": "update", "POST": "update",
              "DELETE": "delete"}[op.method]
    inputs = [p["name"] for p in op.params if p["in"] == "query"
              and param_category(p["name"], _QUERY_NAMES) != "control"]
    if inputs and op.method == "GET":
        values, paging = read_inputs(op)
        if paging or holds_list(op.record):
            op.reason = f"a singleton {plan.noun!r} read with paging inputs {paging} (a list in " \
                        "an envelope not read) has no rule"
            return None
        return computed_read(op, plan, plan.noun, values)
    named = "post" if echoes_method(op) else opid_verb(op)  # postMatrix: no update
    if op.method == "POST" and (named or "update") not in ("update", "set", "save"):
        op.reason = f"POST on the singleton {plan.noun!r}: operation {op.operation_id!r} is not " \
                    "an update"
        return None
    plan.op, plan.rule = family, f"rest:{op.method} singleton → {family}"
    return plan


def _verb(op: Operation, plan: ToolPlan, verb: str) -> ToolPlan | None:
    entity, id_param = plan.entity, plan.id_param
    family = classify_verb(verb)
    last = plan.noun.split("_")[-1]
    if family == "get" and not id_param and singular(last) != last:
        family = "list"  # DescribeEvents, GetResourcePolicies: a plural read is a listing
    if family is None and verb in COMPUTE_NOUNS:
        return compute_plan(op, plan, verb)
    if family is None:
        op.reason = f"RPC verb {verb!r} has no rule"
        return None
    words = identifier(op.segments[-1].strip("{}") if op.segments else "").split("_")
    if verb in ("add", "remove") and {"to", "from"} & set(words[1:]):
        # AddRoleToInstanceProfile, AddSourceIdentifierToSubscription: an existing record
        # attached to another, never a new role (nor one deleted)
        op.reason = f"{verb!r} of one record to or from another (a relation) has no rule"
        return None
    if family in ("get", "update", "delete", "transition") and not id_param:
        plan.id_param = id_param = _id_in_params(op, entity)
        if not id_param and family == "get" and set(plan.noun.split("_")) & COMPUTE_NOUNS:
            return compute_plan(op, plan, plan.noun)
        # Keys come from the query or body (AWS-style RPC); a path parameter already names
        # the parent the path says it names, not this record.
        given = {identifier(p["name"]) for p in op.params}
        required = [p["name"] for p in op.params  # (AWS Query's Action= is no key)
                    if p["required"] and p["in"] != "path" and not constant(p["schema"])
                    and not protocol(p["name"], p["schema"], given)] + op.body_required
        keys = None if id_param else natural_keys(required, family)
        if keys and family == "update" and verb in ("put", "set", "upsert", "save"):
            op.reason = (f"{verb!r} by key {', '.join(keys)} creates the record when absent (an "
                         "upsert), which an update refuses")
            return None
        if keys and op.rpc and singular(last) != last:  # (a REST collection is plural)
            # DisableAvailabilityZonesForLoadBalancer(LoadBalancerName, AvailabilityZones),
            # AssignPrivateIpAddresses(NetworkInterfaceId, ...): zones taken off a load
            # balancer, addresses added to an interface, never one record's status or values
            op.reason = f"{verb!r} of several {plan.noun} by key (a plural) has no rule"
            return None
        if keys:
            plan.keys, plan.op, plan.verb = keys, family, verb
            if family == "transition":
                plan.target = TRANSITIONS[verb]
                plan.rule = f"action:verb {verb} by key {', '.join(keys)} → transition " \
                            f"status={plan.target}"
            else:
                plan.rule = f"rpc:verb {verb} by key {', '.join(keys)} → {family}"
            return plan
        if not id_param:
            op.reason = f"{verb!r} names no parameter identifying the {entity}"
            return None
    if family == "send" and id_param:  # send an invoice, a draft: it becomes "sent"
        family, plan.target = "transition", "sent"
    elif family == "send" and not (set(plan.noun.split("_")) & SEND_NOUNS
                                   or {identifier(k) for k in op.record} & MESSAGE_FIELDS):
        op.reason = f"{verb!r} of {plan.noun!r}, which is no message, has no rule"
        return None
    elif family == "transition":
        plan.target = TRANSITIONS[verb]
    if family in ("list", "search", "create", "count", "summary") and id_param:
        op.reason = f"{verb!r} on one {entity} (a sub-resource without its own path) has no rule"
        return None
    plan.op, plan.verb = family, verb
    plan.rule = {"transition": f"action:verb {verb} → transition status={plan.target}",
                 "send": f"action:verb {verb} → send {entity}",
                 "count": "action:count → count", "summary": f"action:verb {verb} → summary",
                 }.get(family, f"rpc:verb {verb} → {family}")
    if family == "list" and classify_verb(verb) == "get":
        plan.rule = f"rpc:verb {verb} + plural {plan.noun} → list"
    return plan
