"""Error recovery: the obvious call is refused by a rule of the service, and the task is still
done another way.

The world gets one record that makes a write of the plan refused by the service's own rule, and
the instruction says what to do then, as a person would — never the value the way around ends
up with. Two kinds, each found by trying it on the task's world (a kind applies where the
service really refuses the call, for the planted record's sake: its refusal names it):

* **the time is taken** (``_clash``): a write that books a time span (a start and an end the
  request states: an event, a meeting) — the world gets a record of the same kind for the same
  owner at exactly that time (something already booked), so the service refuses the double
  booking ("Dana is busy then: 'Focus time' from 14:00 to 15:00 (id ev_...)"); the note: "if
  that time is taken, don't move what's in the way: book it to start when that ends, for the
  same length". The recovery: the same write, starting when the blocker ends.
* **the value is taken** (``_taken``): a create whose result later steps use, on a record with
  a unique value (a customer's email, a project's name) — the world already holds a record
  with that value, so the service refuses the second one ("customer 'cu_...' already has email
  ..."); the note: "if something I ask you to add is there already, don't add another or change
  it: carry on with the one that's there". The recovery: a read of the service that shows the
  record already there (``tasks._trap_check.find_check``), whose id the later steps use.

The refused call is the task's trap (``Trap.kind == "refusal"``: ``step`` the call as asked,
``position`` the recovery's step, which stands in its place, ``record`` the planted record);
the instruction asks for the call as asked (``tasks._instruction`` words ``trap.step`` in the
recovery's place); the oracle makes it first and reads the refusal
(``tasks._trap_check.trap_check`` gives it as the trap's check); a recovery's values the
refusal gives are sourced ``ArgSource(kind="refusal")``.

Gate ``trap_matters`` for a refusal (:func:`refusal_matters`): the call as asked is refused on
the task's world, and the plan that stops there (:func:`gave_up`; also the ``give-up``
mutation probe) fails the rubric. An agent that moves, cancels or edits the blocker fails the
collateral check; one that books another time, or adds a record under another value, fails
the recovery's criteria.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime
from typing import Any

from compoworld.errors import CompoWorldError
from compoworld.service import SEPARATOR, Change, Environment
from compoworld.tasks._check import score
from compoworld.tasks._diff import kind_of, net_changes
from compoworld.tasks._following import run_following
from compoworld.tasks._model import ArgSource, Criterion, Planted, Step, Trap
from compoworld.tasks._planting import plant
from compoworld.tasks._stored import shift_sources
from compoworld.tasks._trap_check import PAGING, find_check

RECOVERY_SHARE = 0.5
"""Share of attempts that try a refusal to recover from (where the plan books a time span)."""
_STARTS = ("start", "start_time", "starts_at", "start_at", "begin", "from")
_ENDS = ("end", "end_time", "ends_at", "end_at", "finish", "to", "until")
_BLOCKERS = ("Focus time", "Dentist appointment", "Team offsite prep", "Quarterly planning",
             "Interview panel", "Vendor call", "Training session", "Board prep")
"""What is already booked at that time: titles a person's calendar holds."""
_TITLES = ("title", "summary", "name", "subject")
_NOTES = ("description", "notes", "body", "agenda")
CLASH_NOTE = ("If that time turns out to be taken, don't move or cancel whatever is in the way: "
              "book it to start right when that ends, for the same length of time.")
"""What the instruction says to do when the time asked for is taken."""
TAKEN_NOTE = ("If something I ask you to add turns out to be there already, don't add another "
              "or change it: carry on with the one that's there.")
"""What the instruction says to do when a create is refused for a value already taken."""

IN_USE_NOTE = ("If something I ask you to remove can't go because other records there still "
               "point to it, remove those records first, then remove it.")
"""What the instruction says to do when a delete is refused for records that refer to it."""

Fresh = Callable[[], Environment]
_STATED = ArgSource(kind="user")


def _span(step: Step) -> tuple[str, str, datetime, datetime] | None:
    """(start argument, end argument, start, end) of a write that books a time span."""
    names = [(s, e) for s in _STARTS for e in _ENDS if s in step.arguments and e in step.arguments]
    if not names:
        return None
    start, end = names[0]
    if any(step.sources.get(n, _STATED).kind != "user" for n in (start, end)):
        return None  # the time is found, not asked: the request has no time to be refused
    try:
        first, last = (datetime.fromisoformat(str(step.arguments[n])) for n in (start, end))
    except ValueError:
        return None
    if first.tzinfo is not None or last <= first:
        return None
    return start, end, first, last


def _same_time(value: Any, when: datetime) -> bool:
    try:
        return isinstance(value, str) and datetime.fromisoformat(value).replace(
            tzinfo=None) == when
    except ValueError:
        return False


def _shown(when: datetime, like: str) -> str:
    """``when`` written as ``like`` is (to the minute, or to the second)."""
    return when.isoformat(timespec="minutes" if len(like) <= 16 else "seconds")


def _blocker(step_changes: list[Change], first: datetime, last: datetime,
             rng: random.Random) -> Planted | None:
    """A record like the one the write creates, at the same time, with a title of its own."""
    for (table, _), (before, after) in net_changes(step_changes).items():
        if kind_of(before, after) != "create" or after is None:
            continue
        times = [k for k, v in after.items() if _same_time(v, first)], \
            [k for k, v in after.items() if _same_time(v, last)]
        if not all(times):
            continue
        service, entity = table.split(SEPARATOR, 1)
        values = dict(after)
        prefix = str(values["id"]).partition("_")[0] + "_" if "_" in str(values["id"]) else "x"
        values["id"] = f"{prefix}{rng.getrandbits(32):08x}"
        title = next((k for k in _TITLES if isinstance(values.get(k), str)), None)
        if title is None:
            return None  # nothing tells the blocker apart
        values[title] = _BLOCKERS[rng.randrange(len(_BLOCKERS))]
        for k in _NOTES:
            if isinstance(values.get(k), str):
                values[k] = ""
        return Planted(service=service, entity=entity, values=values)
    return None


def _planted_world(fresh: Fresh, records: list[Planted]) -> Environment | None:
    try:
        return plant(fresh(), records)
    except CompoWorldError:
        return None  # a record does not fit the world


def _refused(fresh: Fresh, records: list[Planted], plan: list[Step], index: int,
             blocker: str) -> bool:
    """Whether step ``index`` of ``plan`` is refused on the world with ``records`` planted,
    for the ``blocker``'s sake (the refusal names it), the steps before it made."""
    world = _planted_world(fresh, records)
    if world is None:
        return False
    for step in plan[:index]:
        world.call(step.tool, step.arguments)
    refused = world.call(plan[index].tool, plan[index].arguments)
    return not refused["success"] and blocker in str(refused.get("error"))


Made = tuple[list[Step], list[list[Change]], Trap, Planted, str]


def _clash(plan: list[Step], changes: list[list[Change]], index: int, rng: random.Random,
           fresh: Fresh, planted: list[Planted]) -> Made | None:
    """The time step ``index`` books is taken: the recovery books it when the blocker ends."""
    span = _span(plan[index])
    if span is None:
        return None
    start, end, first, last = span
    blocker = _blocker(changes[index], first, last, rng)
    if blocker is None or not _refused(fresh, [*planted, blocker], plan, index,
                                       str(blocker.values["id"])):
        return None
    asked = plan[index]
    recovery = asked.model_copy(update={"arguments": {
        **asked.arguments, start: _shown(last, str(asked.arguments[start])),
        end: _shown(last + (last - first), str(asked.arguments[end]))}, "sources": {
        **asked.sources, start: ArgSource(kind="refusal"), end: ArgSource(kind="refusal")}})
    return _recovered(plan, index, recovery, blocker, fresh, planted, CLASH_NOTE)


def _taken(plan: list[Step], changes: list[list[Change]], index: int, rng: random.Random,
           fresh: Fresh, planted: list[Planted]) -> Made | None:
    """What step ``index`` creates is refused because a record already holds its unique value
    (a name, an email): the recovery looks that record up, and the later steps use it."""
    net = net_changes(changes[index])
    users = [s for s in plan[index + 1:] if any(src.step == index for src in s.sources.values())]
    if len(net) != 1 or not users:
        return None  # a create nothing later uses: an idempotency trap's case, not this one
    (table, _), (before, after) = next(iter(net.items()))
    if kind_of(before, after) != "create" or after is None:
        return None
    service, entity = table.split(SEPARATOR, 1)
    prefix = str(after["id"]).partition("_")[0] + "_" if "_" in str(after["id"]) else "x"
    values = {**after, "id": f"{prefix}{rng.getrandbits(32):08x}"}
    existing = Planted(service=service, entity=entity, values=values)
    if not _refused(fresh, [*planted, existing], plan, index, str(values["id"])):
        return None
    look = Trap(kind="refusal", table=table, step=plan[index], position=index)
    for record in (existing, existing.model_copy(update={"first": True})):
        world = _planted_world(fresh, [*planted, record])
        check = find_check(world, look, [*planted, record]) if world is not None else None
        if check is None or world is None:
            continue
        # only what the request states (or an earlier step found): no page size of its own,
        # which the request would not say
        arguments = {k: v for k, v in check.arguments.items() if k not in PAGING}
        output = world.call(check.tool, arguments).get("data")
        at = _path_of(output, str(values["id"]))
        if at is None:
            continue
        read = Step(tool=check.tool, arguments=arguments,
                    sources={k: check.sources.get(k, _STATED) for k in arguments},
                    output=output)
        moved = [read if k == index else s.model_copy(update={"sources": {
            name: src.model_copy(update={"path": _field_at(at, src.path)})
            if src.step == index else src for name, src in s.sources.items()}})
            for k, s in enumerate(plan)]
        return _recovered(plan, index, read, record, fresh, planted, TAKEN_NOTE,
                          moved=moved)
    return None


def _path_of(data: Any, record: str, prefix: str = "") -> str | None:
    """The path of the object whose ``id`` is ``record`` in a read's answer ("" for the whole
    answer, "items.3" for an item)."""
    if isinstance(data, dict):
        if data.get("id") == record:
            return prefix
        items: list[tuple[str, Any]] = list(data.items())
    elif isinstance(data, list):
        items = [(str(k), v) for k, v in enumerate(data)]
    else:
        return None
    for key, value in items:
        found = _path_of(value, record, f"{prefix}.{key}" if prefix else key)
        if found is not None:
            return found
    return None


def _field_at(at: str, path: str | None) -> str:
    """The path of the field ``path`` names (its last part) in the object at ``at``."""
    field = (path or "id").split(".")[-1]
    return f"{at}.{field}" if at else field


def _recovered(plan: list[Step], index: int, recovery: Step, record: Planted, fresh: Fresh,
               planted: list[Planted], note: str, moved: list[Step] | None = None
               ) -> Made | None:
    """The plan with ``recovery`` in place of step ``index``, run on the world with ``record``
    planted; None where a step of it fails there."""
    moved = moved or [*plan[:index], recovery, *plan[index + 1:]]
    world = _planted_world(fresh, [*planted, record])
    ran = run_following(world, moved) if world is not None else None
    if ran is None:
        return None  # the recovery is refused too (or a later step no longer fits)
    trap = Trap(kind="refusal", table=f"{record.service}{SEPARATOR}{record.entity}",
                step=plan[index], position=index, record=str(record.values["id"]))
    return ran[0], ran[1], trap, record, note


def _children(env: Environment, service: str, entity: str) -> list[tuple[str, str]]:
    """(entity, field) of the service's records that refer to an ``entity`` record: what the
    engine's delete refuses while one still refers to it (409)."""
    return sorted(env.db(service).referrers(entity))


def _remover(env: Environment, service: str, child: str, record: str) -> Step | None:
    """The call of the service that deletes the ``child`` record ``record`` (tried on ``env``,
    where it is planted: its one required argument a reference to that kind of record)."""
    for name in sorted(env.tools):
        tool = env.tools[name]
        required = [p for p in tool.params if p.required]
        if not name.startswith(service + SEPARATOR) or tool.kind != "write" or \
                tool.simulated or len(required) != 1 or required[0].ref != child:
            continue
        mark = len(env.changes() or ())
        if not env.call(name, {required[0].name: record})["success"]:
            continue
        net = net_changes((env.changes() or [])[mark:])
        if list(net) == [(f"{service}{SEPARATOR}{child}", record)] and kind_of(
                *net[(f"{service}{SEPARATOR}{child}", record)]) == "delete":
            return Step(tool=name, arguments={required[0].name: record}, sources={}, output=None)
    return None


def _in_use(plan: list[Step], changes: list[list[Change]], index: int, rng: random.Random,
            fresh: Fresh, planted: list[Planted]) -> Made | None:
    """What step ``index`` deletes is still referred to by a record of its service (a note on
    the contact, a comment on the ticket): the recovery looks that record up, removes it, then
    removes the record asked."""
    net = net_changes(changes[index])
    if len(net) != 1:
        return None
    (table, record_id), (before, after) = next(iter(net.items()))
    if kind_of(before, after) != "delete":
        return None
    service, entity = table.split(SEPARATOR, 1)
    world = fresh()
    for child, field in _children(world, service, entity):
        seeded = world.db(service).select(child, limit=1)
        if not seeded:
            continue
        prefix = str(seeded[0]["id"]).partition("_")[0] + "_" if "_" in str(
            seeded[0]["id"]) else "x"
        values = {**seeded[0], "id": f"{prefix}{rng.getrandbits(32):08x}", field: record_id}
        kid = Planted(service=service, entity=child, values=values)
        if not _refused(fresh, [*planted, kid], plan, index, f"referenced by 1 {child} "):
            continue
        made = _cleared(plan, index, kid, (entity, record_id), fresh, planted)
        if made is not None:
            return made
    return None


def _lister(world: Environment, asked: Step, kid: Planted, parent: tuple[str, str]
            ) -> Step | None:
    """A read of the service that lists the ``kid`` record by the record it refers to (its
    one required argument a reference to ``parent``, the (entity, id) the delete ``asked``
    is given: "the notes of that contact"), its answer on ``world``; the first such read."""
    entity, parent_id = parent
    given = next((n for n, v in asked.arguments.items() if v == parent_id), None)
    if given is None:
        return None
    for name in sorted(world.tools):
        tool = world.tools[name]
        if not name.startswith(kid.service + SEPARATOR) or tool.kind != "read" or tool.simulated:
            continue
        by = next((p for p in tool.params if p.ref == entity), None)
        if by is None or any(p.required and p is not by for p in tool.params):
            continue
        envelope = world.call(name, {by.name: parent_id})
        if envelope["success"] and _path_of(envelope["data"], str(kid.values["id"])) is not None:
            return Step(tool=name, arguments={by.name: parent_id},
                        sources={by.name: asked.sources.get(given, _STATED)},
                        output=envelope["data"])
    return None


def _cleared(plan: list[Step], index: int, kid: Planted, parent: tuple[str, str], fresh: Fresh,
             planted: list[Planted]) -> Made | None:
    """The plan with the record ``kid`` looked up and removed before step ``index``'s delete
    of ``parent`` (its entity and id)."""
    kid_id = str(kid.values["id"])
    world = _planted_world(fresh, [*planted, kid])
    read = _lister(world, plan[index], kid, parent) if world is not None else None
    remover = _remover(world, kid.service, kid.entity, kid_id) if world is not None else None
    at = _path_of(read.output, kid_id) if read is not None else None
    if read is None or remover is None or at is None:
        return None
    (name,) = remover.arguments
    remove = remover.model_copy(update={"sources": {name: ArgSource(
        kind="step", step=index, path=_field_at(at, "id"))}})
    moved = [*plan[:index], read, remove, plan[index],
             *(shift_sources(s, 2, index) for s in plan[index + 1:])]
    return _recovered(plan, index, read, kid, fresh, planted, IN_USE_NOTE, moved=moved)


_KINDS = (_clash, _taken, _in_use)


def add_refusal(plan: list[Step], changes: list[list[Change]], env: Environment,
                rng: random.Random, fresh: Fresh, planted: list[Planted]) -> Made | None:
    """Plant what makes one write of the plan refused by its service, and put the recovery in
    its place (see the module docs): the new plan and its changes, the trap, the planted record
    and the instruction's note; None where no write allows it. ``planted``: the scenario's
    records so far (in the world the plan runs in)."""
    options = [(i, kind) for i, s in enumerate(plan) if env.tools[s.tool].kind == "write"
               for kind in _KINDS]
    rng.shuffle(options)
    for index, kind in options:
        made = kind(plan, changes, index, rng, fresh, planted)
        if made is not None:
            return made
    return None


def gave_up(plan: list[Step], trap: Trap) -> list[Step]:
    """The plan of an agent that makes the call as asked, is refused, and stops there."""
    return [*plan[:trap.position], trap.step]


def refusal_matters(plan: list[Step], trap: Trap, rubric: list[Criterion], initial: Environment,
                    scratch: Fresh, message: str) -> bool:
    """Gate (``trap_matters`` for a refusal): the call as asked is refused on the task's world
    (``scratch``: its records planted), and the plan that stops there fails the rubric."""
    env = scratch()
    done = []
    for step in gave_up(plan, trap):
        if env.call(step.tool, step.arguments)["success"]:
            done.append((step.tool, step.arguments))
    if (trap.step.tool, trap.step.arguments) in done:
        return False  # nothing refuses it: there is nothing to recover from
    return not all(r.passed for r in score(rubric, initial, env, message, done))
