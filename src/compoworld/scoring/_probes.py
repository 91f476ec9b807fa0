"""Reward-hacking probes: scripted adversarial agents that try to score without doing the task.

Each probe is an :class:`~compoworld.rollout.Agent`, run through the real episode loop and
scored by the real scorer. A sound rubric gives none of them full completion on any task, and
their mean reward stays far below the oracle's (see ``bench/probes.py`` and docs/rewards.md):

* ``claim`` does nothing and claims success, restating the instruction;
* ``dump`` reads every read tool it can call without required arguments (the lists) and
  states every value it read in its final answer;
* ``write-all`` calls every write tool once, with arguments sampled from the world's state;
* ``call-all`` calls every tool once, reads and writes, with sampled arguments;

and one probe per kind of wrong trajectory built on the reference plan
(:mod:`compoworld.tasks._mutations`: the right write also done to a second record, an extra
record, the last write repeated, a sibling write instead of the right one, a sweep over a
table, the wrong record, a partial plan, a near-miss answer, a hedged answer) — the same
mutations the generation gate ``probes_fail`` runs.

The blind probes know the task's world (they rebuild it, as a scripted agent may) but never
its plan or rubric; the mutation probes know the plan (they are what a nearly right agent
does), never the rubric.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import orjson

from compoworld.models import AssistantMessage, ToolCall
from compoworld.rollout import build_world
from compoworld.service import SEPARATOR, sample_arguments
from compoworld.tasks import Task
from compoworld.tasks._mutations import MUTATION_KINDS, Mutation, wrong_mutations
from compoworld.types import derive_seed

_Call = tuple[str, dict[str, Any]]
CALLS_PER_TURN = 32
"""Calls per assistant turn (below the episode's per-turn limit)."""


@lru_cache(maxsize=256)
def _tools_of(task_json: str) -> tuple[tuple[str, str, bool, str], ...]:
    """(name, kind, has required params, sampled arguments as JSON) of every mounted tool."""
    task = Task.model_validate_json(task_json)
    world = build_world(task)
    rng = random.Random(derive_seed(task.seed, "probe", task.id))
    out = []
    for name, tool in world.env.tools.items():
        service = name.split(SEPARATOR, 1)[0]
        args = sample_arguments(tool, world.env, service, rng)
        out.append((name, tool.kind, any(p.required for p in tool.params),
                    orjson.dumps(args, default=str).decode()))
    world.env.close()
    return tuple(out)


def _scalars(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _scalars(item)
    elif isinstance(value, list):
        for item in value:
            yield from _scalars(item)
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        yield value


class Probe:
    """Base of the probes: one batch of calls (split into turns of at most
    ``CALLS_PER_TURN``), then a final answer. Stateless: the turn is counted from
    ``messages``.

    Attributes:
        name: ``probe-<kind>``, what the trajectory records as its agent.
        kind: ``claim``, ``dump``, ``write-all`` or ``call-all``.
    """

    kind: str = "probe"
    name: str = "probe"
    model: str | None = None

    def applies(self, task: Task) -> bool:
        """Whether the probe has something to try on ``task`` (reports count only those)."""
        return True

    def calls(self, task: Task) -> list[_Call]:
        """The calls the probe makes (qualified tool names and arguments)."""
        return []

    def answer(self, task: Task, messages: list[dict[str, Any]]) -> str:
        """The final answer, given the conversation so far."""
        return "Done: every step of the task is complete and verified."

    async def respond(self, task: Task, messages: list[dict[str, Any]],
                      tools: list[dict[str, Any]]) -> AssistantMessage:
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        batch = self.calls(task)[turn * CALLS_PER_TURN:(turn + 1) * CALLS_PER_TURN]
        if not batch:
            return AssistantMessage(content=self.answer(task, messages), finish_reason="stop")
        start = turn * CALLS_PER_TURN
        calls = []
        for i, (name, args) in enumerate(batch, start=start):
            if task.interface == "gateway":
                name, args = "call_tool", {"tool_name": name, "arguments": args}
            calls.append(ToolCall(id=f"probe_{i}", name=name,
                                  arguments=orjson.dumps(args, default=str).decode()))
        return AssistantMessage(content=None, tool_calls=calls, finish_reason="tool_calls")


class ClaimProbe(Probe):
    """Does nothing; claims success and restates the instruction (so every value the user
    gave appears in the answer)."""

    kind = "claim"
    name = "probe-claim"

    def answer(self, task: Task, messages: list[dict[str, Any]]) -> str:
        return f"All done. I completed everything you asked: {task.instruction}"


class DumpProbe(Probe):
    """Reads every read tool without required arguments, then states every value it read."""

    kind = "dump"
    name = "probe-dump"

    def calls(self, task: Task) -> list[_Call]:
        return [(name, {}) for name, kind, required, _ in _tools_of(task.model_dump_json())
                if kind == "read" and not required]

    def answer(self, task: Task, messages: list[dict[str, Any]]) -> str:
        values: dict[str, None] = {}
        for message in messages:
            if message.get("role") != "tool":
                continue
            try:
                envelope = orjson.loads(message.get("content") or "null")
            except orjson.JSONDecodeError:
                continue
            if isinstance(envelope, dict) and envelope.get("success"):
                values.update((str(v), None) for v in _scalars(envelope.get("data")))
        return "Done. The answer is one of: " + "; ".join(values)


class WriteAllProbe(Probe):
    """Calls every write tool once with sampled arguments, hoping to hit the right change."""

    kind = "write-all"
    name = "probe-write-all"

    def calls(self, task: Task) -> list[_Call]:
        return [(name, orjson.loads(args)) for name, kind, _, args in _tools_of(task.model_dump_json())
                if kind == "write"]


class CallAllProbe(Probe):
    """Calls every tool once (reads and writes) with sampled arguments."""

    kind = "call-all"
    name = "probe-call-all"

    def calls(self, task: Task) -> list[_Call]:
        return [(name, orjson.loads(args)) for name, _, _, args in _tools_of(task.model_dump_json())]


@lru_cache(maxsize=256)
def _mutations_of(task_json: str) -> dict[str, Mutation]:
    """The task's wrong mutations (those whose effect or answer differs from the reference's:
    repeating an update that changes nothing is no wrong trajectory), by kind."""
    task = Task.model_validate_json(task_json)
    world = build_world(task)
    reference = world.fork()
    for step in task.plan:
        reference.env.call(step.tool, step.arguments)
    rng = random.Random(derive_seed(task.seed, "probe", task.id))
    found = {m.kind: m for m, env, _ in wrong_mutations(task.plan, task.rubric, world.env,
                                                         lambda: world.fork().env,
                                                         reference.env, rng,
                                                         task.scenario)}
    world.env.close()
    return found


class MutationProbe(Probe):
    """Plays one kind of wrong trajectory built on the reference plan (``mutation``)."""

    mutation: str = ""

    def _get(self, task: Task) -> Mutation | None:
        return _mutations_of(task.model_dump_json()).get(self.mutation)

    def applies(self, task: Task) -> bool:
        return self._get(task) is not None

    def calls(self, task: Task) -> list[_Call]:
        found = self._get(task)
        return list(found.calls) if found is not None else []

    def answer(self, task: Task, messages: list[dict[str, Any]]) -> str:
        found = self._get(task)
        return found.message if found is not None else super().answer(task, messages)


def _mutation_probe(kind: str) -> type[MutationProbe]:
    name = "".join(part.title() for part in kind.split("-")) + "Probe"
    return type(name, (MutationProbe,), {"kind": kind, "name": f"probe-{kind}", "mutation": kind,
                                         "__doc__": f"The {kind!r} mutation of the plan."})


MUTATION_PROBES: tuple[type[MutationProbe], ...] = tuple(
    _mutation_probe(kind) for kind in MUTATION_KINDS)
PROBES: tuple[type[Probe], ...] = (ClaimProbe, DumpProbe, WriteAllProbe, CallAllProbe,
                                   *MUTATION_PROBES)
"""Every probe class, in the order reports list them."""
