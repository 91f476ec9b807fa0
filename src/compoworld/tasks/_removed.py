"""Records a plan removed, and writes that copy them: deleting a contact and then creating a
customer with that contact's name and email is two contradictory requests, not a workflow.

Copying first and deleting after (a move) is real work and stays: only a write *after* the
delete that takes a value of the deleted record is refused (the walk's outcome ``"purpose"``,
``tasks._walk``), and a purpose that says records are closed out claims nothing of a plan that
does it (``tasks._purpose``, claim ``removes``). Read off the tools' operations, their names'
nouns and their parameters' references, never a service's name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from compoworld.service import Environment, Tool
from compoworld.tasks._model import ArgSource, Step
from compoworld.tasks._motifs import operation
from compoworld.tasks._phrasing import family, singular, verb_and_noun
from compoworld.tasks._roles import _words


def removed_records(env: Environment, steps: Sequence[Step]) -> set[tuple[str, str]]:
    """(entity, id) of each record a delete among ``steps`` removed: a write whose operation is
    delete, given a reference to a record of the kind its name says (``delete_ticket`` of a
    ``ticket_id``), never a part of another record (``remove_attendee`` of an ``event_id``
    removes no event).

    Example:
        >>> removed_records(None, [])  # type: ignore[arg-type]
        set()
    """
    gone: set[tuple[str, str]] = set()
    for step in steps:
        tool = env.tools[step.tool]
        if tool.kind != "write" or operation(step.tool, tool.kind, False) != "delete":
            continue
        noun = verb_and_noun(tool.name)[1].split(" ")[-1:]
        for param in tool.params:
            value = step.arguments.get(param.name)
            entity = singular(param.ref.lower()) if param.ref else ""
            if isinstance(value, str) and entity and noun == [entity]:
                gone.add((entity, value))
    return gone


def copies_removed(env: Environment, steps: Sequence[Step], write: Tool,
                   sources: Mapping[str, ArgSource]) -> bool:
    """Whether a write of ``write`` given ``sources`` (after ``steps``) copies a value of a
    record one of ``steps`` removed (:func:`in_removed`). A send copies nothing (telling the
    person whose record was closed is the clean-up's last step, as ``_roles.copied_into``
    counts no message as a copy)."""
    if write.kind != "write" or family(write.name, write.kind) == "send":
        return False
    gone = removed_records(env, steps)
    return bool(gone) and any(
        source.kind in ("step", "rule") and source.step is not None and bool(source.path)
        and in_removed(steps, gone, source.step, source.path or "")
        for source in sources.values())


def in_removed(steps: Sequence[Step], gone: set[tuple[str, str]], step: int, path: str) -> bool:
    """Whether the value at ``path`` of step ``step``'s answer lies in a record of ``gone``
    (:func:`removed_records`): a record on its path whose own id (``id``, or
    ``<entity>_id``) is a removed record's. What ``tasks._fill`` leaves out of a write's
    choices, so that another found value may fill it."""
    if step >= len(steps):
        return False
    return any(_own_id(key, entity) and record.get(key) == value
               for record in _records_on(steps[step].output, path)
               for entity, value in gone for key in record)


def _own_id(key: str, entity: str) -> bool:
    return key == "id" or _words(key) == (*_words(entity), "id")


def _records_on(output: Any, path: str) -> list[dict[str, Any]]:
    """The records (objects) a value at ``path`` sits in, outermost first."""
    found, value = [], output
    for part in path.split("."):
        if isinstance(value, dict):
            found.append(value)
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            break
    return found
