"""Temporal reasoning on relative dates: a write's date computed from a date the agent finds.

A date the user would state ("the start date "2026-03-10"") becomes one said relative to a
date an earlier step found: "two business days before the due date of that invoice", "the
Tuesday after the close date of that deal", "a week after ...". The instruction says the
relation, never the date; the rubric pins the exact date (``ArgSource(kind="computed",
op="shift")`` with its :class:`~compoworld.tasks._model.DateShift`).

Gate ``temporal_matters`` (:func:`shift_matters`): the plan that writes the found date itself,
unshifted, fails the rubric.

Example:
    >>> from datetime import date
    >>> shifted(date(2026, 3, 6), DateShift(unit="business_days", n=-2))  # a Friday
    datetime.date(2026, 3, 4)
    >>> shifted(date(2026, 3, 6), DateShift(unit="weekday", n=1))  # the Tuesday after
    datetime.date(2026, 3, 10)
    >>> relation(DateShift(unit="business_days", n=-2))
    'the day two business days before'
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from compoworld.service import Environment, Param
from compoworld.tasks._check import score
from compoworld.tasks._model import ArgSource, Criterion, DateShift, Selection, Step

TEMPORAL_SHARE = 0.3
"""Share of attempts whose plan writes a date the user states that try to say it relative to a
date found along the way (where the plan finds one)."""
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_SHIFTS = (DateShift(unit="business_days", n=-2), DateShift(unit="business_days", n=3),
           DateShift(unit="days", n=7), DateShift(unit="days", n=-1),
           DateShift(unit="weekday", n=1), DateShift(unit="weekday", n=4))
"""The relations people use: two business days before, three business days after, a week
after, the day before, the Tuesday after, the Friday after."""


def shifted(day: date, shift: DateShift) -> date:
    """``day`` moved by ``shift``."""
    if shift.unit == "days":
        return day + timedelta(days=shift.n)
    if shift.unit == "weekday":
        return day + timedelta(days=(shift.n - day.weekday() - 1) % 7 + 1)
    step = 1 if shift.n > 0 else -1
    left = abs(shift.n)
    while left:
        day += timedelta(days=step)
        if day.weekday() < 5:
            left -= 1
    return day


def relation(shift: DateShift) -> str:
    """The day in words, before what it is relative to: "the day two business days before",
    "the Tuesday after", "the day before", "a week after"."""
    numbers = {1: "one", 2: "two", 3: "three", 7: "seven"}
    if shift.unit == "weekday":
        return f"the {_WEEKDAYS[shift.n]} after"
    side = "after" if shift.n > 0 else "before"
    n = abs(shift.n)
    if shift.unit == "days":
        return {1: "the day", 7: "a week"}.get(n, f"{numbers.get(n, n)} days") + f" {side}"
    return f"the day {numbers.get(n, n)} business day{'s' if n > 1 else ''} {side}"


def _day(value: Any) -> date | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


NEAR_DAYS = 366
"""A date a person reckons from is within a year of today (a due date, a close date; not a
birthday)."""


def _found_dates(plan: list[Step], before: int, today: date
                 ) -> list[tuple[int, str, date, Selection | None]]:
    """(step, path, day, selection) of dates the steps before ``before`` found: a field of a
    record a step answered with, or of the list item a later step already takes values of
    (with the selection that singles it out, if one)."""
    used = {str(v) for s in plan for v in s.arguments.values()}
    out = []
    for i, step in enumerate(plan[:before]):
        output = step.output
        prefixes: dict[str, Selection | None] = {"": None} if isinstance(output, dict) else {}
        for s in plan:
            for src in s.sources.values():
                parts = (src.path or "").split(".")
                if src.step == i and src.kind in ("step", "rule") and len(parts) == 3 \
                        and parts[1].isdigit() and not src.each:
                    prefixes.setdefault(".".join(parts[:2]) + ".", src.selection)
        for prefix, selection in sorted(prefixes.items(), key=lambda kv: kv[0]):
            record: Any = output
            for part in prefix.strip(".").split(".") if prefix else []:
                if isinstance(record, list):  # an item this answer does not have: none
                    record = record[int(part)] if int(part) < len(record) else None
                else:
                    record = record.get(part) if isinstance(record, dict) else None
            if not isinstance(record, dict):
                continue
            for field, value in sorted(record.items()):
                day = _day(value)
                if day is not None and str(value) not in used and field != "id" and \
                        abs((day - today).days) <= NEAR_DAYS and "birth" not in field:
                    out.append((i, prefix + field, day, selection))
    return out


_RECORD_KEEPING = ("birth", "created", "updated", "modified", "changed", "deleted")
"""Dates a record keeps of itself (when it was made or last changed) or of a person (a
birthday): none is a day someone plans by."""


def _plannable(param: Param) -> bool:
    """Whether a write could be given this optional date it was not given: a day someone plans
    by (a due date, a close date, a follow-up date), never one the record keeps of itself; a
    date, not a date-time (the request would have to state an hour too)."""
    return (not param.required and param.semantic == "Date" and not param.is_list
            and not any(word in param.name.lower() for word in _RECORD_KEEPING))


def add_temporal(plan: list[Step], env: Environment, rng: random.Random) -> list[Step] | None:
    """``plan`` with one date of a write said relative to a date an earlier step found (its
    value computed): a date the user states, or an optional one the write was not given and a
    person plans by (:func:`_plannable`: "set its due date to the Tuesday after ..."); None
    where no write takes such a date after a step that found one."""
    options = []
    for i, step in enumerate(plan):
        if env.tools[step.tool].kind != "write":
            continue
        params = {p.name: p for p in env.tools[step.tool].params}
        for name in sorted({*step.sources, *(n for n, p in params.items() if _plannable(p))}):
            param, src = params.get(name), step.sources.get(name)
            if param is None or param.semantic not in ("Date", "DateTime") or (
                    src is not None and (src.kind != "user"
                                         or _day(step.arguments[name]) is None)):
                continue  # found or computed already; or no date
            options += [(i, name, found) for found in _found_dates(plan, i, env.today)
                        if env.tools[plan[found[0]].tool].kind == "read"]
    if not options:
        return None
    index, name, (source, path, day, selection) = options[rng.randrange(len(options))]
    shift = _SHIFTS[rng.randrange(len(_SHIFTS))]
    stated = str(plan[index].arguments.get(name, day.isoformat()))
    value = shifted(day, shift).isoformat() + stated[10:]  # a date-time keeps its time
    if value == stated:
        return None
    step = plan[index]
    moved = step.model_copy(update={
        "arguments": {**step.arguments, name: value},
        "sources": {**step.sources, name: ArgSource(kind="computed", step=source, path=path,
                                                    selection=selection, op="shift",
                                                    shift=shift)}})
    return [*plan[:index], moved, *plan[index + 1:]]


def shift_matters(plan: list[Step], rubric: list[Criterion], initial: Environment,
                  scratch: Callable[[], Environment], message: str) -> bool:
    """Gate ``temporal_matters``: the plan that writes each found date as it is (not moved
    by its relation) fails the rubric."""
    naive = []
    for step in plan:
        arguments = dict(step.arguments)
        for name, src in step.sources.items():
            if src.op == "shift" and src.step is not None and src.path:
                found: Any = plan[src.step].output
                for part in src.path.split("."):
                    found = found[int(part)] if isinstance(found, list) else found[part]
                arguments[name] = str(found)[:10] + str(arguments[name])[10:]
        naive.append((step.tool, arguments))
    env = scratch()
    done = [(n, a) for n, a in naive if env.call(n, a)["success"]]
    return not all(r.passed for r in score(rubric, initial, env, message, done))
