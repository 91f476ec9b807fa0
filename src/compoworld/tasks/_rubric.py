"""The rubric of a task, built from its executed reference plan.

The expected state is the reference run's effect, row by row (``tasks._diff``): one
``state`` criterion per record the plan creates, updates or deletes, pinned on every field of
the record the reference left behind except those declared ``free`` (with the reason), and one
``no_collateral`` criterion that nothing else changed anywhere. What the user asks to be told
gives one ``answer`` criterion per value. Checking them is ``tasks._check``.
"""

from __future__ import annotations

import ast
from datetime import datetime
from typing import Any

from compoworld.graph import extract_facts
from compoworld.service import SEPARATOR, Change, Environment
from compoworld.tasks._context import strong
from compoworld.tasks._diff import Key, kind_of, net_changes
from compoworld.tasks._model import Criterion, Scenario, Selection, Step
from compoworld.tasks._vocabulary import users_own
from compoworld.types import get_type

GENERATED_ID = "a generated id: the runtime numbers new records"
INVENTED = "invented by the world model (a simulated tool), not given by the task"
TIMESTAMP = ("a time the runtime stamps when the call runs: it moves with what ran before "
             "(a second message is sent a minute later), not with what the task asks")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 48 else text[:45] + "…"


def _scalars(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    return [] if value is None or isinstance(value, bool) else [value]


def plan_values(plan: list[Step]) -> list[Any]:
    """Every scalar value the plan's calls were given, in order, once each."""
    seen: dict[str, Any] = {}
    for step in plan:
        for value in _scalars(step.arguments):
            seen.setdefault(repr(value), value)
    return list(seen.values())


def state_criteria(plan: list[Step], changes: list[list[Change]],
                   env: Environment) -> list[Criterion]:
    """The plan's net effect as checks: one per record created, updated or deleted.

    Args:
        plan: The reference plan.
        changes: Each step's journal entries, as the reference run recorded them.
        env: An environment of the world (for the tools' kinds).

    Each criterion's id is ``s<step>-<table>-<record>``, ``<step>`` the last step that touched
    the record (the step behind it, for the gate that drops it).
    """
    last: dict[Key, int] = {}
    given: dict[Key, set[str]] = {}
    simulated: dict[Key, bool] = {}
    for index, step in enumerate(plan):
        args = {repr(v) for v in _scalars(step.arguments)}
        for change in changes[index]:
            key = (change.table, change.record_id)
            last[key] = index
            given.setdefault(key, set()).update(args)
            simulated[key] = simulated.get(key, False) or env.tools[step.tool].simulated
    net = net_changes([c for step_changes in changes for c in step_changes])
    criteria: list[Criterion] = []
    for key in sorted(net, key=lambda k: (last[k], k)):
        before, after = net[key]
        table, record_id = key
        service, entity = table.split(SEPARATOR, 1)
        kind = kind_of(before, after)
        ident = f"s{last[key]}-{table}-{record_id}"
        if kind == "delete":
            criteria.append(Criterion(
                id=ident, kind="state", table=table, change="delete", record_id=record_id,
                description=f"the {entity} {record_id} in {service} is deleted"))
            continue
        free = {"id": GENERATED_ID} if kind == "create" else {}
        columns = env.services[service].tables[entity].columns
        free |= {c.name: TIMESTAMP for c in columns
                 if c.semantic == "DateTime" and not _given_time(after.get(c.name), given[key])
                 and (before is None or before.get(c.name) != after.get(c.name))
                 and after.get(c.name) is not None}
        if simulated[key]:
            free |= {f: INVENTED for f, v in after.items()
                     if f != "id" and repr(v) not in given[key]
                     and (before is None or before.get(f) != v)}
        match = {f: v for f, v in after.items() if f != "id" and f not in free}
        if kind == "create":
            set_ = {f: v for f, v in match.items() if v not in (None, "", [], {})}
            shown = ", ".join(f"{f}={_show(v)}" for f, v in sorted(set_.items())) or "no field set"
            empty = " (its other fields empty)" if len(set_) < len(match) else ""
            description = f"exactly one new {entity} in {service}, with {shown}{empty}"
        else:
            set_ = {f: v for f, v in match.items() if before.get(f) != v}
            description = (f"the {entity} {record_id} in {service} has "
                           + ", ".join(f"{f}={_show(v)}" for f, v in sorted(set_.items()))
                           + ", its other fields unchanged")
        criteria.append(Criterion(id=ident, kind="state", table=table, change=kind,
                                  record_id=record_id, match=match, free=free,
                                  description=description))
    return criteria


def _given_time(value: Any, given: set[str]) -> bool:
    """Whether a record's date-time is one a call was given (as written, or the same instant
    written otherwise: "2026-03-05T14:00" stored as "2026-03-05T14:00:00"), not a stamp the
    service set."""
    if repr(value) in given:
        return True
    try:
        when = datetime.fromisoformat(str(value))
    except ValueError:
        return False
    for shown in given:
        try:
            if datetime.fromisoformat(ast.literal_eval(shown)) == when:
                return True
        except (ValueError, TypeError, SyntaxError):
            continue
    return False


def collateral_criterion() -> Criterion:
    """Nothing but the expected changes, anywhere in the world."""
    return Criterion(id="no-collateral", kind="no_collateral",
                     description="no other record changes, in any service (the task's own "
                                 "tables included)")


def answer_criteria(step: Step, env: Environment,
                    picks: dict[tuple[str, int], Selection] | None = None,
                    plan: list[Step] | None = None,
                    step_index: int | None = None) -> list[Criterion]:
    """For a plan that ends on a read: the value of its answer the user asks to be told — a
    value of the answer itself, or failing one, a value of the list item that ``picks`` says
    how to single out ((list path, item index) → its selection, e.g. the latest birthday).
    Never a value given to a call of the step (or of ``plan``). Empty when there is nothing
    worth asking for. ``step_index``: where the step stands in the plan, when it is not the
    last (a report back of something found along the way)."""
    tool = env.tools[step.tool]
    service = step.tool.split(SEPARATOR, 1)[0]
    steps = plan or [step]
    known = plan_values(steps)
    given = {repr(v) for v in known}
    # A value a call was given (the filter every item matches, the email the customer was
    # created with) is nothing to tell.
    # Nor is the user's own name, email, phone or company (the sender of a message they sent):
    # a report back asks only for what the user does not know.
    facts = [f for f in extract_facts(tool.output_schema, step.output, service)
             if repr(f.value) not in given and not users_own(env.pool.user, f.value)]
    services = list(dict.fromkeys(s.tool.split(SEPARATOR, 1)[0] for s in steps))
    for fact in facts:
        if fact.list_path is None and _answerable(fact.key):
            return [_answer(fact.value, fact.key[1], env, services, known,
                            f"the final answer states the {fact.key[1]} ({fact.path}) found "
                            f"by {step.tool}", step=step_index)]
    for fact in facts:
        pick = (picks or {}).get((fact.list_path or "", fact.index or 0))
        if (pick is not None and fact.list_size > 1 and not fact.ambiguous
                and _answerable(fact.key)):
            return [_answer(fact.value, fact.key[1], env, services, known,
                            f"the final answer states the {fact.key[1]} ({fact.path}) of the "
                            f"item with the {pick.order} {pick.by} found by {step.tool}",
                            selection=pick, step=step_index)]
    return []


def _answer(value: Any, semantic: str, env: Environment, services: list[str], known: list[Any],
            description: str, selection: Selection | None = None,
            step: int | None = None) -> Criterion:
    return Criterion(id="answer-0", kind="answer", values=[value], semantic=semantic,
                     selection=selection, step=step,
                     fields=value_fields(env, services, semantic, value),
                     known=[v for v in known if repr(v) != repr(value)],
                     description=description)


def trap_criteria(scenario: Scenario | None, env: Environment) -> list[Criterion]:
    """One ``absent`` criterion per create a trap leaves out: no record like it may be made.
    An idempotency trap: like the one already there (the planted record's values the create
    would set); an item held back (``exception``) by a create: like the one it would make."""
    out = []
    for k, trap in enumerate(scenario.traps if scenario is not None else []):
        service, entity = trap.table.split(SEPARATOR, 1)
        if trap.kind == "exception" and any(  # it names a record of its own table: an update
                isinstance(v, str) and env.db(service).find(entity, id=v) is not None
                for v in trap.step.arguments.values()):
            continue
        columns = {c.name for c in env.services[service].tables[entity].columns} - {"id"}
        if trap.kind == "idempotency":
            planted = next((r for r in scenario.planted  # type: ignore[union-attr]
                            if (r.service, r.entity) == (service, entity)), None)
            if planted is None:
                continue
            match = {name: value for name, value in planted.values.items()
                     if name in trap.step.arguments and name in columns}
            what = f"no second {entity} like {planted.values.get('id')} in {service}: it was " \
                   "already there"
        elif trap.kind == "exception":
            match = {name: value for name, value in trap.step.arguments.items()
                     if name in columns}
            what = f"no {entity} in {service} for the item held back"
        else:
            continue
        if match:
            out.append(Criterion(id=f"trap{k}-{trap.table}", kind="state", change="absent",
                                 table=trap.table, match=match, description=what))
    return out


def knowing(answer: Criterion, plan: list[Step]) -> Criterion:
    """``answer`` with every value ``plan`` gives a call among its ``known`` (values the task
    itself uses, which a report may name without hedging): the answer was made on the walk's
    plan, and a fan-out or a scenario adds calls after it (a fan-out's copies write values of
    the answer's own field)."""
    own = {repr(v) for v in answer.values}
    known = {repr(v): v for v in answer.known}
    for value in plan_values(plan):
        if repr(value) not in own:
            known.setdefault(repr(value), value)
    return answer.model_copy(update={"known": list(known.values())})


def value_fields(env: Environment, services: list[str], semantic: str, value: Any) -> list[str]:
    """``table.column`` of the columns of type ``semantic`` (in ``services``) that hold
    ``value``; failing any, every column of that type there: where the other candidates of an
    answer are."""
    typed = [(env.services[s], table, column) for s in services if s in env.services
             for table in env.services[s].tables.values()
             for column in table.columns if column.semantic == semantic]
    holding = []
    for service, table, column in typed:
        db = env.db(service.name)
        query = (f'SELECT 1 FROM {{{table.entity_name}}} WHERE instr("{column.name}", ?) > 0 '
                 "LIMIT 1")
        if db.sql(query, (str(value),)):
            holding.append(f"{table.name}.{column.name}")
    return holding or [f"{table.name}.{column.name}" for _, table, column in typed]


def _answerable(key: tuple[str, ...]) -> bool:
    """A value worth asking for: a knowable identifying type other than a bare name."""
    return (key[0] == "type" and strong(key) and get_type(key[1]).knowable
            and key[1] not in ("PersonName", "CompanyName"))
