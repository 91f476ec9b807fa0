"""Checking a finished episode against its task's rubric (criteria built by ``tasks._rubric``).

The episode's effect is its row-level diff against the initial world (``tasks._diff``),
compared with the rubric's expected changes: each created record matched once (duplicates
fail), each updated record compared on every pinned field, each deleted record gone, and
anything else that changed, anywhere, is collateral. Answers are whole values
(``tasks._answer``); an answer that also states another candidate of the same field is a
guess, not an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from compoworld.service import SEPARATOR, Column, Environment
from compoworld.tasks._answer import _normalize, states
from compoworld.tasks._diff import Key, Net, kind_of, run_diff
from compoworld.tasks._model import Criterion

Call = tuple[str, dict[str, Any]]
"""A successful call: the tool's qualified name and its arguments."""


@dataclass(frozen=True)
class CriterionResult:
    id: str
    passed: bool
    reason: str


def _columns(env: Environment, table: str) -> dict[str, Column]:
    service, entity = table.split(SEPARATOR, 1)
    return {c.name: c for c in env.services[service].tables[entity].columns}


def _with(ids: dict[str, str], c: Criterion, key: Key) -> dict[str, str]:
    """``ids`` with the criterion's own reference id mapped to the candidate ``key``."""
    return {**ids, c.record_id: key[1]} if c.record_id else ids


def _same(column: Column | None, expected: Any, actual: Any, ids: dict[str, str]) -> bool:
    if isinstance(expected, str) and expected in ids:
        expected = ids[expected]  # the id of a record the task creates: the episode's one
    elif isinstance(expected, list) and any(isinstance(v, str) and v in ids for v in expected):
        expected = [ids.get(v, v) if isinstance(v, str) else v for v in expected]
    if column is not None and column.semantic and column.semantic != "Ref":
        return bool(_normalize(column.semantic, expected) == _normalize(column.semantic, actual))
    return bool(expected == actual)


def _mismatch(record: dict[str, Any], match: dict[str, Any], columns: dict[str, Column],
              ids: dict[str, str]) -> list[str]:
    return [f for f, v in match.items()
            if f not in record or not _same(columns.get(f), v, record[f], ids)]


@dataclass
class _Matching:
    """Which records of the episode are the ones the rubric expects."""

    ids: dict[str, str]
    """Reference id of a record the task creates → the episode's record that matches it."""
    expected: set[Key]
    results: dict[str, CriterionResult]


def _match_state(rubric: Sequence[Criterion], net: Net, env: Environment) -> _Matching:
    created: dict[str, list[Key]] = {}
    for key, (before, after) in net.items():
        if kind_of(before, after) == "create":
            created.setdefault(key[0], []).append(key)
    matching = _Matching(ids={}, expected=set(), results={})
    states_ = [c for c in rubric if c.kind == "state"]
    twins: dict[str, int] = {}
    for c in states_:
        if c.change == "create":
            signature = repr((c.table, sorted(c.match.items())))
            twins[signature] = twins.get(signature, 0) + 1
    for c in (c for c in states_ if c.change == "create"):
        assert c.table is not None
        columns = _columns(env, c.table)
        candidates = [k for k in created.get(c.table, []) if k not in matching.expected
                      and not _mismatch(net[k][1], c.match, columns, _with(matching.ids, c, k))]
        signature = repr((c.table, sorted(c.match.items())))
        want = twins[signature]  # this one and its twins not matched yet
        twins[signature] -= 1
        if candidates:
            matching.expected.add(candidates[0])
            if c.record_id is not None:
                matching.ids[c.record_id] = candidates[0][1]
        if 1 <= len(candidates) <= want:
            result = CriterionResult(c.id, True, f"created as {candidates[0][1]}")
        elif candidates:
            result = CriterionResult(c.id, False, f"{len(candidates)} new records match where "
                                                  f"{want} should: a duplicate")
        else:
            result = CriterionResult(c.id, False, _closest_miss(c, net, created, columns,
                                                                matching.ids))
        matching.results[c.id] = result
    for c in (c for c in states_ if c.change in ("update", "delete")):
        assert c.table is not None and c.record_id is not None
        key = (c.table, c.record_id)
        matching.expected.add(key)
        service, entity = c.table.split(SEPARATOR, 1)
        record = env.db(service).find(entity, id=c.record_id)
        if c.change == "delete":
            passed = record is None
            reason = "deleted" if passed else f"{entity} {c.record_id} still exists"
        elif record is None:
            passed, reason = False, f"{entity} {c.record_id} no longer exists"
        else:
            wrong = _mismatch(record, c.match, _columns(env, c.table), matching.ids)
            passed = not wrong
            reason = "as expected" if passed else "differs on " + ", ".join(
                f"{f} ({record.get(f)!r}, expected {c.match[f]!r})" for f in wrong[:4])
        matching.results[c.id] = CriterionResult(c.id, passed, reason)
    # A record already there, not to be made again: passed only by an episode that did some
    # of what the task asks (doing nothing makes no duplicate, but is no success at it either).
    acted = any(k in net for k in matching.expected)
    for c in (c for c in states_ if c.change == "absent"):
        assert c.table is not None
        columns = _columns(env, c.table)
        made = [k for k in created.get(c.table, [])
                if not _mismatch(net[k][1], c.match, columns, matching.ids)]
        matching.results[c.id] = CriterionResult(
            c.id, acted and not made,
            f"{len(made)} new record(s) match one that was already there: a duplicate" if made
            else "none made" if acted else "nothing the task asks for changed either")
    return matching


def _closest_miss(c: Criterion, net: Net, created: dict[str, list[Key]],
                  columns: dict[str, Column], ids: dict[str, str]) -> str:
    options = [_mismatch(net[k][1], c.match, columns, ids) for k in created.get(c.table or "", [])]
    if not options:
        return f"no new record in {c.table}"
    wrong = min(options, key=len)
    return f"no new record matches; the closest differs on {', '.join(wrong[:4])}"


def _collateral(c: Criterion, rubric: Sequence[Criterion], net: Net, matching: _Matching,
                answered: bool) -> CriterionResult:
    others = sorted(k for k in net if k not in matching.expected)
    if others:
        shown = ", ".join(f"{t} {i} ({kind_of(*net[(t, i)])}d)" for t, i in others[:5])
        more = f" and {len(others) - 5} more" if len(others) > 5 else ""
        return CriterionResult(c.id, False, f"also changed: {shown}{more}")
    # Doing nothing changes nothing else, but it is no success at the constraint: the episode
    # must have done some of what the task asks (a change, or, asked only to tell, an answer).
    if any(r.kind == "state" for r in rubric):
        if not any(k in net for k in matching.expected):
            return CriterionResult(c.id, False, "nothing the task asks for changed either")
    elif any(r.kind == "answer" for r in rubric) and not answered:
        return CriterionResult(c.id, False, "nothing the task asks for was told either")
    return CriterionResult(c.id, True, "nothing else changed")


def _answer(c: Criterion, initial: Environment, message: str) -> CriterionResult:
    value = c.values[0] if c.values else None
    if not states(message, value, c.semantic):
        return CriterionResult(c.id, False, f"the answer does not state {value!r}")
    excluded = {repr(_normalize(c.semantic, v)) for v in [*c.values, *c.known]}
    for other in _candidates(initial, c.fields):
        if repr(_normalize(c.semantic, other)) in excluded:
            continue
        if states(message, other, c.semantic):
            return CriterionResult(c.id, False, f"the answer also states {other!r}, another "
                                                f"{c.semantic} of the same field: a guess "
                                                f"among candidates, not an answer")
    return CriterionResult(c.id, True, "stated")


def _candidates(env: Environment, fields: Sequence[str]) -> list[Any]:
    """The values the world holds in ``fields`` (``table.column``), once each."""
    seen: dict[str, Any] = {}
    for field in fields:
        table, column = field.rsplit(".", 1)
        service, entity = table.split(SEPARATOR, 1)
        if service not in env.services or entity not in env.services[service].tables:
            continue
        for item in _column_values(env, service, entity, column):
            seen.setdefault(repr(item), item)
    return list(seen.values())


_COLUMN_VALUES: dict[tuple[str, str, str, str], tuple[Any, ...]] = {}
""":func:`_column_values` by (service, entity, column, the service's version): the version is
a hash chained over every record the service wrote (seeding included), so equal versions hold
equal records. Every answer criterion reads its field's values in the initial state at each
scoring: a task's gates score a dozen runs against the same initial state."""


def _column_values(env: Environment, service: str, entity: str, column: str) -> tuple[Any, ...]:
    """The non-empty values of ``column`` over the records of ``entity`` (a list's items one
    by one), in record order."""
    key = (service, entity, column, env.db(service).digest())
    found = _COLUMN_VALUES.get(key)
    if found is None:
        items: list[Any] = []
        for record in env.db(service).select(entity):
            value = record.get(column)
            items.extend(item for item in (value if isinstance(value, list) else [value])
                         if item is not None and item != "")
        if len(_COLUMN_VALUES) >= 4096:
            _COLUMN_VALUES.clear()
        found = _COLUMN_VALUES[key] = tuple(items)
    return found


def _call(c: Criterion, calls: Sequence[Call]) -> CriterionResult:
    for name, arguments in calls:
        if name == c.tool and all(arguments.get(k) == v for k, v in c.arguments.items()):
            return CriterionResult(c.id, True, "called")
    shown = f" with {c.arguments}" if c.arguments else ""
    return CriterionResult(c.id, False, f"{c.tool} was never called{shown}")


def score(rubric: Sequence[Criterion], initial: Environment, env: Environment,
          final_message: str, calls: Sequence[Call] = ()) -> list[CriterionResult]:
    """Each criterion of ``rubric``, passed or not (with why), on a finished episode.

    Args:
        rubric: The task's criteria (or some of them: ``no_collateral`` counts as expected
            only the records the ``state`` criteria given here expect).
        initial: An environment of the task's world in its initial state (not modified).
        env: The environment at the end of the episode.
        final_message: The agent's final answer.
        calls: The successful calls, as (qualified tool name, arguments).

    What changed comes from the environment's journal, so scoring costs what changed.
    """
    net = run_diff(initial, env)
    matching = _match_state(rubric, net, env)
    answers = {c.id: _answer(c, initial, final_message) for c in rubric if c.kind == "answer"}
    answered = any(r.passed for r in answers.values())
    results = []
    for c in rubric:
        if c.kind == "state":
            results.append(matching.results[c.id])
        elif c.kind == "answer":
            results.append(answers[c.id])
        elif c.kind == "call":
            results.append(_call(c, calls))
        else:
            results.append(_collateral(c, rubric, net, matching, answered))
    return results
