"""The mapping rules: verbs → operations, transitions, names. Every mapping records its rule id.

Rule ids (the ``rule`` of each compiled tool) are listed in :data:`RULES`; ``docs/compiler.md``
shows the same table. A tool no rule covers stays simulated, with the reason.
"""

from __future__ import annotations

import re

from compoworld.compiler._semantic import singular, words

RULES: dict[str, str] = {
    "rest:GET collection → list": "GET on a path ending in a collection name, answering an "
                                  "array (or an envelope holding one): list its records",
    "rest:GET collection + text query → search": "the same with a q / query / search / term "
                                                 "parameter: text search plus filters",
    "rest:GET item → get": "GET on a path ending in an id parameter: the record",
    "rest:POST collection → create": "POST on a plural collection name (or one that also has a "
                                     "GET): insert a record from the body",
    "rest:PUT|PATCH item → update": "PUT / PATCH on an item path: partial update",
    "rest:POST item → update": "POST on an item path whose operation id is no other verb",
    "rest:DELETE item → delete": "DELETE on an item path: remove the record",
    "rpc:verb <verb> → <op>": "a CRUD verb in the path or operation id (/pads/get, createPad, "
                              "{name}:delete, X-Amz-Target ListAgents): the same operations",
    "rest:<METHOD> singleton → get|update|delete": "a singular path whose GET answers one "
                                                   "object (/settings, /users/{id}/profile): "
                                                   "the one record, named by its parents",
    "rest:GET sub-record <noun> → get": "GET on a plural-looking name answering one object "
                                         "(no list envelope, no inputs): the parent's one "
                                         "record (/courses/{id}/permissions)",
    "rest:PUT|PATCH sub-record <noun> → update": "PUT / PATCH (or an update POST) with an "
                                                 "object body on a singular or settings-like "
                                                 "name (/accounts/{id}/preferences, "
                                                 "/account/password): update the parent's one "
                                                 "record",
    "rest:DELETE sub-record <noun> → delete": "DELETE on a singular or settings-like name "
                                              "under a parent: remove the parent's one record",
    "rest:<METHOD> collection + body id <param> → update": "PUT / PATCH on a collection whose "
                                                           "body names the record (PUT /users "
                                                           "{userId, ...}): update that record",
    "rest:GET item answering an array → list filtered by <param>": "GET on a path ending in "
                                                                   "a parameter (not the "
                                                                   "noun's own id) answering "
                                                                   "an array (/Players/{team})"
                                                                   ": the records whose field "
                                                                   "equals it",
    "rest:<METHOD> item by path keys <params> → <op>": "a path ending in two or more "
                                                       "parameters after a noun (/entries/"
                                                       "{lang}/{word}): the record named by "
                                                       "them (a list filtered by them when the "
                                                       "answer is an array; a POST creates the "
                                                       "record with them as fields)",
    "compute:singleton <noun> read with inputs → compute": "GET on one object with value "
                                                           "inputs and no paging, sort or text "
                                                           "query (/min-amount?currency_from="
                                                           "&currency_to=): a function of its "
                                                           "inputs, a seeded lookup",
    "rpc:verb <verb> by key <params> → <op>": "get / update / delete without an id parameter "
                                              "but with natural-key inputs (Name, path, "
                                              "GatewayARN): the record whose keys equal them",
    "rpc:verb <verb> + plural <noun> → list": "a get verb on a plural noun (DescribeEvents, "
                                              "GetResourcePolicies): a filtered list",
    "mcp:verb <verb> → <op>": "an MCP tool named verb_noun (readOnlyHint forbids writes, "
                              "destructiveHint forbids reads and creates)",
    "fn:verb <verb> → <op>": "an OpenAI / bfcl function named verb_noun",
    "action:verb <verb> → transition status=<state>": "a state-changing verb (cancel, archive, "
                                                       "close, approve...) on one record: set "
                                                       "its status to the verb's result state",
    "action:verb <verb> → send <entity>": "send / reply / forward / notify on a collection: "
                                          "insert a message record",
    "action:POST <noun> → send <entity>": "POST to a message collection (sms, messages, "
                                          "email, fax...): insert a sent message",
    "action:count → count": "count of a collection: the number of matching records",
    "action:verb <verb> → summary": "summary / stats of a collection: count, sum, min, max, "
                                    "average of its numeric field",
    "compute:<noun> → compute": "a quote, forecast, rate, price, cost, conversion or a lookup "
                                "verb with inputs and a typed single-object answer: a seeded "
                                "deterministic lookup",
}

LIST_VERBS = {"list", "browse", "enumerate", "all", "view", "show", "display"}
GET_VERBS = {"get", "read", "fetch", "retrieve", "describe", "show", "view", "load"}
SEARCH_VERBS = {"search", "find", "query", "lookup", "filter"}
CREATE_VERBS = {"create", "add", "new", "insert", "register", "make", "post", "submit", "book",
                "place", "write", "save", "upload", "reserve", "schedule", "open"}
UPDATE_VERBS = {"update", "edit", "modify", "set", "change", "patch", "put", "rename", "replace",
                "move", "assign", "upsert"}
DELETE_VERBS = {"delete", "remove", "destroy", "erase", "drop", "purge", "unset"}
SEND_VERBS = {"send", "reply", "forward", "notify", "broadcast"}
COUNT_VERBS = {"count"}
SUMMARY_VERBS = {"summary", "summarize", "stats", "statistics", "aggregate", "totals"}

TRANSITIONS: dict[str, str] = {
    "cancel": "cancelled", "archive": "archived", "unarchive": "active", "close": "closed",
    "reopen": "open", "approve": "approved", "reject": "rejected", "decline": "declined",
    "accept": "accepted", "complete": "completed", "finish": "completed", "activate": "active",
    "deactivate": "inactive", "enable": "enabled", "disable": "disabled",
    "publish": "published", "unpublish": "draft", "suspend": "suspended", "resume": "active",
    "pause": "paused", "unpause": "active", "block": "blocked", "unblock": "active",
    "lock": "locked", "unlock": "unlocked", "resolve": "resolved", "confirm": "confirmed",
    "void": "void", "refund": "refunded", "ship": "shipped", "fulfill": "fulfilled",
    "restore": "active", "stop": "stopped", "verify": "verified", "expire": "expired",
    "finalize": "finalized", "revoke": "revoked", "submit": "submitted", "retire": "retired",
    "hide": "hidden", "unhide": "visible", "mute": "muted", "unmute": "active",
    "ban": "banned", "unban": "active", "terminate": "terminated", "deny": "denied",
    "start": "started", "end": "ended", "pin": "pinned", "unpin": "unpinned",
    "capture": "captured", "withdraw": "withdrawn", "undelete": "active",
    "reactivate": "active", "reinstate": "active", "escalate": "escalated",
    "acknowledge": "acknowledged", "snooze": "snoozed", "dismiss": "dismissed",
    "settle": "settled", "authorize": "authorized", "merge": "merged", "protect": "protected",
    "unprotect": "unprotected", "unapprove": "unapproved",
}
"""Verb → the status a record is in after it (``cancel`` → ``cancelled``)."""

COMPUTE_NOUNS = {
    "forecast", "quote", "quotes", "rate", "rates", "price", "prices", "pricing", "estimate",
    "estimates", "cost", "costs", "fare", "fares", "weather", "exchange", "conversion",
    "availability", "distance", "shipping", "tax", "taxes", "score",
    "eta", "duration", "valuation", "premium", "geocode", "timezone", "directions",
    "elevation", "route", "routes", "translation",
}
"""Nouns of world facts that are a function of their inputs (a forecast by city and date)."""

COMPUTE_VERBS = {"lookup", "calculate", "compute", "convert", "estimate", "quote", "validate",
                 "predict", "geocode", "forecast", "price", "evaluate", "check", "analyze",
                 "analyse", "preview", "simulate", "detect", "classify", "recommend"}
"""Verbs asking for a function of the inputs (``/lookup/format``, ``calculateShipping``,
``/vat-number-check``): read-only questions, never a change of state."""

MESSAGE_NOUNS = {"sms", "message", "messages", "email", "emails", "mail", "fax", "faxes",
                 "notification", "notifications", "mms", "invitation", "invitations",
                 "invite", "invites", "reminder", "reminders"}
"""POST to one of these (``POST /sms``) sends a message: the ``send`` effect."""

SEND_NOUNS = MESSAGE_NOUNS | {"text", "texts", "chat", "dm", "letter", "letters", "receipt",
                              "newsletter", "digest", "reply"}
"""What ``send`` / ``reply`` / ``forward`` / ``notify`` may insert without an id: a message.
Anything else (``send_additional_data``) is no message, so the verb has no ``send`` rule."""

MESSAGE_FIELDS = {"message_id", "chat", "chat_id", "recipient", "recipients", "to",
                  "conversation_id", "thread_id", "sender", "from"}
"""Response fields of a sent message (Telegram's ``sendPhoto`` answers a Message with
``message_id`` and ``chat``): an operation answering one is a send whatever its noun."""

SUBRECORD_NOUNS = {"settings", "preferences", "permissions", "details", "metadata", "config",
                   "configuration", "profile", "options"}
"""Plural-looking names of one record that belongs to its parent (``/users/{id}/settings``)."""

ARITHMETIC = {
    "add", "sum", "subtract", "multiply", "divide", "sqrt", "square", "mean", "average", "std",
    "standard", "deviation", "log", "logarithm", "power", "absolute", "round", "percentage",
    "min", "max", "median", "factorial", "modulo", "mod", "unit", "si",
}
"""Words of pure arithmetic: a seeded lookup would give wrong answers, so never 'compute'."""

_INVARIANT = frozenset({"series", "species", "news", "data", "media", "metadata", "settings",
                        "details"})
"""Nouns whose plural is the same word."""


def plural(word: str) -> str:
    """``"company"`` → ``"companies"``, ``"address"`` → ``"addresses"``, ``"series"`` →
    ``"series"``."""
    if word in _INVARIANT:
        return word
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "sh", "ch")):
        return word + "es"
    return word + "s"


def identifier(name: str, fallback: str = "x", *, limit: int | None = 60) -> str:
    """A lower snake case identifier (``a-z0-9_``, starts with a letter, no ``__``), at most
    ``limit`` characters (cut at a word break; ``None``: never cut, as a tool's name)."""
    snake = words(name)
    snake = re.sub(r"[^a-z0-9_]", "", snake)
    if not snake or not snake[0].isalpha():
        snake = f"{fallback}_{snake}".strip("_")
    snake = re.sub(r"_+", "_", snake)
    if limit is not None and len(snake) > limit:
        cut = snake[:limit + 1]
        snake = cut[:cut.rindex("_")] if "_" in cut[1:] else snake[:limit]
    return snake.rstrip("_")


def entity_name(noun: str) -> str:
    """The entity a resource noun names: singular snake case (``"UserGroups"`` → ``"user_group"``)."""
    parts = identifier(noun, "item").split("_")
    parts[-1] = singular(parts[-1])
    return "_".join(parts)


def split_verb(name: str) -> tuple[str, list[str]]:
    """The verb and the rest of a name: ``"createPad"`` → (``"create"``, ``["pad"]``).

    A namespace prefix of any length before the verb is skipped (``"ticket_get_status"``,
    ``"TwilioApiV2010--ListCallNotification"``, ``"hubspot-batch-create-objects"``), and a name
    that ends in its verb is read noun-first (``"archival_memory_add"`` → ``add``). A verb
    inside the name that is as often a noun (``post``, ``view``, ``block``) yields to a verb
    ending it (``"blog_post_comments_list"`` lists blog post comments). A name with no verb
    the rules know keeps its first word as the verb, to be reported. One PascalCase word
    (AWS's ``ExecuteChangeSet``) has no namespace: its first word is its verb, known or not
    (never ``change`` of a ``set``, nor ``set`` of an ``execute_change``).
    """
    parts = identifier(name).split("_")
    if _known(parts[0]) or len(parts) == 1:
        return parts[0], parts[1:]
    if re.fullmatch(r"[A-Z][A-Za-z0-9]*", name):
        return parts[0], parts[1:]
    inner = next((i for i in range(1, len(parts) - 1) if _known(parts[i])), None)
    last = _known(parts[-1])
    if inner is not None and not (last and parts[inner] in NOUN_VERBS):
        return parts[inner], parts[inner + 1:]
    if last:
        return parts[-1], parts[:-1]
    return parts[0], parts[1:]


NOUN_VERBS = frozenset({
    "post", "view", "show", "display", "open", "book", "place", "new", "all", "set", "load",
    "make", "start", "end", "block", "pin", "lock", "stop", "ship", "schedule", "reserve",
    "query", "filter", "search", "save", "write", "move", "put", "patch", "drop", "pause",
    "capture", "lookup", "price", "quote", "forecast", "estimate", "check", "count", "summary",
    "stats", "statistics", "totals", "register", "upload", "resume", "void", "deposit",
})
"""Verbs that name a thing as often as an action (a blog ``post``, a ``view``, a ``block``)."""


def has_verb(name: str) -> bool:
    """Whether any word of a name is a verb the rules know."""
    return any(_known(part) or part in COMPUTE_VERBS for part in identifier(name).split("_"))


def _known(word: str) -> bool:
    return classify_verb(word) is not None


def classify_verb(verb: str) -> str | None:
    """The operation family of a verb: list/get/search/create/update/delete/send/count/summary
    or ``transition``; None when it names none."""
    for family, verbs in (("search", SEARCH_VERBS), ("create", CREATE_VERBS - {"submit"}),
                          ("update", UPDATE_VERBS), ("delete", DELETE_VERBS),
                          ("send", SEND_VERBS), ("count", COUNT_VERBS),
                          ("summary", SUMMARY_VERBS), ("list", LIST_VERBS - {"show", "view"}),
                          ("get", GET_VERBS)):
        if verb in verbs:
            return family
    if verb in TRANSITIONS:
        return "transition"
    return None


_FILLER = {"info", "information", "details", "detail", "data", "list", "all", "my", "new",
           "current", "the", "a", "an", "multiple", "many", "several", "some", "each", "one"}
"""Words that name no resource: mongodb's ``insert-one`` / ``delete-one`` insert one document
into the collection their inputs name (no ``one`` records), as ``insert-many`` inserts many."""


def core_noun(words: list[str]) -> list[str]:
    """The resource words of a name's rest: ``["post", "and", "parent"]`` → ``["post"]``,
    ``["stock", "info"]`` → ``["stock"]``, ``["user", "by", "email"]`` → ``["user"]``."""
    stops = ("by", "for", "from", "with", "of", "in", "on", "to", "and")
    while words and words[0] in stops:  # add_to_watchlist
        words = words[1:]
    for i, word in enumerate(words[1:], 1):
        if word in stops or (word == "based" and words[i + 1: i + 2] == ["on"]):
            words = words[:i]
            break
    return [w for w in words if w not in _FILLER]


_KEY_NAMES = {"name", "path", "key", "slug", "code", "email", "username", "handle", "url", "uri",
              "domain", "symbol", "sku", "filename", "file_path", "arn", "uid", "uuid", "sid"}
_KEY_SUFFIXES = ("_name", "_arn", "_id", "_key", "_path", "_code", "_email", "_slug", "_number",
                 "_symbol", "_uid", "_uuid", "_sid", "_identifier", "_handle", "_iid")
SCOPES = {"owner", "repo", "repository", "project", "org", "organization", "workspace", "team",
          "namespace", "tenant", "site", "base", "bucket", "account", "group", "space"}
"""Required inputs that scope a record (github's ``owner`` + ``repo``): part of its key."""


SCOPE_SUFFIXES = ("_id", "_iid", "_uuid", "_arn", "_sid", "_key")
"""Endings of inputs naming another record by its id: beside a record's own id, its scope."""


def scope_like(name: str) -> bool:
    """Whether an input beside a record's id names the record it lies under: another record's
    id (``ServiceId``, ``merge_request_iid``) or a scope (``owner``, ``workspace``)."""
    snake = identifier(name)
    return snake.endswith(SCOPE_SUFFIXES) or snake in SCOPES


def key_like(name: str) -> bool:
    """Whether a parameter name reads as a natural key of a record (``path``, ``GatewayARN``,
    ``user_name``), so a lookup by it names one record."""
    snake = identifier(name)
    return snake in _KEY_NAMES or snake.endswith(_KEY_SUFFIXES)


def natural_keys(required: list[str], family: str) -> list[str] | None:
    """The key parameters of a get / update / delete / transition without an id parameter, or
    None when its required inputs do not name one record (a get or delete whose required
    inputs are not all keys is a computation or a bulk call, not a lookup)."""
    named = [name for name in required if not identifier(name).startswith("new_")]
    keys = [name for name in named if key_like(name)]  # newName is the value a rename writes
    if not keys:
        return None
    keys = [name for name in named if key_like(name) or identifier(name) in SCOPES]
    if family in ("get", "delete") and len(keys) != len(required):
        return None
    return keys
