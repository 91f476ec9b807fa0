"""Following a plan's words on a world: each found value read again from the answers as they
come, the way an agent that understood the request would find it."""

from __future__ import annotations

from typing import Any

from compoworld.service import Change, Environment
from compoworld.tasks._model import ArgSource, Step


def resolve(data: Any, source: ArgSource) -> Any:
    """The value ``source`` points at in ``data`` (a selection re-picks its item by max/min,
    as an agent reading the answer would)."""
    parts = (source.path or "").split(".") if source.path else []
    if source.selection is not None:
        at = next(i for i, p in enumerate(parts) if p.isdigit())
        items = data
        for part in parts[:at]:
            items = items[int(part)] if isinstance(items, list) else items[part]
        parts[at] = str(source.selection.pick(items))
    for part in parts:
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def run_following(env: Environment, plan: list[Step], *, strict: bool = True
                  ) -> tuple[list[Step], list[list[Change]]] | None:
    """Run ``plan`` on ``env``, each found value re-read from the answers as they come (as an
    agent following the plan's words would): the plan as run, with its arguments and
    answers, and each step's changes; None when a step fails or a value is not found
    (``strict=False``: go on, as a careless agent would — a refused call is kept, with the
    refusal as its answer, and a value not found keeps the plan's)."""
    steps: list[Step] = []
    changes: list[list[Change]] = []
    for current in plan:
        arguments = dict(current.arguments)
        for name, src in current.sources.items():
            if src.kind != "step" or src.step is None:
                continue
            try:
                value = resolve(steps[src.step].output, src)
            except (LookupError, TypeError, ValueError, StopIteration):
                if strict:
                    return None
                continue
            arguments[name] = [value] if isinstance(current.arguments[name], list) and \
                not isinstance(value, list) else value
        mark = len(env.changes() or ())
        envelope = env.call(current.tool, arguments)
        if not envelope["success"] and strict:
            return None
        steps.append(current.model_copy(update={"arguments": arguments,
                                                "output": envelope.get("data", envelope)}))
        changes.append((env.changes() or [])[mark:])
    return steps, changes
