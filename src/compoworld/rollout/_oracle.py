"""The oracle: the task's reference plan, played as a careful agent would play it.

No model needed — this is the embedded default that produces SFT data. Each argument that
the plan drew from an earlier step is read again from what that step returned *in this
episode*, so the trajectory stays right even where the world answers differently; steps that
do not depend on each other go in one parallel turn; in gateway mode the oracle discovers
the services and tools first; the final answer states what the task asks to be told.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import orjson

from compoworld.models import AssistantMessage, ToolCall
from compoworld.service import SEPARATOR
from compoworld.tasks import ArgSource, Step, Task

_Turn = list[tuple[str, Any]]
"""A turn of the script: ("services", None), ("tools", service), ("describe", step index),
("step", step index) — or [] for the final answer."""


def _groups(plan: list[Step]) -> list[list[int]]:
    """Consecutive steps that need nothing from each other, as parallel turns (in order)."""
    groups: list[list[int]] = []
    for i, step in enumerate(plan):
        needs = {s.step for s in step.sources.values() if s.step is not None}
        if groups and not needs & set(groups[-1]):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def script(task: Task) -> list[_Turn]:
    """The oracle's turns for ``task``; the last one (empty) is the final answer."""
    turns: list[_Turn] = []
    if task.interface == "gateway":
        services = list(dict.fromkeys(s.tool.split(SEPARATOR, 1)[0] for s in task.plan))
        tools = list(dict.fromkeys(s.tool for s in task.plan))
        turns += [[("services", None)], [("tools", s) for s in services],
                  [("describe", t) for t in tools]]
    turns += [[("step", i) for i in group] for group in _groups(task.plan)]
    return [*turns, []]


def _get(data: Any, parts: list[str]) -> Any:
    for part in parts:
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def resolve(data: Any, source: ArgSource) -> Any:
    """The value at ``source.path`` in a step's answer; where the source picks an item of a
    list by the max/min of a field, the item is picked again in ``data``.

    Raises:
        LookupError: The path is not in ``data``; ValueError: nothing to pick from.
    """
    parts = (source.path or "").split(".") if source.path else []
    if source.selection is not None:
        at = next(i for i, p in enumerate(parts) if p.isdigit())
        items = _get(data, parts[:at])
        by = source.selection.by
        ranked = [i for i, item in enumerate(items) if isinstance(item, dict) and by in item]
        pick = max if source.selection.order == "max" else min
        parts[at] = str(pick(ranked, key=lambda i: items[i][by]))
    return _get(data, parts)


def _path_of(data: Any, value: Any, prefix: str = "") -> str | None:
    """Where ``value`` first sits in ``data`` (a dotted path), or None."""
    if data == value and not isinstance(data, dict | list):
        return prefix
    children = (data.items() if isinstance(data, dict)
                else enumerate(data) if isinstance(data, list) else ())
    for key, child in children:
        found = _path_of(child, value, f"{prefix}.{key}" if prefix else str(key))
        if found is not None:
            return found
    return None


def _words(semantic: str | None) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", " ", semantic or "value").lower()


class OracleAgent:
    """Plays each task's reference plan (see the module docs); stateless, so one object
    serves any number of concurrent episodes.

    Example:
        >>> import asyncio
        >>> from compoworld.tasks import generate_tasks
        >>> from compoworld.rollout import run_episode
        >>> task = next(generate_tasks(1, seed=0))
        >>> trajectory = asyncio.run(run_episode(task, OracleAgent()))
        >>> [c.name for c in trajectory.calls] == [s.tool for s in task.plan]
        True
    """

    name = "oracle"
    model: str | None = None

    async def respond(self, task: Task, messages: list[dict[str, Any]],
                      tools: list[dict[str, Any]]) -> AssistantMessage:
        await asyncio.sleep(0)  # let the other episodes of a run take their turns
        turns = script(task)
        done = sum(1 for m in messages if m.get("role") == "assistant")
        results = {m.get("tool_call_id"): m.get("content") for m in messages
                   if m.get("role") == "tool"}
        if done >= len(turns) - 1:
            return AssistantMessage(content=self._answer(task, results), finish_reason="stop")
        gateway = task.interface == "gateway"
        calls = [self._call(task, kind, what, results, gateway) for kind, what in turns[done]]
        return AssistantMessage(content=None, tool_calls=calls, finish_reason="tool_calls")

    def _call(self, task: Task, kind: str, what: Any, results: dict[Any, Any],
              gateway: bool) -> ToolCall:
        if kind == "services":
            return _tool_call("call_services", "list_services", {})
        if kind == "tools":
            return _tool_call(f"call_tools_{what}", "list_tools", {"service": what})
        if kind == "describe":
            return _tool_call(f"call_describe_{what}", "describe_tool", {"tool_name": what})
        step = task.plan[what]
        arguments = dict(step.arguments)
        for name, source in step.sources.items():
            if source.kind != "step" or source.step is None:
                continue
            data = _data(results.get(f"call_step_{source.step}"))
            try:
                value = resolve(data, source)
            except (LookupError, TypeError, ValueError, StopIteration):
                continue  # the step failed or answered otherwise: keep the plan's value
            arguments[name] = [value] if isinstance(step.arguments.get(name), list) and not (
                isinstance(value, list)) else value
        if gateway:
            return _tool_call(f"call_step_{what}", "call_tool",
                              {"tool_name": step.tool, "arguments": arguments})
        return _tool_call(f"call_step_{what}", step.tool, arguments)

    def _answer(self, task: Task, results: dict[Any, Any]) -> str:
        lines = ["Done. Here is what I did:"]
        for i, step in enumerate(task.plan):
            service, tool = step.tool.split(SEPARATOR, 1)
            data = _data(results.get(f"call_step_{i}"))
            what = f" ({data['id']})" if isinstance(data, dict) and "id" in data else ""
            failed = "" if data is not None else " — this did not succeed"
            lines.append(f"- in {service}: {tool.replace('_', ' ')}{what}{failed}")
        last = _data(results.get(f"call_step_{len(task.plan) - 1}"))
        for criterion in (c for c in task.rubric if c.kind == "answer"):
            values = []
            for value in criterion.values:
                path = _path_of(task.plan[-1].output, value)
                try:
                    values.append(value if path is None else _get(last, path.split(".") if path
                                                                   else []))
                except (LookupError, TypeError, ValueError):
                    values.append(value)
            shown = " and ".join(str(v) for v in values)
            lines.append(f"\nThe {_words(criterion.semantic)} you asked for is {shown}.")
        return "\n".join(lines)


def _tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=orjson.dumps(arguments).decode())


def _data(content: Any) -> Any:
    """The data of a tool message's envelope (None when the call failed or is missing)."""
    if not isinstance(content, str):
        return None
    try:
        envelope = orjson.loads(content)
    except orjson.JSONDecodeError:
        return None
    return envelope.get("data") if isinstance(envelope, dict) and envelope.get("success") else None
