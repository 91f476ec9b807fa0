"""Records a scenario stores in the world for the agent to find: a colleague's email in the
user's mailbox (a rule, an exception list), and the plan arithmetic that reading it first
needs (every later step's sources move by one)."""

from __future__ import annotations

import random
from datetime import datetime, time, timedelta

from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._model import Planted, Step
from compoworld.tasks._phrasing import plural, singular
from compoworld.types import Person

RULE_SERVICE = "mail"
"""Where rules are stored: a colleague's email in the user's mailbox."""


def shift_sources(step: Step, by: int, at: int) -> Step:
    """``step`` with its sources to steps at ``at`` or later moved by ``by``."""
    return step.model_copy(update={"sources": {
        name: src.model_copy(update={"step": src.step + by})
        if src.step is not None and src.step >= at else src
        for name, src in step.sources.items()}})


def colleague(env: Environment, rng: random.Random) -> Person:
    """Someone at the user's company (not the user): who writes the team's rules."""
    user = env.pool.user
    people = [p for p in env.pool.people if p.company == user.company and p != user]
    return people[rng.randrange(len(people))] if people else env.pool.people[0]


def _message_id(rng: random.Random) -> str:
    return f"ms_{rng.getrandbits(32):08x}"


def email(env: Environment, rng: random.Random, author: Person, subject: str,
          body: str) -> Planted:
    """A colleague's email in the user's inbox, sent in the last week, not read yet."""
    user = env.pool.user
    sent = datetime.combine(env.today - timedelta(days=1 + rng.randrange(6)),
                            time(9 + rng.randrange(8), rng.randrange(60)))
    record = _message_id(rng)
    return Planted(service=RULE_SERVICE, entity="message", values={
        "id": record, "thread_id": record, "folder": "inbox", "status": "received",
        "sender": author.email, "sender_name": author.name, "to": [user.email], "cc": [],
        "subject": subject, "body": body, "sent_at": sent.isoformat(), "is_read": False,
        "is_starred": False})


def list_things(step: Step) -> str:
    """What a list read returns, in words ("deals" from ``list_deals``)."""
    name = step.tool.split(SEPARATOR, 1)[1]
    words = [w for w in name.split("_") if w not in ("list", "get", "search", "find", "all",
                                                      "by", "for", "my")]
    return plural(singular(" ".join(words))) if words else "records"
