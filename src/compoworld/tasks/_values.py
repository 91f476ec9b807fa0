"""What the user states in a walk's calls, and how one item of a list answer is singled out.

A record taken from a list is said by what only it has: the filter the list was asked with
("the contact with the email address "x"") or a ranking ("the most recent message"), never
as a bare "the lead" — a reader cannot tell which of the leads is meant (:func:`singles_out`).
"""

from __future__ import annotations

import random
from typing import Any

from faker import Faker

from compoworld.graph import Fact, lists_records
from compoworld.service import Param, Tool
from compoworld.tasks._context import Context
from compoworld.tasks._model import ArgSource, Selection
from compoworld.tasks._motifs import operation
from compoworld.tasks._roles import PERSON_TYPES, entity_of, may_state
from compoworld.types import get_type, text_role

_TEXT_HINTS = {"subject": "Quarterly review", "title": "Follow-up meeting", "name": "Launch team",
               "body": "Hello, a quick note to follow up on our last exchange.",
               "description": "Prepared from the latest figures.", "notes": "Checked today.",
               "note": "Checked today.", "reason": "Customer request"}
# Untyped text a user writes freely (a subject, a note); any other untyped text on a write is
# an identifier (a server_id, a parent) and must be one the service holds, never made up.
_PROSE = frozenset({"body", "description", "notes", "note", "message", "text", "comment",
                    "content", "summary", "reason", "subject", "query", "memo", "details"})
_TITLES = frozenset({"name", "title", "label", "tag", "caption"})
# What a person writes in free text and in a title or a tag: short office phrases, never
# Faker's lorem ("Writer certainly small", "Because Which").
_SENTENCES = ("Following up on our call last week", "Please review this before Friday",
              "Updated with the latest figures", "Confirmed by phone this morning",
              "Notes from the kickoff meeting", "Details as agreed with the customer",
              "Flagged for the next team meeting", "Sent on behalf of the team")
_NAMES = ("Quarterly review", "Renewal planning", "Onboarding", "Budget review",
          "Vendor review", "Customer feedback", "Contract renewal", "Launch plan")
_TAGS = ("follow-up", "priority", "renewal", "vip", "needs-review", "q2")


def user_value(ctx: Context, service: str, param: Param, tool: Tool, rng: random.Random,
               fake: Faker) -> Any:
    """A value the user states for ``param``, or None when there is no sensible one."""
    base, is_list, choices = param.base, param.is_list, param.choices
    if choices:
        return rng.choice(choices)
    if param.semantic and param.semantic != "Ref":
        known = ctx.user_values(service, param.semantic)
        if tool.kind == "write":  # never the user's company or a colleague as a customer
            known = _statable(ctx, service, param.semantic, (param.name, entity_of(tool.name)))
        value = rng.choice(known) if known else None
        if value is None and param.semantic in ("Date", "DateTime"):
            day = ctx.initial.today.isoformat()
            value = day if param.semantic == "Date" else f"{day}T10:00:00"
        if value is None:
            value = get_type(param.semantic).generate(fake)
        return [value] if is_list else value
    if base is str and tool.kind == "write":
        words = set(param.name.split("_"))
        if param.name in _TEXT_HINTS:
            return _TEXT_HINTS[param.name]
        if words & _PROSE:
            return rng.choice(_SENTENCES)
        if words & {"tag", "label"}:
            return rng.choice(_TAGS)
        if words & _TITLES:
            return rng.choice(_NAMES)
        if text_role(param.name) == "code":
            return None  # an opaque code ("PRI-646488") is looked up, never said by heart
        # An identifier has no spaces: a sentence in an id-like column is filler, not an id.
        held = [v for v in ctx.column_values(service, param.name) if " " not in v]
        return rng.choice(held) if held else None
    return None


def _statable(ctx: Context, service: str, semantic: str, target: tuple[str, str]) -> list[Any]:
    """The values of :meth:`Context.user_values` the user may state for ``target`` (a field
    and its record) of a write (:func:`may_state`), computed once per world."""
    key = (service, semantic, *target)
    found = ctx.statable.get(key)
    if found is None:
        found = ctx.statable[key] = [v for v in ctx.user_values(service, semantic)
                                     if may_state(ctx.initial.pool, v, semantic, target)]
    return found


def selections(output: Any, list_path: str) -> dict[int, list[Selection]]:
    """For a list in an answer: per item index, the selections that pick that item alone (a
    field whose max, or min, only it holds)."""
    items: Any = output
    for part in list_path.split("."):
        items = items.get(part) if isinstance(items, dict) else None
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        return {}
    out: dict[int, list[Selection]] = {}
    for by in sorted(items[0]):
        values = [item.get(by) for item in items]
        kind = type(values[0])
        if not all(type(v) is kind and _sortable(v) for v in values):
            continue
        for order, best in (("max", max(values)), ("min", min(values))):
            if values.count(best) == 1:
                out.setdefault(values.index(best), []).append(Selection(by=by, order=order))
    return out


def unfiltered_list(name: str, tool: Tool, sources: dict[str, ArgSource]) -> bool:
    """Whether read ``name`` lists records and nothing narrows it (no argument the user states
    or an earlier step gives): the request can say which of its records it means only by a
    ranking."""
    return (tool.kind == "read" and not sources
            and operation(name, "read", lists_records(tool.output_schema)) == "list")


def unidentified_record(name: str, tool: Tool, sources: dict[str, ArgSource]) -> bool:
    """Whether read ``name`` is a get nothing narrows (no argument): it answers with the one
    record of the caller's own account ("fetch user info", "get authenticated user"). A person
    would call it "my account" — but the seeded world gives it someone else's name and email,
    so no honest phrase names the person it holds (:func:`singles_out`)."""
    return (tool.kind == "read" and not sources
            and operation(name, "read", lists_records(tool.output_schema)) == "get")


def singles_out(fact: Fact, selection: Selection | None, output: Any, unfiltered: bool,
                unidentified: bool = False) -> bool:
    """Whether the request can say which record ``fact`` of an answer is about: any record of
    a filtered list or of a get; of a list nothing narrows (``unfiltered``), only an item of
    its list of records that a ranking (``selection``) singles out — not the one record
    such a list answered with ("the lead in the CRM": one of many to the reader), nor the
    lone item of a list of one without a ranking; of a get with no argument
    (``unidentified``, :func:`unidentified_record`), no person's email, phone or name ("the
    email address of the user info": whose?)."""
    if unidentified and fact.key[0] == "type" and fact.key[1] in PERSON_TYPES:
        return False
    if not unfiltered:
        return True
    listed = isinstance(output, list) or (isinstance(output, dict)
                                          and isinstance(output.get("items"), list))
    return listed and fact.list_path is not None and (fact.list_size > 1 or selection is not None)


def _sortable(value: Any) -> bool:
    """Numbers, and ISO dates or date-times (which sort as text)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or (isinstance(value, str) and len(value) >= 10
                                               and value[4:5] == "-" and value[:4].isdigit())
