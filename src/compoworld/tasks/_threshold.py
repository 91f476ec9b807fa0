"""Threshold rules: the limit a conditional write depends on, stored in a colleague's email.

A conditional plan ("send the reminder — but only if the invoice's balance is more than 1200")
keeps its branch, but the number is no longer the user's to state: a colleague's email in the
user's mailbox sets it ("we only chase balances over 1200"), the instruction points to the
email ("only if the balance is more than the limit Dana set in her email"), and the plan reads
the email first. ``Rule.kind == "threshold"``: ``value`` is the condition's threshold.

Gate ``rule_matters`` (:func:`threshold_matters`): had the email set a limit on the value's
other side, following it takes the other branch, which fails the rubric.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._condition import _threshold, branch_matters, holds
from compoworld.tasks._model import ArgSource, Condition, Criterion, Planted, Rule, Step
from compoworld.tasks._phrasing import date_words, words
from compoworld.tasks._stored import RULE_SERVICE, colleague, email, shift_sources


def _field(condition: Condition) -> str:
    return condition.path.split(".")[-1]


def add_threshold_rule(plan: list[Step], condition: Condition, env: Environment,
                       rng: random.Random
                       ) -> tuple[list[Step], Condition, Rule, Planted, str] | None:
    """Move the condition's threshold into a colleague's email: the new plan (the email read
    first), the condition (its steps moved), the rule, the planted email and the note; None
    where the mailbox is not mounted."""
    if RULE_SERVICE not in env.services:
        return None
    author = colleague(env, rng)
    user = env.pool.user
    dated = isinstance(condition.threshold, str)
    label = date_words(_field(condition)) if dated else words(_field(condition))
    subject = f"Limit for {label}"
    side = ("after" if condition.op == "gt" else "before") if dated else (
        "more than" if condition.op == "gt" else "less than")
    limit = f"the {label} is {side} {condition.threshold}"
    planted = email(env, rng, author, subject, (
        f"Hi {user.first_name},\n\nA rule for the team from now on: only go ahead when "
        f"{limit}. Anything else, leave as it is.\n\nThanks,\n{author.first_name}"))
    read = Step(tool=f"{RULE_SERVICE}{SEPARATOR}list_messages", arguments={"query": subject},
                sources={"query": ArgSource(kind="user")}, output=None)
    moved = [read, *(shift_sources(s, 1, 0) for s in plan)]
    shifted = condition.model_copy(update={"source": condition.source + 1,
                                           "then": shift_sources(condition.then, 1, 0)})
    rule = Rule(kind="threshold", author=author.name, subject=subject,
                step=len(moved) - 1 if condition.holds else len(moved), param=condition.path,
                value=condition.threshold)
    note = (f"{author.name} emailed you the limit to go by (subject \"{subject}\"): use the one "
            f"in that email.")
    return moved, shifted, rule, planted, note


def threshold_matters(plan: list[Step], condition: Condition, rubric: list[Criterion],
                      initial: Environment, scratch: Callable[[], Environment],
                      message: str) -> bool:
    """Gate (``rule_matters`` for a threshold): a limit on the found value's other side exists
    (it flips the branch) and following it — the other branch — fails the rubric."""
    value = plan[condition.source].output
    for part in condition.path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    other = _threshold(value, above=condition.op == "gt" if condition.holds else
                       condition.op == "lt", rng=random.Random(0))
    if holds(value, condition.op, other) == condition.holds:
        return False
    return branch_matters(initial, scratch, plan, condition, rubric, message)
