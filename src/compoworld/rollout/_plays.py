"""How the oracle plays each structure of a task: one function per kind, one dispatch table.

A structure is something the task adds to a plain walk: who asks (``persona``), a rule stored
in the world (``rule``), a trap (``trap``: a record already there, a namesake, or a call the
service refuses and the way around it), a write done for each item of a list
(``fan-out``), a write done only if a found value passes a threshold (``condition``), a value
found along the way to report back (``report-back``). Each kind's function reads the task and
what the episode has shown so far (:class:`Seen`) and returns a :class:`Play`: the notes it
adds at given moments of the trajectory, the reads it makes first (a trap's check) and the
lines it adds to the final report. A new kind plugs in as one function and one entry of
:data:`PLAYS`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from compoworld.rollout._narration import Note, action, condition_note, ordinal, ranking, show, words
from compoworld.rollout._results import data_of, error_of, get_path, path_of, resolve
from compoworld.service import SEPARATOR
from compoworld.tasks import Task
from compoworld.tasks._trap_check import TrapCheck, existing_record, trap_check

StructureKind = Literal["persona", "rule", "trap", "fan-out", "condition", "report-back"]
MomentKind = Literal["first", "step", "check", "found", "end"]
Moment = tuple[MomentKind, int]
"""When a note is said: ("first", 0) — on the first turn; ("step", i) — on the turn of plan
step i, before its own notes; ("check", k) — on trap k's check; ("found", k) — on the turn
after it; ("end", 0) — with the final answer."""


@dataclass(frozen=True)
class Seen:
    """What the episode has shown the oracle so far.

    Attributes:
        task: The task.
        results: Tool message contents by call id.
        arguments: A plan step's arguments as this episode sends them.
        trap_arguments: A trap's create's arguments as this episode would send them.
    """

    task: Task
    results: dict[Any, Any]
    arguments: Callable[[int], dict[str, Any]]
    trap_arguments: Callable[[int], dict[str, Any]]

    def data(self, call_id: str) -> Any:
        return data_of(self.results.get(call_id))

    def done(self, call_id: str) -> bool:
        return call_id in self.results


@dataclass
class Play:
    """What one structure adds: notes by moment, reads made first, report lines."""

    notes: dict[Moment, list[Note]] = field(default_factory=dict)
    purpose: dict[int, Note] = field(default_factory=dict)
    """Plan step → what it is for, said instead of the plain purpose (a rule's email read)."""
    checks: list[TrapCheck] = field(default_factory=list)
    report: list[str] = field(default_factory=list)
    """Lines of the report's *Checks* section."""
    changed: list[str] = field(default_factory=list)
    """Lines of the report's *What changed* section (a trap's create made after all)."""

    def add(self, moment: Moment, *notes: Note) -> None:
        self.notes.setdefault(moment, []).extend(notes)

    def merge(self, other: Play) -> None:
        for moment, notes in other.notes.items():
            self.add(moment, *notes)
        self.purpose.update(other.purpose)
        self.checks += other.checks
        self.report += other.report
        self.changed += other.changed


def _persona(task: Task, seen: Seen) -> Play | None:
    if task.scenario is None:
        return None
    play = Play()
    play.add(("first", 0), Note("user", f"I am working for {task.scenario.persona}, on what they "
                                        "asked for and nothing more."))
    return play


def _sentence(text: str, needle: str) -> str | None:
    """The sentence of ``text`` that holds ``needle`` (case-insensitive), or None."""
    sentences = [s for paragraph in re.split(r"\n\s*\n", text)
                 for s in re.split(r"(?<=[.!?])\s+", " ".join(paragraph.split()))]
    for sentence in sentences:
        if needle.casefold() in sentence.casefold():
            return sentence.strip()
    return None


def _email(seen: Seen, subject: str) -> dict[str, Any] | None:
    """The message with ``subject`` among what the rule's read (step 0) returned."""
    data = seen.data("call_step_0")
    items = data.get("items") if isinstance(data, dict) else data
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("subject") == subject:
            return item
    return None


def _rule(task: Task, seen: Seen) -> Play | None:
    rule = task.scenario.rule if task.scenario else None
    if rule is None:
        return None
    play = Play()
    first = rule.author.split()[0]
    play.purpose[0] = Note("rule", f"The request points to a note: {rule.author} emailed about "
                                   f"this (\"{rule.subject}\"), and it decides a value I must not "
                                   "guess. Before acting on it I look for that email in the "
                                   "mailbox, by its subject.")
    email = _email(seen, rule.subject) if seen.done("call_step_0") else None
    body = str((email or {}).get("body") or "")
    targets = sorted({i for i, s in enumerate(task.plan) for src in s.sources.values()
                      if src.kind == "rule"})
    if rule.kind == "selection" and rule.selection is not None:
        said = _sentence(body, "go with") or f"go with the one with the {' '.join(ranking(rule.selection))}"
        extreme, by = ranking(rule.selection)
        for n, i in enumerate(targets):
            picked = [(name, src) for name, src in task.plan[i].sources.items()
                      if src.kind == "rule" and src.selection is not None]
            source_step = picked[0][1].step or 0
            values = "; ".join(f"its {words((src.path or '').split('.')[-1])} is "
                               f"{show(_picked(seen, src))}" for _, src in picked)
            noun = action(task.plan[source_step])[2]
            quoted = (f"{first}'s email says: \"{said}\" Several {noun} came back from the "
                      f"{ordinal(source_step)} call, so I take" if n == 0 else
                      f"By {first}'s rule again I take, of the {noun} from the "
                      f"{ordinal(source_step)} call,")
            play.add(("step", i), Note("rule", f"{quoted} the one with the {extreme} {by}: "
                                               f"{values}."))
        play.report.append(f"I followed {rule.author}'s email \"{rule.subject}\": of the "
                           f"candidates I took the one with the {extreme} {by}.")
        return play
    if rule.kind == "exception":  # one item of a fan-out held back: its write is left out
        said = _sentence(body, str(rule.value)) or f"leave {rule.value} out"
        copies = [i for i, s in enumerate(task.plan) if any(src.each for src in s.sources.values())]
        play.add(("step", copies[0]) if copies else ("end", 0),
                 Note("rule", f"{first}'s email holds one back: \"{said}\" So I do this for "
                              f"every item but {show(rule.value)}, and leave that one alone."))
        play.report.append(f"I left {show(rule.value)} out, as {rule.author}'s email "
                           f"\"{rule.subject}\" asks.")
        return play
    if rule.kind == "threshold" and task.condition is not None:
        said = _sentence(body, str(rule.value)) or f"the limit is {rule.value}"
        play.add(("step", task.condition.source),
                 Note("rule", f"{first}'s email sets the limit: \"{said}\" I compare what I "
                              f"find with {show(rule.value)}, not with a number of my own."))
        play.report.append(f"The limit {show(rule.value)} comes from {rule.author}'s email "
                           f"\"{rule.subject}\".")
        return play
    if rule.step not in targets:
        return play  # the plan no longer has the write the rule sets (a cut plan)
    value = seen.arguments(rule.step).get(rule.param, rule.value)
    said = _sentence(body, str(rule.value)) or f"use {rule.value} as the {words(rule.param)}"
    _, verb, noun = action(task.plan[rule.step])
    play.add(("step", rule.step), Note("rule", f"{first}'s email sets the {words(rule.param)}: "
                                               f"\"{said}\" So I {verb} the {noun} with "
                                               f"{words(rule.param)} {show(value)}."))
    play.report.append(f"The {words(rule.param)} {show(value)} comes from {rule.author}'s email "
                       f"\"{rule.subject}\", as you asked.")
    return play


def _picked(seen: Seen, source: Any) -> Any:
    try:
        return resolve(seen.data(f"call_step_{source.step}"), source)
    except (LookupError, TypeError, ValueError, StopIteration):
        return "(not found)"


def _trap(task: Task, seen: Seen) -> Play | None:
    traps = task.scenario.traps if task.scenario else []
    if not traps:
        return None
    play = Play()
    persona = task.scenario.persona.split()[0] if task.scenario else "They"
    for k, trap in enumerate(traps):
        service, entity = trap.table.split(SEPARATOR, 1)
        thing = words(entity)
        if trap.kind == "exception":
            continue  # the item held back: the rule's play says why it is left out
        if trap.kind == "refusal":
            play.merge(_refusal(task, seen, k))
            continue
        if trap.kind == "decoy":
            users = [i for i, s in enumerate(task.plan) if any(
                src.step == trap.position for src in s.sources.values())]
            play.add(("step", users[0]) if users else ("end", 0),
                     Note("check", f"Two {thing}s of that name came back from the "
                                   f"{ordinal(trap.position)} call; the request says which one "
                                   "it means, so I take that one and leave the other alone."))
            play.report.append(f"There are two {thing}s of that name in {service}; I used the "
                               "one you meant and left the other as it is.")
            continue
        values = seen.trap_arguments(k)
        about = ", ".join(f"{words(n)} {show(v, 40)}" for n, v in values.items())
        check = trap_check(task, k)
        if check is None:
            play.add(("step", trap.position) if trap.position < len(task.plan) else ("end", 0),
                     Note("check", f"The request also asks for a {thing} in {service} ({about}) "
                                   f"unless there already is one. None of {service}'s tools "
                                   f"finds a {thing} by these values, so I cannot check; "
                                   f"{persona} asked me not to create anything twice, so I leave "
                                   "it and say so."))
            play.report.append(f"I could not check whether {service} already has a {thing} with "
                               f"{about} (none of its tools finds one by these values), so I did "
                               "not add one: tell me if you want it added anyway.")
            continue
        play.checks.append(check)
        tool = check.tool.split(SEPARATOR, 1)[1]
        play.add(("check", k), Note("check", f"The request asks for a {thing} in {service} "
                                             f"({about}) unless there already is one, and "
                                             f"{persona} does not want anything created twice. "
                                             f"Before I create it, I look at the existing "
                                             f"{thing}s with `{tool}`."))
        if not seen.done(f"call_check_{k}"):
            continue
        record = existing_record(seen.data(f"call_check_{k}"), values)
        if record is not None:
            play.add(("found", k), Note("check", f"There already is one: {thing} "
                                                 f"`{record['id']}` has {about}. So I do not "
                                                 "create another."))
            play.report.append(f"A {thing} with {about} already existed in {service} "
                               f"(`{record['id']}`), so I left it as it is and did not add a "
                               "second one.")
        else:
            play.add(("found", k), Note("check", f"None of the {thing}s there has {about}, so I "
                                                 "create it."))
            made = seen.data(f"call_trap_{k}")
            ident = made.get("id") if isinstance(made, dict) else None
            play.changed.append(f"- **{service}** — {action(trap.step)[1]} {thing}: "
                                + (f"`{ident}`" if ident else "done") + f", with {about} (there "
                                "was none yet).")
    return play


def _refusal(task: Task, seen: Seen, k: int) -> Play:
    """A refusal to recover from (``tasks._recovery``): the call as asked is made first (the
    trap's check); the service refuses it; the plan's step in its place is the recovery — the
    same call at another time (the time was taken), a look-up of the record already there
    (a value it must not share was taken), or a look-up and removal of the record that still
    points to the one to remove, then the call again (records refer to it)."""
    assert task.scenario is not None
    trap = task.scenario.traps[k]
    play = Play()
    check = trap_check(task, k)
    if check is None:
        return play
    play.checks.append(check)
    service = trap.table.split(SEPARATOR, 1)[0]
    _, verb, noun = action(trap.step)
    about = ", ".join(f"{words(n)} {show(v, 40)}" for n, v in seen.trap_arguments(k).items())
    play.add(("check", k), Note("purpose", f"The request asks me to {verb} a {noun} in "
                                           f"{service} ({about}), so I do exactly that first."))
    if not seen.done(f"call_check_{k}"):
        return play
    error = error_of(seen.results.get(f"call_check_{k}"))
    if error is None:  # it went through after all: nothing to recover from
        play.add(("found", k), Note("check", f"{service} took it as asked."))
        return play
    recovery = task.plan[trap.position]
    if recovery.tool == trap.step.tool:  # the same call, moved to when the blocker ends
        sent = seen.arguments(trap.position)
        instead = ", ".join(f"{words(n)} {show(v, 40)}" for n, v in sent.items()
                            if trap.step.arguments.get(n) != v)
        play.add(("found", k), Note("check", f"{service} refused it: \"{error}\" The request "
                                             "says what to do then: leave what is in the way as "
                                             "it is, and book this to start when that ends, for "
                                             f"the same length of time. So I {verb} the {noun} "
                                             f"with {instead} instead."))
        play.report.append(f"The time you asked for in {service} was taken ({error.rstrip('.')});"
                           f" as you said, I left that as it was and made the {noun} with "
                           f"{instead} instead.")
        return play
    thing = words(trap.table.split(SEPARATOR, 1)[1])
    again = task.plan[trap.position + 2] if trap.position + 2 < len(task.plan) else None
    if again is not None and (again.tool, again.arguments) == (trap.step.tool,
                                                              trap.step.arguments):
        # records still point to it: they are looked up and removed, then the call is made again
        play.add(("found", k), Note("check", f"{service} refused it: \"{error}\" The request "
                                             "says what to do then: remove the records that "
                                             "still point to it first, then remove it. So I "
                                             f"look up the {thing} that points to it, remove "
                                             f"that {thing}, and {verb} the {noun} again."))
        play.report.append(f"{service} would not {verb} the {noun} at first ({error.rstrip('.')})"
                           f"; as you said, I removed the {thing} that still pointed to it, "
                           f"then removed the {noun}.")
        return play
    play.add(("found", k), Note("check", f"{service} refused it: \"{error}\" So there already "
                                         f"is one, and the request says to carry on with the "
                                         f"one that's there rather than add another: I look "
                                         f"that {thing} up and use it from here on."))
    play.report.append(f"{service} already had that {thing} ({error.rstrip('.')}), so I did "
                       "not add another: I used the one that was there.")
    return play


def _fanout(task: Task, seen: Seen) -> Play | None:
    copies = [i for i, s in enumerate(task.plan) if any(src.each for src in s.sources.values())]
    if not copies:
        return None
    play = Play()
    first = copies[0]
    source = next(src.step for src in task.plan[first].sources.values() if src.each)
    _, verb, noun = action(task.plan[first])
    found = action(task.plan[source or 0])[2]
    play.add(("step", first), Note("purpose", f"The request asks for this for each of the "
                                              f"{found} the {ordinal(source or 0)} call found, not "
                                              f"for one of them: {len(copies)} came back, so I "
                                              f"{verb} one {noun} per item."))
    play.report.append(f"I did the {verb} {noun} once for each of the {len(copies)} {found} "
                       "found, as asked.")
    return play


def _condition(task: Task, seen: Seen) -> Play | None:
    condition = task.condition
    if condition is None:
        return None
    try:
        value = get_path(seen.data(f"call_step_{condition.source}"), condition.path.split("."))
    except (LookupError, TypeError, ValueError):
        value = None
    play = Play()
    note = condition_note(task, condition, value)
    play.add(("step", len(task.plan) - 1) if condition.holds else ("end", 0), note)
    op = ("above" if condition.op == "gt" else "below") if condition.holds else (
        "not above" if condition.op == "gt" else "not below")
    did = ("so I made the change that depended on it" if condition.holds
           else "so I left the change that depended on it undone, as asked")
    play.report.append(f"The {words(condition.path.split('.')[-1])} from the "
                       f"{ordinal(condition.source)} call is {show(value)}, {op} "
                       f"{condition.threshold}, {did}.")
    return play


def _report_back(task: Task, seen: Seen) -> Play | None:
    asked = [c for c in task.rubric if c.kind == "answer" and c.step is not None
             and c.step < len(task.plan) - 1]
    if not asked:
        return None
    play = Play()
    for criterion in asked:
        step = criterion.step or 0
        value = answer_value(task, seen, criterion.values[0] if criterion.values else None, step)
        play.add(("step", step + 1) if step + 1 < len(task.plan) else ("end", 0),
                 Note("purpose", f"The request also asks me to tell it the "
                                 f"{words(criterion.semantic)} the {ordinal(step)} call found: "
                                 f"{show(value)}. I keep it for the report."))
    return play


def answer_value(task: Task, seen: Seen, value: Any, step: int) -> Any:
    """The value an answer criterion asks for, as this episode's step ``step`` returned it (the
    plan's value where the answer has it elsewhere or not at all)."""
    path = path_of(task.plan[step].output, value)
    if path is None:
        return value
    try:
        return get_path(seen.data(f"call_step_{step}"), path.split(".") if path else [])
    except (LookupError, TypeError, ValueError):
        return value


PLAYS: dict[StructureKind, Callable[[Task, Seen], Play | None]] = {
    "persona": _persona, "rule": _rule, "trap": _trap, "fan-out": _fanout,
    "condition": _condition, "report-back": _report_back}
"""One function per structure kind: the task and what was seen → its play (None: the task has
no such structure)."""


def structures(task: Task) -> list[StructureKind]:
    """The structure kinds ``task`` has, in :data:`PLAYS` order.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> task = next(generate_tasks(1, seed=0))
        >>> set(structures(task)) <= set(PLAYS)
        True
    """
    seen = Seen(task, {}, lambda i: dict(task.plan[i].arguments),
                lambda k: dict(task.scenario.traps[k].step.arguments) if task.scenario else {})
    return [kind for kind, play in PLAYS.items() if play(task, seen) is not None]


def play_all(task: Task, seen: Seen) -> Play:
    """Every structure's play for ``task``, merged (in :data:`PLAYS` order)."""
    merged = Play()
    for play in PLAYS.values():
        made = play(task, seen)
        if made is not None:
            merged.merge(made)
    return merged
