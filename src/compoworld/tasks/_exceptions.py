"""Batches with exceptions: a fan-out where one item is on hold, as a colleague's email says.

A fan-out (``tasks._fanout``) does one write for each item of a list. Here one of those items
is to be left out: a colleague's email in the user's mailbox names it ("please leave Acme
Corp out for now: that one is on hold"), the instruction still asks for every item and points
to the email ("Dana emailed about the ones on hold: leave those out"), and the plan reads the
email first and skips that item's write. The email is the task's rule (``Rule.kind ==
"exception"``: its ``value`` is what names the item, ``param`` the item's field holding it);
the skipped write is its trap (``Trap.kind == "exception"``, at the position it held).

Two gates check it matters: ``trap_matters`` (the naive plan, which does every item, fails the
rubric: the collateral check sees the held item's change) and ``rule_matters`` (had the email
held another item back, following it fails: the one it names is expected).

Tested in ``tests/tasks/test_structures.py`` on generated tasks (structure, words, gates, the
oracle at 1.0).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from compoworld.service import SEPARATOR, Change, Environment
from compoworld.tasks._check import score
from compoworld.tasks._diff import net_changes
from compoworld.tasks._model import ArgSource, Criterion, Planted, Rule, Step, Trap
from compoworld.tasks._stored import RULE_SERVICE, colleague, email, list_things, shift_sources

MIN_ITEMS = 3
"""A batch with an exception keeps at least two items' writes (still a fan-out)."""

_LABEL_FIELDS = ("name", "full_name", "display_name", "title", "subject", "company",
                 "company_name", "email", "username", "code", "sku", "number")
"""Fields a person names an item by, in the order they would reach for them."""


def _copies(plan: list[Step]) -> list[int]:
    """The steps of the plan's fan-out (one write per item), if it has one."""
    return [i for i, s in enumerate(plan) if any(src.each for src in s.sources.values())]


def has_batch(plan: list[Step]) -> bool:
    """Whether the plan's fan-out has enough items to hold one back."""
    return len(_copies(plan)) >= MIN_ITEMS


def _item_of(step: Step) -> tuple[int, str, int]:
    """(list step, list field, item index) of a fan-out copy."""
    src = next(src for src in step.sources.values() if src.each)
    parts = (src.path or "").split(".")
    assert src.step is not None
    return src.step, parts[0], int(parts[1])


def _label(items: list[Any], indices: list[int]) -> str | None:
    """A field that names each of the batch's items, with a value unique among them."""
    for field in _LABEL_FIELDS:
        values = [items[k].get(field) if isinstance(items[k], dict) else None for k in indices]
        if all(isinstance(v, str) and 3 <= len(v) <= 60 and "\n" not in v for v in values) and \
                len({str(v).casefold() for v in values}) == len(values):
            return field
    return None


def add_exception(plan: list[Step], changes: list[list[Change]], env: Environment,
                  rng: random.Random) -> tuple[list[Step], Rule, Trap, Planted, str] | None:
    """Hold one item of the plan's fan-out back by a colleague's email: the new plan (the
    email read first, the held item's write left out), the rule, the trap, the planted email,
    the instruction's note; None where the plan has no fan-out over three items or more whose
    items a person can name."""
    copies = _copies(plan)
    if RULE_SERVICE not in env.services or len(copies) < MIN_ITEMS:
        return None
    source, field, _ = _item_of(plan[copies[0]])
    output = plan[source].output
    items = output.get(field) if isinstance(output, dict) else None
    if not isinstance(items, list):
        return None
    indices = [_item_of(plan[i])[2] for i in copies]
    label = _label(items, indices)
    if label is None:
        return None
    author = colleague(env, rng)
    words = " ".join(f"{k} {v}" for s in plan for k, v in s.arguments.items()).casefold()
    held = list(copies)
    rng.shuffle(held)  # the items tried in a drawn order: the first a person can name alone
    for at in held:
        net = net_changes(changes[at])
        value = items[_item_of(plan[at])[2]][label]
        if len(net) == 1 and words.count(str(value).casefold()) <= 1 and \
                str(value).casefold() not in author.name.casefold():
            break  # else the plan's other values would say which one it is
    else:
        return None
    table = next(iter(net))[0]
    things = list_things(plan[source])
    subject = f"{things.capitalize()} on hold"
    user = env.pool.user
    planted = email(env, rng, author, subject, (
        f"Hi {user.first_name},\n\nHeads-up on our {things}: please leave {value} out of "
        f"anything you do for the others for now. That one is on hold until I've spoken to "
        f"them; everything else can go ahead as usual.\n\nThanks,\n{author.first_name}"))
    read = Step(tool=f"{RULE_SERVICE}{SEPARATOR}list_messages", arguments={"query": subject},
                sources={"query": ArgSource(kind="user")}, output=None)
    rest = [shift_sources(s, -1, at + 1) for k, s in enumerate(plan) if k != at]
    moved = [read, *(shift_sources(s, 1, 0) for s in rest)]
    trap = Trap(kind="exception", table=table, step=shift_sources(plan[at], 1, 0),
                position=at + 1)
    rule = Rule(kind="exception", author=author.name, subject=subject, step=at + 1,
                param=label, value=value)
    note = (f"{author.name} emailed you about {things} that are on hold (subject "
            f"\"{subject}\"): do this for all the others, but leave those out.")
    return moved, rule, trap, planted, note


def other_exception_fails(plan: list[Step], trap: Trap, rubric: list[Criterion],
                          initial: Environment, scratch: Callable[[], Environment],
                          message: str) -> bool:
    """Gate (``rule_matters`` for an exception): had the email held another item back, the
    plan that follows it — the held item done, another one left out — fails the rubric."""
    full = [*plan[:trap.position], trap.step, *plan[trap.position:]]
    others = [i for i in _copies(full) if i != trap.position]
    if not others:
        return False
    followed = [s for k, s in enumerate(full) if k != others[0]]
    env = scratch()
    done = [(s.tool, s.arguments) for s in followed if env.call(s.tool, s.arguments)["success"]]
    return not all(r.passed for r in score(rubric, initial, env, message, done))
