"""The verification gates of a task, run at generation and again by ``tasks verify``."""

from __future__ import annotations

import random
from collections.abc import Callable

from compoworld.service import SEPARATOR, Environment, trial
from compoworld.tasks._check import score
from compoworld.tasks._condition import branch_matters
from compoworld.tasks._decoys import decoy_matters
from compoworld.tasks._diff import net_changes
from compoworld.tasks._exceptions import other_exception_fails
from compoworld.tasks._instruction import leaked
from compoworld.tasks._model import Condition, Criterion, Scenario, Step, Task
from compoworld.tasks._mutations import answer_message, passing_mutations
from compoworld.tasks._recovery import refusal_matters
from compoworld.tasks._scenario import rule_matters, trap_matters
from compoworld.tasks._temporal import shift_matters
from compoworld.tasks._threshold import threshold_matters
from compoworld.tasks._tradeoff import one_criterion_fails, tradeoffs
from compoworld.tasks._trap_check import find_check
from compoworld.tasks._world import build_world
from compoworld.types import derive_seed

_TRAP_GATES = {"decoy": decoy_matters, "refusal": refusal_matters}
"""Gate ``trap_matters`` per trap kind (the others: :func:`trap_matters`, the naive plan that
makes the left-out step fails)."""


def replay(env: Environment, plan: list[Step], skip: int | None = None) -> list[object]:
    """Run the plan's calls again (all but ``skip``); returns the answers' data."""
    outputs = []
    for i, step in enumerate(plan):
        if i == skip:
            continue
        envelope = env.call(step.tool, step.arguments)
        outputs.append(envelope.get("data") if envelope["success"] else envelope)
    return outputs


def final_state(env: Environment, services: list[str]) -> tuple[object, ...]:
    """What a run left behind, cheaply: each service's version (a hash chained over every
    record it wrote, from the same initial state) and the net record changes."""
    changes = env.changes()
    net = sorted(net_changes(changes).items(), key=repr) if changes is not None else None
    return tuple(env.db(s).digest() for s in services), net


GATE_ORDER = ("no_leak", "reference_passes", "doing_nothing_fails", "replays", "steps_needed",
              "rule_matters", "trap_checkable", "trap_matters", "temporal_matters",
              "tradeoff_matters", "branch_matters", "probes_fail")
"""The gates from the cheapest to the costliest (a text search; a scoring; a replay; one
replay per step; a replay or two per rule, trap or branch; every probe's run): with
``first_failure`` they run in this order and stop at the first that fails."""


def gates(initial: Environment, scratch: Callable[[], Environment], plan: list[Step],
          rubric: list[Criterion], reference: Environment, text: str,
          condition: Condition | None = None, *, seed: int = 0,
          scenario: Scenario | None = None, first_failure: bool = False) -> dict[str, bool]:
    """The gates: reference passes, doing nothing fails, each state criterion needs its step,
    nothing leaks, the plan replays identically, and no wrong trajectory built on the plan
    (``tasks._mutations``) passes the rubric; a scenario's rule and traps matter, and a read
    the agent has shows each idempotency trap's record (``trap_checkable``).

    Args:
        initial: An environment in the world's initial state, never called (it is also the
            environment of an agent that does nothing).
        scratch: Gives an environment in the initial state for each re-run (a fork, or a
            reset one).
        plan: The reference plan.
        rubric: The task's criteria.
        reference: An environment after running the plan from the initial state.
        text: The instruction.
        condition: The condition on the last write, if any (then a gate checks that taking
            the other branch fails).
        seed: Seeds the arguments the mutations sample.
        scenario: The task's scenario, if any: then its rule and its traps must matter
            (``scratch`` gives worlds with its records planted).
        first_failure: Run the gates cheapest first (:data:`GATE_ORDER`) and stop at the
            first that fails (generation, which keeps a task only if all pass); the result
            then holds the gates run. A task that passes gets every gate either way, in the
            same order.
    """
    checks = _checks(initial, scratch, plan, rubric, reference, text, condition, seed=seed,
                     scenario=scenario)
    if not first_failure:
        return {name: check() for name, check in checks.items()}
    done: dict[str, bool] = {}
    for name in sorted(checks, key=GATE_ORDER.index):
        done[name] = checks[name]()
        if not done[name]:
            break
    return {name: done[name] for name in checks if name in done}


def _checks(initial: Environment, scratch: Callable[[], Environment], plan: list[Step],
            rubric: list[Criterion], reference: Environment, text: str,
            condition: Condition | None, *, seed: int,
            scenario: Scenario | None) -> dict[str, Callable[[], bool]]:
    """The gates that apply to the task, each as a check not yet run, in the order a task's
    ``verification`` lists them."""
    answers = [c for c in rubric if c.kind == "answer"]
    message = answer_message(answers)
    calls = [(s.tool, s.arguments) for s in plan]
    services = sorted({s.tool.split(SEPARATOR, 1)[0] for s in plan})

    def replays() -> bool:
        again = scratch()
        return replay(again, plan) == [s.output for s in plan] and (
            final_state(again, services) == final_state(reference, services))

    def steps_needed() -> bool:
        by_step: dict[int, list[Criterion]] = {}
        for criterion in (c for c in rubric if c.kind == "state" and c.change != "absent"):
            by_step.setdefault(int(criterion.id.split("-", 1)[0][1:]), []).append(criterion)
        # The plan without each step in turn, on one environment: the steps before it run
        # once (kept), the ones after it in a trial rolled back for the next ablation.
        ablated, done = scratch(), 0
        for step_index, criteria in sorted(by_step.items()):
            replay(ablated, plan[done:step_index])
            done = step_index
            with trial(ablated):
                replay(ablated, plan[step_index + 1:])
                if any(r.passed for r in score(criteria, initial, ablated, message, calls)):
                    return False
        return True

    described = [*plan, condition.then] if condition and not condition.holds else plan
    # a refused call is asked for as stated: its values are the request's, not found ones
    described = [*described, *(t.step for t in (scenario.traps if scenario else [])
                               if t.kind == "refusal")]
    checks: dict[str, Callable[[], bool]] = {
        "reference_passes": lambda: all(
            r.passed for r in score(rubric, initial, reference, message, calls)),
        "doing_nothing_fails": lambda: not all(
            r.passed for r in score(rubric, initial, initial, "", [])),
        "steps_needed": steps_needed,
        "no_leak": lambda: not leaked(text, described),
        "replays": replays,
        "probes_fail": lambda: not passing_mutations(
            plan, rubric, initial, scratch, reference,
            random.Random(derive_seed(seed, "mutations")), scenario),
    }
    if scenario is not None:
        rule = scenario.rule
        held = next((t for t in scenario.traps if t.kind == "exception"), None)
        if rule is not None and rule.kind == "threshold":
            checks["rule_matters"] = lambda: condition is not None and threshold_matters(
                plan, condition, rubric, initial, scratch, message)
        elif rule is not None and rule.kind == "exception":
            checks["rule_matters"] = lambda: held is not None and other_exception_fails(
                plan, held, rubric, initial, scratch, message)
        elif rule is not None:
            checks["rule_matters"] = lambda: rule_matters(plan, rule, rubric, initial, scratch,
                                                          message)
        idempotent = [t for t in scenario.traps if t.kind == "idempotency"]
        if idempotent:  # an agent must be able to see that the record is already there
            checks["trap_checkable"] = lambda: all(
                find_check(scratch(), trap, scenario.planted) is not None
                for trap in idempotent)
        if scenario.traps:
            checks["trap_matters"] = lambda: all(_TRAP_GATES.get(trap.kind, trap_matters)(
                plan, trap, rubric, initial, scratch, message) for trap in scenario.traps)
    if any(src.op == "shift" for s in plan for src in s.sources.values()):
        checks["temporal_matters"] = lambda: shift_matters(plan, rubric, initial, scratch,
                                                           message)
    if tradeoffs(plan):
        checks["tradeoff_matters"] = lambda: one_criterion_fails(plan, rubric, initial, scratch,
                                                                 message)
    if condition is not None:
        checks["branch_matters"] = lambda: branch_matters(initial, scratch, plan, condition,
                                                          rubric, message)
    return checks


def verify_task(task: Task) -> dict[str, bool]:
    """Re-run a task's gates on its rebuilt world: the plan replays with the recorded outputs,
    the reference passes, doing nothing fails, every state criterion needs its step, the
    instruction leaks nothing.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> task = next(generate_tasks(1, seed=3))
        >>> all(verify_task(task).values())
        True
    """
    world = build_world(task)
    reference = world.fork().env
    same_outputs = replay(reference, task.plan) == [s.output for s in task.plan]
    result = gates(world.env, lambda: world.fork().env, task.plan, task.rubric, reference,
                   task.instruction, task.condition, seed=derive_seed(task.seed, task.id),
                   scenario=task.scenario)
    again = world.fork().env  # and byte for byte: the whole state's digest
    replay(again, task.plan)
    result["replays"] = result["replays"] and same_outputs and again.digest() == reference.digest()
    return result
