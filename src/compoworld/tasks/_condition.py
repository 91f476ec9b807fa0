"""Conditionals: the plan's last write is to be done only if a value an earlier step found is
above or below a threshold the user states ("only if the balance due you found in the second
step is more than 1,200"). Half the time the value says no: the plan stops before the write,
and the rubric (its collateral check) fails an agent that does it anyway — a gate checks that
doing the other branch fails."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from compoworld.graph import extract_facts
from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._check import score
from compoworld.tasks._model import Condition, Criterion, Step
from compoworld.tasks._phrasing import bookkeeping

_NUMBERS = frozenset({"Money", "Quantity", "Percent", "DurationMinutes"})
_DATES = frozenset({"Date", "DateTime"})


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def holds(value: Any, op: str, threshold: float | int | str) -> bool:
    """Whether ``value`` is above (``gt``) or below (``lt``) ``threshold`` (dates by day)."""
    if isinstance(threshold, str):
        day = str(value)[:10]
        return day > threshold if op == "gt" else day < threshold
    return bool(value > threshold) if op == "gt" else bool(value < threshold)


def _threshold(value: Any, above: bool, rng: random.Random) -> float | int | str:
    """A round number (or a date) just above or below ``value``, never equal to it."""
    if isinstance(value, str):
        day = _day(value)
        assert day is not None
        shift = timedelta(days=rng.randint(1, 20))
        return (day + shift if above else day - shift).isoformat()
    step = 10.0 ** max(0, math.floor(math.log10(abs(value) or 1)) - 1)
    bound = (math.floor(value / step) - 1 if not above else math.ceil(value / step) + 1) * step
    return int(bound) if step >= 1 else round(bound, 2)


def add_condition(plan: list[Step], env: Environment,
                  rng: random.Random) -> tuple[list[Step], Condition] | None:
    """Put the plan's last write under a condition on an amount, count or date an earlier read
    found (one value of its answer, not taken from a list): the plan with or without that
    write, and the condition. None when the plan has no such write or value."""
    last = plan[-1]
    if len(plan) < 3 or env.tools[last.tool].kind != "write":
        return None
    given = {repr(v) for s in plan for value in s.arguments.values()
             for v in (value if isinstance(value, list) else [value])}
    candidates = []
    for i, step in enumerate(plan[:-1]):
        if env.tools[step.tool].kind != "read":
            continue  # a value the agent found, not one its own write just made (a sent-at)
        service = step.tool.split(SEPARATOR, 1)[0]
        for fact in extract_facts(env.tools[step.tool].output_schema, step.output, service):
            value = fact.value
            if (fact.list_path is not None or fact.key[0] != "type" or repr(value) in given
                    or isinstance(value, bool) or "birth" in fact.path
                    or bookkeeping(fact.path.rpartition(".")[2])):
                continue  # (a birthday, when a record was updated: no business condition)
            if (fact.key[1] in _NUMBERS and isinstance(value, int | float) and value > 0) or (
                    fact.key[1] in _DATES and _day(value) is not None):
                candidates.append((i, fact.path, value))
    if not candidates:
        return None
    amounts = [c for c in candidates if not isinstance(c[2], str)]
    if amounts and rng.random() < 0.6:  # amounts and counts first: dates are many
        candidates = amounts
    source, path, value = rng.choice(candidates)
    op = rng.choice(("gt", "lt"))
    true = rng.random() < 0.5
    threshold = _threshold(value, above=(op == "lt") == true, rng=rng)
    if not isinstance(threshold, str) and threshold <= 0:
        return None  # "more than 0" or a negative amount reads as a trick, not a rule
    condition = Condition(source=source, path=path, op=op, threshold=threshold,
                          holds=holds(value, op, threshold), then=last)
    return (plan if condition.holds else plan[:-1]), condition


def branch_matters(initial: Environment, scratch: Callable[[], Environment], plan: list[Step],
                   condition: Condition, rubric: list[Criterion], message: str) -> bool:
    """Gate: taking the other branch fails the rubric (skipping the write when the condition
    holds; doing it when it does not)."""
    env = scratch()
    steps = plan[:-1] if condition.holds else [*plan, condition.then]
    for step in steps:
        env.call(step.tool, step.arguments)
    calls = [(s.tool, s.arguments) for s in steps]
    return not all(r.passed for r in score(rubric, initial, env, message, calls))
