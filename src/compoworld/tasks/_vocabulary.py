"""The words the request writer (``tasks._request``) draws on: which entities are people or
companies, why a person asks for a record in a system of a domain, past tenses, the words a
filter reads with, and small helpers on step answers."""

from __future__ import annotations

from typing import Any

# Entities that are people: "add <person> as an applicant", and their fields are "their ...".
PEOPLE = frozenset({"contact", "customer", "employee", "applicant", "lead", "user", "member",
                     "candidate", "person", "attendee", "subscriber", "participant", "author",
                     "recipient", "volunteer", "agent", "owner", "sender", "profile"})
COMPANIES = frozenset({"company", "account", "organization", "enterprise", "vendor",
                        "supplier", "business"})
# Why a person would ask for a record in a system of this domain (said once, when it applies).
WHY = {("create", "hr"): "so HR has them on file",
        ("create", "sales"): "so the sales team can follow up",
        ("create", "support"): "so support has their details when they get in touch",
        ("create", "finance"): "so we can invoice them",
        ("update", "sales"): "so the pipeline stays accurate"}
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
