"""``add [X] to Y`` / ``remove [X] from Y`` in a function's name: an entry of Y added or taken
out, never a new X nor an X deleted (bfcl's ``remove_stock_from_watchlist`` took the stock off
the market)."""

from __future__ import annotations

from typing import Any

from compoworld.compiler._rules import core_noun, entity_name, identifier
from compoworld.compiler._tooling import ToolPlan


def read_relation(verb: str, rest: list[str]) -> tuple[list[str], list[str]] | None:
    """``add [X] to Y`` / ``remove [X] from Y`` → (X's words, maybe none; Y's words), or None."""
    if verb not in ("add", "remove") or not {"to", "from"} & set(rest):
        return None
    at = next(i for i, word in enumerate(rest) if word in ("to", "from"))
    container = core_noun(rest[at + 1:])
    return (core_noun(rest[:at]), container) if container else None


def relation_plan(name: str, verb: str, relation: tuple[list[str], list[str]],
                   inputs: dict[str, dict[str, Any]], required: list[str], dialect: str
                   ) -> tuple[ToolPlan | None, str] | None:
    """``add_to_watchlist(stock)`` / ``remove_stock_from_watchlist(symbol)``: an entry of Y
    (the watchlist) added or taken out, the one input naming its member (the stock) — never a
    new stock nor a stock deleted from the market. A removal from one Y record (an input naming
    it, or more inputs than the member) is simulated; such an add is left to the other rules
    (None: ``add_comment_to_issue(issue_id, body)`` creates a comment of the issue)."""
    member, container = relation
    entity = entity_name("_".join(container))
    word = "to" if verb == "add" else "from"
    what = " ".join(member) or "a record"
    if len(inputs) != 1 or list(inputs) != required or any(
            identifier(k) in ("id", f"{entity}_id", f"{container[-1]}_id") for k in inputs):
        if verb == "add":
            return None
        return None, (f"{verb!r} {what} {word} one {entity} (a relation on that record, or one "
                      "with more inputs than its member) has no rule")
    key = required[0]
    op = "create" if verb == "add" else "delete"
    plan = ToolPlan(op=op, entity=entity, noun="_".join(container), source=name, verb=verb,
                    rule=f"{dialect}:verb {verb} {word} {entity} → {op} of an entry")
    if member:  # its field is named for the member, whatever the input is called
        plan.renames = {key: "_".join(member)}
    if op == "delete":
        plan.keys = [key]
    return plan, ""
