"""The rubric of a task, built from its executed plan, and scoring a finished episode on it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compoworld.graph import extract_facts
from compoworld.service import SEPARATOR, Change, Environment
from compoworld.tasks._context import strong
from compoworld.tasks._model import Criterion, Selection, Step
from compoworld.types import get_type

Rows = dict[str, dict[str, dict[str, Any]]]
"""table → id → record."""


def rows_by_id(env: Environment, services: list[str] | None = None) -> Rows:
    """Records by table and id, for ``services`` (default: every mounted one)."""
    out: Rows = {}
    for name in services if services is not None else list(env.services):
        db = env.db(name)
        for entity, table in env.services[name].tables.items():
            out[table.name] = {r["id"]: r for r in db.select(entity)}
    return out


def _column_semantics(env: Environment, table: str) -> dict[str, str | None]:
    service, entity = table.split(SEPARATOR, 1)
    return {c.name: c.semantic for c in env.services[service].tables[entity].columns}


def _same(semantic: str | None, a: Any, b: Any) -> bool:
    if semantic and semantic != "Ref":
        normalize = get_type(semantic).normalize
        return bool(normalize(a) == normalize(b))
    return bool(a == b)


def net_changes(changes: list[Change]) -> dict[tuple[str, str], tuple[Any, Any]]:
    """(table, id) → (record before the first change, record after the last)."""
    net: dict[tuple[str, str], tuple[Any, Any]] = {}
    for change in changes:
        key = (change.table, change.record_id)
        first = net[key][0] if key in net else change.before
        net[key] = (first, change.after)
    return {k: v for k, v in net.items() if v[0] != v[1]}


def state_criteria(step_index: int, step: Step, changes: list[Change]) -> list[Criterion]:
    """What a write step changed, as checks: records created (matched on the values the step
    was given) and records changed (their id and new values)."""
    criteria: list[Criterion] = []
    given = {repr(v) for v in step.arguments.values()} | {
        repr(item) for v in step.arguments.values() if isinstance(v, list) for item in v}
    for (table, record_id), (before, after) in sorted(net_changes(changes).items()):
        service, entity = table.split(SEPARATOR, 1)
        if after is None:
            criteria.append(Criterion(
                id=f"s{step_index}-{table}-{record_id}", kind="state", table=table,
                record_id=record_id, absent=True,
                description=f"{entity} {record_id} in {service} is deleted"))
            continue
        if before is None:
            match = {k: v for k, v in after.items() if k != "id" and repr(v) in given}
            if match:
                criteria.append(Criterion(
                    id=f"s{step_index}-{table}-new", kind="state", table=table, match=match,
                    description=f"a new {entity} record in {service} with " + ", ".join(
                        f"{k}={v!r}" for k, v in sorted(match.items()))))
        else:
            changed = {k: v for k, v in after.items() if before.get(k) != v}
            criteria.append(Criterion(
                id=f"s{step_index}-{table}-{record_id}", kind="state", table=table,
                record_id=record_id, match=changed,
                description=f"{entity} {record_id} in {service} has " + ", ".join(
                    f"{k}={v!r}" for k, v in sorted(changed.items()))))
    return criteria


def answer_criterion(step: Step, env: Environment,
                     picks: dict[tuple[str, int], Selection] | None = None,
                     plan: list[Step] | None = None) -> Criterion | None:
    """For a plan that ends on a read: the value of its answer the user asks to be told — a
    value of the answer itself, or failing one, a value of the list item that ``picks`` says
    how to single out ((list path, item index) → its selection, e.g. the latest birthday).
    Never a value given to a call of the step (or of ``plan``)."""
    tool = env.tools[step.tool]
    service = step.tool.split(SEPARATOR, 1)[0]
    given = {repr(v) for s in (plan or [step]) for value in s.arguments.values()
             for v in (value if isinstance(value, list) else [value])}
    # A value a call was given (the filter every item matches, the email the customer was
    # created with) is nothing to tell.
    facts = [f for f in extract_facts(tool.output_schema, step.output, service)
             if repr(f.value) not in given]
    for fact in facts:
        key = fact.key
        if fact.list_path is None and _answerable(key):
            return Criterion(id="answer", kind="answer", values=[fact.value], semantic=key[1],
                             description=f"the final answer states the {key[1]} "
                                         f"({fact.path}) found by {step.tool}")
    for fact in facts:
        pick = (picks or {}).get((fact.list_path or "", fact.index or 0))
        if (pick is not None and fact.list_size > 1 and not fact.ambiguous
                and _answerable(fact.key)):
            return Criterion(id="answer", kind="answer", values=[fact.value],
                             semantic=fact.key[1], selection=pick,
                             description=f"the final answer states the {fact.key[1]} "
                                         f"({fact.path}) of the item with the {pick.order} "
                                         f"{pick.by} found by {step.tool}")
    return None


def _answerable(key: tuple[str, ...]) -> bool:
    """A value worth asking for: a knowable identifying type other than a bare name."""
    return (key[0] == "type" and strong(key) and get_type(key[1]).knowable
            and key[1] not in ("PersonName", "CompanyName"))


@dataclass(frozen=True)
class CriterionResult:
    id: str
    passed: bool
    reason: str


def _record_matches(record: dict[str, Any], match: dict[str, Any],
                    semantics: dict[str, str | None]) -> bool:
    return all(k in record and _same(semantics.get(k), record[k], v) for k, v in match.items())


def _mentions(message: str, value: Any, semantic: str | None) -> bool:
    text = " ".join(message.casefold().split())
    candidates = {str(value).casefold()}
    if isinstance(value, float):
        candidates |= {f"{value:.2f}", f"{value:,.2f}", f"{value:g}"}
    if any(c in text for c in candidates):
        return True
    if semantic:  # e.g. a phone written another way: compare normalized tokens
        normalize = get_type(semantic).normalize
        target = normalize(value)
        return any(normalize(token) == target for token in message.replace(",", " ").split())
    return False


MAX_OTHER_CANDIDATES = 2
"""An answer criterion fails when the final message also states more than this many *other*
values of the answer's semantic type that exist in the world: a list of every email (or date,
or amount) the agent could read is a guess, not an answer."""


def _forms(value: Any) -> set[str]:
    forms = {str(value).casefold()}
    if isinstance(value, float):
        forms |= {f"{value:.2f}", f"{value:,.2f}", f"{value:g}"}
    return forms


def _states(text: str, value: Any) -> bool:
    """Whether casefolded ``text`` states ``value`` as a whole word (not inside another)."""
    return any(re.search(rf"(?<![\w.@-]){re.escape(form)}(?![\w@-]|\.\w)", text)
               for form in _forms(value) if form in text)


def _other_candidates(env: Environment, semantic: str, expected: list[Any], message: str,
                      limit: int) -> list[Any]:
    """Up to ``limit + 1`` values of type ``semantic`` held in ``env`` (other than ``expected``)
    that ``message`` states."""
    normalize = get_type(semantic).normalize
    targets = {repr(normalize(v)) for v in expected}
    text = " ".join(message.casefold().split())
    seen: set[str] = set()
    found: list[Any] = []
    for name, service in env.services.items():
        db = env.db(name)
        for entity, table in service.tables.items():
            typed = [c for c in table.columns if c.semantic == semantic]
            if not typed or (all(c.kind == "str" for c in typed) and not any(
                    db.sql(f'SELECT 1 FROM {{{entity}}} WHERE instr(?, lower("{c.name}")) > 0 '
                           f'LIMIT 1', (text,)) for c in typed)):
                continue  # none, or no value even a substring of the message: none stated
            columns = [c.name for c in typed]
            for record in db.select(entity):
                for column in columns:
                    value = record.get(column)
                    for item in value if isinstance(value, list) else [value]:
                        if item is None or item == "":
                            continue
                        if not any(form in text for form in _forms(item)):
                            continue  # not even a substring: it cannot be stated
                        key = repr(normalize(item))
                        if key in targets or key in seen:
                            continue
                        seen.add(key)
                        if _states(text, item):
                            found.append(item)
                            if len(found) > limit:
                                return found
    return found


def _answer_result(c: Criterion, env: Environment, message: str) -> tuple[bool, str]:
    missing = [v for v in c.values if not _mentions(message, v, c.semantic)]
    if missing:
        return False, f"the answer does not state {missing!r}"
    if c.semantic and c.semantic != "Ref":
        others = _other_candidates(env, c.semantic, c.values, message, MAX_OTHER_CANDIDATES)
        if len(others) > MAX_OTHER_CANDIDATES:
            return False, (f"the answer also states other {c.semantic} values "
                           f"({', '.join(map(str, others[:3]))}, …): a list of candidates, "
                           f"not an answer")
    return True, "stated"


def score(rubric: list[Criterion], initial: Environment, env: Environment, final_message: str,
          calls: list[str]) -> list[CriterionResult]:
    """Each criterion of ``rubric``, passed or not (with why), on a finished episode.

    Args:
        rubric: The task's criteria.
        initial: An environment of the task's world in its initial state (not modified).
        env: The environment at the end of the episode.
        final_message: The agent's final answer.
        calls: The names of the tools the agent called.

    What changed comes from the environment's journal, so scoring costs what changed.
    """
    changes = env.changes()
    if changes is not None:
        net = net_changes(changes)
    else:  # after a restore the journal is gone: compare every table
        old_rows, new_rows = rows_by_id(initial), rows_by_id(env)
        net = {(t, i): (old_rows.get(t, {}).get(i), new_rows[t].get(i))
               for t in new_rows for i in set(new_rows[t]) | set(old_rows.get(t, {}))
               if old_rows.get(t, {}).get(i) != new_rows[t].get(i)}
    results = []
    for c in rubric:
        if c.kind == "state":
            assert c.table is not None
            semantics = _column_semantics(env, c.table)
            if c.record_id is not None:
                service, entity = c.table.split(SEPARATOR, 1)
                record = env.db(service).find(entity, id=c.record_id)
                passed = (record is None if c.absent else
                          record is not None and _record_matches(record, c.match, semantics))
            else:
                passed = any(before is None and after is not None
                             and _record_matches(after, c.match, semantics)
                             for (table, _), (before, after) in net.items() if table == c.table)
            reason = "found" if passed else "no record matches"
        elif c.kind == "answer":
            passed, reason = _answer_result(c, env, final_message)
        elif c.kind == "call":
            passed = c.tool in calls
            reason = "called" if passed else f"{c.tool} was never called"
        else:  # no_collateral
            touched = sorted({t for (t, _) in net if t not in c.tables})
            # Doing nothing changes nothing else, but it is no success at the constraint: where
            # the task writes, the criterion needs a change in one of its tables.
            idle = bool(c.tables) and not any(t in c.tables for (t, _) in net)
            passed = not touched and not idle
            reason = ("nothing else changed" if passed else f"also changed: {', '.join(touched)}"
                      if touched else "nothing the task asks for changed either")
        results.append(CriterionResult(c.id, passed, reason))
    return results
