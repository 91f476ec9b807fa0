"""The oracle: the task's reference plan, played as a careful agent would play it.

No model needed — this is the embedded default that produces SFT data. Every assistant turn
carries a short ``reasoning_content`` saying what it needs next and why (built from notes:
:mod:`compoworld.rollout._narration`, which scenario code extends through a
:class:`Narrator`). Each argument that the plan drew from an earlier step is read again from
what that step returned *in this episode*, so the trajectory stays right even where the world
answers differently; steps that do not depend on each other go in one parallel turn. In
gateway mode the oracle discovers as a careful agent does: it lists the services, lists the
tools of those that could hold what it needs (some turn out not to), and describes each tool
before its first call. With ``stumble=True`` it makes one realistic mistake — a call missing
an argument, refused with a 400 — and fixes it on the next turn (the agent is then named
``oracle-stumble``). It ends with a markdown report of the values asked for and what changed.
Deterministic: the same task gives the same trajectory.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from typing import Any

import orjson

from compoworld.models import AssistantMessage, ToolCall
from compoworld.rollout._narration import (
    Narrator,
    Note,
    action,
    condition_note,
    is_read,
    join,
    ranking,
    step_notes,
    words,
)
from compoworld.rollout._report import report
from compoworld.rollout._results import data_of, error_of, get_path, path_of, resolve, schema_of
from compoworld.service import SEPARATOR
from compoworld.tasks import Step, Task

_Turn = list[tuple[str, Any]]
"""A turn of the script: ("services", None), ("tools", service), ("describe", tool),
("stumble", step index), ("step", step index) — or [] for the final answer."""
MAX_LOOKALIKES = 2
"""Distractor services the oracle looks into in gateway mode (they hold nothing it needs)."""


def _clash(a: Step, b: Step) -> bool:
    """Whether two steps touch one service and one of them writes (their order matters)."""
    return action(a)[0] == action(b)[0] and not (is_read(a) and is_read(b))


def _groups(plan: list[Step]) -> list[list[int]]:
    """Consecutive steps that need nothing from each other, as parallel turns (in order); a
    step joins no turn that writes to its service, nor one that reads a service it writes."""
    groups: list[list[int]] = []
    for i, step in enumerate(plan):
        needs = {s.step for s in step.sources.values() if s.step is not None}
        if groups and not needs & set(groups[-1]) and not any(
                _clash(plan[j], step) for j in groups[-1]):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _rank(task: Task, name: str) -> bytes:
    return hashlib.sha256(f"{task.id}\0{name}".encode()).digest()


def lookalikes(task: Task) -> list[str]:
    """The distractor services the oracle looks into (chosen per task, deterministically)."""
    return sorted(task.distractors, key=lambda d: _rank(task, d))[:MAX_LOOKALIKES]


def stumble_step(task: Task) -> int | None:
    """The step the stumbling oracle gets wrong first: the first with arguments to send."""
    return next((i for i, s in enumerate(task.plan) if s.arguments), None)


def script(task: Task, stumble: bool = False) -> list[_Turn]:
    """The oracle's turns for ``task``; the last one (empty) is the final answer."""
    turns: list[_Turn] = []
    gateway = task.interface == "gateway"
    if gateway:
        # the plan's services, then any other the task involves (a trap's: where the record
        # it must not make twice already is)
        services = list(dict.fromkeys([*(s.tool.split(SEPARATOR, 1)[0] for s in task.plan),
                                       *task.involved]))
        turns += [[("services", None)], [("tools", s) for s in [*services, *lookalikes(task)]]]
    described: set[str] = set()
    wrong = stumble_step(task) if stumble else None
    for group in _groups(task.plan):
        new = [t for t in dict.fromkeys(task.plan[i].tool for i in group) if t not in described]
        if gateway and new:
            turns.append([("describe", t) for t in new])
            described.update(new)
        if wrong in group:
            turns.append([("stumble", wrong)])
        turns.append([("step", i) for i in group])
    return [*turns, []]


class OracleAgent:
    """Plays each task's reference plan (see the module docs); stateless, so one object
    serves any number of concurrent episodes.

    Args:
        stumble: Make one realistic mistake (a call missing an argument, refused with a 400)
            and recover from it; the agent is then named ``oracle-stumble``.
        narrators: Extend each step's notes (scenario code: rules read first, traps checked);
            applied in order.

    Example:
        >>> import asyncio
        >>> from compoworld.tasks import generate_tasks
        >>> from compoworld.rollout import run_episode
        >>> task = next(generate_tasks(1, seed=0))
        >>> trajectory = asyncio.run(run_episode(task, OracleAgent()))
        >>> [c.name for c in trajectory.calls] == [s.tool for s in task.plan]
        True
        >>> all(m.get("reasoning_content") for m in trajectory.messages if m["role"] == "assistant")
        True
    """

    model: str | None = None

    def __init__(self, *, stumble: bool = False, narrators: Sequence[Narrator] = ()) -> None:
        self.stumble = stumble
        self.name = "oracle-stumble" if stumble else "oracle"
        self.narrators = list(narrators)

    async def respond(self, task: Task, messages: list[dict[str, Any]],
                      tools: list[dict[str, Any]]) -> AssistantMessage:
        await asyncio.sleep(0)  # let the other episodes of a run take their turns
        turns = script(task, self.stumble)
        done = sum(1 for m in messages if m.get("role") == "assistant")
        results = {m.get("tool_call_id"): m.get("content") for m in messages
                   if m.get("role") == "tool"}
        if done >= len(turns) - 1:
            return AssistantMessage(content=self._answer(task, results), finish_reason="stop",
                                    reasoning_content=self._closing(task, results))
        gateway = task.interface == "gateway"
        turn = turns[done]
        previous = turns[done - 1] if done else []
        calls = [self._call(task, kind, what, results, gateway, tools) for kind, what in turn]
        reasoning = join(self._reasoning(task, turn, previous, results, tools))
        return AssistantMessage(content=None, tool_calls=calls, finish_reason="tool_calls",
                                reasoning_content=reasoning)

    def _arguments(self, task: Task, index: int, results: dict[Any, Any]) -> dict[str, Any]:
        step = task.plan[index]
        arguments = dict(step.arguments)
        for name, source in step.sources.items():
            if source.kind != "step" or source.step is None:
                continue
            data = data_of(results.get(f"call_step_{source.step}"))
            try:
                value = resolve(data, source)
            except (LookupError, TypeError, ValueError, StopIteration):
                continue  # the step failed or answered otherwise: keep the plan's value
            arguments[name] = [value] if isinstance(step.arguments.get(name), list) and not (
                isinstance(value, list)) else value
        return arguments

    def _broken(self, task: Task, index: int, results: dict[Any, Any], gateway: bool,
                tools: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
        """The stumbling call's arguments, and the argument it gets wrong: a required one left
        out, or (none required) the first one sent under the noun-prefixed name agents guess."""
        arguments = self._arguments(task, index, results)
        required = schema_of(task.plan[index].tool, tools, results, gateway).get("required") or []
        missing = next((a for a in arguments if a in required), None)
        if missing is not None:
            return {k: v for k, v in arguments.items() if k != missing}, missing
        first = next(iter(arguments))
        guessed = f"{action(task.plan[index])[2].replace(' ', '_')}_{first}"
        return {(guessed if k == first else k): v for k, v in arguments.items()}, first

    def _call(self, task: Task, kind: str, what: Any, results: dict[Any, Any], gateway: bool,
              tools: list[dict[str, Any]]) -> ToolCall:
        if kind == "services":
            return _tool_call("call_services", "list_services", {})
        if kind == "tools":
            return _tool_call(f"call_tools_{what}", "list_tools", {"service": what})
        if kind == "describe":
            return _tool_call(f"call_describe_{what}", "describe_tool", {"tool_name": what})
        step = task.plan[what]
        if kind == "stumble":
            arguments, _ = self._broken(task, what, results, gateway, tools)
            call_id = f"call_stumble_{what}"
        else:
            arguments, call_id = self._arguments(task, what, results), f"call_step_{what}"
        if gateway:
            return _tool_call(call_id, "call_tool", {"tool_name": step.tool, "arguments": arguments})
        return _tool_call(call_id, step.tool, arguments)

    def _condition_value(self, task: Task, results: dict[Any, Any]) -> Any:
        if task.condition is None:
            return None
        data = data_of(results.get(f"call_step_{task.condition.source}"))
        try:
            return get_path(data, task.condition.path.split("."))
        except (LookupError, TypeError, ValueError):
            return None

    def _notes(self, task: Task, index: int, results: dict[Any, Any], *,
               alongside: bool = False) -> list[Note]:
        notes = step_notes(task, index, self._arguments(task, index, results),
                           self._condition_value(task, results), alongside=alongside)
        for narrator in self.narrators:
            notes = narrator.notes(task, index, notes)
        return notes

    def _reasoning(self, task: Task, turn: _Turn, previous: _Turn, results: dict[Any, Any],
                   tools: list[dict[str, Any]]) -> list[Note]:
        kinds = [k for k, _ in turn]
        nouns = list(dict.fromkeys(action(s)[2] for s in task.plan))
        if kinds == ["services"]:
            return [Note("discovery", pick(task, "services", [
                f"To do this I need to work with {_and(nouns)}. I do not know yet which "
                "services this workspace has, so I list them first.",
                f"This touches {_and(nouns)}. Nothing tells me where those live here, so I start "
                "by listing the services.",
                f"The request involves {_and(nouns)}; first I find out which services are "
                "available in this workspace."]))]
        if kinds[0] == "tools":
            involved = [w for k, w in turn if w not in task.distractors]
            maybe = [w for k, w in turn if w in task.distractors]
            notes = [Note("discovery", f"From the list, {_and(involved)} look like where "
                                       f"{_and(nouns)} live.")]
            if maybe:
                notes.append(Note("discovery", f"Something related might also sit in "
                                               f"{_and(maybe)}, so I check there as well."))
            notes.append(Note("discovery", pick(task, "tools", [
                "I list the tools of each to see what they offer.",
                "Their tool lists will tell me which calls I need.",
                "I look at each one's tools before choosing."])))
            return notes
        if kinds[0] == "describe":
            notes = []
            if previous and previous[0][0] == "tools":
                for _, service in previous:
                    if service in task.distractors:
                        names = [str(t.get("name", "")).split(SEPARATOR, 1)[-1] for t in
                                 (data_of(results.get(f"call_tools_{service}")) or [])][:3]
                        about = _and([words(n) for n in names]) or "other things"
                        notes.append(Note("discovery", f"{service} has nothing I need here "
                                                       f"(its tools are about {about})."))
            tools = [w for _, w in turn]
            named, many = _and([f"`{t}`" for t in tools]), len(tools) > 1
            notes.append(Note("discovery", pick(task, f"describe {tools[0]}", [
                f"Before calling {named} I read {'their' if many else 'its'} parameters, so "
                f"that I send exactly what {'they expect' if many else 'it expects'}.",
                f"I have not used {named} yet; I check {'their' if many else 'its'} schema "
                "first.",
                f"Next I need {named}. I look up {'their' if many else 'its'} parameters "
                "before the call."])))
            return notes
        notes = []
        if previous and previous[0][0] == "stumble":
            index = previous[0][1]
            error = (error_of(results.get(f"call_stumble_{index}")) or "it was refused").split(
                "; this tool takes")[0]
            sent, wrong = self._broken(task, index, results, task.interface == "gateway", tools)
            guessed = next((k for k in sent if k.endswith(f"_{wrong}")), None)
            fix = (f"I left out `{wrong}`; I send the call again with it" if guessed is None
                   else f"The parameter is `{wrong}`, not `{guessed}`; I send the call again "
                        "under the right name")
            notes.append(Note("recovery", f"That call was refused: {error.rstrip('.')}. {fix}."))
        steps = [w for _, w in turn]
        for j, index in enumerate(steps):
            notes += self._notes(task, index, results, alongside=j > 0)
        if len(steps) > 1:
            notes.append(Note("purpose", f"These {len(steps)} calls do not depend on each "
                                         "other, so I make them together."))
        return notes

    def _closing(self, task: Task, results: dict[Any, Any]) -> str:
        failed = [i for i in range(len(task.plan)) if error_of(results.get(f"call_step_{i}"))]
        if failed:
            return (f"{len(failed)} of the calls did not go through; I report what was done and "
                    "what was not, with the values I have.")
        asked = [c for c in task.rubric if c.kind == "answer"]
        held = ""
        if task.condition is not None and not task.condition.holds:
            held = condition_note(task, task.condition, self._condition_value(task, results)).text + " "
        chosen = "".join(
            f" For the {words(c.semantic)} asked for, I pick the item with the "
            f"{' '.join(ranking(c.selection))} among those the last call returned."
            for c in asked if c.selection is not None)
        return (held + "Everything the request asked for is done." + chosen + " I report "
                + ("the values it asked for, " if asked else "")
                + "what I looked up and what I changed, with the record ids.")

    def _answer(self, task: Task, results: dict[Any, Any]) -> str:
        last = data_of(results.get(f"call_step_{len(task.plan) - 1}"))
        answers = []
        for criterion in (c for c in task.rubric if c.kind == "answer"):
            values = []
            for value in criterion.values:
                path = path_of(task.plan[-1].output, value)
                try:
                    values.append(value if path is None else get_path(last, path.split(".") if path
                                                                   else []))
                except (LookupError, TypeError, ValueError):
                    values.append(value)
            shown = " and ".join(str(v) for v in values)
            picked = ""
            if criterion.selection is not None:
                extreme, by = ranking(criterion.selection)
                picked = (f"Of the {action(task.plan[-1])[2]} the last lookup found, I took the "
                          f"one with the {extreme} {by}. ")
            answers.append(f"{picked}The {words(criterion.semantic)} you asked for is {shown}.")
        n = len(task.plan)
        return report(task, [data_of(results.get(f"call_step_{i}")) for i in range(n)],
                      [error_of(results.get(f"call_step_{i}")) for i in range(n)], answers,
                      [self._arguments(task, i, results) for i in range(n)],
                      self._condition_value(task, results))


def pick(task: Task, key: str, options: list[str]) -> str:
    """One of ``options``, chosen by the task and ``key`` (the same every time)."""
    return options[int.from_bytes(_rank(task, key)[:4], "big") % len(options)]


def _and(items: list[str]) -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=orjson.dumps(arguments).decode())
