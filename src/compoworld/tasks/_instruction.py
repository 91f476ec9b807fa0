"""The request a person makes to their assistant, templated from the reference plan.

The user (the workspace's owner: ``env.pool.user``) writes: a line of context (who they are,
the date, what they are working on), then what they want done — one item per write, the reads
it needs folded into it ("add the sender of the most recent message in my mailbox as a
customer...") — then what to tell them. Services are named as a person names them
(:func:`display_name`), tools never. Values the user knows are quoted literally; values an
earlier step finds are described by role and origin, never stated (:func:`leaked`). Two styles,
drawn per task: a numbered checklist (about 2 in 3) or prose.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._model import Condition, Criterion, Rule, Step, Trap
from compoworld.tasks._phrasing import _action, article, long_date, verb_and_noun
from compoworld.tasks._request import Request
from compoworld.tasks._stored import shift_sources
from compoworld.types import derive_seed

__all__ = ["_action", "instruction", "leaked", "system_prompt"]

CHECKLIST_SHARE = 0.78  # of requests with 2+ items: about 2 in 3 of all requests


def system_prompt(today: str) -> str:
    return (f"You are the user's assistant, working in their workspace of connected services "
            f"(their mailbox, calendar, business systems). Today is {today}. Do what the user "
            f"asks with the tools you have: find what they refer to before you change anything, "
            f"change only what they ask for, and in your final message tell them what they "
            f"asked to be told.")


def _rng(plan: Sequence[Step]) -> random.Random:
    key = json.dumps([[s.tool, s.arguments] for s in plan], sort_keys=True, default=str)
    return random.Random(derive_seed(0, "instruction", key))


_WORK = {
    "hr": "getting our HR and hiring records up to date",
    "sales": "tidying up the sales pipeline",
    "support": "working through customer support",
    "finance": "sorting out billing",
    "communication": "catching up on my correspondence",
    "productivity": "organizing our project work",
    "marketing": "updating our business listings",
    "commerce": "updating the online store",
    "travel": "checking some travel arrangements",
}
# What a write must make or change for its domain's purpose to be what it does: a catalog
# domain is the service's, not the tool's (a background-check API filed under travel, a
# glassware API under developer), so "checking some travel arrangements" is said only when
# a write is a booking or a trip.
_DOMAIN_RECORDS = {
    "hr": {"applicant", "candidate", "employee", "job", "application", "interview", "offer",
           "department", "leave", "timesheet"},
    "sales": {"lead", "contact", "opportunity", "deal", "company", "account", "activity",
              "prospect", "note", "pipeline"},
    "support": {"ticket", "customer", "comment", "conversation", "case", "issue"},
    "finance": {"invoice", "payment", "customer", "refund", "bill", "expense", "charge",
                "subscription", "transaction"},
    "communication": {"message", "email", "draft", "event", "invitation", "reply", "sms",
                      "fax", "call"},
    "productivity": {"task", "project", "member", "note", "list", "page", "document", "board",
                     "card", "comment"},
    "marketing": {"listing", "campaign", "review", "location", "post", "subscriber"},
    "commerce": {"order", "product", "cart", "shipment", "item"},
    "travel": {"booking", "trip", "reservation", "flight", "hotel", "itinerary"},
}


def _work(steps: Sequence[Step], env: Environment) -> list[str]:
    """What the user is doing, per domain written to, where the write fits the domain."""
    seen: list[str] = []
    for step in steps:
        tool = env.tools[step.tool]
        if tool.kind != "write":
            continue
        domain = env.services[step.tool.split(SEPARATOR, 1)[0]].domain
        verb, noun = verb_and_noun(tool.name)
        last = noun.split(" ")[-1] if noun else verb
        if domain in _WORK and last in _DOMAIN_RECORDS[domain] and _WORK[domain] not in seen:
            seen.append(_WORK[domain])
    return seen


def _about(steps: Sequence[Step], env: Environment, rule: Rule | None) -> str | None:
    """What the request starts from, as a person says it ("an invoice", "a message"): the
    first read's record, when one word names it (a rule's email, read first, is not it)."""
    for i, step in enumerate(steps):
        if rule is not None and i == 0:
            continue
        tool = env.tools[step.tool]
        noun = verb_and_noun(tool.name)[1] if tool.kind == "read" else ""
        if noun and " " not in noun and noun not in ("record", "item", "result"):
            return f"{article(noun)} {noun}"
        return None
    return None


def _opening(env: Environment, steps: Sequence[Step], rng: random.Random,
             purpose: str | None, rule: Rule | None = None) -> str:
    user = env.pool.user
    job = user.job_title if "," not in user.job_title and "(" not in user.job_title else None
    # Who they are, as much of it as gives away nothing the plan must find (the user's own
    # name or company can be a value a step looks up).
    for who in ((f"I'm {user.name}, {job.lower()} at {user.company.name}" if job else None),
                f"I'm {user.name} from {user.company.name}", f"I'm {user.name}",
                f"I'm the {job.lower()} here" if job else None, "it's me"):
        if who is not None and not leaked(who, list(steps)):
            break
    today = long_date(env.today)
    if purpose is None:
        # What they are doing: what the request starts from, and what its writes are for.
        about = _about(steps, env, rule)
        doing = ([f"following up on {about}"] if about else []) + _work(steps, env)
        purpose = ("I'm " + " and ".join(doing[:2]) + "." if doing else rng.choice((
            "I'm following something up and need one detail first.",
            "I'm about to make a call and need a detail I don't have to hand.",
            "I'm preparing a follow-up and need to check one thing.")))
    greeting = rng.choice(("Hi", "Hello", "Hi there", "Morning"))
    return f"{greeting}, {who}. Today is {today}. {purpose}"


def instruction(plan: list[Step], env: Environment, answer: Criterion | None,
                condition: Condition | None = None, *, notes: Sequence[str] = (),
                purpose: str | None = None, rng: random.Random | None = None,
                rule: Rule | None = None, traps: Sequence[Trap] = ()) -> str:
    """The request for ``plan``, as its user would write it.

    Args:
        plan: The reference plan.
        env: The world it runs in (tools, services, the user: ``env.pool.user``).
        answer: The answer criterion, if the user asks to be told something.
        condition: A branch: the write ``condition.then`` is asked for "only if ..." (even
            when the plan, the condition failing, stops before it).
        notes: Extra sentences the scenario adds (rules to follow, traps to watch for),
            placed after the steps (in a checklist, as a list of their own).
        purpose: What the user is working on (one sentence); derived from the services
            written to when not given.
        rng: Chooses the style and the wording; by default seeded from the plan, so the same
            plan gives the same text, byte for byte.
        rule: A rule stored in the world (``Scenario.rule``): the values it sets and the item
            it picks are described by the rule, never stated.
        traps: The scenario's traps (``Scenario.traps``): the step the plan leaves out is
            asked for where it stood — an idempotency trap's create "unless there already is
            one", an exception's write with the batch's others (the note says which to skip).
    """
    rng = rng or _rng(plan)
    steps = [*plan, condition.then] if condition is not None and not condition.holds else plan
    unless: set[int] = set()
    for trap in sorted((t for t in traps if t.kind != "decoy"), key=lambda t: t.position):
        at = trap.position
        if trap.kind == "refusal":  # the call as asked, in place of the plan's recovery
            # (its steps up to the call as asked made again, where the recovery makes it)
            end = next((k for k in range(at, len(steps)) if steps[k].tool == trap.step.tool
                        and steps[k].arguments == trap.step.arguments), at)
            steps = [*steps[:at], trap.step,
                     *(shift_sources(s, at - end, end) for s in steps[end + 1:])]
            if answer is not None and answer.step is not None and answer.step > end:
                answer = answer.model_copy(update={"step": answer.step - (end - at)})
            continue
        steps = [*steps[:at], trap.step, *(shift_sources(s, 1, at) for s in steps[at:])]
        unless = {u + 1 if u >= at else u for u in unless}
        if trap.kind == "idempotency":
            unless.add(at)  # an item held back is asked for with the others: the note says
        if answer is not None and answer.step is not None and answer.step >= at:
            answer = answer.model_copy(update={"step": answer.step + 1})
    request = Request(steps, env, condition, rule=rule, unless=frozenset(unless))
    items, report = request.items(), request.report(answer)
    unsaid = _unsaid(steps, items, report)
    if unsaid:
        # The user's own email ("my email address") stood for a record whose stated filter
        # then goes unsaid: describe the record instead — only if that says it (a rule's
        # email subject is said in the notes, never in the items: no reason to hide the user
        # behind "the recipient of that message").
        described = Request(steps, env, condition, mine=False, rule=rule,
                            unless=frozenset(unless))
        other = (described.items(), described.report(answer))
        if _unsaid(steps, *other) < unsaid:
            request, (items, report) = described, other
    opening = _opening(env, steps, rng, purpose, rule)
    checklist = len(items) >= 2 and rng.random() < CHECKLIST_SHARE
    closing = report or rng.choice((
        "Let me know once it's all done.", "Tell me when it's done.",
        "Just let me know when that's taken care of.", "Let me know when you're done."))
    if report:
        closing = rng.choice(("When you're done, ", "Once that's done, ", "And then ")) + report
    found = bool(items) and any(s.kind != "user" for step in steps for s in step.sources.values())
    care = []
    if found and items:
        care.append(rng.choice((
            "I don't have the details to hand, so you'll need to look them up.",
            "You'll have to look up the details; I don't have them in front of me.",
            "I haven't got the details with me, so please look them up.")))
    if items:
        care.append(rng.choice((
            "Make each change once, and leave everything else as it is.",
            "Only change what I've listed, once each; don't touch anything else.",
            "Please don't change anything beyond this, and don't create anything twice.")))
    first = env.pool.user.first_name
    first = "" if leaked(first, steps) else first
    sign = (f"Thanks,\n{first}" if checklist else f"Thanks, {first}") if first else "Thanks!"
    if checklist:
        lead = rng.choice(("Could you take care of the following?", "Here's what I need:",
                           "Can you do these for me, in order?", "Please handle these:"))
        lines = [f"{i}. {item[0].upper()}{item[1:]}." for i, item in enumerate(items, 1)]
        parts = [opening + (" " + care[0] if found else ""), lead + "\n" + "\n".join(lines)]
        rules = [*care[1 if found else 0:], *notes]
        if notes:
            parts.append("Keep in mind:\n" + "\n".join(f"- {rule}" for rule in rules))
        elif rules:
            parts.append(" ".join(rules))
        return "\n\n".join([*parts, closing, sign])
    sentences = [opening, *(care[:1] if found else [])]
    connectors = ["First, ", "Then ", "After that, ", "Next, ", "Then ", "After that, "]
    for i, item in enumerate(items):
        if len(items) == 1:
            ask = rng.choice(("Could you ", "Can you ", "I'd like you to "))
            sentences.append(ask + item + ("." if ask.startswith("I") else "?"))
        elif i == len(items) - 1:
            sentences.append("Finally, " + item + ".")
        else:
            sentences.append(connectors[i % len(connectors)] + item + ".")
    if not items and report:
        closing = "Could you " + report[0].lower() + report[1:]
        closing = closing.rstrip(".") + "?"
    sentences.extend(care[1 if found else 0:])
    sentences.extend(notes)
    sentences.append(closing)
    return " ".join(sentences) + "\n\n" + sign


def _unsaid(steps: Sequence[Step], items: list[str], report: str | None) -> set[str]:
    """The values the user states in ``steps`` that the request's words do not say."""
    said = " ".join([*items, report or ""]).casefold()
    return {value for value in _stated(steps) if value.casefold() not in said}


def _stated(steps: Sequence[Step]) -> list[str]:
    return [str(v) for step in steps for name, source in step.sources.items()
            if source.kind == "user"
            for v in (step.arguments[name] if isinstance(step.arguments[name], list)
                      else [step.arguments[name]])]


def leaked(text: str, plan: list[Step]) -> list[str]:
    """Values the agent must discover (step-sourced arguments) that the text gives away."""
    found = []
    lowered = text.casefold()
    stated = {str(v).casefold() for step in plan for name, source in step.sources.items()
              if source.kind == "user"
              for v in (step.arguments[name] if isinstance(step.arguments[name], list)
                        else [step.arguments[name]])}
    for step in plan:
        for name, source in step.sources.items():
            if source.kind == "user":
                continue
            values = step.arguments[name]
            for value in values if isinstance(values, list) else [values]:
                if (len(str(value)) > 2 and str(value).casefold() in lowered
                        and str(value).casefold() not in stated):
                    found.append(str(value))
    return found
