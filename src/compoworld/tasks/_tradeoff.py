"""Multi-objective choices: the item a plan picks from a list by two criteria, not one.

A ranked selection ("the deal with the latest close date") becomes a choice by two criteria:
the same ranking among the items a second, numeric criterion admits ("the deal with the latest
close date among those whose amount is more than 5000"). The threshold is a round number the
user states. It is made only where each criterion alone picks another item than the two
together: the latest close date overall is a small deal, and the largest amount is not the
latest; so an agent that weighs one criterion only acts on the wrong record.

Gate ``tradeoff_matters`` (:func:`one_criterion_fails`): the plan that follows either
criterion alone fails the rubric.

The choice itself: :meth:`compoworld.tasks._model.Selection.pick` (its example).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from typing import Any, TypeVar

from compoworld.service import Change, Environment
from compoworld.tasks._check import score
from compoworld.tasks._following import resolve, run_following
from compoworld.tasks._model import Among, ArgSource, Criterion, Selection, Step
from compoworld.tasks._role_audit import audit_writes
from compoworld.tasks._rubric import knowing, plan_values

TRADEOFF_SHARE = 0.25
"""Share of attempts whose plan picks an item by a ranking that try a second criterion (where a
list allows one). The release's tasks carry two of its fourteen labels each, about one in
seven tasks per label; a selection is in about half our plans, so a quarter of those gives a
choice by two criteria in roughly that share."""
MIN_ITEMS = 3
"""A list to choose from by two criteria holds three items or more (one per criterion, and the
one both pick)."""
Followed = TypeVar("Followed")
_NOT_CRITERIA = ("id", "phone", "zip", "postal", "year", "lat", "lon", "number", "code")
"""Numeric fields no one chooses by (an id, a phone, a year)."""


def _items(output: Any, path: str) -> list[Any] | None:
    parts = path.split(".")
    at = next((i for i, p in enumerate(parts) if p.isdigit()), None)
    if at is None:
        return None
    data = output
    for part in parts[:at]:
        data = data[int(part)] if isinstance(data, list) else data.get(part) \
            if isinstance(data, dict) else None
    return data if isinstance(data, list) else None


def _numeric(items: list[Any], field: str) -> bool:
    return all(isinstance(item, dict) and isinstance(item.get(field), int | float)
               and not isinstance(item.get(field), bool) for item in items)


def _dated(items: list[Any], field: str) -> bool:
    """Whether every item holds an ISO date (or date-time) at ``field``."""
    return all(isinstance(item, dict) and isinstance(item.get(field), str)
               and len(item[field]) >= 10 and item[field][4:5] == "-"
               and item[field][:4].isdigit() for item in items)


def _thresholds(items: list[Any], field: str) -> list[tuple[str, float | int | str | bool]]:
    """(op, threshold) pairs that split the items' values of ``field`` between two of them: a
    round number, or a day (the earlier one's: "after" it keeps the later ones); or, for a
    flag or a status (a few values shared by several items), one of its values."""
    out: list[tuple[str, float | int | str | bool]] = []
    present = [item for item in items if isinstance(item, dict) and item.get(field) is not None]
    if len(present) < MIN_ITEMS:
        return out
    items = present
    values = [item[field] for item in items]
    if all(isinstance(v, bool) for v in values) or (
            all(isinstance(v, str) and 2 <= len(v) <= 20 and " " not in v for v in values)
            and not _dated(items, field) and len(set(values)) < len(values)):
        return [("eq", v) for v in sorted(set(values), key=repr) if values.count(v) >= 2]
    if _dated(items, field):
        days = sorted({item[field][:10] for item in items})
        for low, high in itertools.pairwise(days):
            out += [("gt", low), ("lt", high)]
        return out
    if not _numeric(items, field):
        return out
    for low, high in itertools.pairwise(sorted({item[field] for item in items})):
        for op in ("gt", "lt"):
            threshold = _round_in(low, high, upper=op == "lt")
            if threshold is not None:
                out.append((op, threshold))
    return out


def _round_in(low: float, high: float, *, upper: bool) -> float | int | None:
    """A round number in [low, high) (``upper``: in (low, high]), or None."""
    for exponent in range(6, -3, -1):
        for mantissa in (1, 5, 2.5, 2):
            step = mantissa * 10 ** exponent
            value = (math.floor(high / step) * step) if upper else (math.ceil(low / step) * step)
            if (low < value <= high) if upper else (low <= value < high):
                return int(value) if float(value).is_integer() else round(value, 2)
    return None


def _criteria(items: list[Any], selection: Selection) -> list[Among]:
    """Second criteria under which ``selection`` picks another item than either criterion
    alone (a flag or a status alone picks none), among two items or more."""
    alone = selection.pick(items)
    out = []
    for field in sorted(items[0]) if isinstance(items[0], dict) else []:
        if field == selection.by or any(w in field.lower() for w in _NOT_CRITERIA):
            continue
        for op, threshold in _thresholds(items, field):
            among = Among(by=field, op=op, threshold=threshold)
            both = selection.model_copy(update={"among": among})
            kept = both.candidates(items)
            if len(kept) < 2 or alone in kept:
                continue
            pick = both.pick(items)
            ranked = [items[k][selection.by] for k in kept]
            if ranked.count(items[pick][selection.by]) != 1:
                continue
            other = _alone(among)
            if other is not None:  # a ranked criterion alone picks an item: another one
                values = [v.get(field) for v in items]
                best = other.pick(items)
                if best == pick or values.count(items[best][field]) != 1:
                    continue
            out.append(among)
    return out


def _alone(among: Among) -> Selection | None:
    """The selection the second criterion makes alone (the highest, for "more than"); None
    for a flag or status, which picks no single item."""
    if among.op == "eq":
        return None
    return Selection(by=among.by, order="max" if among.op == "gt" else "min")


def _rechosen(plan: list[Step], step: int, selection: Selection, to: Selection) -> list[Step]:
    """``plan`` with every argument picked by ``selection`` from step ``step``'s list picked by
    ``to`` instead (the values are re-read when the plan runs: :func:`run_following`)."""
    return [current.model_copy(update={"sources": {
        name: src.model_copy(update={"selection": to})
        if src.step == step and src.selection == selection and src.kind == "step" else src
        for name, src in current.sources.items()}}) for current in plan]


def add_tradeoff(plan: list[Step], env: Environment, rng: random.Random,
                 follow: Callable[[list[Step], int], Followed | None]) -> Followed | None:
    """``plan`` with one ranked selection made a choice by two criteria, as ``follow`` runs it
    (``follow(traded, step)``: the plan run with :func:`run_following`, whose reports are read
    again, :func:`reread_answers`; None where a call of it is refused or a report no longer
    reads), ``step`` the step whose list it chooses from. The choices the plan's lists allow
    are tried in a drawn order, and the first that changes a value of the plan and that
    ``follow`` runs is made: a later step may not go on from the item both criteria pick (an
    empty list of its own, a record no other service knows), and another list of the plan, or
    another second criterion, may. None where no choice does, or its value is the one picked
    before or the user's own (the request would say "my name": the choice would show in
    nothing)."""
    found: dict[tuple[int, str], tuple[Selection, list[Any]]] = {}
    for current in plan:
        for src in current.sources.values():
            if src.kind != "step" or src.step is None or src.selection is None or \
                    src.selection.among is not None or src.each:
                continue
            items = _items(plan[src.step].output, src.path or "")
            if items is not None and len(items) >= MIN_ITEMS:
                found[(src.step, src.selection.model_dump_json())] = (src.selection, items)
    options = [(step, selection, among) for (step, _), (selection, items) in sorted(
        found.items(), key=lambda kv: kv[0]) for among in _criteria(items, selection)]
    rng.shuffle(options)  # tried in a drawn order: the first that shows and runs is made
    user = env.pool.user
    mine = {user.name.casefold(), user.email.casefold(), user.phone.casefold()}
    for step, selection, among in options:
        both = selection.model_copy(update={"among": among})
        traded = _rechosen(plan, step, selection, both)
        if _shows(plan, traded, step, both, mine):
            followed = follow(traded, step)
            if followed is not None:
                return followed
    return None


def trade(plan: list[Step], changes: list[list[Change]], answers: list[Criterion],
          env: Environment, rng: random.Random, work: Callable[[], Environment]
          ) -> tuple[list[Step], list[list[Change]], list[Criterion]] | None:
    """The plan, its changes and its report-back criteria with one choice made by two criteria
    (:func:`add_tradeoff`, each choice run on ``work()``, the work environment reset), or as
    they were where none runs; ``work()`` is left holding the returned plan's run. None where
    the plan as it was no longer replays."""
    tried = False

    def follow(traded: list[Step], step: int
               ) -> tuple[list[Step], list[list[Change]], list[Criterion]] | None:
        nonlocal tried
        tried = True
        ran = run_following(work(), traded)
        if ran is None or _leaks_roles(ran[0], env):
            return None  # the item both criteria pick is no one these writes may be about
        reread = reread_answers(answers, plan, ran[0], step)
        return None if reread is None else (*ran, reread)

    made = add_tradeoff(plan, env, rng, follow)
    if made is not None or not tried:
        return made or (plan, changes, answers)
    ran = run_following(work(), plan)  # the work environment holds the last choice tried
    return None if ran is None else (*ran, answers)


def _leaks_roles(plan: list[Step], env: Environment) -> bool:
    """Whether a write of ``plan`` puts a person's value in a field of another role: the walk
    checked its own pick (``tasks._roles.may_carry``), and the item both criteria pick may be
    someone else (a customer where the walk's pick was a colleague)."""
    writes = [s for s in plan if env.tools[s.tool].kind == "write"]
    return bool(audit_writes(writes, plan, env.pool, env.tools).leaks)


def _shows(plan: list[Step], traded: list[Step], step: int, both: Selection,
           mine: set[str]) -> bool:
    """Whether the choice by two criteria changes a value of the plan, to one not the user's
    own (the request would say "my name": the choice would show in nothing)."""
    changed = False
    for before, after in zip(plan, traded, strict=True):
        for name, src in after.sources.items():
            if src.selection != both:
                continue
            try:
                value = resolve(plan[step].output, src)
            except (IndexError, KeyError, TypeError):
                return False  # the item both criteria pick has no such value (an empty cc)
            if value == before.arguments[name] or str(value).casefold() in mine or (
                    isinstance(value, list) and value == before.arguments[name]):
                return False
            changed = True
    return changed


def reread_answers(answers: list[Criterion], before: list[Step], after: list[Step], step: int
                   ) -> list[Criterion] | None:
    """The report-back criteria of ``before`` read again on ``after``, the same plan choosing
    from step ``step``'s list by two criteria: a report on that list, of the item the ranking
    picked, tells of the item both criteria pick; a report on a later step (one that read what
    the picked item led to) is read at the same place of its new answer. None where a report
    can no longer be read there, or would now tell a value the plan gives a call (nothing the
    user would ask to be told). Each report's ``known`` (what it may name without hedging) is
    what ``after`` gives its calls, no longer the values of the item ``before`` picked."""
    given = {repr(v) for v in plan_values(after)}
    both = next((s for k, s in tradeoffs(after) if k == step), None)
    out = []
    for answer in answers:
        index = answer.step if answer.step is not None else len(before) - 1
        if index < step or not answer.values:
            out.append(answer)
            continue
        path = _where(before[index].output, answer.values[0])
        if path is None or index >= len(after) or after[index].tool != before[index].tool:
            return None
        source = ArgSource(kind="step", path=path)
        if index == step and answer.selection is not None and both is not None:
            source = source.model_copy(update={"selection": both})  # the item both pick
        try:
            value = resolve(after[index].output, source)
        except (LookupError, StopIteration, TypeError, ValueError):
            return None
        if value is None or isinstance(value, dict | list) or repr(value) in given:
            return None
        out.append(answer.model_copy(update={"values": [value], "selection": (
            source.selection or answer.selection)}))
    # what a report may name without hedging is what the new plan uses, not the old pick's
    stale = {repr(v) for v in plan_values(before)}
    return [knowing(a.model_copy(update={"known": [v for v in a.known if repr(v) not in stale]}),
                    after) for a in out]


def _where(data: Any, value: Any, prefix: str = "") -> str | None:
    """The dotted path where ``value`` first sits in ``data`` (a scalar), or None."""
    if data == value and not isinstance(data, dict | list):
        return prefix
    children = (data.items() if isinstance(data, dict)
                else enumerate(data) if isinstance(data, list) else ())
    for key, child in children:
        found = _where(child, value, f"{prefix}.{key}" if prefix else str(key))
        if found is not None:
            return found
    return None


def tradeoffs(plan: list[Step]) -> list[tuple[int, Selection]]:
    """The plan's choices by two criteria: (list step, selection)."""
    found = {(src.step, src.selection.model_dump_json()): (src.step, src.selection)
             for s in plan for src in s.sources.values()
             if src.step is not None and src.selection is not None
             and src.selection.among is not None}
    return [found[key] for key in sorted(found)]


def one_criterion_plans(plan: list[Step]) -> list[list[Step]]:
    """The plans of agents that weigh one criterion of a choice only: the ranking alone, and
    the second criterion alone where it picks an item (run them with ``run_following``)."""
    out = []
    for step, selection in tradeoffs(plan):
        assert selection.among is not None
        second = _alone(selection.among)
        for alone in (selection.model_copy(update={"among": None}), *([second] if second else [])):
            out.append(_rechosen(plan, step, selection, alone))
    return out


def one_criterion_fails(plan: list[Step], rubric: list[Criterion], initial: Environment,
                        scratch: Callable[[], Environment], message: str) -> bool:
    """Gate ``tradeoff_matters``: for each choice by two criteria, the plan that follows the
    ranking alone, and the one that follows the second criterion alone, each fail the
    rubric."""
    for step, selection in tradeoffs(plan):
        assert selection.among is not None
        second = _alone(selection.among)
        for alone in (selection.model_copy(update={"among": None}), *([second] if second else [])):
            env = scratch()
            ran = run_following(env, _rechosen(plan, step, selection, alone))
            if ran is None:
                continue  # following that criterion fails a call: it cannot pass either
            done = [(s.tool, s.arguments) for s in ran[0]]
            if all(r.passed for r in score(rubric, initial, env, message, done)):
                return False
    return True
