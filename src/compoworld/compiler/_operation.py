"""One OpenAPI operation as the compiler reads it: its path as a chain of resources, the verb
its path or operation id carries, and the name of the tool it becomes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from compoworld.compiler._assemble import Assembler
from compoworld.compiler._rules import (
    COMPUTE_VERBS,
    TRANSITIONS,
    classify_verb,
    identifier,
    plural,
    singular,
    split_verb,
)
from compoworld.compiler._tooling import ToolPlan, emit_plan

_BARE_VERBS = {"get", "edit", "update", "delete", "remove", "view", "show"}
"""Bare verbs that sit between a collection and its id: ``/Conversations/Edit/{id}``."""
_ITEM_FAMILIES = {"GET": "get", "PUT": "update", "PATCH": "update", "DELETE": "delete"}
"""What a method does to an item; a name's verb that disagrees is part of the noun."""
QUALIFIERS = {"recent", "latest", "popular", "top", "trending", "upcoming", "past", "active",
              "featured",
              # a state or scope of the records (/matches/running, /gists/starred, /boxes/incoming)
              "running", "pending", "current", "future", "completed", "failed", "public",
              "starred", "hidden", "unread", "incoming", "outgoing", "inbound", "saved",
              "archived", "flagged", "favorite", "available", "recommended", "advertised",
              "issued", "delivered", "shipped", "all",
              # the one of them that comes first, or the day's (/logos/main, /results/today)
              "main", "primary", "today", "yesterday", "tomorrow",
              # a representation of the same records (/events/simple, /employees/paged)
              "simple", "detailed", "expanded", "full", "paged"}
"""Words that qualify a listing (``/media/recent``, ``/comments/recent/{type}``): adjectives
naming a subset or a form of the records, never a resource of their own."""
_CREATE_OR_UPDATE = re.compile(r"(?:^|_)(?:create|add|insert|put)_or_(?:update|replace)(?:_|$)"
                               r"|(?:^|_)upsert(?:_|$)")
"""An operation id naming both a create and an update (``..._CreateOrUpdate``)."""
_CALLER = {"me", "mine", "self", "my"}
"""Literals standing for the caller's own record where an id would be: ``/carts/mine``,
``/users/self/feed``. The seeded world has one caller, so they scope nothing."""


@dataclass
class Operation:
    """One OpenAPI operation, its schemas resolved."""

    method: str
    path: str
    place: str
    segments: list[str]
    operation_id: str
    summary: str
    params: list[dict[str, Any]]
    dropped: list[str]
    body_kind: str | None
    body_media: str | None
    body: dict[str, dict[str, Any]]
    body_required: list[str]
    record: dict[str, dict[str, Any]]
    many: bool
    singleton: bool = False
    """A GET on this path answers one object: the path is one record, not a collection."""
    rpc: bool = False
    """The path is one RPC name (AWS ``#X-Amz-Target=``): never a REST collection."""
    method_paths: dict[str, str] = field(default_factory=dict)
    """Other methods on the same path (``{"GET": "/pets"}``): a GET makes it a collection."""
    reason: str = ""
    chain: list[list[str | None]] = field(default_factory=list)
    text: str = ""
    """The operation's whole summary and description, which rules read (an upsert says so)."""

    @property
    def source(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def get_reads(self) -> bool:
        """Whether the method says the call only reads: a GET, except an AWS Query-protocol
        action (``GET /#Action=CreateLoadBalancer``), where GET and POST carry the same call in
        the query string and form, so the action's name alone says what it does."""
        return self.method == "GET" and "#Action=" not in self.path

    def emit(self, asm: Assembler, plan: ToolPlan | None) -> None:
        inputs = [(p["name"], p["schema"], p["required"]) for p in self.params] + [
            (k, v, k in self.body_required) for k, v in self.body.items()]
        if plan is None:
            # two simulated operations may read the same (elevenlabs' text_to_speech and its
            # .../stream): neither is lost to the name they share
            name, taken, n = tool_name(self, None), {t.name for t in asm.tools}, 2
            base = name
            while name in taken:
                name, n = f"{base}_{n}", n + 1
            asm.opaque(name, self.summary or f"{self.method} {self.path}", inputs, self.record,
                       reason=self.reason, source=self.source, writes=self.method != "GET")
            return
        plan.name = tool_name(self, plan)
        plan.description, plan.text = self.summary, self.text
        plan.body = frozenset(self.body)
        plan.path = frozenset(p["name"] for p in self.params if p["in"] == "path")
        if _CREATE_OR_UPDATE.search(identifier(self.operation_id or "")):
            # Azure's ConfigurationAssignments_CreateOrUpdate: an upsert by its id (the
            # description seldom says so); the check on the text then keeps it simulated
            plan.text = f"{plan.text or plan.description} (creates or updates)".strip()
        emit_plan(asm, plan, inputs, self.record)


def _qualifies(seg: str, chain: list[list[str | None]], inner_read: bool) -> bool:
    """Whether a literal after a collection only qualifies it: the caller's own record
    (``/carts/mine``) or, inside a read's path, a kind of listing (``/comments/recent/{type}``:
    comments). Such a literal names no resource of its own."""
    if not chain or not chain[-1][0] or chain[-1][1] is not None:
        return False
    return seg.lower() in _CALLER or (inner_read and identifier(seg) in QUALIFIERS)


def read_path(op: Operation) -> tuple[list[list[str | None]], str | None]:
    """Resources along the path as [noun, id param] pairs, and a trailing verb if any."""
    chain: list[list[str | None]] = []
    chain_tail: list[list[str | None]] = []
    verb = None
    for i, seg in enumerate(op.segments):
        last = i == len(op.segments) - 1
        if ":" in seg and last:  # Google custom method: {name}:cancel, topics:publish
            seg, custom = seg.rsplit(":", 1)
            verb, rest = split_verb(identifier(custom))
            if rest:  # {resource}:getIamPolicy acts on a sub-record: the iam_policy
                chain_tail = [["_".join(rest), None]]
        if seg.startswith("{"):
            pname = seg.strip("{}").lstrip("+")
            if chain and chain[-1][1] is None:
                chain[-1][1] = pname
            else:
                chain.append([None, pname])
        elif seg and not _qualifies(seg, chain, op.method == "GET" and not last):
            chain.append([seg, None])
    chain += chain_tail
    for i in range(len(chain) - 1, 0, -1):
        word = identifier(str(chain[i][0] or ""))
        if (verb is None and chain[i][0] and (word in TRANSITIONS or word in _BARE_VERBS)
                and chain[i - 1][0] and chain[i - 1][1] is None and chain[i][1]):
            verb = word  # /OptionalConversations/Edit/{conversationId}
            chain[i - 1][1] = chain[i][1]
            del chain[i]
            break
    literals = [c for c in chain if c[0]]
    if verb is None and literals:
        tail = literals[-1]
        first, rest = split_verb(str(tail[0]))  # raw: PascalCase tells
        known = bool(classify_verb(first) or first in TRANSITIONS)
        if tail is chain[-1] and not rest and known and len(chain) > 1 and tail[1] is None:
            verb = first  # /pads/get, /orders/{id}/cancel, /messages/send
            chain.pop()
        elif rest and known and not (op.get_reads and _writes(first)) and not (
                tail[1] and _ITEM_FAMILIES.get(op.method, classify_verb(first))
                not in (classify_verb(first), "list")) and not _read_as_noun(op, chain, tail, rest):
            verb, tail[0] = first, "_".join(rest)  # /createPad, /GetPostAndParent/{id}
            # (not DELETE /upload-tokens/{id}: a method on an item names the operation)
    if (not chain or chain[-1][0] is None) and op.operation_id:
        parts = [p for p in op.operation_id.replace("-", ".").split(".") if p]
        if len(parts) >= 2:  # Google: pubsub.projects.topics.get
            noun = identifier(parts[-2])
            named, rest = split_verb(identifier(parts[-1]))
            if rest and classify_verb(named):  # accounts.updateNotifications: a sub-record
                noun = "_".join(rest)
            chain = [[noun, chain[-1][1] if chain else None]]
            verb = verb or (named if rest and classify_verb(named) else identifier(parts[-1]))
    return chain, verb


def _read_as_noun(op: Operation, chain: list[list[str | None]], tail: list[str | None],
                  rest: list[str]) -> bool:
    """Whether a literal holding a verb word is one noun for this method: a plural collection
    starting with a write verb whose path has a GET (``/upload-tokens``, ``/documentSetVersions``:
    the GET reads it as a noun, :func:`_writes`, so a POST there creates one of those, under the
    entity of the GET and the item paths), or a name ending in a read verb where the operation
    id says a write (``POST /users/me/calendarList``, ``calendar.calendarList.insert``: it
    inserts into the calendar list; a POST ``/distance_query`` or ``/retro-list`` stays a read)."""
    words = identifier(str(tail[0])).split("_")
    first, last = split_verb("_".join(words))[0], rest[-1]
    named = opid_verb(op)
    if words[-1] == first and classify_verb(first) in ("list", "get") and named and _writes(named):
        return True
    return (tail is chain[-1] and tail[1] is None and op.method != "GET"
            and "#Action=" not in op.path  # a Query action's GET is the same call, no noun
            and "GET" in op.method_paths and _writes(first) and len(last) > 3
            and singular(last) != last)


def _writes(verb: str) -> bool:
    """A GET whose name starts with a write verb names a thing (``AddOnResults``, ``sendAs``,
    ``changeRequests``), not an action."""
    return classify_verb(verb) in ("create", "update", "delete", "send")


def echoes_method(op: Operation) -> bool:
    """Whether the operation id is only the method and the path (``POST_auth-api-key``,
    ``postMatrix`` for ``POST /matrix``): generated, it names no verb."""
    name = identifier(re.split(r"[/.#:]", op.operation_id)[-1]) if op.operation_id else ""
    path = identifier("_".join(seg.strip("{}") for seg in op.segments))
    method = op.method.lower()
    return name.startswith(f"{method}_") and name[len(method) + 1:] == path


def opid_verb(op: Operation) -> str | None:
    """The verb an operation id starts with (``apps/reset-token`` → ``reset``), if it does not
    start with the resource noun; a namespace of one or two words before a known verb is
    skipped (``Registry_CreateApiDeployment`` → ``create``, ``OrderApi_AddShipment`` → ``add``)."""
    if not op.operation_id:
        return None
    last = identifier(re.split(r"[/.#:]", op.operation_id)[-1])  # Api::V1::Models#create
    words = last.split("_")
    for skip in (1, 2):  # Registry_CreateApiDeployment, OrderApi_AddShipment
        if (len(words) > skip + 1 and not any(classify_verb(w) for w in words[:skip])
                and classify_verb(words[skip])):
            last = "_".join(words[skip:])
            break
    first = last.split("_")[0]
    if echoes_method(op):
        return None  # POST_auth-api-key: the method and the path, generated; it names no verb
    nouns = {identifier(str(c[0])).split("_")[0] for c in op.chain if c[0]}
    if first in nouns or singular(first) in {singular(n) for n in nouns}:
        return None
    return first if len(last.split("_")) > 1 or classify_verb(first) else None


_VERBS = {"list": "list", "search": "search", "get": "get", "create": "create",
          "update": "update", "delete": "delete", "count": "count", "summary": "summarize",
          "compute": "get"}


_RESIDUE = re.compile(r"_(?:api_)?v\d+(?:_\d+)*(?:_|$)|_api_|_using_(?:get|post|put|patch|delete)"
                      r"(?:_\d+)?$")
"""Path or generator residue in an operation id (``rotate_key_api_v1_app_app_id_...``,
``add_profile_using_post``): the readable name is what comes before it."""


def _verbish(word: str) -> bool:
    return bool(classify_verb(word)) or word in TRANSITIONS or word in COMPUTE_VERBS or word in (
        "one", "all")


def _readable(name: str) -> bool:
    """At most 40 characters and not noun-first (``activities_all``, ``contacts_one``,
    ``leads_add`` read backwards): ``list_tasks``, ``cancel_order``, ``sms`` are kept."""
    words = name.split("_")
    backwards = len(words) > 1 and not _verbish(words[0]) and _verbish(words[-1])
    return len(name) <= 40 and not backwards


def tool_name(op: Operation, plan: ToolPlan | None) -> str:
    """The tool's name: the operation id when it is readable (:func:`_readable`), else
    ``verb_noun`` from the mapped operation (``activities_all`` → ``list_activities``); an unmapped operation
    keeps its operation id, cut before any path residue (``rotate_key_api_v1_app_...`` →
    ``rotate_key``). An AWS Query action is called by its action name, whichever method
    carries it (``GET_DeleteLoadBalancer`` → ``delete_load_balancer``, not a get)."""
    if "#Action=" in op.path:
        return identifier(op.segments[-1])
    if op.operation_id and "." not in op.operation_id:
        name = identifier(op.operation_id)  # the API's own name for the operation
        cut = _RESIDUE.search(name)
        if plan is not None:
            return name if not cut and _readable(name) else _derived(plan)
        if cut and cut.start() > 0 and "_" in name[: cut.start()]:
            name = name[: cut.start()]
        return name
    dotted = [identifier(p) for p in op.operation_id.split(".") if p]
    if len(dotted) >= 3 and plan is not None:  # Google: tasks.tasklists.list → list_tasklists
        noun = dotted[-2] if plan.op in ("list", "search") else singular(dotted[-2])
        return identifier(f"{dotted[-1]}_{noun}")
    if plan is None and len(dotted) >= 2:
        return dotted[-1] if "_" in dotted[-1] else identifier(f"{dotted[-1]}_{dotted[-2]}")
    if plan is None:
        return identifier(f"{op.method.lower()}_{'_'.join(s for s in op.segments if '{' not in s)}")
    return _derived(plan)


def _derived(plan: ToolPlan) -> str:
    noun = identifier(plan.noun)
    many = plan.op in ("list", "search", "count", "summary")

    last = noun.split("_")
    last[-1] = plural(singular(last[-1])) if many else singular(last[-1])
    verb = plan.verb if plan.op in ("transition", "send") else _VERBS[plan.op]
    return identifier(f"{verb}_{'_'.join(last)}")
