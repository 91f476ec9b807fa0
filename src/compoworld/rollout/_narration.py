"""What the oracle says: the reasoning of each turn, built from ordered notes, and its report.

A step's reasoning is a list of :class:`Note` (what the step is for, where each argument comes
from: which earlier result a value is read from, which selection singles an item out, which
condition is checked). What a task's structures add (a rule, a trap, a fan-out,
a condition...) comes from :mod:`compoworld.rollout._plays`; a :class:`Narrator` — the hook
for a caller's own notes — receives each step's notes and returns them changed. The oracle
joins the notes of a turn into its ``reasoning_content``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from compoworld.service import SEPARATOR
from compoworld.tasks import ArgSource, Condition, Selection, Step, Task

NoteKind = Literal["purpose", "source", "selection", "user", "condition", "rule", "check",
                   "recovery", "discovery"]

_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
             "ninth", "tenth", "eleventh", "twelfth"]
_DATES = {"created": "creation date", "updated": "update date", "due": "due date",
          "start": "start date", "date": "date", "created at": "creation date",
          "updated at": "update date"}
_READ_VERBS = {"list", "get", "find", "search", "lookup", "read", "fetch", "show", "query",
               "retrieve", "describe", "count"}


@dataclass(frozen=True)
class Note:
    """One sentence of a step's reasoning, with what it is about."""

    kind: NoteKind
    text: str


@runtime_checkable
class Narrator(Protocol):
    """Changes the notes of a step (scenario code: rules to read first, traps to check)."""

    def notes(self, task: Task, step: int, notes: list[Note]) -> list[Note]:
        """The notes of step ``step`` of ``task``, given the ones made so far."""
        ...


def words(name: str | None) -> str:
    """``assignee_email`` / ``AssigneeEmail`` → ``assignee email``."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name or "value")
    return re.sub(r"[_\s]+", " ", text).strip().lower()


def ordinal(index: int) -> str:
    return _ORDINALS[index] if index < len(_ORDINALS) else f"{index + 1}th"


def action(step: Step) -> tuple[str, str, str]:
    """(service, verb, noun) of a step's tool: ``mail__create_draft`` → mail, create, draft."""
    service, tool = step.tool.split(SEPARATOR, 1)
    verb, _, noun = tool.partition("_")
    noun = re.split(r"\b(?:by|with|for|from|in|of)\b", words(noun))[0].strip()
    return service, verb, noun or "record"


def is_read(step: Step) -> bool:
    return action(step)[1] in _READ_VERBS


def show(value: Any, limit: int = 60) -> str:
    """A value as the oracle quotes it."""
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _field(path: str | None) -> str:
    """The last named part of a dotted path (``items.19.assignee_email`` → assignee email)."""
    parts = [p for p in (path or "").split(".") if p and not p.isdigit()]
    return words(parts[-1]) if parts else "result"


_ARGUMENTS = {"to": "recipient", "cc": "cc recipients", "bcc": "bcc recipients"}


def _arg(name: str) -> str:
    """An argument's name as the reasoning says it."""
    return _ARGUMENTS.get(name, words(name))


def _end(text: str) -> str:
    """``text`` closed by one full stop."""
    return text if text.endswith((".", "…", "!", "?")) else text + "."


def ranking(selection: Selection) -> tuple[str, str]:
    """How a selection reads: (``latest``, ``creation date``), (``highest``, ``amount``)."""
    by = words(selection.by)
    if by in _DATES or by.endswith((" at", " date", " on", "day")):
        return ("latest" if selection.order == "max" else "earliest"), _DATES.get(by, by)
    return ("highest" if selection.order == "max" else "lowest"), by


def _from_step(task: Task, arg: str, source: ArgSource, value: Any) -> list[Note]:
    earlier = task.plan[source.step or 0]
    _, verb, noun = action(earlier)
    call = f"the {ordinal(source.step or 0)} call ({verb} {noun})"
    if source.selection is None:
        return [Note("source", f"The {_arg(arg)} is the {_field(source.path)} of the {noun} "
                               f"I got from {call}: {_end(show(value))}")]
    extreme, by = ranking(source.selection)
    return [Note("source", f"The {_arg(arg)} is the {_field(source.path)} of one of the "
                           f"{noun} from {call}."),
            Note("selection", f"Several came back, so I take the one with the {extreme} {by}: "
                              f"{_end(show(value))}")]


def _from_sum(task: Task, arg: str, source: ArgSource, value: Any) -> Note:
    earlier = task.plan[source.step or 0]
    summed = _field(source.paths[0] if source.paths else None)
    return Note("source", f"The {words(arg)} is the sum of the {summed} "
                          f"values in the {ordinal(source.step or 0)} result "
                          f"({action(earlier)[2]}): {show(value)}.")


def condition_note(task: Task, condition: Condition, value: Any) -> Note:
    """The check a conditional write depends on, and which way it went."""
    op = "above" if condition.op == "gt" else "below"
    what = _field(condition.path)
    verdict = ("so the condition holds and I go ahead" if condition.holds
               else "so the condition does not hold and I leave it there")
    return Note("condition", f"The request says to do this only if the {what} from the "
                             f"{ordinal(condition.source)} call is {op} {condition.threshold}; "
                             f"it is {show(value)}, {verdict}.")


def step_notes(task: Task, index: int, arguments: dict[str, Any], *,
               alongside: bool = False) -> list[Note]:
    """The notes of step ``index``: its purpose, then where each argument comes from
    (``alongside``: the step shares its turn with an earlier one)."""
    step = task.plan[index]
    service, verb, noun = action(step)
    needed = any(s.step == index for later in task.plan[index + 1:] for s in later.sources.values())
    if alongside:
        purpose = f"In the same turn I {verb} the {noun} in {service}"
    elif is_read(step):
        why = "what the next steps need" if needed else "what the request asks about"
        purpose = f"To get {why}, I {verb} the {noun} in {service}"
    else:
        purpose = f"Now I can {verb} the {noun} in {service}" if index else (
            f"First I {verb} the {noun} in {service}")
    notes = [Note("purpose", purpose + ".")]
    picked: set[tuple[int, str, str]] = set()
    for arg, source in step.sources.items():
        value = arguments.get(arg, step.arguments.get(arg))
        if source.kind == "step" and source.step is not None:
            key = (source.step, *(ranking(source.selection) if source.selection else ("", "")))
            if source.selection is not None and key in picked:
                notes.append(Note("source", f"The {_arg(arg)} is that same one's "
                                            f"{_field(source.path)}: {_end(show(value))}"))
                continue
            picked.add(key)
            notes += _from_step(task, arg, source, value)
        elif source.kind == "computed":
            notes.append(_from_sum(task, arg, source, value))
        elif source.kind == "user":
            notes.append(Note("user", f"The {_arg(arg)} is given in the request: "
                                      f"{_end(show(value))}"))
    return notes


def join(notes: list[Note]) -> str:
    """Notes as one paragraph of reasoning."""
    return " ".join(n.text for n in notes)
