"""The executed random walk: a reference plan whose every call really ran on the world.

Links (which earlier value may fill a parameter) follow :func:`compoworld.tasks._context.carries`:
within a service any identifying value (a reference, an email, a number...), across services
only the identifying types of ``LINK_TYPES`` (an email, a phone, a person's or company's name,
an address).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from faker import Faker

from compoworld.graph import Fact, Key, extract_facts, param_key, user_suppliable
from compoworld.service import SEPARATOR, Change, Param, Tool
from compoworld.tasks._context import LINK_TYPES, Context, carries, stated, strong
from compoworld.tasks._diff import net_changes, undoes
from compoworld.tasks._model import ArgSource, Selection, Step
from compoworld.tasks._roles import may_carry, misuses_user, renames_owner
from compoworld.tasks._values import selections, user_value


@dataclass
class _Known:
    """A fact an earlier step produced, ready to fill a parameter."""

    fact: Fact
    step: int
    service: str
    selection: Selection | None = None


@dataclass
class Walk:
    """A walk in progress: the steps so far, what they made known, and each step's changes
    (a later step may not undo them)."""

    steps: list[Step] = field(default_factory=list)
    known: list[_Known] = field(default_factory=list)
    by_key: dict[Key, list[_Known]] = field(default_factory=dict)
    services: list[str] = field(default_factory=list)
    changes: list[list[Change]] = field(default_factory=list)
    picks: list[dict[tuple[str, int], Selection]] = field(default_factory=list)
    broken: bool = False


_TYPE_WORDS = frozenset({"name", "email", "phone", "address", "full", "first", "last", "id",
                         "number", "url", "mobile", "display"})


def _role(known: _Known) -> str:
    """Whose value a field holds, from its name: ``sender_name`` and ``sender`` → "sender",
    ``to`` → "to", plain ``email`` or ``name`` → "" (the record's own)."""
    field = known.fact.path.rpartition(".")[2]
    return "_".join(w for w in field.split("_") if w not in _TYPE_WORDS)


def _record_of(known: _Known) -> tuple[int, str]:
    """(step, path of the record holding the fact): ``items.2.email`` → (step, "items.2")."""
    return known.step, known.fact.path.rpartition(".")[0]


# Numbers a write can take as a computed value: the sum of the amounts of a list found earlier.
_SUMMABLE = frozenset({"Money", "Quantity", "DurationMinutes"})


def _computed(walk: Walk, param: Param, tool: Tool) -> tuple[Any, ArgSource] | None:
    """For a numeric argument of a write: the sum of one field over a short list an earlier
    step found (2–8 items, every item has it) — a value the agent has to compute."""
    if tool.kind != "write" or param.semantic not in _SUMMABLE or param.is_list:
        return None
    groups: dict[tuple[int, str, str], list[Fact]] = {}
    for known in walk.known:
        fact = known.fact
        if (fact.key == ("type", param.semantic) and fact.list_path is not None
                and not fact.ambiguous and 2 <= fact.list_size <= 8):
            field_path = fact.path[len(fact.list_path):].lstrip(".").partition(".")[2]
            groups.setdefault((known.step, fact.list_path, field_path), []).append(fact)
    for (step, _, _), facts in sorted(groups.items(), key=lambda g: -g[0][0]):
        if len(facts) == facts[0].list_size and all(
                isinstance(f.value, int | float) for f in facts):
            total = sum(f.value for f in facts)
            if not total:
                continue  # a sum of zeros asks nothing of the agent
            value = round(total, 2) if param.base is float else total
            return value, ArgSource(kind="computed", op="sum", step=step,
                                    paths=[f.path for f in facts], semantic=param.semantic)
    return None


_NAME_PARTS = frozenset({("type", "FirstName"), ("type", "LastName")})
_PERSON_TYPES = LINK_TYPES | {"FirstName", "LastName"}


_ORDERED: dict[int, tuple[Tool, list[tuple[Param, Key | None]]]] = {}


def _ordered(tool: Tool, service: str) -> list[tuple[Param, Key | None]]:
    """The tool's parameters with their graph keys, identifying ones first (computed once)."""
    found = _ORDERED.get(id(tool))
    if found is None or found[0] is not tool:
        keyed = [(p, param_key(p, service)) for p in tool.params]
        found = _ORDERED[id(tool)] = (tool, sorted(keyed, key=lambda pk: not strong(pk[1])))
    return found[1]


def _fill(ctx: Context, walk: Walk, name: str, tool: Tool, rng: random.Random,
          fake: Faker) -> tuple[dict[str, Any], dict[str, ArgSource]] | None:
    """Arguments for ``tool``: from earlier answers where the types match, else from the user.
    None when a required argument cannot be filled or none comes from an earlier step.

    The first step may also take one optional filter the user states (an attendee's email, a
    deal owner's name): the walk then starts from something the user knows."""
    service = name.split(SEPARATOR, 1)[0]
    arguments: dict[str, Any] = {}
    sources: dict[str, ArgSource] = {}
    anchor: tuple[int, str] | None = None  # the record the first step-sourced value came from
    role = ""  # whose value it was: a sender's name never goes with a recipient's email
    taken: set[str] = set()  # one found value fills one parameter of a step (not to and cc)
    echoed: set[str] = set()  # parameters given a found value the user's own words show
    filter_left = not walk.steps
    # A value the user states is no finding: "the email you found" must not be one they gave.
    stated_values = [v for step in walk.steps for n, src in step.sources.items()
                     if src.kind == "user" for v in _items(step.arguments[n])]
    told = {repr(v) for v in stated_values}
    told_text = " ".join(str(v) for v in stated_values).casefold()
    # Identifying parameters first: a first or last name may then come from the same record
    # as an identifying one (the email), never on its own.
    for param, key in _ordered(tool, service):
        facts = walk.by_key.get(key, []) if key is not None else []
        usable = [k for k in facts if (carries(key, cross=k.service != service) or (
                      key in _NAME_PARTS and anchor is not None and _record_of(k) == anchor))
                  and repr(k.fact.value) not in taken and repr(k.fact.value) not in told
                  and not k.fact.ambiguous and (k.fact.list_size == 1 or k.selection is not None)
                  and (_record_of(k) != anchor or "" in (role, _role(k)) or role == _role(k))
                  and may_carry(ctx.work, walk.steps, (k.step, k.fact.path), k.fact.value,
                                key[1] if key is not None and key[0] == "type" else None,
                                name, param)]
        if (filter_left and not param.required and strong(key) and stated(param)
                and rng.random() < 0.6):
            value = user_value(ctx, service, param, tool, rng, fake)
            if value is not None:
                filter_left = False
                arguments[param.name] = value
                sources[param.name] = ArgSource(kind="user", semantic=param.semantic)
            continue
        if usable and (param.required or rng.random() < 0.5):
            # Values about one thing come from one record: a name and an email of one person.
            chosen = max(usable, key=lambda k: (_record_of(k) == anchor, k.service != service,
                                                k.step, -len(k.fact.path)))
            if anchor is None:
                anchor, role = _record_of(chosen), _role(chosen)
            taken.add(repr(chosen.fact.value))
            value = chosen.fact.value
            arguments[param.name] = [value] if param.is_list else value
            assert key is not None
            if key in _NAME_PARTS and str(value).casefold() in told_text:
                # The user's own words already show it (Tammy in tammy.martin@...): they say it.
                sources[param.name] = ArgSource(kind="user", semantic=param.semantic)
                echoed.add(param.name)
                continue
            sources[param.name] = ArgSource(kind="step", step=chosen.step, path=chosen.fact.path,
                                            semantic=key[1] if key[0] == "type" else "id",
                                            selection=chosen.selection)
        elif (computed := _computed(walk, param, tool)) is not None and (
                param.required or rng.random() < 0.5) and rng.random() < 0.7:
            arguments[param.name], sources[param.name] = computed
        elif param.required:
            if not user_suppliable(param):
                return None
            value = user_value(ctx, service, param, tool, rng, fake)
            if value is None:
                return None
            arguments[param.name] = value
            sources[param.name] = ArgSource(kind="user", semantic=param.semantic)
    invented = any(s.kind == "user" and s.semantic in _PERSON_TYPES and n not in echoed
                   for n, s in sources.items())
    records = {(s.step, (s.path or "").rpartition(".")[0]) for s in sources.values()
               if s.kind == "step" and s.semantic in LINK_TYPES}
    if tool.kind == "write" and records and (invented or len(records) > 1):
        # A person found earlier with an email, company or first name the user makes up — or
        # that another record holds — is two people (a name the user's own words already
        # show is theirs: not made up).
        return None
    return arguments, sources


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def walk(ctx: Context, rng: random.Random, fake: Faker, length: int,
         max_services: int = 5) -> Walk | None:
    """Walk up to ``length`` executed steps over the catalog (on ``ctx.work``, which the
    caller has reset), crossing services where it can; None unless the walk spans two
    services or more.

    The start is a read the user can anchor from which a link leaves its service within two
    steps, its service drawn first (:meth:`Context.draw_starts`: every service with a start is
    as likely; anchored starts first within one); each next step needs an argument an earlier
    answer holds, the candidates of different services interleaved (a service with many tools
    gets no more tries than one with few). A
    failed call, or one that would undo what an earlier step did, is not taken: the next
    candidate is tried instead.
    """
    ask = rng.random() < 0.3
    tries = 0
    for name in ctx.draw_starts(rng, 24):
        current = Walk()
        if not _try_step(ctx, current, name, rng, fake, need_source=False):
            continue
        _extend(ctx, current, rng, fake, length, max_services, ask)
        if not current.broken and len(set(current.services)) >= 2 and len(current.steps) >= 2:
            return current
        tries += 1
        if tries == _RESTARTS:
            break
        ctx.work.reset()  # backtrack to the start: the next start on the initial state
    return None


_RESTARTS = 4
"""Starts a walk tries before it gives up (each after one that could not leave its service)."""


def _extend(ctx: Context, current: Walk, rng: random.Random, fake: Faker, length: int,
            max_services: int, ask: bool) -> None:
    graph = ctx.graph
    # Still in one service at the drawn length: up to two more steps to leave it.
    while not current.broken and (
            len(current.steps) < length
            or (len(set(current.services)) < 2 and len(current.steps) < length + 2)):
        used = {s.tool for s in current.steps}
        touched = set(current.services)
        candidates = sorted({t for t in ctx.next_tools(used) if t not in used
                             and (graph.nodes[t].service in touched
                                  or len(touched) < max_services)})
        rng.shuffle(candidates)
        last = len(current.steps) >= length - 1
        # The last step: mostly a write (something to do), sometimes a read (something to tell).
        # Until the walk leaves its first service, steps that can lead out come first.
        ending = "read" if ask else "write"
        alone = len(touched) < 2
        rank: dict[str, int] = {}  # a candidate's place among its service's candidates
        ranks = {}
        for n in candidates:
            service = graph.nodes[n].service
            ranks[n] = rank[service] = rank.get(service, -1) + 1
        candidates.sort(key=lambda n: (graph.nodes[n].service in touched,
                                       alone and n not in ctx.leaves,
                                       last and graph.nodes[n].kind != ending, ranks[n]))
        if not any(_try_step(ctx, current, n, rng, fake, need_source=True)
                   for n in candidates[:40]):
            break


def _rewind(ctx: Context, walk_: Walk) -> None:
    """Put the work environment back to the state after the walk's steps (reset, replay)."""
    env = ctx.work
    env.reset()
    for step in walk_.steps:
        envelope = env.call(step.tool, step.arguments)
        if not envelope["success"] or envelope["data"] != step.output:
            walk_.broken = True
            return


def _try_step(ctx: Context, walk_: Walk, name: str, rng: random.Random, fake: Faker, *,
              need_source: bool) -> bool:
    env = ctx.work
    if any(key is None or key not in walk_.by_key for key in ctx.needs[name]):
        return False  # an id it needs was never found (cheap check before filling)
    ctx.mount(name.split(SEPARATOR, 1)[0])  # the first time a walk reaches its service
    tool = env.tools[name]
    filled = _fill(ctx, walk_, name, tool, rng, fake)
    if filled is None:
        return False
    arguments, sources = filled
    if need_source and all(s.kind == "user" for s in sources.values()):
        return False  # every step after the first depends on an earlier answer
    mark = len(env.changes() or ())
    envelope = env.call(name, arguments)
    if not envelope["success"]:
        return False
    index = len(walk_.steps)
    step = Step(tool=name, arguments=arguments, sources=sources, output=envelope["data"])
    changes = (env.changes() or [])[mark:]
    if tool.kind == "write" and not net_changes(changes):
        if changes:  # it rewrote records with their own values: the state's version moved
            _rewind(ctx, walk_)
        return False  # a write that changes nothing (an update with no new values) is no step
    if changes and (misuses_user(changes, env.pool.user) or renames_owner(changes, ctx.initial)):
        _rewind(ctx, walk_)  # the user made a customer, or their own account renamed
        return False
    if changes and walk_.changes:
        earlier = [c for step_changes in walk_.changes for c in step_changes]
        if undoes(net_changes(earlier), net_changes(earlier + changes)):
            _rewind(ctx, walk_)  # it undid an earlier step's change: that step would not count
            return False
    service = name.split(SEPARATOR, 1)[0]
    walk_.steps.append(step)
    walk_.services.append(service)
    walk_.changes.append(changes)
    lists: dict[str, dict[int, list[Selection]]] = {}
    chosen: dict[tuple[str, int], Selection | None] = {}  # one selection per item
    for fact in extract_facts(tool.output_schema, envelope["data"], service):
        selection = None
        if fact.list_size > 1 and fact.list_path is not None and fact.index is not None:
            item = (fact.list_path, fact.index)
            if item not in chosen:
                if fact.list_path not in lists:
                    lists[fact.list_path] = selections(envelope["data"], fact.list_path)
                options = lists[fact.list_path].get(fact.index)
                chosen[item] = rng.choice(options) if options else None
            selection = chosen[item]
        known = _Known(fact, index, service, selection)
        walk_.known.append(known)
        walk_.by_key.setdefault(fact.key, []).append(known)
    walk_.picks.append({item: pick for item, pick in chosen.items() if pick is not None})
    return True
