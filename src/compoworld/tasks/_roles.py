"""Roles: the user (whose workspace it is) is never the object of another person's record.

A walk may carry any found value into a write, so without a rule it will make the mailbox
owner a customer of their own company, a lead, an applicant, or rename their own account after
a contact. Whatever the services, that shows in a step's changes: a record created with the
user's own email, phone or name, or a record that held them changed to hold someone else's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

from compoworld.service import SEPARATOR, Change, Environment, Param, Tool
from compoworld.tasks._diff import net_changes
from compoworld.tasks._model import Step
from compoworld.tasks._phrasing import family
from compoworld.types import Person, Pool


def _identity(person: Person) -> set[str]:
    return {person.email.casefold(), person.name.casefold(), person.phone.casefold()}


def _holds(record: dict[str, Any] | None, identity: set[str]) -> set[str]:
    """The fields of ``record`` whose value (or a list item of it) is one of ``identity``."""
    if record is None:
        return set()
    found = set()
    for field, value in record.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item.casefold() in identity:
                found.add(field)
    return found


_ACTOR_WORDS = ("sender", "from", "owner", "author", "by", "creator", "organizer", "assign",
                "reporter", "requester", "host")
"""Fields where the user stands as who does or owns something, not as its subject."""


def _as_subject(fields: set[str]) -> set[str]:
    return {f for f in fields if not any(word in f.lower() for word in _ACTOR_WORDS)}


def misuses_user(changes: list[Change], user: Person) -> bool:
    """Whether a step's changes make the user the subject of a record — one created, or given,
    their email, phone or name other than as who sends, owns or is assigned it — or overwrite a
    record that identifies them with other values in those fields (their own account renamed)."""
    identity = _identity(user)
    for (before, after) in net_changes(changes).values():
        if after is None:
            continue
        held_after = _holds(after, identity)
        held_before = _holds(before, identity)
        if _as_subject(held_after - held_before):
            return True
        if before is not None and any(after.get(f) != before.get(f) for f in held_before):
            return True
    return False


_IDENTITY_TYPES = frozenset({"PersonName", "FirstName", "LastName", "Email", "Phone",
                             "Username"})


_NAME_TYPES = frozenset({"PersonName", "FirstName", "LastName"})
_NAME_WORDS = frozenset({"name", "first", "last", "full", "display", "given", "family"})


def _own_name(column: str) -> bool:
    """Whether a name column is the record's own ("name", "first_name", "displayName"), not
    whom the record points to ("owner_name", "assignee": reassigning is no renaming)."""
    return set(_words(column)) <= _NAME_WORDS


def renames_person(changes: list[Change], initial: Environment) -> bool:
    """Whether a step's changes rewrite who a record is: a service's one record (its account
    or profile: a table that holds a single record, the caller's own) given another name,
    email or phone, or any record's own person name (a customer's, a contact's, a lead's last
    name) changed from one name to another — a customer renamed after someone else is two
    people in one record."""
    for (table, _), (before, after) in net_changes(changes).items():
        if before is None or after is None:
            continue
        service, entity = table.split(SEPARATOR, 1)
        if service not in initial.services:
            continue
        columns = initial.services[service].tables[entity].columns
        if any(c.semantic in _NAME_TYPES and _own_name(c.name) and before.get(c.name)
               and after.get(c.name) != before.get(c.name) for c in columns):
            return True
        if initial.db(service).count(entity) == 1 and any(
                c.semantic in _IDENTITY_TYPES and after.get(c.name) != before.get(c.name)
                for c in columns):
            return True
    return False


# -- who a value is about, and who a field is for ------------------------------------------------

SlotRole = Literal["staff", "customer", "applicant", "vendor"]
"""Whom a field holds: ``staff`` — the user's side, who owns, is assigned, runs or is a user of
something (an owner, an assignee, an organizer, an employee, a system's user); and the three
outside roles a business deals with: ``customer`` (a customer, a client, a lead, a prospect,
a requester, a subscriber), ``applicant`` (an applicant, a candidate), ``vendor`` (a vendor,
a supplier)."""

OUTSIDE: frozenset[str] = frozenset({"customer", "applicant", "vendor"})

_ROLE_WORDS: dict[str, SlotRole] = {
    **dict.fromkeys(("owner", "owners", "assignee", "assignees", "assigned", "agent", "rep",
                     "salesperson", "manager", "employee", "employees", "member", "members",
                     "organizer", "host", "creator", "coordinator", "recruiter", "interviewer",
                     "approver", "reviewer", "teammate", "colleague", "staff", "worker",
                     "technician", "user", "users", "admin", "administrator"), "staff"),
    **dict.fromkeys(("customer", "customers", "client", "clients", "lead", "leads",
                     "prospect", "prospects", "subscriber", "subscribers", "patient", "buyer",
                     "shopper", "requester", "payer", "debtor", "tenant", "account",
                     "accounts", "billing", "guest"), "customer"),
    **dict.fromkeys(("applicant", "applicants", "candidate", "candidates"), "applicant"),
    **dict.fromkeys(("vendor", "vendors", "supplier", "suppliers"), "vendor"),
}
"""Words naming whom a field (or its record) is for. Anyone else — a sender, a recipient, an
attendee, a contact in an address book — may be anyone, and the pool says which side."""

PERSON_TYPES = frozenset({"Email", "Phone", "PersonName"})
"""The values that name a person wherever they are (what crosses services with a role)."""

# Words of a field name that say its value is not a person's email, phone or name whatever its
# semantic type: the compiler types by pattern and shape, so a "not_portable_reason" holding a
# phone-shaped string is typed Phone, and a sid or a status may be typed Email or PersonName.
_NOT_A_PERSON = frozenset({"reason", "status", "code", "type", "description", "note", "notes",
                           "comment", "message", "body", "text", "url", "uri", "link", "sid",
                           "id", "count", "label", "title", "date", "time", "amount", "error",
                           "template", "format", "pattern", "example", "token", "key"})


@lru_cache(maxsize=8192)
def _words(text: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", text) if w)


@lru_cache(maxsize=8192)  # pure, and asked for every value a walk could state or carry
def slot_role(field: str, entity: str = "") -> SlotRole | None:
    """Whom a field holds, from its name, else from its record's entity.

    Example:
        >>> slot_role("assignee_email"), slot_role("phone_numbers", "applicant")
        ('staff', 'applicant')
        >>> slot_role("to", "message") is None
        True
    """
    for text in (field, entity):
        for word in reversed(_words(text)):  # the last role word: an account's owner is staff
            if word in _ROLE_WORDS:
                return _ROLE_WORDS[word]
    return None


def plausible(field: str, semantic: str | None) -> bool:
    """Whether a field of that name can hold a person's email, phone or name (a
    ``not_portable_reason`` typed Phone cannot): False only for a person type whose field
    name says it is something else.

    Example:
        >>> plausible("not_portable_reason", "Phone"), plausible("assignee_email", "Email")
        (False, True)
    """
    return semantic not in PERSON_TYPES or not _NOT_A_PERSON.intersection(_words(field))


@lru_cache(maxsize=8192)
def entity_of(tool_name: str, path: str = "") -> str:
    """The record a value sits in: the innermost named container on ``path``
    (``items.0.contact.email`` → "contact"), else the tool's noun (``list_leads`` → "leads")."""
    parts = [p for p in path.split(".")[:-1] if p and not p.isdigit() and p != "items"]
    if parts:
        return parts[-1]
    _verb, _, noun = tool_name.partition("_")
    return re.sub(r"_(?:by|for|with|from|in|to)_.*$", "", noun)


def value_role(pool: Pool, value: Any, field: str, entity: str) -> str | None:
    """Whose side a found value is on: what its field or record says (an assignee's email is
    staff, a lead's a customer's), else what the pool says of the person it names (the user
    and colleagues are staff, anyone else "outside": some outside role), else None."""
    said = slot_role(field, entity)
    if said is not None:
        return said
    person = pool.person_with(value)
    if person is None:
        return None
    return "outside" if pool.role(person) == "outside" else "staff"


def found_in(steps: Sequence[Step], step: int, path: str, value: Any) -> tuple[str, str]:
    """(field, entity) where a value was first found: a write's answer that echoes an argument
    found earlier ("phone_numbers.0" of a customer just created with it) is followed back to
    that argument's origin, so a value keeps the role of the record it came from.

    Example:
        >>> from compoworld.tasks._model import ArgSource, Step
        >>> read = Step(tool="helpdesk__list_tickets", arguments={}, sources={},
        ...             output={"items": [{"assignee_email": "a@x.io"}]})
        >>> copy = Step(tool="mailscript__add_verification", arguments={"email": "a@x.io"},
        ...             sources={"email": ArgSource(kind="step", step=0,
        ...                                         path="items.0.assignee_email")},
        ...             output={"email": "a@x.io"})
        >>> found_in([read, copy], 1, "email", "a@x.io")
        ('assignee_email', 'tickets')
    """
    seen = 0
    while seen < len(steps):
        seen += 1
        origin = next((src for name, src in steps[step].sources.items()
                       if src.kind in ("step", "rule") and src.step is not None
                       and src.path and src.step < step
                       and value in _items(steps[step].arguments.get(name))), None)
        if origin is None or origin.step is None or origin.path is None:
            break
        step, path = origin.step, origin.path
    field = next((p for p in reversed(path.split(".")) if p and not p.isdigit()), "")
    return field, entity_of(steps[step].tool.split(SEPARATOR, 1)[-1], path)


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def crosses_roles(pool: Pool, value: Any, source: tuple[str, str], semantic: str | None,
                  target: tuple[str, str]) -> str | None:
    """Why a found ``value`` may not fill a field, or None when it may: ``source`` and
    ``target`` are (field, entity) — where the value was found, and the parameter and the
    record of the write it would fill.

    A person's value keeps its role: staff (the user, a colleague, anyone found as an owner or
    an assignee) never fills an outside role's field (a lead's, an applicant's, a customer's),
    an outside person never fills an owner's or an assignee's, and one outside role is not
    another (a customer found on an invoice is no job applicant); a value whose field name says
    it is no person's (a "reason" typed Phone) names no one; the user's own company is never
    a customer's, an applicant's or a vendor's.

    Example:
        >>> from compoworld.types import Pool
        >>> pool = Pool(seed=7)
        >>> crosses_roles(pool, "x@acme.com", ("assignee_email", "ticket"), "Email",
        ...               ("emails", "applicant"))
        'staff as applicant'
        >>> crosses_roles(pool, "x@acme.com", ("email", "customer"), "Email",
        ...               ("emails", "applicant"))
        'customer as applicant'
    """
    if semantic == "CompanyName":  # the user's own company is never an outside party
        wanted = slot_role(*target)
        mine = isinstance(value, str) and value.casefold() == pool.user.company.name.casefold()
        return f"user's company as {wanted}" if mine and wanted in OUTSIDE else None
    if semantic not in PERSON_TYPES:
        return None
    if not plausible(source[0], semantic):
        return "not a person's"
    wanted = slot_role(*target)
    if wanted is None:
        return None
    person = pool.person_with(value)
    if wanted != "staff" and person is not None and pool.role(person) != "outside":
        return f"{pool.role(person)} as {wanted}"  # whatever a record says, they are not one
    found = value_role(pool, value, *source)
    if found is None or found == wanted or (found == "outside" and wanted != "staff"):
        return None
    return f"{found} as {wanted}"


def may_state(pool: Pool, value: Any, semantic: str | None, target: tuple[str, str]) -> bool:
    """Whether the user may state ``value`` for a field (``target``: parameter, record) of a
    write: never their own company, themself or a colleague as a customer's, an applicant's
    or a vendor's (a lead called after the user's own company, named after a colleague).

    Example:
        >>> from compoworld.types import Pool
        >>> pool = Pool(seed=7)
        >>> may_state(pool, pool.user.company.name, "CompanyName", ("company_name", "lead"))
        False
    """
    if slot_role(*target) not in OUTSIDE:
        return True
    if semantic == "CompanyName":
        return not (isinstance(value, str)
                    and value.casefold() == pool.user.company.name.casefold())
    person = pool.person_with(value) if semantic in PERSON_TYPES else None
    return person is None or pool.role(person) == "outside"


# -- one value, how many services ---------------------------------------------------------------

COPY_LIMIT = 2
"""Services one found value may be written into. A person's email written into a third and a
fourth system in one task (a phone number made a customer's, an applicant's, a check's and a
contact's) is copying, not a workflow; a message sent to them (a notification) is not a copy."""


def copied_into(env: Environment, steps: Sequence[Step], value: Any) -> set[str]:
    """The services whose writes (other than sends: a message to someone copies nothing)
    took ``value`` as an argument, or as an item of one."""
    services = set()
    for step in steps:
        tool = env.tools[step.tool]
        if tool.kind != "write" or family(tool.name, tool.kind) == "send":
            continue
        if any(value == v or (isinstance(v, list) and value in v) for v in step.arguments.values()):
            services.add(step.tool.split(SEPARATOR, 1)[0])
    return services


def may_carry(env: Environment, steps: Sequence[Step], found: tuple[int, str], value: Any,
              semantic: str | None, target: str, param: Param, tool: Tool | None = None,
              origin: tuple[str, str] | None = None) -> bool:
    """Whether the value an earlier step found (``found``: its step and path in that step's
    answer) may fill ``param`` of the tool ``target`` (``service__tool``): its role fits the
    parameter's (:func:`crosses_roles`), and it is not written into a third service
    (:data:`COPY_LIMIT`). The walk's one role check at link choice (``tasks._fill.fill_step``).
    ``tool`` is ``target``'s (default: looked up in ``env``, where its service is mounted);
    ``origin`` is :func:`found_in`'s answer for the value, where the caller keeps it."""
    tool = tool if tool is not None else env.tools[target]
    source = origin if origin is not None else found_in(steps, *found, value)
    if crosses_roles(env.pool, value, source, semantic,
                     (param.name, entity_of(tool.name))) is not None:
        return False
    if tool.kind == "write" and family(tool.name, tool.kind) != "send":
        into = copied_into(env, steps, value) | {target.split(SEPARATOR, 1)[0]}
        return len(into) <= COPY_LIMIT
    return True
