"""Capability labels: each names a structure the task really has, read off its plan, its
condition and its scenario (never a guess from the instruction's words)."""

from __future__ import annotations

import typing
from collections import Counter

from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._model import Capability, Condition, Scenario, Step


def _service(step: Step) -> str:
    return step.tool.split(SEPARATOR, 1)[0]


def capabilities(plan: list[Step], env: Environment, condition: Condition | None = None,
                 scenario: Scenario | None = None) -> list[Capability]:
    """The labels of a task, in the release's order:

    * ``conditional-branching`` — a write is done only if a value found is above/below a
      threshold; ``temporal-reasoning`` when that value is a date, or when a write's date is
      said relative to a date found ("the Tuesday after the due date", ``tasks._temporal``);
    * ``sequential-dependency`` — a step takes a value an earlier step found;
    * ``cross-env-constraint`` — a value found in one service fills another's parameter;
    * ``ranked-selection`` — a value comes from the list item with the max/min of a field;
      ``multi-objective-tradeoff`` when a second criterion narrows the list first ("the
      cheapest among those rated above 3", ``tasks._tradeoff``);
    * ``data-transformation`` — an argument is computed from found values (a sum; a date
      moved from a found one, ``tasks._temporal``);
    * ``fan-in-aggregation`` — a computed value aggregates a list, or one write draws on
      answers of two services or more;
    * ``referential-integrity`` — a write links its record to an existing one found earlier
      (a reference parameter filled from an earlier answer);
    * ``fan-out`` — the same write is made more than once (over several records);
    * ``explore-then-act`` — a rule stored in the world sets a value (the agent must find it);
    * ``idempotency-check`` — what one step would create is already there (a trap);
    * ``batch-with-exceptions`` — a fan-out leaves out the item a rule stored in the world
      holds back (``tasks._exceptions``);
    * ``error-recovery`` — the call as asked is refused by a rule of the service, and the
      plan does it another way (``tasks._recovery``).
    """
    found: set[Capability] = set()
    if condition is not None:
        found.add("conditional-branching")
        if isinstance(condition.threshold, str):
            found.add("temporal-reasoning")
    for step in plan:
        tool = env.tools[step.tool]
        refs = {p.name for p in tool.params if p.ref}
        origins: set[str] = set()
        for name, source in step.sources.items():
            if source.kind == "user" or source.step is None or (
                    source.kind == "rule" and source.selection is None):
                continue  # stated, or set by a rule's words: no earlier answer feeds it
            found.add("sequential-dependency")
            origin = _service(plan[source.step])
            origins.add(origin)
            if source.kind == "computed" and source.op == "shift":
                # a date computed from a found one: reasoning on time, and a transformation
                found |= {"temporal-reasoning", "data-transformation"}
            elif source.kind == "computed":
                found |= {"data-transformation", "fan-in-aggregation"}
            if origin != _service(step):
                found.add("cross-env-constraint")
            if source.selection is not None:
                found.add("ranked-selection")
                if source.selection.among is not None:
                    found.add("multi-objective-tradeoff")
            if tool.kind == "write" and name in refs:
                found.add("referential-integrity")
        if tool.kind == "write" and len(origins) >= 2:
            found.add("fan-in-aggregation")
    writes = Counter(s.tool for s in plan if env.tools[s.tool].kind == "write")
    if any(n > 1 for n in writes.values()):
        found.add("fan-out")
    if scenario is not None:
        if scenario.rule is not None:
            found.add("explore-then-act")
            held = [t.step for t in scenario.traps if t.kind == "exception"]
            if scenario.rule.kind == "threshold" and condition is not None:
                target = condition.then
            elif scenario.rule.kind == "exception" and held:
                target = held[0]
            else:
                target = plan[scenario.rule.step]
            if _service(target) != _service(plan[0]):
                found.add("cross-env-constraint")
        kinds = {trap.kind for trap in scenario.traps}
        if "idempotency" in kinds:
            found.add("idempotency-check")
        if "exception" in kinds:
            found.add("batch-with-exceptions")
        if "refusal" in kinds:
            found.add("error-recovery")
    return [c for c in typing.get_args(Capability) if c in found]
