"""Scenarios: what a walk's plan becomes when the world holds more than the walk found.

Two structures, each planted as records of the task's world and each behind a gate that checks
it matters:

* **a rule stored in the world** (explore-then-act): one value the user would have stated —
  a write's priority, its amount, its recipient — is set instead by a colleague's email in the
  user's mailbox; the instruction points to the email as a person would ("follow Dana's note
  on ticket priorities") and never states the value; the plan reads the email first. Gate
  ``rule_matters``: with another value in the email, following it fails the rubric.
* **an idempotency trap**: what one create of the plan would make is already in the world, so
  the plan leaves that create out and doing it anyway is a duplicate. Gate ``trap_matters``:
  the naive plan, which does it, fails the rubric.

The planted records are part of the task's initial state (``Task.scenario.planted``,
:func:`plant`); during generation they are planted after each reset as the world's records
(``Environment.plant``), so no diff counts them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from compoworld.errors import CompoWorldError
from compoworld.service import SEPARATOR, Change, Environment
from compoworld.tasks._check import score
from compoworld.tasks._decoys import add_decoy
from compoworld.tasks._diff import kind_of, net_changes
from compoworld.tasks._exceptions import add_exception, has_batch
from compoworld.tasks._following import resolve, run_following
from compoworld.tasks._model import (
    ArgSource,
    Condition,
    Criterion,
    Planted,
    Rule,
    Scenario,
    Selection,
    Step,
    Trap,
)
from compoworld.tasks._phrasing import among, plural
from compoworld.tasks._planting import plant
from compoworld.tasks._recovery import RECOVERY_SHARE, add_refusal
from compoworld.tasks._stored import RULE_SERVICE, colleague, email, list_things, shift_sources
from compoworld.tasks._threshold import add_threshold_rule
from compoworld.tasks._trap_check import find_check

RULE_SHARE = 0.7
"""Share of attempts that try to store a rule in the world (where the plan allows one): the
release's mix, where 14 of its 20 sampled tasks depend on a rule the agent must find."""
TRAP_SHARE = 0.35
"""Share of attempts that try an idempotency trap (where the plan allows one): the release's
mix, where 7 of its 20 sampled tasks hold one."""


def _label(name: str) -> str:
    return name.replace("_id", "").replace("_", " ").strip()


def _entity_of(step_changes: list[Change]) -> tuple[str, str] | None:
    """(service, entity) of the one record a step's changes touch, if one."""
    net = net_changes(step_changes)
    if len(net) != 1:
        return None
    table = next(iter(net))[0]
    service, entity = table.split(SEPARATOR, 1)
    return service, entity


_POLICY_WORDS = ("priority", "status", "type", "category", "source", "tag", "stage", "folder",
                 "label", "currency", "amount", "tier", "level", "channel", "kind", "industry",
                 "department", "role", "plan", "reason", "severity", "visibility", "discount")
_POLICY_TYPES = frozenset({"Money", "Percent", "Quantity", "Currency", "Industry",
                           "DurationMinutes"})
_ROUTING_WORDS = ("owner", "assignee", "assigned", "reviewer", "approver", "manager",
                  "responsible", "agent", "handler")
"""Who a record goes to: a team rule may name the colleague ("new leads go to Dana")."""


def _rule_value(step: Step, name: str, env: Environment) -> bool:
    """Whether a team rule could set this argument: a policy-like value (one of fixed choices,
    an amount, a priority, a category...), never who or what the task is about (a name, an
    email, an id), distinctive enough not to be read into other words."""
    value = step.arguments.get(name)
    if isinstance(value, bool) or value is None or isinstance(value, list | dict):
        return False
    param = next((p for p in env.tools[step.tool].params if p.name == name), None)
    if param is None:
        return False
    routing = (param.semantic in ("Email", "PersonName")
               and any(word in name.lower() for word in _ROUTING_WORDS))
    policy = (bool(param.choices) or param.semantic in _POLICY_TYPES
              or any(word in name.lower() for word in _POLICY_WORDS))
    if param.ref or not (routing or (policy and not (param.semantic or "").endswith("Name"))):
        return False
    if isinstance(value, str):
        return 4 <= len(value) <= 40 and "\n" not in value
    return isinstance(value, int | float) and value > 0


def add_rule(plan: list[Step], changes: list[list[Change]], env: Environment,
             rng: random.Random) -> tuple[list[Step], Rule, Planted, str] | None:
    """Move one user-stated value of a write into a colleague's email: the new plan (the email
    read first), the rule, the planted email and the instruction's note; None where no write
    takes a value a rule could set, or the mailbox is not mounted."""
    if RULE_SERVICE not in env.services:
        return None
    options = [(i, name) for i, step in enumerate(plan)
               if env.tools[step.tool].kind == "write" and _entity_of(changes[i])
               for name, source in sorted(step.sources.items())
               if source.kind == "user" and _rule_value(step, name, env)]
    # The instruction must not give the value away by chance: a value that also reads in the
    # plan's tool descriptions, names or other values ("email" as a verification type) is not
    # one a rule can hide.
    words = " ".join([*(env.tools[s.tool].description for s in plan),
                      *(f"{k} {v}" for s in plan for k, v in s.arguments.items())]).casefold()
    options = [(i, name) for i, name in options
               if words.count(str(plan[i].arguments[name]).casefold()) <= 1]
    if not options:
        return None
    index, name = options[rng.randrange(len(options))]
    step = plan[index]
    entity = _entity_of(changes[index])
    assert entity is not None
    author = colleague(env, rng)
    if str(step.arguments[name]).casefold() in author.name.casefold():
        return None
    user = env.pool.user
    label, things = _label(name), plural(_label(entity[1]))
    subject = f"{label.capitalize()} for {things}"
    value = step.arguments[name]
    planted = email(env, rng, author, subject, (
        f"Hi {user.first_name},\n\nA quick one on {things}: from now on, please use "
        f"{value} as the {label} whenever you add or change one. That keeps our records "
        f"consistent across the tools.\n\nThanks,\n{author.first_name}"))
    read = Step(tool=f"{RULE_SERVICE}{SEPARATOR}list_messages", arguments={"query": subject},
                sources={"query": ArgSource(kind="user")}, output=None)
    moved = [shift_sources(s, 1, 0) for s in plan]
    target = moved[index]
    moved[index] = target.model_copy(update={"sources": {
        **target.sources, name: ArgSource(kind="rule", step=0)}})
    note = (f"{author.name} emailed you about the {label} to use for {things} (subject "
            f"\"{subject}\"): follow that email for the {label}.")
    rule = Rule(author=author.name, subject=subject, step=index + 1, param=name, value=value)
    return [read, *moved], rule, planted, note


_DATED = ("date", "_at", "time", "birthday", "day", "created", "updated", "modified", "due")


def which(selection: Selection) -> str:
    """How a person says a selection: "the latest close date", "the highest amount"."""
    by = selection.by
    dated = any(word in by for word in _DATED)
    most = ("latest" if selection.order == "max" else "earliest") if dated else (
        "highest" if selection.order == "max" else "lowest")
    return f"{most} {_label(by)}{among(selection.among)}"


def _flipped(selection: Selection) -> Selection:
    return selection.model_copy(update={"order": "min" if selection.order == "max" else "max"})


def selected(plan: list[Step], selection: Selection | None = None) -> dict[tuple[int, str], Any]:
    """(step, argument) → value, for the arguments a selection rule picks; with
    ``selection``, the values that selection would pick instead (KeyError: it picks no single
    item)."""
    out = {}
    for i, step in enumerate(plan):
        for name, source in step.sources.items():
            if source.kind == "rule" and source.selection is not None and source.step is not None:
                picked = source if selection is None else source.model_copy(
                    update={"selection": selection})
                out[(i, name)] = resolve(plan[source.step].output, picked)
    return out


def add_selection_rule(plan: list[Step], env: Environment, rng: random.Random
                       ) -> tuple[list[Step], Rule, Planted, str] | None:
    """Move a ranked selection ("the one with the latest close date") from the instruction into
    a colleague's email about which item to take: the new plan (the email read first, the
    picked arguments sourced ``rule``), the rule, the planted email, the note; None where no
    selection's opposite picks another single item."""
    if RULE_SERVICE not in env.services:
        return None
    found = {(src.step, src.selection.model_dump_json()): src.selection
             for s in plan for src in s.sources.values()
             # a choice by two criteria stays the request's (its gate and probe re-pick it)
             if src.kind == "step" and src.step is not None and src.selection
             and src.selection.among is None}
    options = [(step, found[(step, key)]) for step, key in sorted(found)]
    rng.shuffle(options)
    for source_step, selection in options:
        moved = [shift_sources(s, 1, 0) for s in plan]
        for i, step in enumerate(moved):
            moved[i] = step.model_copy(update={"sources": {
                name: src.model_copy(update={"kind": "rule"})
                if src.step == source_step + 1 and src.selection == selection else src
                for name, src in step.sources.items()}})
        read = Step(tool=f"{RULE_SERVICE}{SEPARATOR}list_messages", arguments={}, sources={},
                    output=None)
        full = [read, *moved]
        try:
            other = selected(full, _flipped(selection))
        except (LookupError, TypeError, ValueError, StopIteration):
            continue
        if other == selected(full) or not _single(plan[source_step].output, full, selection):
            continue  # the opposite rule would pick the same item, or no single one
        author = colleague(env, rng)
        user = env.pool.user
        things = list_things(plan[source_step])
        subject = f"Which {things} to go with"
        planted = email(env, rng, author, subject, (
            f"Hi {user.first_name},\n\nWhen more than one of our {things} fits what you "
            f"are looking for, always go with the one with the {which(selection)}. "
            f"Please don't pick by hand.\n\nThanks,\n{author.first_name}"))
        full[0] = read.model_copy(update={"arguments": {"query": subject},
                                          "sources": {"query": ArgSource(kind="user")}})
        (at, param), value = next(iter(selected(full).items()))
        rule = Rule(kind="selection", author=author.name, subject=subject, step=at,
                    param=param, value=value, selection=selection)
        note = (f"When several {things} fit, take the one {author.name}'s rule says to take — "
                f"it is in their email \"{subject}\" in your inbox.")
        return full, rule, planted, note
    return None


def _single(output: Any, plan: list[Step], selection: Selection) -> bool:
    """Whether the opposite of ``selection`` singles out one item of the list it ranks."""
    flipped = _flipped(selection)
    for step in plan:
        for source in step.sources.values():
            if source.kind == "rule" and source.selection == selection and source.path:
                parts = source.path.split(".")
                at = next(i for i, p in enumerate(parts) if p.isdigit())
                items = output
                for part in parts[:at]:
                    items = items[int(part)] if isinstance(items, list) else items[part]
                values: list[Any] = [items[k].get(flipped.by) for k in flipped.candidates(items)
                                     if items[k].get(flipped.by) is not None]
                if not values:
                    return False
                best = max(values) if flipped.order == "max" else min(values)
                return values.count(best) == 1
    return False


Fresh = Callable[[], Environment]
"""Gives an environment in the task's initial state (no scenario record planted yet)."""


def checkable(fresh: Fresh, trap: Trap, record: Planted) -> bool:
    """Whether a read of the trap's service shows ``record`` once planted
    (``tasks._trap_check.find_check``: what gate ``trap_checkable`` asks)."""
    try:
        env = plant(fresh(), [record])
    except CompoWorldError:
        return False  # the record does not fit the world: the scenario would fail anyway
    return find_check(env, trap, [record]) is not None


def add_trap(plan: list[Step], changes: list[list[Change]], env: Environment,
             rng: random.Random, fresh: Fresh | None = None
             ) -> tuple[list[Step], Trap, Planted] | None:
    """Plant what one create of the plan makes, and leave the create out: the new plan, the
    trap and the planted record (the instruction still asks for it, "unless there already is
    one"). Only a create whose result nothing later uses, in a plan that keeps another
    write; with ``fresh``, only one whose planted record a read of its service shows
    (:func:`checkable`: a trap no agent can check is no task), the creates tried in a drawn
    order."""
    writes = [i for i, s in enumerate(plan) if env.tools[s.tool].kind == "write"]
    used = {src.step for s in plan for src in s.sources.values() if src.step is not None}
    copies = [i for i, s in enumerate(plan) if any(src.each for src in s.sources.values())]
    options = []
    for i in writes:
        net = net_changes(changes[i])
        if (len(writes) < 2 or i in used or len(net) != 1
                or kind_of(*next(iter(net.values()))) != "create"
                or (i in copies and len(copies) <= 2)):  # it would leave no fan-out
            continue
        options.append(i)
    rng.shuffle(options)
    for index in options:
        (table, _), (_, after) = next(iter(net_changes(changes[index]).items()))
        service, entity = table.split(SEPARATOR, 1)
        prefix = after["id"].partition("_")[0] + "_" if "_" in after["id"] else "x"
        values = {**{k: v for k, v in after.items() if k != "id"},
                  "id": f"{prefix}{rng.getrandbits(32):08x}"}
        planted = Planted(service=service, entity=entity, values=values)
        trap = Trap(table=table, step=plan[index], position=index)
        if fresh is not None and not checkable(fresh, trap, planted):
            # made before the others, it is on the first page a list shows by default
            planted = planted.model_copy(update={"first": True})
            if not checkable(fresh, trap, planted):
                continue
        rest = [shift_sources(s, -1, index + 1) for k, s in enumerate(plan) if k != index]
        return rest, trap, planted
    return None


def _quoted(value: Any) -> str:
    if isinstance(value, list):
        return " and ".join(_quoted(v) for v in value)
    return f'"{value}"' if isinstance(value, str) else str(value)


def _alternative(value: Any, env: Environment, step: Step, name: str) -> Any:
    """Another value for ``step``'s argument ``name``: another of its choices, or a changed
    one."""
    tool = env.tools[step.tool]
    param = next((p for p in tool.params if p.name == name), None)
    choices = list(param.choices or ()) if param is not None else []
    others = [c for c in choices if c != value]
    if others:
        return others[0]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value * 2 + 1
    return re.sub(r"\s+", " ", f"{value} (revised)")


def rule_matters(plan: list[Step], rule: Rule, rubric: list[Criterion], initial: Environment,
                 scratch: Callable[[], Environment], message: str) -> bool:
    """Gate: had the email said otherwise (another value; the opposite selection), following
    it would fail the rubric (``scratch`` gives the task's world, its records planted). The
    opposite selection is followed through: what later steps take from the item it picks is
    read again from the answers (a read of that item, then a write of what the read found),
    as an agent following that email would."""
    if rule.kind == "selection":
        assert rule.selection is not None
        try:
            selected(plan, _flipped(rule.selection))
        except (LookupError, TypeError, ValueError, StopIteration):
            return False  # the opposite rule picks no single item
        flipped = [s.model_copy(update={"sources": {
            name: src.model_copy(update={"kind": "step", "selection": _flipped(rule.selection)})
            if src.kind == "rule" and src.selection == rule.selection else src
            for name, src in s.sources.items()}}) for s in plan]
        ran = run_following(scratch(), flipped, strict=False)
        if ran is None:
            return False
        calls = [(s.tool, s.arguments) for s in ran[0]]
    else:
        changed = {(rule.step, rule.param): _alternative(rule.value, initial, plan[rule.step],
                                                         rule.param)}
        calls = [(s.tool, {**s.arguments, **{name: (v if not isinstance(s.arguments[name], list)
                                                     or isinstance(v, list) else [v])
                                              for (k, name), v in changed.items() if k == i}})
                 for i, s in enumerate(plan)]
    env = scratch()
    done = [(tool, arguments) for tool, arguments in calls
            if env.call(tool, arguments)["success"]]
    return not all(r.passed for r in score(rubric, initial, env, message, done))


def trap_matters(plan: list[Step], trap: Trap, rubric: list[Criterion], initial: Environment,
                 scratch: Callable[[], Environment], message: str) -> bool:
    """Gate: the naive plan, which creates the record again, fails the rubric (``scratch``
    gives the task's world, its records planted)."""
    naive = [*plan[:trap.position], trap.step, *plan[trap.position:]]
    env = scratch()
    done = [(s.tool, s.arguments) for s in naive if env.call(s.tool, s.arguments)["success"]]
    return not all(r.passed for r in score(rubric, initial, env, message, done))


def conditional_scenario(plan: list[Step], condition: Condition, env: Environment,
                         rng: random.Random) -> tuple[list[Step], Condition, Scenario] | None:
    """Maybe a scenario for a conditional plan: its threshold stored in a colleague's email
    (``tasks._threshold``); the plan and the condition with the email read first."""
    if rng.random() >= RULE_SHARE:
        return None
    made = add_threshold_rule(plan, condition, env, rng)
    if made is None:
        return None
    plan, condition, rule, record, note = made
    return plan, condition, Scenario(persona=env.pool.user.name, planted=[record], rule=rule,
                                     notes=[note])


def make_scenario(plan: list[Step], changes: list[list[Change]], env: Environment,
                  rng: random.Random, *, conditional: bool, fresh: Fresh | None = None
                  ) -> tuple[list[Step], Scenario] | None:
    """Maybe a scenario for ``plan``: a trap, a refusal to recover from, a rule, some or none
    (then None). Traps come first (they remove a step), then the refusal (it replaces one); a
    conditional plan gets none (its last write's branch would move: it may get a threshold
    rule, :func:`conditional_scenario`). ``fresh`` gives the task's world in its initial state,
    for the structures that must try their records first (an idempotency trap an agent can
    check, a refusal the service makes); without it, no refusal is tried and an idempotency
    trap is kept whether or not a read shows it (gate ``trap_checkable`` then decides)."""
    if conditional:
        return None
    planted: list[Planted] = []
    notes: list[str] = []
    traps: list[Trap] = []
    rule = None
    if has_batch(plan) and rng.random() < RULE_SHARE:
        held = add_exception(plan, changes, env, rng)
        if held is not None:
            plan, rule, trap, record, note = held
            return plan, Scenario(persona=env.pool.user.name, planted=[record], rule=rule,
                                  traps=[trap], notes=[note])
    if rng.random() < TRAP_SHARE:
        # a duplicate to avoid or a namesake to leave alone, whichever the plan allows (in a
        # drawn order when it allows both)
        decoy_first = rng.random() < 0.5
        decoy = add_decoy(plan, env, rng) if decoy_first else None
        made = add_trap(plan, changes, env, rng, fresh) if decoy is None else None
        if made is not None:
            changes = [c for k, c in enumerate(changes) if k != made[1].position]
            plan, trap, record = made
            traps.append(trap)
            planted.append(record)
        elif decoy is None and not decoy_first:
            decoy = add_decoy(plan, env, rng)
        if decoy is not None:
            traps.append(decoy[0])
            planted.append(decoy[1])
            notes.append(decoy[2])
    if fresh is not None and not any(t.kind != "decoy" for t in traps) and (
            rng.random() < RECOVERY_SHARE):
        refusal = add_refusal(plan, changes, env, rng, fresh, planted)
        if refusal is not None:
            plan, changes, trap, record, note = refusal
            traps.append(trap)
            planted.append(record)
            notes.append(note)
    if rng.random() < RULE_SHARE:
        made_rule = add_rule(plan, changes, env, rng) or add_selection_rule(plan, env, rng)
        if made_rule is not None:
            plan, rule, record, note = made_rule
            planted.append(record)
            notes.append(note)
            # the rule's email read comes first: a trap's step moves with the others
            traps = [t.model_copy(update={"step": shift_sources(t.step, 1, 0),
                                          "position": t.position + 1}) for t in traps]
    if not planted:
        return None
    return plan, Scenario(persona=env.pool.user.name, planted=planted, rule=rule, traps=traps,
                          notes=notes)


def run_planted(env: Environment, plan: list[Step]) -> tuple[list[Step], list[list[Change]]] | None:
    """Run ``plan`` on ``env`` (its records planted): the plan with each step's answer as it
    is now, and each step's changes; None when a step fails or an argument an earlier answer
    gave no longer is where the plan says (a planted record moved it)."""
    steps: list[Step] = []
    changes: list[list[Change]] = []
    for step in plan:
        for name, source in step.sources.items():
            if source.step is None or not (source.kind == "step" or (
                    source.kind == "rule" and source.selection is not None)):
                continue
            try:
                value = resolve(steps[source.step].output, source)
            except (LookupError, TypeError, ValueError, StopIteration):
                return None
            expected = step.arguments[name]
            if value != expected and not (isinstance(expected, list) and [value] == expected):
                return None
        mark = len(env.changes() or ())
        envelope = env.call(step.tool, step.arguments)
        if not envelope["success"]:
            return None
        steps.append(step.model_copy(update={"output": envelope["data"]}))
        changes.append((env.changes() or [])[mark:])
    return steps, changes
