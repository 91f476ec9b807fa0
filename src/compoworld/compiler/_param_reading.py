"""What a parameter's name and schema say about the role it plays in an operation: a page
size or offset, a sort, a control of the wire protocol, a range bound (``min_price``,
``created_after``), a dry run, a wrapper object, a list of records — read by
:func:`~compoworld.compiler._tooling.emit_plan` for every importer.
"""

from __future__ import annotations

import re
from typing import Any

from compoworld.compiler._rules import identifier, key_like
from compoworld.compiler._semantic import singular

LIMIT = {"limit", "per_page", "page_size", "pagesize", "max_results", "maxresults", "top",
          "size", "max", "max_items", "num_results", "results_per_page", "k", "top_k", "topk"}
OFFSET = {"offset", "skip", "start", "start_index", "startindex"}
SORT = {"sort", "sort_by", "order_by", "orderby", "sortby", "sort_field"}
ORDER = {"order", "direction", "sort_order", "sort_dir", "sort_direction"}
CONTROL = {"fields", "expand", "include", "format", "pretty", "pretty_print", "prettyprint",
            "alt", "key", "access_token", "callback", "quota_user", "oauth_token",
            "upload_protocol", "upload_type", "xgafv", "api_key", "apikey", "token", "page",
            "page_token", "pagetoken", "cursor", "next_token", "after", "before",
            "starting_after", "ending_before", "continuation_token", "embed", "select",
            "page_number", "pagenumber", "api_version", "version", "jsonp", "user_ip"}
PAGING = {"page", "cursor", "start_cursor", "page_token", "pagetoken", "next_token",
           "next_page_token", "continuation_token", "after", "before", "starting_after",
           "ending_before", "page_number", "pagenumber", "next_cursor", "pagination_token",
           "offset_token", "marker", "next_marker", "start_key", "exclusive_start_key"}
"""Paging by a token or a page number, which the engine's offset paging cannot honour."""
LIMITS = re.compile(r"(?:max|maximum)_(?:records|results|items|rows|entries|count|hits)|"
                     r"(?:records|results|items|rows|entries)_(?:max|limit)|"
                     r"(?:max|maximum)_number_of_[a-z]+s")
"""``max_records``, SimpleDB's ``MaxNumberOfDomains``: how many to answer, a page size, never a
bound of a field."""
OPTIONS = re.compile(r"(?:include|show|with|return|expand|fetch)_")
"""``include_hidden``, ``show_archived``: whether more is answered, never equality."""
EXPRESSIONS = re.compile(r"(?:^|_)(?:filter|filters|formula|expression|jql|cql|sql|where)$|"
                          r"^filter_by")
"""``filter``, ``filter_by_formula``, ``jql``: a filter language, not a value to match."""
PROTOCOL = {"signature", "sig", "devid", "dev_id", "api_signature", "hmac", "read_mask",
             "api_version", "apiversion", "client_secret", "app_secret", "auth", "auth_token",
             "authorization", "session_token", "nonce", "timestamp_signature",
             "signature_method", "signature_version", "aws_access_key_id"}
"""Request signing, credentials and versions of the wire protocol (ptv's ``devid`` +
``signature``, ``api-version``, SimpleDB's ``SignatureMethod``), required or not: on an
OpenAPI query string they are the protocol's, as headers are."""
SIGNED = {"signature", "sig", "api_signature", "hmac"}
SIGNING_TIMES = {"timestamp", "ts", "time_stamp", "expires"}
"""Beside a request signature, the time it was signed (SimpleDB's ``Timestamp``): protocol."""
PRESENTATION = {"raw", "pretty", "debug", "verbose", "pass_through", "minify", "compact",
                 "human", "envelope", "suppress_response_codes"}
"""Options of how an answer is rendered or relayed (apideck's ``raw`` "include the raw
response, for debugging"), never of what it holds: transport, on an OpenAPI query string."""
PLACES = {"path", "prefix", "dir", "directory", "folder", "parent_path"}
DRY_RUNS = {"dry_run", "dryrun", "validate_only", "validateonly", "preview", "preview_only",
             "simulate", "what_if", "whatif", "check_only", "test_only"}
"""Flags that make a write change nothing (gitlab's ``dry_run`` "preview changes", Google's
``validateOnly``): the engine runs them as a trial (role ``dry_run``) when :func:`trial_flag`
says the call then answers as it would; otherwise a write declaring one is simulated."""
_SAYS_NO_WRITE = re.compile(r"\b(?:without|not actually|doesn't|does not|no changes?|never)\b",
                            re.I)


def trial_flag(name: str, schema: dict[str, Any]) -> bool:
    """Whether a dry-run input is a boolean whose ``true`` answers as the call would and writes
    nothing: ``dry_run`` / ``validateOnly`` by name, a ``preview`` or ``simulate`` only when its
    description says nothing is written. Never AWS's ``DryRun``, whose answer is an error
    ("DryRunOperation", "provides an error response", "tests whether the caller has
    permission"), nor a mode (kubectl's ``"server"``)."""
    text = str(schema.get("description") or "")
    if schema.get("type") != "boolean" or re.search(r"\berror\b|DryRunOperation|\bpermission", text):
        return False
    return name in ("dry_run", "dryrun", "validate_only", "validateonly") or bool(
        _SAYS_NO_WRITE.search(text))


WRAPPED = {"body", "params", "payload", "data", "input", "inputs", "args",
            "arguments", "request", "changes", "updates"}
"""Names of one object input holding the values of a call, not a field of its record
(``fields`` / ``attributes`` / ``properties`` are often the record's own nested object:
an Airtable record is ``{id, fields: {...}}``)."""
EDIT_LISTS = {"updates", "changes", "operations", "patches", "edits", "actions",
               "instructions", "ops"}
"""Names of an update's list of edit objects (an action and a value each, see ``edits``)."""
WIDENS = {"all", "everything", "recursive", "deep", "any"}
"""Booleans of a read that widen which records answer (gitlab's ``all``: "Return all
statuses, not only the latest ones"), never a field of the records."""


def edits(items: Any) -> bool:
    """Whether list items are edits: each names its action (``{Action: INSERT | DELETE, ...}``,
    JSON Patch's ``op``), so the list is no value stored (an alert's ``actions`` is one)."""
    props = items.get("properties") if isinstance(items, dict) else None
    return isinstance(props, dict) and bool(
        {identifier(k) for k in props} & {"action", "op", "operation", "change_type"})


def map_entries(items: Any) -> bool:
    """Whether list items are entries of a map, each a name and its value (memorydb's
    ``ParameterNameValues=[{ParameterName, ParameterValue}]``): an update sets those entries
    and keeps the others, so the list is no value written whole."""
    props = items.get("properties") if isinstance(items, dict) else None
    words = [identifier(k).split("_")[-1] for k in props] if isinstance(props, dict) else []
    return ("name" in words or "key" in words) and "value" in words


def is_flag(schema: dict[str, Any]) -> bool:
    """A boolean, or a string that takes ``true`` / ``false`` (AWS query flags)."""
    if schema.get("type") == "boolean":
        return True
    enum = {str(v).lower() for v in schema.get("enum") or []}
    text = str(schema.get("description") or "").lower()
    return schema.get("type") in ("string", None) and (
        (bool(enum) and enum <= {"true", "false"}) or (
            not enum and bool(re.search(r"\b(?:true|false)\b", text))))


def says_direction(schema: dict[str, Any]) -> bool:
    enum = {str(v).lower() for v in schema.get("enum") or []}
    if enum:
        return enum <= {"asc", "desc", "ascending", "descending"}
    return bool(re.search(r"\basc(ending)?\b.*\bdesc(ending)?\b",
                          str(schema.get("description") or ""), re.I))
UPSERT = re.compile(r"\b(?:creates?|adds?|inserts?)\b[^.;]{0,80}?\bor (?:updates?|replaces?|"
                     r"overwrites?)\b|\b(?:create|add|insert)-or-(?:update|replace)\b|\bupserts?\b",
                     re.I)
"""A description saying the call creates a record or updates the existing one (AWS
``PutRemediationExceptions``: "adds a new exception or updates an existing"): an upsert, which
neither create (a duplicate) nor update (a 404) reproduces."""
def protocol(name: str, schema: dict[str, Any], given: set[str]) -> bool:
    """Whether a required-or-not input belongs to the wire protocol whatever the operation:
    signing, credentials, versions (:data:`PROTOCOL`), the time a signed request was signed,
    or a required constant (AWS Query's ``Action=`` / ``Version=``). ``given``: the
    operation's input names, snake-cased."""
    snake = identifier(name)
    return snake in PROTOCOL or (snake in SIGNING_TIMES and bool(given & SIGNED))


def constant(schema: dict[str, Any]) -> bool:
    """Whether an input admits one value only (AWS Query's ``Action=CreateLoadBalancer`` and
    ``Version=2012-06-01``): required, it is part of the wire format, no choice of the caller."""
    return len(schema.get("enum") or []) == 1


def param_category(name: str, query_names: set[str]) -> str:
    """limit / offset / query / sort_by / order / control / value, from a parameter's name."""
    snake = identifier(name)
    for category, names in (("limit", LIMIT), ("offset", OFFSET), ("query", query_names),
                            ("sort_by", SORT), ("order", ORDER), ("control", CONTROL)):
        if snake in names:
            return category
    return "value"



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
    if len(parts) == 3 and parts[0] in _TIME_BASES and parts[-1] in (
            "date", "time", "timestamp", "at") and parts[1] in ("start", "end", "from", "to"):
        # shoppingcontent's createdStartDate / createdEndDate: a window on the creation date
        return _TIME_BASES[parts[0]], "gte" if parts[1] in ("start", "from") else "lte"
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


def names_records_of(name: str, entity: str) -> bool:
    """Whether a list input is named for the records the tool writes (``mediaStreams`` of a
    ``media_stream``, ``transactions`` of a ``bank_transaction``), not records related to them
    (``RelatedOpsItems``, ``lineItemInvoices``: a qualifier word the entity lacks)."""
    words = identifier(name).split("_")
    words[-1] = singular(words[-1])
    own = entity.split("_")
    return words[-1] == own[-1] and set(words) <= set(own)


def option_type(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    return kind if kind in ("string", "integer", "number", "boolean", "array", "object") else "string"


def members(name: str, schema: dict[str, Any], fields: dict[str, Any]) -> str | None:
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
