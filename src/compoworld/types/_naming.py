"""What an untyped text field holds, from its name: a code, a title, or free text.

Compiled specs leave many strings untyped (``friendly_name``, ``account_sid``, ``job_id``).
Filled with lorem they show through everywhere — a task that names a record "Writer certainly
small" reads as filler. Seeding and the offline world model ask :func:`text_role` instead, and
write a code ("JOB-482913") or a name ("Adaptive Alliance Review") where the name says so.
"""

from __future__ import annotations

import random
import re
from functools import cache
from typing import Literal

TextRole = Literal["code", "title"]

_CODE_WORDS = frozenset({"id", "code", "key", "number", "sku", "slug", "ref", "token", "sid",
                         "uuid", "identifier", "handle"})
_TITLE_WORDS = frozenset({"name", "title", "label", "subject", "displayname"})


def _words(name: str) -> list[str]:
    """``friendlyName`` / ``friendly_name`` → ["friendly", "name"]."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower().replace("-", "_").split("_")


def text_role(name: str) -> TextRole | None:
    """``"code"`` for a field named like an identifier, ``"title"`` for one named like a name
    or a title, None for other text.

    Example:
        >>> text_role("account_sid"), text_role("friendlyName"), text_role("description")
        ('code', 'title', None)
    """
    words = _words(name)
    if not words:
        return None
    if words[-1] in _CODE_WORDS:
        return "code"
    if words[-1] in _TITLE_WORDS or "".join(words[-2:]) in _TITLE_WORDS:
        # a person's middle name or nickname or a user's name is no title
        return None if set(words) & {"middle", "nick", "maiden", "user"} else "title"
    return None


@cache
def code_prefix(name: str) -> str:
    """The prefix of a field's codes: the first three letters of its first other word."""
    return (next((w for w in _words(name) if w not in _CODE_WORDS), "") or "ref")[:3].upper()


def make_code(name: str, rng: random.Random) -> str:
    return f"{code_prefix(name)}-{rng.randrange(100000, 1000000)}"


def make_title(rng: random.Random) -> str:
    """A name for a thing (a project, a page, a workflow), from Faker's catch-phrase words."""
    adjectives, nouns = _title_words()
    return f"{rng.choice(adjectives)} {rng.choice(nouns).title()}{rng.choice(_TAILS)}"


_TAILS = ("", "", "", " Review", " Plan", " Rollout", " Report", " Program", " Launch")


@cache
def _title_words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Faker's catch-phrase adjectives and nouns (read once: a title is drawn per record)."""
    from faker.providers.company.en_US import Provider as _Company

    adjectives, _, nouns = _Company.catch_phrase_words
    return tuple(adjectives), tuple(nouns)
