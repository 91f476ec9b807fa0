"""Words for the parts of a request: what a tool acts on, what a field holds, which list item a
selection picks, how a date reads relative to today. Derived from names and semantic types,
generically: nothing here knows a particular service."""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache
from typing import Any

from compoworld.tasks._model import Among

# -- words from identifiers ------------------------------------------------------------------

_ACRONYMS = frozenset({"id", "url", "sms", "api", "crm", "ats", "hris", "eu", "vat", "iban",
                       "bic", "sku", "pdf", "ip", "dns", "uk", "us"})


def words(identifier: str) -> str:
    """``claim_review_author_name`` → "claim review author name"; ``eu`` → "EU"."""
    parts = [p for p in re.split(r"[_\s]+|(?<=[a-z])(?=[A-Z])", identifier) if p]
    return " ".join(p.upper() if p.lower() in _ACRONYMS else p.lower() for p in parts)


def singular(noun: str) -> str:
    head, _, last = noun.rpartition(" ")
    for suffix, stem in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"),
                         ("xes", "x"), ("s", "")):
        if last.endswith(suffix) and not last.endswith(("ss", "us", "is")) and len(last) > 3:
            last = last[: -len(suffix)] + stem
            break
    return f"{head} {last}".strip()


def plural(noun: str) -> str:
    head, _, last = noun.rpartition(" ")
    if re.search(r"[^aeiou]y$", last):
        last = last[:-1] + "ies"
    elif last.endswith(("s", "x", "ch", "sh")):
        last += "es"
    else:
        last += "s"
    return f"{head} {last}".strip()


def article(noun: str) -> str:
    """"a" or "an" before ``noun`` ("an applicant", "an SMS", "a user")."""
    first = noun.split(" ")[0]
    if first.isupper() and len(first) > 1:
        return "an" if first[0] in "AEFHILMNORSX" else "a"
    if re.match(r"(?:uni|use|eu)", first):
        return "a"
    return "an" if first[:1] in "aeiou" else "a"


# -- what a tool does --------------------------------------------------------------------------

CREATE = frozenset({"create", "add", "insert", "register", "new", "draft", "log", "open",
                    "book", "schedule", "post", "upload", "submit", "issue", "generate"})
UPDATE = frozenset({"update", "set", "edit", "modify", "patch", "rename", "change", "replace",
                    "upsert", "assign", "mark", "tag", "move", "label", "star"})
DELETE = frozenset({"delete", "remove", "cancel", "archive", "revoke", "unlink", "detach"})
SEND = frozenset({"send", "reply", "forward", "notify", "invite", "email", "message"})
READ = frozenset({"list", "get", "find", "search", "lookup", "fetch", "retrieve", "read",
                  "show", "view", "query", "describe", "count"})


@lru_cache(maxsize=8192)  # a pure function of the name, asked for every candidate of a walk
def verb_and_noun(tool_name: str) -> tuple[str, str]:
    """``find_contact_by_email`` → ("find", "contact"); ``create_porting_bulk_portability`` →
    ("create", "porting bulk portability"); ``mark_read`` → ("mark", "")."""
    verb, _, rest = tool_name.partition("_")
    rest = re.sub(r"(?:^|_)(?:by|for|with|from|in|to)_.*$", "", rest)
    rest = re.sub(r"^(?:a|an|the|new|my|all)_", "", rest)
    noun = singular(words(rest)) if rest else ""
    return verb.lower(), noun


@lru_cache(maxsize=8192)
def family(tool_name: str, kind: str) -> str:
    """The kind of effect, from the tool's verb: create, update, delete, send, read, other."""
    verb = verb_and_noun(tool_name)[0]
    if kind == "read":
        return "read"
    for name, verbs in (("create", CREATE), ("update", UPDATE), ("delete", DELETE),
                        ("send", SEND)):
        if verb in verbs:
            return name
    return "other"


# Verbs API descriptions start with in the third person ("Gets", "Inserts"): made imperative.
_VERBS = frozenset((
    "accept", "add", "allow", "apply", "approve", "archive", "assign", "attach", "cancel",
    "change", "check", "claim", "close", "copy", "count", "create", "decline", "delete",
    "detach", "disable", "download", "edit", "enable", "export", "fetch", "find", "flush",
    "generate", "get", "import", "initiate", "insert", "invite", "issue", "link", "list",
    "lock", "lookup", "mark", "merge", "modify", "move", "open", "patch", "ping", "post", "put",
    "query", "read", "refresh", "register", "reject", "release", "remove", "replace", "resend",
    "reset", "restore", "retrieve", "return", "revoke", "run", "schedule", "search", "send",
    "set", "show", "start", "stop", "submit", "subscribe", "sync", "test", "trigger", "unlink",
    "unlock", "unsubscribe", "update", "upload", "upsert", "validate", "verify", "view",
    "write"))


def _imperative(word: str) -> str:
    lowered = word.lower()
    for suffix, stem in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss"),
                         ("xes", "x"), ("s", "")):
        if lowered.endswith(suffix) and lowered[: -len(suffix)] + stem in _VERBS:
            return lowered[: -len(suffix)] + stem
    return word


def _action(description: str, tool: str) -> str:
    """The first sentence of a tool's description as an imperative clause: return-shape notes
    ('as {"items", ...}'), parentheses and backticks dropped, third person made imperative
    ("Gets" → "get"); a description that is only an HTTP route gives the tool's name."""
    first = description.split("\n")[0].split(". ")[0].rstrip(".")
    first = re.sub(r',? as \{.*$', "", first)
    first = re.sub(r"\s*\([^)]*\)", "", first)
    first = re.sub(r"\s*\(.*$", "", first).replace("`", "")
    first = re.sub(r",? (optionally filtered|a page at a time)", "", first).rstrip(" ,:;")
    first = re.sub(r"\ban array of (\w+) objects?\b", r"the \1 records", first)
    first = re.sub(r"^(?:Allows?|Lets?) (?:you |users |the user )?to ", "", first)
    if not first or re.match(r"^(GET|POST|PUT|PATCH|DELETE)\b", first):
        return "use " + tool.replace("_", " ")
    word, _, rest = first.partition(" ")
    word = _imperative(word)
    if word[1:2].isupper():  # an acronym ("SMS", "URL"): kept as is
        return f"{word} {rest}".strip()
    return (word[:1].lower() + word[1:] + (" " + rest if rest else "")).strip()


def action(description: str, tool: str) -> str:
    """:func:`_action` without the clauses after a semicolon and without identifiers."""
    text = _action(description, tool).split(";")[0].strip()
    return re.sub(r"\b\w+_\w+\b", lambda m: words(m.group(0)), text)


# -- what a field holds ----------------------------------------------------------------------

_TYPE_WORDS = {"Email": "email address", "Phone": "phone number", "PersonName": "name",
               "CompanyName": "company name", "FirstName": "first name",
               "LastName": "last name", "URL": "web address", "Domain": "domain",
               "Money": "amount", "Date": "date", "DateTime": "time"}
_ROLES = {"to": "recipient", "from": "sender", "cc": "cc recipient", "bcc": "bcc recipient"}
# Words of a field name its type already says ("assignee_email": the assignee's email address).
_TYPE_TAILS = ("email address", "email addresses", "emails", "email", "phone numbers",
               "phone number", "phones", "phone", "full name", "name", "url", "date", "amount")
# Words that qualify a value rather than name whose it is ("display name", "legal name").
_QUALIFIERS = frozenset({"display", "full", "legal", "first", "last", "given", "family",
                         "primary", "main", "nick", "official", "trading", "billing", "mobile",
                         "work", "home", "start", "end", "due", "close", "birth", "issue",
                         "publish", "monetary"})
_PEOPLE_WORDS = frozenset({"owner", "assignee", "author", "sender", "recipient", "organizer",
                           "representative", "officer", "contact", "customer", "manager",
                           "member", "user", "employee", "applicant", "attendee", "host",
                           "reporter", "requester", "creator", "agent", "lead", "person"})


_DATE_NOUNS = {"created": "creation", "updated": "update", "modified": "update",
               "published": "publication", "closed": "closing", "issued": "issue",
               "sent": "sending", "received": "receipt", "expires": "expiry",
               "expired": "expiry", "starts": "start", "ends": "end"}


def type_words(semantic: str | None) -> str | None:
    if semantic is None or semantic in ("id", "Ref"):
        return None
    return _TYPE_WORDS.get(semantic) or words(semantic)


def split_field(name: str, semantic: str | None) -> tuple[str, str]:
    """Whose value a field holds and what it is: ``sender_name`` → ("sender", "name"),
    ``assignee_email`` → ("assignee", "email address"), ``display_name`` → ("", "display
    name"), ``to`` (Email) → ("recipient", "email address"), ``organization`` (CompanyName) →
    ("", "organization")."""
    label = singular(words(name)) if name.endswith("s") and semantic else words(name)
    kind = type_words(semantic)
    if kind is None:
        return "", label.removesuffix(" ID")
    if label in _ROLES:
        return _ROLES[label], kind
    if semantic == "CompanyName" and "name" not in label.split():
        return "", label
    role = label
    for tail in _TYPE_TAILS:
        if label.casefold() == tail:
            return "", kind
        if label.casefold().endswith(" " + tail):
            role = label[: -len(tail) - 1]
            break
    else:
        if label == kind:
            return "", kind
        if label.split(" ")[-1] in _PEOPLE_WORDS:
            return label, kind
        if semantic in ("Date", "DateTime") and " " not in label:
            # "created" is no noun: "the creation date", "the due date", "the start time".
            noun = _DATE_NOUNS.get(label, label)
            return "", f"{noun} {'date' if semantic == 'Date' else 'time'}"
        return "", label + (" number" if semantic == "Phone" else "")
    if role.split(" ")[-1] in _QUALIFIERS or role in kind.split():
        return "", label
    return role, kind


def field_words(name: str, semantic: str | None = None) -> str:
    """A field as a noun phrase without article: "sender's email address", "display name",
    "claim review author's name", "organization info phone number"."""
    role, kind = split_field(name, semantic)
    if not role:
        return kind
    if role.split(" ")[-1] in _PEOPLE_WORDS or role in ("recipient", "cc recipient"):
        return f"{role}'s {kind}"
    return f"{role} {kind}"


def param_words(name: str, semantic: str | None) -> str:
    """A parameter named as a field of the record being written: ``owner_email`` → "owner's
    email address", ``emails`` → "email address", ``cc`` (Email) → "cc recipient"."""
    if words(name) in _ROLES:
        return _ROLES[words(name)]
    return field_words(name, semantic)


# -- which item a selection picks ------------------------------------------------------------

_CREATED = re.compile(r"^(?:created|added|inserted|registered)(?:_(?:at|on|date|time))?$")
_SENT = re.compile(r"^(?:sent|received|date|timestamp|time)(?:_(?:at|on))?$")
_UPDATED = re.compile(r"^(?:updated|modified|changed)(?:_(?:at|on|date|time))?$")
_PUBLISHED = re.compile(r"^publish(?:ed)?(?:_(?:at|on|date|time))?$")
_BORN = re.compile(r"^(?:birthday|birth_?date|date_of_birth|dob)$")
_DATED = ("date", "_at", "_on", "time", "day", "due", "start", "end", "deadline")
_AMOUNTS = ("amount", "total", "balance", "price", "revenue", "value", "cost", "salary")


def superlative(by: str, order: str, entity: str) -> str:
    """The item a selection singles out, as a noun phrase with article: "the most recent
    message", "the youngest contact", "the deal with the earliest close date"."""
    most = order == "max"
    if _SENT.match(by):
        return f"the {'most recent' if most else 'earliest'} {entity}"
    if _CREATED.match(by):
        return f"the {'newest' if most else 'oldest'} {entity}"
    if _UPDATED.match(by):
        return f"the {entity} updated {'most' if most else 'least'} recently"
    if _PUBLISHED.match(by):
        return f"the {entity} published {'most recently' if most else 'first'}"
    if _BORN.match(by):
        return f"the {'youngest' if most else 'oldest'} {entity}"
    label = words(by)
    if any(word in by for word in _DATED):
        return f"the {entity} with the {'latest' if most else 'earliest'} {label}"
    if any(word in by for word in _AMOUNTS):
        return f"the {entity} with the {'largest' if most else 'smallest'} {label}"
    return f"the {entity} with the {'highest' if most else 'lowest'} {label}"


def among(criterion: Among | None) -> str:
    """A choice's second criterion, after its superlative: " among those whose rating is more
    than 3" ("" for none)."""
    if criterion is None:
        return ""
    if criterion.op == "eq":
        label = words(criterion.by)
        if isinstance(criterion.threshold, bool):
            flag = label.removeprefix("is ")
            return f" among those {'' if criterion.threshold else 'not '}{flag}"
        return f" among those whose {label} is {literal(criterion.threshold)}"
    if isinstance(criterion.threshold, str):
        when = "after" if criterion.op == "gt" else "before"
        for pattern, verb in _EVENTS:
            if pattern.match(criterion.by):
                return f" among those that {verb.removeprefix('was ')} {when} {criterion.threshold}"
        return f" among those whose {words(criterion.by)} is {when} {criterion.threshold}"
    more = "more than" if criterion.op == "gt" else "less than"
    return f" among those whose {words(criterion.by)} is {more} {criterion.threshold}"


_EVENTS = ((re.compile(r"^(?:created|added)(?:_(?:at|on|date))?$"), "was created"),
           (re.compile(r"^(?:sent|received)(?:_(?:at|on))?$"), "was sent"),
           (re.compile(r"^(?:updated|modified)(?:_(?:at|on))?$"), "was last updated"),
           (re.compile(r"^(?:issued?|issue_date)(?:_(?:at|on))?$"), "was issued"),
           (re.compile(r"^due(?:_(?:date|at|on))?$"), "is due"),
           (re.compile(r"^(?:start|starts|start_(?:date|time|at))$"), "starts"),
           (re.compile(r"^(?:end|ends|end_(?:date|time|at))$"), "ends"),
           (re.compile(r"^close(?:_date|d_at|s_at)?$"), "closes"),
           (re.compile(r"^publish(?:ed)?(?:_(?:at|on|date))?$"), "was published"))


_BOOKKEEPING = frozenset({"updated", "modified", "changed", "deleted", "removed", "archived",
                          "synced", "indexed", "edited", "imported", "refreshed"})
"""Words of a date field a system keeps for itself: when a record was last touched or deleted
is nothing a person decides on ("if the deleted at of that applicant ...")."""


def bookkeeping(field: str) -> bool:
    """Whether a date field is a system's bookkeeping, not a business date: when a record was
    updated, deleted, synced — or created, unless a person says it ("was created")."""
    said = [w.lower() for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", field) if w]
    if _BOOKKEEPING & set(said):
        return True
    return bool({"created", "added", "inserted"} & set(said)) and not _EVENTS[0][0].match(field)


def date_words(field: str) -> str:
    """A date field as a noun: "last activity at" → "last activity date", "due" → "due date",
    "close date" stays."""
    label = words(field).removesuffix(" at").removesuffix(" on")
    if not {"date", "time", "day", "deadline"} & set(label.split()):
        label += " date"
    return label


def relative_to(relation: str, field: str, owner: str) -> str:
    """A date said relative to a record's date: "the day before that message was sent", "two
    days after the close date of that deal"."""
    for pattern, verb in _EVENTS:
        if pattern.match(field):
            return f"{relation} {owner} {verb}"
    return f"{relation} the {date_words(field)} of {owner}"


def compare(field: str, op: str, threshold: Any, owner: str) -> str:
    """A condition on a found value: "that invoice was issued before 2025-09-07", "the
    amount of that invoice is more than 3600"."""
    if isinstance(threshold, str):
        when = "after" if op == "gt" else "before"
        for pattern, verb in _EVENTS:
            if pattern.match(field):
                return f"{owner} {verb} {when} {threshold}"
        return f"the {date_words(field)} of {owner} is {when} {threshold}"
    more = "more than" if op == "gt" else "less than"
    return f"the {words(field)} of {owner} is {more} {threshold}"


# -- values --------------------------------------------------------------------------------

def literal(value: Any) -> str:
    """A value the user states, written so that it appears exactly (strings quoted)."""
    if isinstance(value, list):
        items = [literal(v) for v in value]
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f'"{value}"' if isinstance(value, str) else str(value)


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def relative_day(value: Any, today: date) -> str | None:
    """How a date near today reads ("tomorrow", "this Friday", "next Tuesday"), else None."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        days = (date.fromisoformat(value) - today).days
    except ValueError:
        return None
    weekday = _WEEKDAYS[date.fromisoformat(value).weekday()]
    weeks = (today.weekday() + days) // 7
    if days == 0:
        return "today"
    if days == 1:
        return "tomorrow"
    if days == -1:
        return "yesterday"
    if days > 0 and weeks == 0:
        return f"this {weekday}"
    if days > 0 and weeks == 1:
        return f"next {weekday}"
    if days < 0 and weeks == -1:
        return f"last {weekday}"
    return None


def long_date(day: date) -> str:
    """``2026-03-02`` → "Monday, March 2, 2026"."""
    return f"{_WEEKDAYS[day.weekday()]}, {day:%B} {day.day}, {day.year}"
