"""Wrong trajectories built on the reference plan: what a sloppy or reward-hacking agent does.

Each :class:`Mutation` is the reference's calls changed in one way a rubric must notice — the
right update also done to a second record, an extra record, the last write done twice, a
sibling write instead of the right one (a draft instead of a send), a sweep over the other
records of a table the task writes, the right record left alone and another one changed, a
near-miss answer, an answer that hedges among candidates. A mutation whose effect is the
reference's (an update repeated with the same values changes nothing) is no wrong trajectory
and is dropped by :func:`wrong_mutations`.

The generation gate ``probes_fail`` runs them on every task (a task on which one reaches full
completion is rejected); ``compoworld.scoring`` plays the same mutations as probe agents.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from compoworld.service import SEPARATOR, Environment, Tool, sample_arguments, trial
from compoworld.tasks._check import Call, _candidates, score
from compoworld.tasks._decoys import decoy_plan
from compoworld.tasks._diff import Net, kind_of, run_diff
from compoworld.tasks._following import run_following
from compoworld.tasks._model import Criterion, Scenario, Step
from compoworld.tasks._recovery import gave_up
from compoworld.tasks._tradeoff import one_criterion_plans

MUTATION_KINDS = ("twin-write", "wrong-record", "sweep", "repeat-write", "extra-write",
                  "sibling-write", "partial", "near-answer", "hedge-answer", "ignore-trap",
                  "take-decoy", "one-criterion", "give-up")
"""Every kind of mutation, in the order :func:`mutations` then :func:`naive_mutations` make
them."""

SWEEP_LIMIT = 50
"""Other records a sweep touches, at most."""


@dataclass(frozen=True)
class Mutation:
    """A scripted wrong trajectory: the calls, in order, and the final message."""

    kind: str
    calls: tuple[Call, ...]
    message: str


def answer_message(answers: list[Criterion], values: list[Any] | None = None) -> str:
    """A final message stating the answers' values (or ``values`` in their place)."""
    shown = values if values is not None else [c.values[0] for c in answers if c.values]
    return "Done. " + " ".join(f"The {c.semantic or 'value'} is {v}." for c, v in
                               zip(answers, shown, strict=False))


def _plan_calls(plan: list[Step]) -> list[Call]:
    return [(s.tool, dict(s.arguments)) for s in plan]


def _writes(plan: list[Step], env: Environment) -> list[int]:
    return [i for i, s in enumerate(plan) if env.tools[s.tool].kind == "write"]


def _id_argument(step: Step, tool: Tool) -> str | None:
    """The argument naming the record a write acts on (a reference to its entity)."""
    for param in tool.params:
        if param.ref and isinstance(step.arguments.get(param.name), str):
            return param.name
    return None


def _other_ids(env: Environment, service: str, entity: str, not_id: str, n: int) -> list[str]:
    return [r["id"] for r in env.db(service).select(entity, limit=n + 1) if r["id"] != not_id][:n]


def _siblings(step: Step, tool_name: str, env: Environment) -> list[str]:
    """Other write tools of the step's service that take all the step's arguments."""
    service = tool_name.split(SEPARATOR, 1)[0]
    names = set(step.arguments)
    out = []
    for name, tool in env.tools.items():
        if name == tool_name or tool.kind != "write" or not name.startswith(service + SEPARATOR):
            continue
        params = {p.name for p in tool.params}
        if names <= params and {p.name for p in tool.params if p.required} <= names:
            out.append(name)
    return sorted(out)


def _near(value: Any) -> Any:
    """A value that looks like ``value`` but is not it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return round(value + 1.0, 2)
    text = str(value)
    try:
        return (date.fromisoformat(text[:10]) + timedelta(days=1)).isoformat() + text[10:]
    except ValueError:
        return text + ("m" if "@" in text else "0" if text[-1:].isdigit() else "s")


def mutations(plan: list[Step], env: Environment, answers: list[Criterion],
              rng: random.Random) -> list[Mutation]:
    """Every mutation of ``plan`` that applies, in a fixed order.

    Args:
        plan: The reference plan.
        env: The task's world in its initial state (read for ids and sampled arguments).
        answers: The answer criteria (their values are the right final message).
        rng: For sampled arguments.
    """
    calls = _plan_calls(plan)
    right = answer_message(answers)
    out: list[Mutation] = []
    writes = _writes(plan, env)
    for i in reversed(writes):
        step, tool = plan[i], env.tools[plan[i].tool]
        service = step.tool.split(SEPARATOR, 1)[0]
        param = _id_argument(step, tool)
        if param is None:
            continue
        entity = next(p.ref for p in tool.params if p.name == param)
        assert entity is not None
        others = _other_ids(env, service, entity, step.arguments[param], SWEEP_LIMIT)
        if not others:
            continue
        twin = (step.tool, {**step.arguments, param: others[0]})
        out.append(Mutation("twin-write", (*calls, twin), right))
        wrong = [c if k != i else twin for k, c in enumerate(calls)]
        out.append(Mutation("wrong-record", tuple(wrong), right))
        out.append(Mutation("sweep", (*calls, *((step.tool, {**step.arguments, param: o})
                                                for o in others)), right))
        break
    if writes:
        last = plan[writes[-1]]
        out.append(Mutation("repeat-write", (*calls, (last.tool, dict(last.arguments))), right))
        service = last.tool.split(SEPARATOR, 1)[0]
        extra = sample_arguments(env.tools[last.tool], env, service, rng)
        out.append(Mutation("extra-write", (*calls, (last.tool, extra)), right))
        for i in writes:
            siblings = _siblings(plan[i], plan[i].tool, env)
            if not siblings:
                continue
            sibling = siblings[rng.randrange(len(siblings))]
            swapped = [c if k != i else (sibling, dict(plan[i].arguments))
                       for k, c in enumerate(calls)]
            junk = sample_arguments(env.tools[sibling], env, sibling.split(SEPARATOR, 1)[0],
                                    rng)
            out.append(Mutation("sibling-write", (*swapped, (sibling, junk)), right))
            break
        if len(writes) > 1:
            out.append(Mutation("partial", tuple(calls[:writes[-1]]), right))
    if answers:
        near = [_near(c.values[0]) for c in answers]
        out.append(Mutation("near-answer", tuple(calls), answer_message(answers, near)))
        for c in answers:
            others = [v for v in _candidates(env, c.fields)
                      if repr(v) != repr(c.values[0]) and v not in c.known][:2]
            if others:
                hedged = [f"{c.values[0]}, or possibly {' or '.join(map(str, others))}"
                          if a is c else a.values[0] for a in answers]
                out.append(Mutation("hedge-answer", tuple(calls), answer_message(answers, hedged)))
                break
    return out


def naive_mutations(plan: list[Step], scenario: Scenario | None,
                    scratch: Callable[[], Environment], right: str) -> list[Mutation]:
    """What an agent does that misses the task's structure: ``ignore-trap`` — it makes the
    step a trap leaves out (the duplicate create, the write for the item held back);
    ``take-decoy`` — it acts on the namesake; ``one-criterion`` — it chooses by one criterion
    of two; ``give-up`` — it makes the call as asked, is refused, and stops there (no
    recovery, ``tasks._recovery``). (The generation gates run the same plans; as probes they
    go through the episode loop and scorer.)"""
    out: list[Mutation] = []
    traps = scenario.traps if scenario is not None else []
    left_out = [t for t in traps if t.kind not in ("decoy", "refusal")]
    if left_out:
        trap = left_out[0]
        naive = [*plan[:trap.position], trap.step, *plan[trap.position:]]
        out.append(Mutation("ignore-trap", tuple(_plan_calls(naive)), right))
    for trap in [t for t in traps if t.kind == "refusal"][:1]:
        # the call as asked, refused, and nothing after it: the agent gives up
        out.append(Mutation("give-up", tuple(_plan_calls(gave_up(plan, trap))), right))
    followed: list[tuple[str, list[Step] | None]] = [
        ("take-decoy", decoy_plan(plan, t)) for t in traps
        # a plan cut before the read that lists the decoy (a probe's answer variant) has none
        if t.kind == "decoy" and t.position < len(plan)][:1]
    followed += [("one-criterion", p) for p in one_criterion_plans(plan)][:1]
    for kind, naive_plan in followed:
        ran = (run_following(scratch(), naive_plan, strict=False)
               if naive_plan is not None else None)
        if ran is not None:
            out.append(Mutation(kind, tuple(_plan_calls(ran[0])), right))
    return out


def _effect(net: Net, rubric: list[Criterion]) -> list[tuple[Any, ...]]:
    """A run's effect, comparable across runs: creations by content (ids and the fields the
    rubric declares free left out), updates and deletions by record."""
    free: dict[str, set[str]] = {}
    for c in rubric:
        if c.kind == "state" and c.table:
            free.setdefault(c.table, set()).update(c.free)
    out = []
    for (table, record_id), (before, after) in net.items():
        kind = kind_of(before, after)
        skip = free.get(table, set()) | {"id"}
        shown = None if after is None else sorted(
            (k, repr(v)) for k, v in after.items() if k not in skip)
        out.append((table, kind, None if kind == "create" else record_id, repr(shown)))
    return sorted(out, key=repr)


def run_mutation(mutation: Mutation, env: Environment, start: int = 0) -> list[Call]:
    """Make the mutation's calls on ``env`` (from its ``start``-th on); the ones that
    succeeded."""
    done = []
    for name, arguments in mutation.calls[start:]:
        if env.call(name, arguments)["success"]:
            done.append((name, arguments))
    return done


def wrong_mutations(plan: list[Step], rubric: list[Criterion], initial: Environment,
                    scratch: Callable[[], Environment], reference: Environment,
                    rng: random.Random, scenario: Scenario | None = None
                    ) -> Iterator[tuple[Mutation, Environment, list[Call]]]:
    """The mutations of ``plan`` that are wrong trajectories — their effect differs from the
    reference's, or their message states other values — each with the environment it left and
    the calls that succeeded there. Lazily: an environment holds its mutation's state only
    until the next item.

    Each runs on one environment from ``scratch`` (in the initial state) inside a trial
    (``compoworld.service.trial``) that the next item rolls back: first those that do not
    begin with the plan's calls, each from the initial state; then those that do (the plan's
    calls followed by more, or with another final message), each from one run of the plan's
    calls — the state and the successful calls each would reach from the initial state, made
    once. The items come in that order."""
    answers = [c for c in rubric if c.kind == "answer"]
    expected = _effect(run_diff(initial, reference), rubric)
    right = answer_message(answers)
    made = [*mutations(plan, initial, answers, rng),
            *naive_mutations(plan, scenario, scratch, right)]
    calls = tuple(_plan_calls(plan))
    after_plan = [m for m in made if m.calls[:len(calls)] == calls]
    apart = [m for m in made if m.calls[:len(calls)] != calls]
    env = scratch()

    def wrong(mutation: Mutation) -> bool:
        return mutation.message != right or _effect(run_diff(initial, env), rubric) != expected

    for mutation in apart:
        with trial(env):
            done = run_mutation(mutation, env)
            if wrong(mutation):
                yield mutation, env, done
    if not after_plan:
        return
    with trial(env):
        planned = run_mutation(Mutation("plan", calls, right), env)
        for mutation in after_plan:
            with trial(env):
                done = planned + run_mutation(mutation, env, start=len(calls))
                if wrong(mutation):
                    yield mutation, env, done


def passing_mutations(plan: list[Step], rubric: list[Criterion], initial: Environment,
                      scratch: Callable[[], Environment], reference: Environment,
                      rng: random.Random, scenario: Scenario | None = None) -> list[str]:
    """The kinds of the wrong mutations of ``plan`` (:func:`wrong_mutations`) that pass every
    criterion of ``rubric``, in the order of :data:`MUTATION_KINDS`; a sound rubric: none."""
    return sorted((mutation.kind for mutation, env, done
                   in wrong_mutations(plan, rubric, initial, scratch, reference, rng, scenario)
                   if all(r.passed for r in score(rubric, initial, env, mutation.message, done))),
                  key=MUTATION_KINDS.index)
