"""What the oracle says while it discovers in gateway mode: listing the services, looking into
those that could hold what it needs (some do not), describing each tool before its first call.
"""

from __future__ import annotations

import hashlib
from typing import Any

from compoworld.rollout._narration import Note, action, words
from compoworld.rollout._results import data_of
from compoworld.service import SEPARATOR
from compoworld.tasks import Task


def pick(task: Task, key: str, options: list[str]) -> str:
    """One of ``options``, chosen by the task and ``key`` (the same every time)."""
    digest = hashlib.sha256(f"{task.id}\0{key}".encode()).digest()
    return options[int.from_bytes(digest[:4], "big") % len(options)]


def and_(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def discovery_notes(task: Task, turn: list[tuple[str, Any]], previous: list[tuple[str, Any]],
                    results: dict[Any, Any]) -> list[Note]:
    """The notes of a discovery turn (``services``, ``tools`` or ``describe`` calls)."""
    kinds = [k for k, _ in turn]
    nouns = list(dict.fromkeys(action(s)[2] for s in task.plan))
    if kinds == ["services"]:
        return [Note("discovery", pick(task, "services", [
            f"To do this I need to work with {and_(nouns)}. I do not know yet which "
            "services this workspace has, so I list them first.",
            f"This touches {and_(nouns)}. Nothing tells me where those live here, so I start "
            "by listing the services.",
            f"The request involves {and_(nouns)}; first I find out which services are "
            "available in this workspace."]))]
    if kinds[0] == "tools":
        involved = [w for k, w in turn if w not in task.distractors]
        maybe = [w for k, w in turn if w in task.distractors]
        notes = [Note("discovery", f"From the list, {and_(involved)} look like where "
                                   f"{and_(nouns)} live.")]
        if maybe:
            notes.append(Note("discovery", f"Something related might also sit in "
                                           f"{and_(maybe)}, so I check there as well."))
        notes.append(Note("discovery", pick(task, "tools", [
            "I list the tools of each to see what they offer.",
            "Their tool lists will tell me which calls I need.",
            "I look at each one's tools before choosing."])))
        return notes
    notes = []
    if previous and previous[0][0] == "tools":
        for _, service in previous:
            if service in task.distractors:
                names = [str(t.get("name", "")).split(SEPARATOR, 1)[-1] for t in
                         (data_of(results.get(f"call_tools_{service}")) or [])][:3]
                about = and_([words(n) for n in names]) or "other things"
                notes.append(Note("discovery", f"{service} has nothing I need here "
                                               f"(its tools are about {about})."))
    tools = [w for _, w in turn]
    named, many = and_([f"`{t}`" for t in tools]), len(tools) > 1
    notes.append(Note("discovery", pick(task, f"describe {tools[0]}", [
        f"Before calling {named} I read {'their' if many else 'its'} parameters, so "
        f"that I send exactly what {'they expect' if many else 'it expects'}.",
        f"I have not used {named} yet; I check {'their' if many else 'its'} schema "
        "first.",
        f"Next I need {named}. I look up {'their' if many else 'its'} parameters "
        "before the call."])))
    return notes
