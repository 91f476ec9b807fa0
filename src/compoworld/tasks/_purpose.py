"""The purpose sentence of a task's request: why the user asks, from the walk's motif, claiming
only what the final plan does.

A motif (:mod:`compoworld.tasks._motifs`) shaped the walk, but the plan the task keeps is not
the walk: reads nothing used are pruned, a trap takes a create out, a scenario adds a read. So
each purpose sentence carries the :data:`Claim` s it makes ("get in touch with someone" claims
``reaches-person``), and a sentence is said only where every claim holds on the final plan
(:func:`holds`); where none of the motif's sentences hold, the opening falls back to the
services written to (``tasks._instruction._opening``). Claims are read off the plan's tools —
their kind, operation, service domain, the types they find and take, the roles of the fields
they fill — never a service's name, so they hold for compiled services alike.

Example:
    >>> sorted(PURPOSES["notify-affected"][0].claims)
    ['reaches-person', 'several']
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from compoworld.graph import lists_records
from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._model import Step
from compoworld.tasks._motifs import MONEY, OWNERS, PEOPLE, RECIPIENTS, MotifName, operation
from compoworld.tasks._phrasing import family
from compoworld.tasks._removed import copies_removed
from compoworld.tasks._roles import _words
from compoworld.tasks._walk import Walk, path_role

Claim = Literal["reaches-person", "person-record", "money-found", "money-in-two",
                "company-found", "message-found", "writes-elsewhere", "creates", "updates",
                "removes", "several", "to-owner", "money-service"]
"""What a purpose sentence says the plan does:

* ``reaches-person``: a write puts a person's email, phone or name found by an earlier step
  where it reaches them: a send given it (a message, an invitation), or a recipient's, an
  attendee's, an assignee's or a participant's field (:data:`~compoworld.tasks._motifs.RECIPIENTS`:
  a task assigned to them, a comment mentioning them). A record *about* them (a customer, an
  applicant, a contact holding their email) reaches nobody;
* ``person-record``: a create (not a send) in an hr, people, developer, productivity or
  communication service that puts a person's email, phone or name found by an earlier step
  in the record's own fields, not a recipient's nor an owner's (a record, an account for
  them; an email sent to them sets nobody up);
* ``money-found`` / ``company-found``: a read finds an amount / a company's name;
* ``money-in-two``: reads of two services find amounts (figures to set side by side);
* ``message-found``: a read of a communication service finds an email address and a time (a
  message, an event);
* ``money-service``: a read or write in a finance, sales or commerce service;
* ``writes-elsewhere``: a write in another service than the plan's first step;
* ``creates`` / ``updates`` / ``removes``: a write creates / updates / deletes a record
  (``removes``: and no write copies values of a record the plan removed,
  :func:`~compoworld.tasks._removed.copies_removed` — closing records out is not carrying
  them elsewhere);
* ``several``: two writes or more (a fan-out, or a write and its follow-up);
* ``to-owner``: a write hands something to the person responsible for a record: a value
  found in an owner's or an assignee's field is sent to, or fills an owner's, an
  assignee's or a recipient's field of the write (not an author's, not a customer's).
"""


@dataclass(frozen=True)
class Purpose:
    """One sentence the user may open with, and what it claims of the plan."""

    text: str
    claims: frozenset[Claim]


def _p(text: str, *claims: Claim) -> Purpose:
    return Purpose(text, frozenset(claims))


PURPOSES: dict[MotifName, tuple[Purpose, ...]] = {
    "follow-up-bill": (
        _p("There's an amount outstanding that I need to follow up with the person it "
           "concerns.", "money-found", "reaches-person"),
        _p("I'm following up on some money matters and need our records to reflect it.",
           "money-found", "writes-elsewhere"),
    ),
    "onboard-person": (
        _p("I'm setting someone up in more than one of our systems.", "person-record",
           "writes-elsewhere"),
        _p("Someone's details need carrying over so they're set up where they should be.",
           "person-record", "writes-elsewhere"),
    ),
    "mail-and-calendar": (
        _p("Something in my inbox and calendar needs acting on, and I want to get back to "
           "the person involved.", "message-found", "reaches-person"),
        _p("Something in my inbox or calendar needs following up elsewhere.",
           "message-found", "writes-elsewhere"),
    ),
    "sync-won-deal": (
        _p("A piece of business has come through and I want it carried into our other "
           "systems.", "company-found", "money-service", "writes-elsewhere"),
    ),
    "triage-to-owners": (
        _p("I'm going through what's come in and handing things to whoever is responsible.",
           "to-owner"),
        _p("I'm triaging a few items, and each one should end up with the right person.",
           "to-owner", "several"),
    ),
    "reconcile-amounts": (
        _p("I'm checking our figures in one system against another and recording what "
           "follows.", "money-in-two", "writes-elsewhere"),
    ),
    "notify-affected": (
        _p("A few people need to hear about something, and I want each of them told.",
           "reaches-person", "several"),
        _p("Someone needs to hear about something I've come across.", "reaches-person"),
    ),
    "sync-contact-details": (
        _p("Our records in different tools need to line up, so I'm bringing one in line "
           "with another.", "writes-elsewhere", "updates"),
        _p("Some details need carrying over from one of our tools to another.",
           "writes-elsewhere"),
    ),
    "offboard-person": (
        _p("I'm closing out some records that are no longer needed.", "removes"),
        _p("I'm wrapping up some records and letting the right person know.", "removes",
           "reaches-person"),
    ),
}
"""Per motif, the sentences its tasks may open with (every motif has at least one)."""

_PERSON = frozenset({"Email", "Phone", "PersonName"})


def _finds(env: Environment, step: Step, semantic: str) -> bool:
    return semantic in _types(env.tools[step.tool].output_schema)


def _types(schema: object) -> set[str]:
    found: set[str] = set()
    if isinstance(schema, dict):
        if isinstance(schema.get("x-semantic-type"), str):
            found.add(schema["x-semantic-type"])
        for value in schema.values():
            found |= _types(value)
    elif isinstance(schema, list):
        for value in schema:
            found |= _types(value)
    return found


def holds(claim: Claim, plan: list[Step], env: Environment) -> bool:
    """Whether ``plan`` (run on ``env``'s tools) does what ``claim`` says (see :data:`Claim`).

    Example:
        >>> holds("several", [], None)  # type: ignore[arg-type]
        False
    """
    writes = [s for s in plan if env.tools[s.tool].kind == "write"]
    if claim == "several":
        return len(writes) >= 2
    reads = [s for s in plan if env.tools[s.tool].kind == "read"]
    if claim in ("money-found", "company-found"):
        wanted = "Money" if claim == "money-found" else "CompanyName"
        return any(_finds(env, s, wanted) for s in reads)
    if claim == "money-in-two":
        return len({_service(s) for s in reads if _finds(env, s, "Money")}) >= 2
    if claim == "message-found":
        return any(env.services[_service(s)].domain == "communication"
                   and _finds(env, s, "Email") and _finds(env, s, "DateTime") for s in reads)
    if claim == "money-service":
        return any(env.services[_service(s)].domain in MONEY for s in plan)
    if claim == "writes-elsewhere":
        return bool(plan) and any(_service(s) != _service(plan[0]) for s in writes)
    if claim in ("creates", "updates", "removes"):
        op = {"creates": "create", "updates": "update", "removes": "delete"}[claim]
        if claim == "removes" and any(copies_removed(env, plan[:i], env.tools[s.tool], s.sources)
                                      for i, s in enumerate(plan)):
            return False
        return any(_operation(env, s) == op for s in writes)
    if claim == "to-owner":
        return any(src.kind == "step" and _owner(src.path or "") and _hands_to(env, s, name)
                   for s in writes for name, src in s.sources.items())
    if claim == "reaches-person":
        return any(_reaches(env, s) for s in writes)
    return any(_about_person(env, s) for s in writes)


def _found_people(step: Step) -> list[str]:
    """The parameters of ``step`` given a person's email, phone or name an earlier step found."""
    return [name for name, src in step.sources.items()
            if src.kind in ("step", "rule") and src.semantic in _PERSON]


def _reaches(env: Environment, write: Step) -> bool:
    """Whether ``write`` reaches a person found earlier: a send given their value, or their
    value in a recipient's, an attendee's, an assignee's or a participant's field."""
    sends = family(env.tools[write.tool].name, "write") == "send"
    return any(sends or RECIPIENTS.intersection(_words(name))
               for name in _found_people(write))


def _hands_to(env: Environment, write: Step, param: str) -> bool:
    """Whether ``write``'s ``param`` is who it goes to: a send's, or an owner's, an assignee's
    or a recipient's field."""
    return (family(env.tools[write.tool].name, "write") == "send" or _owner(param)
            or bool(RECIPIENTS.intersection(_words(param))))


def _about_person(env: Environment, write: Step) -> bool:
    """Whether ``write`` creates a record for a person found earlier, in a service where
    people get records and accounts: their value in the record's own fields."""
    if (_operation(env, write) != "create" or family(env.tools[write.tool].name, "write") == "send"
            or env.services[_service(write)].domain not in PEOPLE):
        return False
    return any(not RECIPIENTS.intersection(_words(name)) and not _owner(name)
               for name in _found_people(write))


def _owner(path: str) -> bool:
    role = path_role(path)
    return role in OWNERS or any(word in OWNERS for word in role.split("_"))


def _service(step: Step) -> str:
    return step.tool.split(SEPARATOR, 1)[0]


def _operation(env: Environment, step: Step) -> str:
    tool = env.tools[step.tool]
    return operation(step.tool, tool.kind, lists_records(tool.output_schema))


def purpose_sentence(walked: Walk, plan: list[Step], env: Environment) -> str | None:
    """The purpose sentence for a task of ``walked``'s motif whose final plan is ``plan``
    (:func:`purpose_for` of the motif the walk follows first)."""
    if walked.motif is None:
        return None
    return purpose_for(walked.motif.name, plan, env)


def purpose_for(motif: str, plan: list[Step], env: Environment) -> str | None:
    """The purpose sentence of a task of ``motif`` (``Task.provenance["motif"]``) whose final
    plan is ``plan``: one of the motif's :data:`PURPOSES` whose claims all hold (drawn from
    the plan's tools, so the same task gives the same sentence), or None (the opening then
    says which work the written services are: the fallback claims nothing of a motif)."""
    fitting = [p for p in PURPOSES.get(motif, ())  # type: ignore[call-overload]
               if all(holds(c, plan, env) for c in p.claims)]
    if not fitting:
        return None
    key = "|".join(s.tool for s in plan)
    return random.Random(f"purpose|{motif}|{key}").choice(fitting).text


def motif_fields(walked: Walk) -> dict[str, str]:
    """What a task records of its workflow motif (``Task.provenance``): ``motif``, the motif
    whose required stages the walk did (the key ``compoworld split --by motif`` uses), and,
    for a long walk that did a second piece of work on what the first found, ``motif_then``."""
    followed = walked.followed()
    if not followed:
        return {}
    return {"motif": followed[0], **({"motif_then": followed[1]} if len(followed) > 1 else {})}
