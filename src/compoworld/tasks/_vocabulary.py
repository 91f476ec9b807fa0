"""The words the request writer (``tasks._request``) draws on: which entities are people or
companies, why a person asks for a record in a system of a domain, past tenses, the words a
filter reads with, and small helpers on step answers."""

from __future__ import annotations

from typing import Any

from compoworld.tasks._model import Selection, Step
from compoworld.types import Person

# Entities that are people: "add <person> as an applicant", and their fields are "their ...".
PEOPLE = frozenset({"contact", "customer", "employee", "applicant", "lead", "user", "member",
                     "candidate", "person", "attendee", "subscriber", "participant", "author",
                     "recipient", "volunteer", "agent", "owner", "sender", "profile"})
COMPANIES = frozenset({"company", "account", "organization", "enterprise", "vendor",
                        "supplier", "business"})
# Why a person asks for a record of a person, by what the record is (and, for a customer,
# the kind of system it is in): said once per domain, when one applies. Keyed by the record,
# not the service's domain alone: a CRM's "user" is a colleague's login, no one to follow up.
_WHY_CREATE = {"lead": "so the sales team can follow up",
               "prospect": "so the sales team can follow up",
               "applicant": "so recruiting has them on file",
               "candidate": "so recruiting has them on file",
               "employee": "so HR has them on file",
               "subscriber": "so they get our updates"}
_WHY_CUSTOMER = {"support": "so support has their details when they get in touch",
                 "finance": "so we can invoice them", "sales": "so the sales team can follow up",
                 "commerce": "so their orders go to the right account"}


def why(kind: str, entity: str, domain: str) -> str | None:
    """Why the user asks for a ``kind`` (create, update...) of a person's ``entity`` record
    in a service of ``domain``, or None when nothing natural applies.

    Example:
        >>> why("create", "applicant", "hr"), why("create", "user", "sales")
        ('so recruiting has them on file', None)
    """
    last = entity.split(" ")[-1]
    if kind == "create" and last in ("customer", "client"):
        return _WHY_CUSTOMER.get(domain)
    if kind == "create" and last == "contact" and domain == "sales":
        return "so the sales team can follow up"
    if kind == "create":
        return _WHY_CREATE.get(last)
    if kind == "update" and domain == "sales" and last in ("lead", "contact", "prospect"):
        return "so the pipeline stays accurate"
    return None


PAST = {"create": "added", "update": "updated", "send": "sent", "delete": "deleted",
         "other": "set up"}
VERB_PAST = {"tag": "tagged", "log": "logged", "draft": "drafted", "move": "moved",
              "mark": "marked", "cancel": "cancelled", "schedule": "scheduled",
              "book": "booked", "open": "opened", "register": "registered", "assign": "assigned",
              "archive": "archived", "upload": "uploaded", "submit": "submitted"}
# Create verbs a person keeps ("log an activity", "schedule a meeting"); others read "create".
KEPT = frozenset({"log", "schedule", "book", "open", "register", "upload", "submit", "draft"})
BY = {"sender": "from", "from": "from", "to": "to", "recipient": "to", "owner": "owned by",
       "owner email": "owned by", "assignee": "assigned to", "assignee email": "assigned to",
       "organizer": "organized by", "author": "by", "author email": "by",
       "company": "at", "organization": "for", "query": "matching", "name contains":
       "whose name contains", "tag": "tagged", "email": "with the email address",
       "number": "numbered", "phone": "with the phone number", "status": "with status",
       "stage": "in stage", "folder": "in the folder", "industry": "in the industry"}


def last_field(path: str | None) -> str:
    parts = [p for p in (path or "").split(".") if not p.isdigit()]
    return parts[-1] if parts else ""


def is_list(output: Any) -> bool:
    return isinstance(output, list) or (isinstance(output, dict) and "items" in output
                                        and isinstance(output["items"], list))


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def find(output: Any, value: Any, in_items: bool) -> str | None:
    """The path of ``value`` in ``output`` (in a list item when ``in_items``)."""
    def walk(node: Any, path: list[str]) -> str | None:
        if node == value and path:
            return ".".join(path)
        if isinstance(node, dict):
            for key, child in node.items():
                found = walk(child, [*path, str(key)])
                if found:
                    return found
        if isinstance(node, list):
            for index, child in enumerate(node):
                found = walk(child, [*path, str(index)])
                if found:
                    return found
        return None
    return walk(output, [])


def subject_param(step: Step, entity: str, semantic: dict[str, str | None]) -> str | None:
    """The argument naming who a create of ``entity`` is about ("add <that person> as a
    customer"): a found person's name for an entity that is a person, a company's for a
    company (``semantic``: the tool's parameters' types)."""
    last = entity.split(" ")[-1]
    wanted = "PersonName" if last in PEOPLE else "CompanyName" if last in COMPANIES else None
    for name, source in step.sources.items():
        if semantic.get(name) == wanted and source.kind == "step" and (
                wanted == "CompanyName" or "company" not in name):
            return name
    return None


def pick_key(selection: Selection | None) -> str | None:
    """Which item a selection picks, as a key: the earliest and the latest are two records."""
    return selection.model_dump_json() if selection is not None else None


def users_own(user: Person, value: Any) -> bool:
    """Whether ``value`` is one the user knows as their own: their name (or a part of it),
    email, phone, username, address, or their company's name, email or phone."""
    if not isinstance(value, str) or not value:
        return False
    company = user.company
    own = (user.name, user.first_name, user.last_name, user.email, user.phone, user.username,
           user.address, company.name, company.email, company.phone)
    return value.casefold() in {v.casefold() for v in own if v}


def own_words(user: Person, value: Any, use: str) -> str | None:
    """``value`` as the user says it when it is their own name, email, phone or company ("my
    email address"; "me", "my company" for ``use == "who"``), else None."""
    for own, said in ((user.name, "my name"), (user.email, "my email address"),
                      (user.phone, "my phone number")):
        if value == own:
            return "me" if use == "who" else said
    if value == user.company.name:
        return "my company" if use == "who" else "my company's name"
    return None
