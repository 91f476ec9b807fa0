"""The executed random walk: a reference plan whose every call really ran on the world."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from faker import Faker

from compoworld.graph import DependencyGraph, Fact, extract_facts, param_key, user_suppliable
from compoworld.service import SEPARATOR, Param, Tool
from compoworld.tasks._model import ArgSource, Selection, Step
from compoworld.types import get_type
from compoworld.world import World

_TEXT_HINTS = {"subject": "Quarterly review", "title": "Follow-up meeting", "name": "Launch team",
               "body": "Hello, a quick note to follow up on our last exchange.",
               "description": "Prepared from the latest figures.", "notes": "Checked today.",
               "note": "Checked today.", "reason": "Customer request", "query": ""}


# Types too generic to carry a dependency: a date or an amount links everything to everything.
WEAK_TYPES = frozenset({"Date", "DateTime", "Time", "DurationMinutes", "Money", "Currency",
                        "Percent", "Quantity", "Country", "Region", "City", "Timezone",
                        "Language", "Industry", "Color", "JobTitle", "FirstName", "LastName"})


def strong(key: tuple[str, ...] | None) -> bool:
    """Whether a value of this key identifies something (an id, an email, a name, a number)."""
    return key is not None and (key[0] == "ref" or key[1] not in WEAK_TYPES)


@dataclass
class _Known:
    """A fact an earlier step produced, ready to fill a parameter."""

    fact: Fact
    step: int
    service: str
    selection: Selection | None = None


@dataclass
class Walk:
    """A walk in progress: the steps so far and what they made known."""

    steps: list[Step] = field(default_factory=list)
    known: list[_Known] = field(default_factory=list)
    services: list[str] = field(default_factory=list)


def _state_value(world: World, service: str, semantic: str, rng: random.Random) -> Any:
    """A value of ``semantic`` type the service holds: something the user could know."""
    db = world.env.db(service)
    values: list[Any] = []
    for entity, table in world.env.services[service].tables.items():
        for column in table.columns:
            if column.semantic == semantic and column.kind in ("str", "int", "float"):
                rows = db.sql(f'SELECT DISTINCT "{column.name}" AS v FROM {{{entity}}} '
                              f'WHERE "{column.name}" IS NOT NULL ORDER BY rowid LIMIT 40')
                values.extend(r["v"] for r in rows)
    return rng.choice(values) if values else None


def _user_value(world: World, service: str, param: Param, tool: Tool, rng: random.Random,
                fake: Faker) -> Any:
    """A value the user states for ``param``, or None when there is no sensible one."""
    choices = param.choices
    if choices:
        return rng.choice(choices)
    if param.semantic and param.semantic != "Ref":
        value = _state_value(world, service, param.semantic, rng)
        if value is None and param.semantic in ("Date", "DateTime"):
            day = world.today.isoformat()
            value = day if param.semantic == "Date" else f"{day}T10:00:00"
        if value is None:
            value = get_type(param.semantic).generate(fake)
        return [value] if param.is_list else value
    if param.base is str and tool.kind == "write":
        return _TEXT_HINTS.get(param.name) or fake.sentence(nb_words=5).rstrip(".")
    return None


def _selection(output: Any, fact: Fact, rng: random.Random) -> Selection | None:
    """For a fact inside a list of several items: a field whose max (or min) picks its item."""
    items: Any = output
    for part in (fact.list_path or "").split("."):
        items = items.get(part) if isinstance(items, dict) else None
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        return None
    for by in sorted({k for item in items for k, v in item.items() if _sortable(v)}):
        values = [item.get(by) for item in items]
        if not all(_sortable(v) and type(v) is type(values[0]) for v in values):
            continue
        order = rng.choice(("max", "min"))
        best = max(values) if order == "max" else min(values)
        if values.count(best) == 1 and values.index(best) == fact.index:
            return Selection(by=by, order=order)
    return None


def _sortable(value: Any) -> bool:
    """Numbers, and ISO dates or date-times (which sort as text)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or (isinstance(value, str) and len(value) >= 10
                                               and value[4:5] == "-" and value[:4].isdigit())


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
            value = round(total, 2) if param.base is float else total
            return value, ArgSource(kind="computed", op="sum", step=step,
                                    paths=[f.path for f in facts], semantic=param.semantic)
    return None


def _fill(world: World, walk: Walk, name: str, tool: Tool, rng: random.Random,
          fake: Faker) -> tuple[dict[str, Any], dict[str, ArgSource]] | None:
    """Arguments for ``tool``: from earlier answers where the types match, else from the user.
    None when a required argument cannot be filled or none comes from an earlier step."""
    service = name.split(SEPARATOR, 1)[0]
    arguments: dict[str, Any] = {}
    sources: dict[str, ArgSource] = {}
    anchor: tuple[int, str] | None = None  # the record the first step-sourced value came from
    role = ""  # whose value it was: a sender's name never goes with a recipient's email
    for param in tool.params:
        key = param_key(param, service)
        usable = [k for k in walk.known if strong(key) and k.fact.key == key
                  and not k.fact.ambiguous and (k.fact.list_size == 1 or k.selection is not None)
                  and (_record_of(k) != anchor or "" in (role, _role(k)) or role == _role(k))]
        if usable and (param.required or rng.random() < 0.5):
            # Values about one thing come from one record: a name and an email of one person.
            chosen = max(usable, key=lambda k: (_record_of(k) == anchor, k.service != service,
                                                k.step, -len(k.fact.path)))
            if anchor is None:
                anchor, role = _record_of(chosen), _role(chosen)
            value = chosen.fact.value
            arguments[param.name] = [value] if param.is_list else value
            assert key is not None
            sources[param.name] = ArgSource(kind="step", step=chosen.step, path=chosen.fact.path,
                                            semantic=key[1] if key[0] == "type" else "id",
                                            selection=chosen.selection)
        elif (computed := _computed(walk, param, tool)) is not None and (
                param.required or rng.random() < 0.5) and rng.random() < 0.7:
            arguments[param.name], sources[param.name] = computed
        elif param.required:
            if not user_suppliable(param):
                return None
            value = _user_value(world, service, param, tool, rng, fake)
            if value is None:
                return None
            arguments[param.name] = value
            sources[param.name] = ArgSource(kind="user", semantic=param.semantic)
    return arguments, sources


def walk(world: World, graph: DependencyGraph, rng: random.Random, fake: Faker,
         length: int, max_services: int = 5) -> Walk | None:
    """Walk up to ``length`` executed steps over the world's services, crossing services where
    it can; None unless the walk spans two services or more.

    The start is a read the user can anchor (all its required arguments are things the user
    knows; anchored ones first); each next step needs an argument that an earlier answer holds
    (a strong key: an id, an email, a name...). A failed call is tried no further (backtrack).
    """
    current = Walk()
    ask = rng.random() < 0.3
    starts = sorted(n for n, node in graph.nodes.items()
                    if node.kind == "read" and all(node.suppliable[p] for p in node.required)
                    and any(strong(key) for key in node.outputs))
    rng.shuffle(starts)
    starts.sort(key=lambda n: not graph.nodes[n].required)
    for name in starts[:12]:
        if _try_step(world, current, name, rng, fake, need_source=False):
            break
    while current.steps and len(current.steps) < length:
        used = {s.tool for s in current.steps}
        touched = set(current.services)
        candidates = sorted({e.target for u in used for e in graph.successors(u)
                             if e.target not in used and any(strong(k) for _, k in e.via)
                             and (graph.nodes[e.target].service in touched
                                  or len(touched) < max_services)})
        rng.shuffle(candidates)
        last = len(current.steps) == length - 1
        # The last step: mostly a write (something to do), sometimes a read (something to tell).
        ending = "read" if ask else "write"
        candidates.sort(key=lambda n: (graph.nodes[n].service in touched,
                                       last and graph.nodes[n].kind != ending))
        if not any(_try_step(world, current, n, rng, fake, need_source=True)
                   for n in candidates[:40]):
            break
    return current if len(set(current.services)) >= 2 and len(current.steps) >= 2 else None


def _try_step(world: World, walk_: Walk, name: str, rng: random.Random, fake: Faker, *,
              need_source: bool) -> bool:
    tool = world.env.tools[name]
    filled = _fill(world, walk_, name, tool, rng, fake)
    if filled is None:
        return False
    arguments, sources = filled
    if need_source and all(s.kind == "user" for s in sources.values()):
        return False  # every step after the first depends on an earlier answer
    envelope = world.env.call(name, arguments)
    if not envelope["success"]:
        return False
    service = name.split(SEPARATOR, 1)[0]
    index = len(walk_.steps)
    walk_.steps.append(Step(tool=name, arguments=arguments, sources=sources,
                            output=envelope["data"]))
    walk_.services.append(service)
    for fact in extract_facts(tool.output_schema, envelope["data"], service):
        selection = _selection(envelope["data"], fact, rng) if fact.list_size > 1 else None
        walk_.known.append(_Known(fact, index, service, selection))
    return True
