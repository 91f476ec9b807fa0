"""Fan-out: a write done for each item of a list an earlier step found, not for one of them.

A plan's write whose values come from the one item a selection singles out ("the deal with the
latest close date") becomes the same write for every item of that list (two to six of them):
"for each of the deals you found, …". Each copy takes its item's values (``ArgSource.each``);
the rubric then expects one change per item, and leaving one out fails its criterion.
"""

from __future__ import annotations

import random

from compoworld.service import Change, Environment
from compoworld.tasks._diff import net_changes
from compoworld.tasks._model import Step
from compoworld.tasks._removed import copies_removed
from compoworld.tasks._roles import may_carry

FANOUT_SHARE = 0.25
"""Share of attempts that try to fan a write out over a list (where the plan allows it)."""
MAX_ITEMS = 6


def _get(data: object, parts: list[str]) -> object:
    for part in parts:
        data = data[int(part)] if isinstance(data, list) else data[part]  # type: ignore[index]
    return data


def add_fanout(plan: list[Step], env: Environment, rng: random.Random) -> list[Step] | None:
    """``plan`` with one write repeated over the items of the list its selection picks from,
    and with it every other write whose selected values come from that list, or None where no
    write allows it (its selected values from one list of 2–6 items, nothing later using its
    result)."""
    used = {src.step for s in plan for src in s.sources.values() if src.step is not None}
    options = []
    for index, step in enumerate(plan):
        if env.tools[step.tool].kind != "write" or index in used:
            continue
        picked = {(src.step, (src.path or "").split(".")[0]) for src in step.sources.values()
                  if src.kind == "step" and src.selection is not None}
        if len(picked) != 1:
            continue
        (source, list_path), = picked
        assert source is not None
        items = plan[source].output.get(list_path) if isinstance(plan[source].output, dict) else None
        if isinstance(items, list) and 2 <= len(items) <= MAX_ITEMS:
            options.append((index, source, list_path, len(items)))
    rng.shuffle(options)  # tried in a drawn order: the first whose items give distinct writes
    for index, source, list_path, count in options:
        made = _fanned(plan, env, index, source, count)
        if made is None:
            continue
        # The other writes about the same item of the same list are done for each item too
        # ("for each deal: invoice it and tell its contact"), not for one of them; the latest
        # first, so that an earlier write's place in the plan stays as it was.
        for other, o_source, o_path, _ in sorted(options, reverse=True):
            if (o_source, o_path) == (source, list_path) and other != index:
                at = other + count - 1 if other > index else other  # past the first's copies
                wider = _fanned(made, env, at, source, count)
                made = wider if wider is not None else made
        if not any(copies_removed(env, made[:i], env.tools[s.tool], s.sources)
                   for i, s in enumerate(made)):
            return made  # no item deleted that a later write copies (tasks._removed)
    return None


def _fanned(plan: list[Step], env: Environment, index: int, source: int,
            count: int) -> list[Step] | None:
    """``plan`` with write ``index`` done once per item of step ``source``'s list, or None
    where two items give the same write."""
    step = plan[index]
    copies = []
    for item in range(count):
        arguments, sources = dict(step.arguments), dict(step.sources)
        for name, src in step.sources.items():
            if src.kind != "step" or src.selection is None or src.step != source:
                continue
            parts = (src.path or "").split(".")
            parts[1] = str(item)
            try:
                value = _get(plan[source].output, parts)
            except (LookupError, TypeError, ValueError):
                return None
            if not may_carry(env, plan, (source, ".".join(parts)), value, src.semantic,
                             step.tool, next(p for p in env.tools[step.tool].params
                                             if p.name == name)):
                return None  # an item's value of the other side (the user's own company)
            arguments[name] = [value] if isinstance(step.arguments[name], list) else value
            sources[name] = src.model_copy(update={"path": ".".join(parts), "selection": None,
                                                   "each": True})
        copies.append(step.model_copy(update={"arguments": arguments, "sources": sources,
                                              "output": None}))
    if len({repr(c.arguments) for c in copies}) < count:
        return None  # two items give the same write: no fan-out
    shift = count - 1
    later = [s.model_copy(update={"sources": {
        name: src.model_copy(update={"step": src.step + shift})
        if src.step is not None and src.step > index else src
        for name, src in s.sources.items()}}) for s in plan[index + 1:]]
    return [*plan[:index], *copies, *later]


def separate(plan: list[Step], changes: list[list[Change]]) -> bool:
    """Whether each copy of a fan-out changed records of its own (copies that all rewrite one
    record are no fan-out: only the last would count)."""
    seen: set[tuple[str, str]] = set()
    for step, step_changes in zip(plan, changes, strict=True):
        if not any(src.each for src in step.sources.values()):
            continue
        keys = set(net_changes(step_changes))
        if not keys or keys & seen:
            return False
        seen |= keys
    return True
