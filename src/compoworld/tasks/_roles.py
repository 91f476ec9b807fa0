"""Roles: the user (whose workspace it is) is never the object of another person's record.

A walk may carry any found value into a write, so without a rule it will make the mailbox
owner a customer of their own company, a lead, an applicant, or rename their own account after
a contact. Whatever the services, that shows in a step's changes: a record created with the
user's own email, phone or name, or a record that held them changed to hold someone else's.
"""

from __future__ import annotations

from typing import Any

from compoworld.service import SEPARATOR, Change, Environment
from compoworld.tasks._diff import net_changes
from compoworld.types import Person


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


def renames_owner(changes: list[Change], initial: Environment) -> bool:
    """Whether a step's changes rewrite who a service's one record is — its account or profile
    (a table that holds a single record: the caller's own), given another person's name,
    email or phone."""
    for (table, _), (before, after) in net_changes(changes).items():
        if before is None or after is None:
            continue
        service, entity = table.split(SEPARATOR, 1)
        if service not in initial.services or initial.db(service).count(entity) != 1:
            continue
        columns = initial.services[service].tables[entity].columns
        if any(c.semantic in _IDENTITY_TYPES and after.get(c.name) != before.get(c.name)
               for c in columns):
            return True
    return False
