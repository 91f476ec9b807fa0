"""Filling a walk's next step: which value goes into each parameter of the tool it calls.

Each parameter takes, in this order of preference, a value an earlier step found that may
flow into it (:func:`compoworld.tasks._context.carries`, and the roles rule of
:func:`compoworld.tasks._roles.may_carry`), values about one thing from one record (a name
and an email of one person), a sum of found amounts where the parameter asks for a total, or
a value the user states (:func:`compoworld.tasks._values.user_value`). The walk itself (which
tool next, and when to stop) is :mod:`compoworld.tasks._walk`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from faker import Faker

from compoworld.graph import Fact, Key, param_key, user_suppliable
from compoworld.service import SEPARATOR, Param, Tool
from compoworld.tasks._context import LINK_TYPES, Context, carries, stated, strong
from compoworld.tasks._model import ArgSource, Selection
from compoworld.tasks._motifs import operation
from compoworld.tasks._phrasing import family
from compoworld.tasks._removed import in_removed, removed_records
from compoworld.tasks._roles import found_in, may_carry
from compoworld.tasks._values import user_value

if TYPE_CHECKING:
    from compoworld.tasks._walk import Walk


@dataclass
class Known:
    """A fact an earlier step produced, ready to fill a parameter."""

    fact: Fact
    step: int
    service: str
    selection: Selection | None = None


_TYPE_WORDS = frozenset({"name", "email", "phone", "address", "full", "first", "last", "id",
                         "number", "url", "mobile", "display"})


def _role(known: Known) -> str:
    """Whose value a field holds, from its name: ``sender_name`` and ``sender`` → "sender",
    ``to`` → "to", plain ``email`` or ``name`` → "" (the record's own)."""
    field = known.fact.path.rpartition(".")[2]
    return "_".join(w for w in field.split("_") if w not in _TYPE_WORDS)


def path_role(path: str) -> str:
    """The role of the field at ``path`` (see :func:`_role`); list indexes are skipped."""
    parts = [p for p in path.split(".") if not p.isdigit()]
    field = parts[-1] if parts else ""
    return "_".join(w for w in field.split("_") if w not in _TYPE_WORDS)


def _record_of(known: Known) -> tuple[int, str]:
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


def fill_step(ctx: Context, walk: Walk, name: str, tool: Tool, rng: random.Random,
              fake: Faker, wanted: frozenset[str] = frozenset()
              ) -> tuple[dict[str, Any], dict[str, ArgSource]] | None:
    """Arguments for ``tool``: from earlier answers where the types match, else from the user.
    None when a required argument cannot be filled or none comes from an earlier step.

    An optional parameter takes a found value half the time, always where its type is one of
    ``wanted`` (the semantic types, ``"id"`` for a record, that the motif stage the step is
    tried for takes: :attr:`compoworld.tasks._motifs.Stage.takes`) — else a step that can fit
    the stage would be refused for the value it was not given.

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
    # A typed value a read was given comes back in its answer (the company every contact of
    # "the contacts at X" has): carried from there it reads "the company of the contacts at
    # the company of ...". It is carried from where it was found first, or not at all. (A
    # write's answer echoing its arguments is said by its origin: ``ValueWords.origin``.)
    echoes = {(i, repr(v)) for i, step in enumerate(walk.steps)
              if ctx.graph.nodes[step.tool].kind == "read"
              for n, src in step.sources.items()
              if src.kind != "user" and src.semantic not in (None, "id", "Ref")
              for v in _items(step.arguments[n])}
    told_text = " ".join(str(v) for v in stated_values).casefold()
    # A record the walk deleted is not copied into a write after (a send may still tell them).
    gone = removed_records(ctx.work, walk.steps) if tool.kind == "write" and family(
        tool.name, tool.kind) != "send" else set()
    # Identifying parameters first: a first or last name may then come from the same record
    # as an identifying one (the email), never on its own.
    for param, key in _ordered(tool, service):
        facts = walk.by_key.get(key, []) if key is not None else []
        usable = [k for k in facts if (carries(key, cross=k.service != service) or (
                      key in _NAME_PARTS and anchor is not None and _record_of(k) == anchor))
                  and repr(k.fact.value) not in taken and repr(k.fact.value) not in told
                  and (k.fact.key[0] != "type" or (k.step, repr(k.fact.value)) not in echoes)
                  and not k.fact.ambiguous and (k.fact.list_size == 1 or k.selection is not None)
                  and (_record_of(k) != anchor or "" in (role, _role(k)) or role == _role(k))
                  and not (gone and in_removed(walk.steps, gone, k.step, k.fact.path))
                  and may_carry(ctx.work, walk.steps, (k.step, k.fact.path), k.fact.value,
                                key[1] if key is not None and key[0] == "type" else None,
                                name, param, tool, origin=_origin(walk, k))]
        if (filter_left and not param.required and strong(key) and stated(param)
                and rng.random() < 0.6):
            value = user_value(ctx, service, param, tool, rng, fake)
            if value is not None:
                filter_left = False
                arguments[param.name] = value
                sources[param.name] = ArgSource(kind="user", semantic=param.semantic)
            continue
        if usable and (param.required or (key is not None and (
                key[1] if key[0] == "type" else "id") in wanted) or rng.random() < 0.5):
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
    if operation(name, tool.kind, False) == "update" and _copies_own_field(
            walk, tool, arguments, sources):
        return None
    if tool.kind == "write" and records and (invented or len(records) > 1):
        # A person found earlier with an email, company or first name the user makes up — or
        # that another record holds — is two people (a name the user's own words already
        # show is theirs: not made up).
        return None
    return arguments, sources


def _record_at(output: Any, path: str) -> Any:
    for part in path.split(".") if path else ():
        if isinstance(output, list) and part.isdigit() and int(part) < len(output):
            output = output[int(part)]
        elif isinstance(output, dict):
            output = output.get(part)
        else:
            return None
    return output


def _copies_own_field(walk: Walk, tool: Tool, arguments: dict[str, Any],
                      sources: dict[str, ArgSource]) -> bool:
    """Whether a write sets a field of the record it targets to a value found in that same
    field of that same record ("set the social link to the social link of the social link of
    that lead"): no change a person asks for, and no words that say one."""
    targets = {repr(arguments[p.name]) for p in tool.params if p.ref and p.name in sources}
    for name, source in sources.items():
        if source.kind != "step" or source.step is None or name not in arguments:
            continue
        parts = (source.path or "").split(".")
        if name not in parts[:-1] and name != parts[-1]:
            continue  # another field's value
        record = _record_at(walk.steps[source.step].output,
                            ".".join(parts[:parts.index(name)]))
        if isinstance(record, dict) and any(repr(v) in targets for v in record.values()):
            return True
    return False


def _origin(walk: Walk, known: Known) -> tuple[str, str]:
    """Where the value ``known`` holds was first found (:func:`found_in`, once per walk)."""
    found = (known.step, known.fact.path)
    origin = walk.origins.get(found)
    if origin is None:
        origin = walk.origins[found] = found_in(walk.steps, *found, known.fact.value)
    return origin


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
