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
from compoworld.rollout._discovery import discovery_notes
from compoworld.rollout._narration import (
    Narrator,
    Note,
    action,
    is_read,
    join,
    ordinal,
    ranking,
    step_notes,
    words,
)
from compoworld.rollout._plays import Moment, Play, Seen, answer_value, play_all
from compoworld.rollout._report import report
from compoworld.rollout._results import data_of, error_of, resolve, schema_of
from compoworld.service import SEPARATOR
from compoworld.tasks import Step, Task
from compoworld.tasks._trap_check import TrapCheck, existing_record, trap_check

_Turn = list[tuple[str, Any]]
"""A turn of the script: ("services", None), ("tools", service), ("describe", tool),
("stumble", step index), ("step", step index), ("check", trap index), ("create", trap index)
— or [] for the final answer."""
_Entry = tuple[str, int]
"""A call of the plan's order: ("step", plan index) or ("check", trap index)."""
MAX_LOOKALIKES = 2
"""Distractor services the oracle looks into in gateway mode (they hold nothing it needs)."""


def _checks(task: Task) -> list[TrapCheck]:
    """The reads that check the task's idempotency traps (those that can be checked)."""
    traps = task.scenario.traps if task.scenario else []
    return [c for c in (trap_check(task, k) for k in range(len(traps))) if c is not None]


def _touch(task: Task, entry: _Entry) -> tuple[str, bool, set[int]]:
    """(service, whether it only reads, the plan steps it needs) of an entry."""
    if entry[0] == "step":
        step = task.plan[entry[1]]
        return action(step)[0], is_read(step), {s.step for s in step.sources.values()
                                                if s.step is not None}
    # a check waits for every value of the create it stands for: it compares them all; a
    # refusal's call is a write (its answer decides what comes next: nothing joins its turn)
    assert task.scenario is not None
    trap = task.scenario.traps[entry[1]]
    return (trap.table.split(SEPARATOR, 1)[0], trap.kind != "refusal",
            {s.step for s in trap.step.sources.values() if s.step is not None})


def _entries(task: Task) -> list[_Entry]:
    """The plan's steps in order, each trap's check just before the create it stood for."""
    at: dict[int, list[int]] = {}
    assert task.scenario is not None or not _checks(task)
    for check in _checks(task):
        at.setdefault(task.scenario.traps[check.trap].position, []).append(check.trap)  # type: ignore[union-attr]
    entries: list[_Entry] = []
    for i in range(len(task.plan) + 1):
        entries += [("check", k) for k in at.get(i, [])]
        if i < len(task.plan):
            entries.append(("step", i))
    return entries


def _groups(task: Task) -> list[list[_Entry]]:
    """Consecutive calls that need nothing from each other, as parallel turns (in order); a
    call joins no turn that writes to its service, nor one that reads a service it writes."""
    groups: list[list[_Entry]] = []
    for entry in _entries(task):
        service, read, needs = _touch(task, entry)
        if groups and not needs & {i for kind, i in groups[-1] if kind == "step"} and not any(
                (other := _touch(task, e))[0] == service and not (read and other[1])
                for e in groups[-1]):
            groups[-1].append(entry)
        else:
            groups.append([entry])
    return groups


def _rank(task: Task, name: str) -> bytes:
    return hashlib.sha256(f"{task.id}\0{name}".encode()).digest()


def lookalikes(task: Task) -> list[str]:
    """The distractor services the oracle looks into (chosen per task, deterministically)."""
    return sorted(task.distractors, key=lambda d: _rank(task, d))[:MAX_LOOKALIKES]


def stumble_step(task: Task) -> int | None:
    """The step the stumbling oracle gets wrong first: the first with arguments to send."""
    return next((i for i, s in enumerate(task.plan) if s.arguments), None)


def script(task: Task, stumble: bool = False, missing: frozenset[int] = frozenset()
           ) -> list[_Turn]:
    """The oracle's turns for ``task``; the last one (empty) is the final answer. ``missing``:
    the traps whose check showed no record (each then gets its create, right after)."""
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

    def describe(tools: list[str]) -> None:
        new = [t for t in dict.fromkeys(tools) if t not in described]
        if gateway and new:
            turns.append([("describe", t) for t in new])
            described.update(new)

    for group in _groups(task):
        describe([task.plan[i].tool if kind == "step" else _check_tool(task, i)
                  for kind, i in group])
        if ("step", wrong) in group:
            turns.append([("stumble", wrong)])
        turns.append(list(group))
        for k in (i for kind, i in group if kind == "check" and i in missing):
            assert task.scenario is not None
            describe([task.scenario.traps[k].step.tool])
            turns.append([("create", k)])
    return [*turns, []]


def _check_tool(task: Task, trap: int) -> str:
    check = trap_check(task, trap)
    assert check is not None
    return check.tool


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
        results = {m.get("tool_call_id"): m.get("content") for m in messages
                   if m.get("role") == "tool"}
        seen = self._seen(task, results)
        play = play_all(task, seen)
        turns = script(task, self.stumble, self._missing(task, seen))
        done = sum(1 for m in messages if m.get("role") == "assistant")
        previous = turns[done - 1] if done else []
        if done >= len(turns) - 1:
            closing = [*self._found(play, previous), *play.notes.get(("end", 0), []),
                       Note("purpose", self._closing(task, results))]
            return AssistantMessage(content=self._answer(task, seen, play), finish_reason="stop",
                                    reasoning_content=join(closing))
        gateway = task.interface == "gateway"
        turn = turns[done]
        calls = [self._call(task, kind, what, seen, gateway, tools) for kind, what in turn]
        notes = self._reasoning(task, turn, previous, seen, play, tools)
        if done == 0:
            notes = [*play.notes.get(("first", 0), []), *notes]
        return AssistantMessage(content=None, tool_calls=calls, finish_reason="tool_calls",
                                reasoning_content=join(notes))

    def _seen(self, task: Task, results: dict[Any, Any]) -> Seen:
        traps = task.scenario.traps if task.scenario else []
        return Seen(task, results, lambda i: self._resolved(task.plan[i], results),
                    lambda k: self._resolved(traps[k].step, results))

    @staticmethod
    def _missing(task: Task, seen: Seen) -> frozenset[int]:
        """The traps whose check came back without the record."""
        return frozenset(check.trap for check in _checks(task)
                         if task.scenario is not None  # a refusal's call is not a check
                         and task.scenario.traps[check.trap].kind == "idempotency"
                         and seen.done(f"call_check_{check.trap}") and existing_record(
                             seen.data(f"call_check_{check.trap}"),
                             seen.trap_arguments(check.trap)) is None)

    @staticmethod
    def _resolved(step: Step, results: dict[Any, Any],
                  sources: dict[str, Any] | None = None) -> dict[str, Any]:
        """``step``'s arguments, those drawn from earlier steps read again from this episode."""
        arguments = dict(step.arguments)
        for name, source in (step.sources if sources is None else sources).items():
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

    def _arguments(self, task: Task, index: int, results: dict[Any, Any]) -> dict[str, Any]:
        return self._resolved(task.plan[index], results)

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

    def _call(self, task: Task, kind: str, what: Any, seen: Seen, gateway: bool,
              tools: list[dict[str, Any]]) -> ToolCall:
        results = seen.results
        if kind == "services":
            return _tool_call("call_services", "list_services", {})
        if kind == "tools":
            return _tool_call(f"call_tools_{what}", "list_tools", {"service": what})
        if kind == "describe":
            return _tool_call(f"call_describe_{what}", "describe_tool", {"tool_name": what})
        if kind == "check":
            check = trap_check(task, what)
            assert check is not None and task.scenario is not None
            tool, call_id = check.tool, f"call_check_{what}"
            arguments = self._resolved(task.scenario.traps[what].step, results, check.sources)
            arguments = {k: arguments.get(k, v) for k, v in check.arguments.items()}
        elif kind == "create":
            assert task.scenario is not None
            tool, call_id = task.scenario.traps[what].step.tool, f"call_trap_{what}"
            arguments = seen.trap_arguments(what)
        elif kind == "stumble":
            tool, call_id = task.plan[what].tool, f"call_stumble_{what}"
            arguments, _ = self._broken(task, what, results, gateway, tools)
        else:
            tool, call_id = task.plan[what].tool, f"call_step_{what}"
            arguments = self._arguments(task, what, results)
        if gateway:
            return _tool_call(call_id, "call_tool", {"tool_name": tool, "arguments": arguments})
        return _tool_call(call_id, tool, arguments)

    def _notes(self, task: Task, index: int, results: dict[Any, Any], play: Play, *,
               alongside: bool = False) -> list[Note]:
        own = step_notes(task, index, self._arguments(task, index, results), alongside=alongside)
        if index in play.purpose and not alongside:  # its arguments are in what it is for
            own = [play.purpose[index], *(n for n in own[1:] if n.kind != "user")]
        elif index in play.purpose:
            own[0] = Note("rule", f"In the same turn: {play.purpose[index].text[0].lower()}"
                                  f"{play.purpose[index].text[1:]}")
        # what the task's structures say about the step comes right after what it is for
        notes = [own[0], *play.notes.get(("step", index), []), *own[1:]]
        for narrator in self.narrators:
            notes = narrator.notes(task, index, notes)
        return notes

    @staticmethod
    def _found(play: Play, previous: _Turn) -> list[Note]:
        """What the checks of the previous turn showed."""
        moments: list[Moment] = [("found", k) for kind, k in previous if kind == "check"]
        return [n for moment in moments for n in play.notes.get(moment, [])]

    def _reasoning(self, task: Task, turn: _Turn, previous: _Turn, seen: Seen, play: Play,
                   tools: list[dict[str, Any]]) -> list[Note]:
        results = seen.results
        kinds = [k for k, _ in turn]
        found = self._found(play, previous)
        if kinds[0] in ("services", "tools", "describe"):
            return [*found, *discovery_notes(task, turn, previous, results)]
        notes = list(found)
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
        if kinds == ["create"]:
            return notes
        steps = 0
        for kind, index in turn:
            if kind == "check":
                notes += play.notes.get(("check", index), [])
            elif kind in ("step", "stumble"):
                notes += self._notes(task, index, results, play, alongside=steps > 0)
                steps += 1
        if len(turn) > 1:
            notes.append(Note("purpose", f"These {len(turn)} calls do not depend on each "
                                         "other, so I make them together."))
        return notes

    def _closing(self, task: Task, results: dict[Any, Any]) -> str:
        failed = [i for i in range(len(task.plan)) if error_of(results.get(f"call_step_{i}"))]
        if failed:
            return (f"{len(failed)} of the calls did not go through; I report what was done and "
                    "what was not, with the values I have.")
        asked = [c for c in task.rubric if c.kind == "answer"]
        chosen = "".join(
            f" For the {words(c.semantic)} asked for, I pick the item with the "
            f"{' '.join(ranking(c.selection))} among those the lookup returned."
            for c in asked if c.selection is not None)
        return ("Everything the request asked for is done." + chosen + " I report "
                + ("the values it asked for, " if asked else "")
                + "what I looked up and what I changed, with the record ids.")

    def _answer(self, task: Task, seen: Seen, play: Play) -> str:
        answers = []
        for criterion in (c for c in task.rubric if c.kind == "answer"):
            step = len(task.plan) - 1 if criterion.step is None else criterion.step
            values = [answer_value(task, seen, value, step) for value in criterion.values]
            shown = " and ".join(str(v) for v in values)
            picked = ""
            if criterion.selection is not None:
                extreme, by = ranking(criterion.selection)
                picked = (f"Of the {action(task.plan[step])[2]} the {ordinal(step)} lookup "
                          f"found, I took the one with the {extreme} {by}. ")
            answers.append(f"{picked}The {words(criterion.semantic)} you asked for is {shown}.")
        n = len(task.plan)
        return report(task, [seen.data(f"call_step_{i}") for i in range(n)],
                      [error_of(seen.results.get(f"call_step_{i}")) for i in range(n)], answers,
                      [self._arguments(task, i, seen.results) for i in range(n)],
                      checks=play.report, changed=play.changed)


def _tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=orjson.dumps(arguments).decode())
