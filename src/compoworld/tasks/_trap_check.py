"""How an idempotency trap is checked: a read of the trap's service that shows the record the
request asks for already there, before the create it would otherwise make. Generation keeps an
idempotency trap only where such a read exists (gate ``trap_checkable``: a trap no agent can
check is a guess, not a task), and the oracle makes that read before it skips the create.

The read is chosen on the task's own world in its initial state (planted records in): among the
service's tools that read its database (never a simulated one, whose answer is made up), the
first that shows the planted record, called with what an agent has — the values the create
would be given (as filters where the tool takes them by the same name) and, where it pages, the
largest page. Never the record's id: an agent does not know it. The call's arguments that come
from earlier steps keep their sources, so the episode sends what *it* found.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import orjson

from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._model import ArgSource, Planted, Task, Trap
from compoworld.tasks._world import build_world as task_world

PAGING = ("limit", "page_size", "max_results", "per_page", "count", "size")
"""Page-size parameters (a check asks for the largest page)."""
_SEARCH = ("query", "q", "search", "keyword", "keywords", "term", "text")
"""Free-text search parameters (a read that finds records by what they hold)."""
_NAMING = ("email", "name", "full_name", "title", "subject", "summary", "code", "sku", "number")
"""A create's arguments that name its record, in the order a person searches by them."""
_BIG_PAGE = 100
_KEPT = 256
_LOCK = threading.Lock()
_FOUND: dict[tuple[str, int, int, str], TrapCheck | None] = {}


@dataclass(frozen=True)
class TrapCheck:
    """The read that shows an idempotency trap's record (see the module docs).

    Attributes:
        trap: The trap's index in ``task.scenario.traps``.
        tool: The read tool.
        arguments: Its arguments, as in the reference run.
        sources: Those drawn from earlier steps (the trap's create's sources).
    """

    trap: int
    tool: str
    arguments: dict[str, Any]
    sources: dict[str, ArgSource] = field(default_factory=dict)


def _variants(tool: Any, trap: Trap) -> list[dict[str, Any]]:
    """Argument sets to try, most specific first; empty when a required argument has no value
    the create would be given."""
    given = trap.step.arguments
    names = {p.name for p in tool.params}
    if any(p.required and p.name not in given for p in tool.params):
        return []
    required = {p.name: given[p.name] for p in tool.params if p.required}
    filters = {n: given[n] for n in sorted(names & set(given)) if n not in required}
    paging = {}
    for name in sorted(names & set(PAGING)):
        schema = (tool.parameters.get("properties") or {}).get(name) or {}
        if schema.get("type") == "integer":
            paging[name] = min(int(schema.get("maximum", _BIG_PAGE)), _BIG_PAGE)
    variants = [{**required, **filters, **paging}, {**required, **filters}, {**required, **paging},
                required]
    # a free-text search by what names the record (its email, its name, its title): what a
    # person types into a search box when the filters do not take the create's own names
    for name in sorted(names & set(_SEARCH) - set(given)):
        variants += [{**required, name: text, **paging} for text in _search_texts(given)]
    unique: list[dict[str, Any]] = []
    for variant in variants:
        if variant not in unique:
            unique.append(variant)
    return unique


def _search_texts(given: dict[str, Any]) -> list[str]:
    """What to search by: the create's naming values, most specific first (at most two)."""
    texts = [given[n] for n in _NAMING if isinstance(given.get(n), str) and 3 <= len(given[n]) <= 80]
    return list(dict.fromkeys(texts))[:2]


def _planted_id(planted: list[Planted], trap: Trap) -> str | None:
    service, entity = trap.table.split(SEPARATOR, 1)
    for record in planted:
        if record.service == service and record.entity == entity:
            return str(record.values.get("id"))
    return None


def _mentions(tool_name: str, entity: str) -> bool:
    return entity.replace("_", "")[:6] in tool_name.replace("_", "")


def find_check(env: Environment, trap: Trap, planted: list[Planted]) -> TrapCheck | None:
    """The read that shows ``trap``'s record on ``env`` (the task's world in its initial state,
    ``planted`` in), or None; the first of the service's own reads, those that name the
    record's entity first. ``env`` is called (reads only)."""
    service, entity = trap.table.split(SEPARATOR, 1)
    record = _planted_id(planted, trap)
    if record is None:
        return None
    reads = sorted((name for name, tool in env.tools.items()
                    if name.startswith(service + SEPARATOR) and tool.kind == "read"
                    and not tool.simulated),
                   key=lambda name: (not _mentions(name, entity), name))
    for name in reads:
        for arguments in _variants(env.tools[name], trap):
            envelope = env.call(name, arguments)
            if envelope["success"] and record in orjson.dumps(envelope["data"]).decode():
                sources = _sources(trap, arguments)
                return TrapCheck(trap=-1, tool=name, arguments=arguments, sources=sources)
    return None


def _sources(trap: Trap, arguments: dict[str, Any]) -> dict[str, ArgSource]:
    """The check's arguments drawn from earlier steps: the create's own (a filter by the same
    name), or the one a search text was taken from."""
    given, out = trap.step.arguments, {}
    for name, value in arguments.items():
        origin = name if name in trap.step.sources else next(
            (n for n in _NAMING if n in trap.step.sources and given.get(n) == value), None)
        if origin is not None and trap.step.sources[origin].kind != "user":
            out[name] = trap.step.sources[origin]
    return out


def _find(task: Task, index: int) -> TrapCheck | None:
    assert task.scenario is not None
    trap = task.scenario.traps[index]
    if trap.kind == "refusal":  # the call as asked: the service's refusal is what it shows
        return TrapCheck(trap=index, tool=trap.step.tool, arguments=dict(trap.step.arguments),
                         sources={k: s for k, s in trap.step.sources.items()
                                  if s.kind != "user"})
    if trap.kind != "idempotency":
        return None  # a decoy or an item held back: nothing to check before a create
    world = task_world(task)
    try:
        found = find_check(world.env, task.scenario.traps[index], task.scenario.planted)
    finally:
        world.env.close()
    return None if found is None else TrapCheck(trap=index, tool=found.tool,
                                                arguments=found.arguments, sources=found.sources)


def trap_check(task: Task, index: int) -> TrapCheck | None:
    """The read that shows trap ``index`` of ``task``'s scenario, or None where the service has
    no read of its own data that shows it (the agent cannot check; the task is then one no
    agent can be sure of); for a refusal (``tasks._recovery``), the call as asked, which the
    service refuses (what it shows is the refusal). Cached per task.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> task = next(t for t in generate_tasks(40, seed=0) if t.scenario and t.scenario.traps)
        >>> check = trap_check(task, 0)
        >>> check is None or check.tool.split("__")[0] == task.scenario.traps[0].table.split("__")[0]
        True
    """
    key = (task.id, task.seed, index, orjson.dumps(
        task.scenario.traps[index].model_dump() if task.scenario else None).decode())
    with _LOCK:
        if key in _FOUND:
            return _FOUND[key]
    found = _find(task, index)
    with _LOCK:
        if len(_FOUND) >= _KEPT:
            _FOUND.pop(next(iter(_FOUND)))
        _FOUND[key] = found
    return found


def _scalars(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    return [] if value is None else [str(value)]


def existing_record(data: Any, values: dict[str, Any]) -> dict[str, Any] | None:
    """The record in a check's answer that holds every value the create would be given (None
    when there is none: then the record is not there and the create is to be made).

    Example:
        >>> existing_record({"items": [{"id": "v_1", "email": "a@x.io"}]}, {"email": "a@x.io"})
        {'id': 'v_1', 'email': 'a@x.io'}
        >>> existing_record([{"id": "v_1", "email": "b@x.io"}], {"email": "a@x.io"}) is None
        True
    """
    wanted = _scalars(values)
    if isinstance(data, dict):
        if "id" in data and all(w in _scalars(data) for w in wanted):
            return data
        children: list[Any] = list(data.values())
    elif isinstance(data, list):
        children = data
    else:
        return None
    for child in children:
        found = existing_record(child, values)
        if found is not None:
            return found
    return None
