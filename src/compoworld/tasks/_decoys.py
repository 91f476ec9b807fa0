"""Decoys: a second person with the same name as the one the task is about.

Where a plan reads a list by a person's name and takes a value of the one it finds (the email
of the contact named "Ada Byron"), the world gets a second record of that table with the same
name and everything else someone else's — their email, phone, company. The instruction says
which one is meant by what sets them apart, as a person would ("there are two contacts named
"Ada Byron" — I mean the one at Byron Ltd"), never by the value the agent must find; the plan is
unchanged. Acting on the decoy writes the decoy's values: the row-level rubric and the
collateral check fail it.

Gate ``trap_matters`` for a decoy (:func:`decoy_matters`): the read lists both, and the plan
that takes the decoy instead fails the rubric.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from compoworld.errors import RecordNotFound
from compoworld.service import SEPARATOR, Column, Environment
from compoworld.tasks._check import score
from compoworld.tasks._following import run_following
from compoworld.tasks._instruction import leaked
from compoworld.tasks._model import Criterion, Planted, Step, Trap
from compoworld.tasks._phrasing import literal, plural
from compoworld.tasks._service_names import display_name
from compoworld.types import Person

_REPLACED = {"Email": "email", "Phone": "phone", "Username": "username", "City": "city",
             "StreetAddress": "address", "JobTitle": "job_title", "PostalCode": "postal_code"}
"""What of the decoy is someone else's: by semantic type, the other person's attribute."""
_NAMES = frozenset({"PersonName", "FirstName", "LastName"})


_OWN_NAMES = ("name", "full_name", "display_name")
"""Columns that hold a record's own name (not a requester's or an owner's)."""


def _name_column(columns: Sequence[Column]) -> str | None:
    """The column holding the person a record is (a contact's, a customer's name)."""
    return next((c.name for c in columns if c.semantic == "PersonName"
                 and c.name in _OWN_NAMES), None)


def _stranger(env: Environment, values: set[str], rng: random.Random) -> Person | None:
    """A person of the pool whose email, name and phone the table does not hold."""
    people = [p for p in env.pool.people if p != env.pool.user
              and not {p.email, p.name, p.phone} & values]
    return people[rng.randrange(len(people))] if people else None


def _options(plan: list[Step], env: Environment) -> list[tuple[int, int, str, str, str]]:
    """(read step, item index, list field, service, entity) of people a read lists and a later
    step takes a value of (not picked by a ranking: the item the read's filter found)."""
    out = []
    for i, step in enumerate(plan):
        output = step.output
        if env.tools[step.tool].kind != "read" or not isinstance(output, dict):
            continue
        service = step.tool.split(SEPARATOR, 1)[0]
        for later in plan[i + 1:]:
            for src in later.sources.values():
                parts = (src.path or "").split(".")
                if src.step != i or src.kind != "step" or src.selection or len(parts) != 3 \
                        or not parts[1].isdigit():
                    continue
                items = output.get(parts[0])
                item = items[int(parts[1])] if isinstance(items, list) and \
                    int(parts[1]) < len(items) else None
                if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                    continue
                for entity, table in sorted(env.services[service].tables.items()):
                    column = _name_column(table.columns)
                    if column and isinstance(item.get(column), str) and \
                            env.db(service).count(entity, {"id": item["id"]}):
                        out.append((i, int(parts[1]), parts[0], service, entity))
                        break
    return sorted(set(out))


def add_decoy(plan: list[Step], env: Environment, rng: random.Random
              ) -> tuple[Trap, Planted, str] | None:
    """A decoy for one person the plan finds by name: the trap, the planted record and the
    instruction's note saying which one is meant; None where the plan finds no one by name,
    or nothing tells the two apart that the note could say without giving a value away."""
    options = _options(plan, env)
    if not options:
        return None
    read, index, field, service, entity = options[rng.randrange(len(options))]
    item = plan[read].output[field][index]
    db = env.db(service)
    try:
        real = db.get(entity, item["id"])
    except RecordNotFound:
        return None
    columns = env.services[service].tables[entity].columns
    held = {str(v) for r in db.select(entity, limit=500) for v in r.values() if isinstance(v, str)}
    other = _stranger(env, held, rng)
    if other is None:
        return None
    # as the read found it, before the plan's writes
    values = {**real, **{k: v for k, v in item.items() if k in real}}
    prefix = real["id"].partition("_")[0] + "_" if "_" in real["id"] else "x"
    values["id"] = f"{prefix}{rng.getrandbits(32):08x}"
    changed = False
    company = None
    kept = {str(v) for v in plan[read].arguments.values()}  # what the read filters by
    for column in columns:
        if column.semantic in _NAMES or values.get(column.name) is None or \
                str(values[column.name]) in kept:
            continue
        if column.semantic == "CompanyName" and isinstance(values[column.name], str):
            company = column.name
            values[column.name] = other.company.name
            changed = True
        elif column.semantic in _REPLACED and isinstance(values[column.name], str):
            values[column.name] = getattr(other, _REPLACED[column.semantic])
            changed = True
    if not changed:
        return None
    name_column = _name_column(columns)
    assert name_column is not None
    name = real[name_column]
    email = next((c.name for c in columns if c.semantic == "Email"
                  and isinstance(real.get(c.name), str) and "@" in real[c.name]), None)
    things = plural(entity.replace("_", " "))
    if company is not None and real[company] != values[company]:
        which = f"the one at {real[company]}"
    elif email is not None and real[email].split("@")[1] != values[email].split("@")[1]:
        which = f"the one with the @{real[email].split('@')[1]} email address"
    else:
        return None
    place = display_name(env.services[service])
    note = (f"There are two {things} named {literal(name)} in {place} — I mean {which}; leave "
            f"the other one alone.")
    if leaked(note, plan):  # their name is a value the agent must find
        note = (f"Two {things} in {place} look alike — I mean {which}; leave the other one "
                f"alone.")
    if leaked(note, plan):
        return None
    trap = Trap(kind="decoy", table=f"{service}{SEPARATOR}{entity}", step=plan[read],
                position=read, record=values["id"])
    return trap, Planted(service=service, entity=entity, values=values), note


def _listed(output: Any, record: str) -> tuple[str, int] | None:
    """(list field, index) of ``record`` in a read's answer."""
    if not isinstance(output, dict):
        return None
    for field, items in output.items():
        if isinstance(items, list):
            for k, item in enumerate(items):
                if isinstance(item, dict) and item.get("id") == record:
                    return field, k
    return None


def decoy_matters(plan: list[Step], trap: Trap, rubric: list[Criterion], initial: Environment,
                  scratch: Callable[[], Environment], message: str) -> bool:
    """Gate (``trap_matters`` for a decoy): the read lists the decoy beside the one meant, and
    the plan that takes the decoy's values instead fails the rubric."""
    assert trap.record is not None
    found = _listed(plan[trap.position].output, trap.record)
    if found is None:
        return False  # the read never shows it: no one could mistake it
    swapped = decoy_plan(plan, trap)
    if swapped is None:
        return False
    env = scratch()
    ran = run_following(env, swapped)
    if ran is None:
        return True  # taking the decoy fails a call: it cannot pass
    done = [(s.tool, s.arguments) for s in ran[0]]
    return not all(r.passed for r in score(rubric, initial, env, message, done))


def decoy_plan(plan: list[Step], trap: Trap) -> list[Step] | None:
    """The plan an agent that takes the decoy follows (every value the read's item gives
    read from the decoy instead; run it with ``run_following``); None when the read does not
    list the decoy."""
    assert trap.record is not None
    found = _listed(plan[trap.position].output, trap.record)
    if found is None:
        return None
    field, index = found
    swapped = []
    for step in plan:
        sources = {}
        for name, src in step.sources.items():
            parts = (src.path or "").split(".")
            if src.step == trap.position and len(parts) == 3 and parts[0] == field \
                    and parts[1].isdigit() and not src.selection:
                src = src.model_copy(update={"path": f"{field}.{index}.{parts[2]}"})
            sources[name] = src
        swapped.append(step.model_copy(update={"sources": sources}))
    return swapped
