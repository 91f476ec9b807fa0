"""Tasks as data: the executed reference plan, the rubric, the instruction, the gates."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Capability = Literal["conditional-branching", "cross-env-constraint", "sequential-dependency",
                     "ranked-selection", "data-transformation", "multi-objective-tradeoff",
                     "explore-then-act", "temporal-reasoning", "idempotency-check", "fan-out",
                     "referential-integrity", "fan-in-aggregation", "batch-with-exceptions",
                     "error-recovery"]
"""The release's fourteen capability labels; a task carries those its structure has."""
CriterionKind = Literal["state", "answer", "call", "no_collateral"]
RuleKind = Literal["value", "selection", "exception", "threshold"]
"""What a rule stored in the world sets: a write's value, which list item to take, which item
of a batch to leave out, the limit a conditional write depends on."""
TrapKind = Literal["idempotency", "exception", "decoy", "refusal"]
"""Why the naive plan's extra step is wrong: it duplicates a record, or it acts on an item the
rule holds back; or (``refusal``) why the call as asked is not the plan's: the service refuses
it, and the plan's step in its place is the recovery (``tasks._recovery``)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Among(_Model):
    """The second criterion of a two-criteria choice: only the items whose ``by`` is above
    (``gt``) or below (``lt``) ``threshold`` count ("among those rated above 3"), or equals
    it (``eq``: a status, a flag: "among those still open"); a date threshold (ISO text)
    compares by day ("among those due after 2026-03-05")."""

    by: str
    op: Literal["gt", "lt", "eq"]
    threshold: float | int | str | bool

    def admits(self, item: Any) -> bool:
        """Whether ``item`` (a dict) meets the criterion (an item without the field: no)."""
        value = item.get(self.by) if isinstance(item, dict) else None
        if self.op == "eq":
            return value is not None and value == self.threshold
        if value is None or isinstance(value, bool):
            return False
        if isinstance(self.threshold, str):  # a date: by day
            day = str(value)[:10]
            return day > self.threshold if self.op == "gt" else day < self.threshold
        try:
            return bool(value > self.threshold if self.op == "gt" else value < self.threshold)
        except TypeError:
            return False


class Selection(_Model):
    """How one item of a list answer is chosen: the one with the max/min ``by`` — among the
    items ``among`` admits, when the choice has two criteria (``multi-objective-tradeoff``:
    "the cheapest of those rated above 3")."""

    by: str
    order: Literal["max", "min"]
    among: Among | None = None

    def candidates(self, items: list[Any]) -> list[int]:
        """The indices of the items this selection ranks (they hold ``by``; ``among`` admits
        them)."""
        return [i for i, item in enumerate(items) if isinstance(item, dict)
                and item.get(self.by) is not None
                and (self.among is None or self.among.admits(item))]

    def pick(self, items: list[Any]) -> int:
        """The index of the item this selection singles out (the first, on a tie).

        Raises:
            ValueError: No item of ``items`` is ranked.

        Example:
            >>> cheap = Selection(by="price", order="min",
            ...                   among=Among(by="rating", op="gt", threshold=3))
            >>> cheap.pick([{"price": 5, "rating": 2}, {"price": 9, "rating": 4},
            ...             {"price": 7, "rating": 5}])
            2
        """
        ranked = self.candidates(items)
        best = max if self.order == "max" else min
        return best(ranked, key=lambda i: items[i][self.by])


class DateShift(_Model):
    """A date said relative to another: ``n`` days (``days``, negative: before), ``n``
    business days (``business_days``: Monday to Friday), or the first weekday ``n`` after it
    (``weekday``: 0 is Monday; "the Tuesday after")."""

    unit: Literal["days", "business_days", "weekday"]
    n: int


class ArgSource(_Model):
    """Where an argument's value comes from: the user states it (``user``), an earlier step's
    answer holds it (``step``, at ``path``), it is computed from an earlier answer
    (``computed``: ``op`` over the values at ``paths`` — e.g. the sum of a list's amounts —
    or the date at ``path`` moved by ``shift``), or
    a rule stored in the world sets it (``rule``: the record step ``step`` finds states it, in
    words; see ``Scenario.rule``), or the service's refusal of the call as asked gives it
    (``refusal``: a recovery's value, e.g. the time the blocking event ends; see
    ``tasks._recovery``)."""

    kind: Literal["user", "step", "computed", "rule", "refusal"]
    step: int | None = None
    path: str | None = None
    semantic: str | None = None
    selection: Selection | None = None
    each: bool = False
    """A fan-out: the write is done for each item of the list, this one for item ``path``'s."""
    op: Literal["sum", "shift"] | None = None
    paths: list[str] = []
    shift: DateShift | None = None
    """``op="shift"``: the date at ``path`` of step ``step``'s answer, moved by this ("two
    business days before the due date of that invoice")."""


class Step(_Model):
    """One executed call of the reference plan."""

    tool: str
    arguments: dict[str, Any]
    sources: dict[str, ArgSource]
    output: Any


class Condition(_Model):
    """A branch on a value an earlier step found: the write ``then`` is to be done only if the
    value at ``path`` of step ``source``'s answer is above (``gt``) or below (``lt``)
    ``threshold`` (dates compare by day). ``holds`` says which way the world goes: when it
    holds, ``then`` is the plan's last step; when not, the plan stops before it."""

    source: int
    path: str
    op: Literal["gt", "lt"]
    threshold: float | int | str
    holds: bool
    then: Step


class Criterion(_Model):
    """One programmatic check of the rubric.

    The rubric is the reference plan's effect, row by row, plus what the user asks to be told:

    * ``state`` — one expected change (``change``) of one record of ``table``: ``create`` —
      exactly one new record has the ``match`` values (``record_id`` is the id the reference
      run gave it: a field of another criterion holding that id means the episode's record);
      ``update`` — record ``record_id`` ends with the ``match`` values (every field of the
      reference's final record but the ``free`` ones: the fields it sets and those it leaves
      alone); ``delete`` — record ``record_id`` is gone; ``absent`` — no new record of
      ``table`` has the ``match`` values (an idempotency trap: what the request asks for is
      already there, so making it again is a duplicate).
    * ``no_collateral`` — nothing else changed, anywhere in the world: every record that
      differs from the initial state is one a ``state`` criterion of the rubric expects (and
      the episode did some of what is expected: doing nothing is no success at this).
    * ``answer`` — the final message states ``values[0]`` as a whole value, after normalizing
      by ``semantic`` (with a ``selection``: of the list item it singles out), and states no
      other candidate value of the field it comes from (``fields``: ``table.column`` where
      the world holds such values; ``known``: values the task gives or uses, which a report
      may mention).
    * ``call`` — a successful call of ``tool`` with (at least) ``arguments``: only for a call
      that has no effect on state to check.

    ``free`` names the fields that may legitimately differ from the reference, each with why
    (a generated id, a value the world model invents); it is never left implicit.
    """

    id: str
    kind: CriterionKind
    description: str
    weight: float = 1.0
    table: str | None = None
    change: Literal["create", "update", "delete", "absent"] | None = None
    record_id: str | None = None
    match: dict[str, Any] = {}
    free: dict[str, str] = {}
    values: list[Any] = []
    selection: Selection | None = None
    semantic: str | None = None
    fields: list[str] = []
    known: list[Any] = []
    step: int | None = None
    """``answer``: the plan step whose answer holds the value (None: the last)."""
    tool: str | None = None
    arguments: dict[str, Any] = {}


class Planted(_Model):
    """A record the scenario adds to the world before the episode (part of its initial state)."""

    service: str
    entity: str
    values: dict[str, Any]
    first: bool = False
    """Listed before the table's other records in its default (insertion) order: a record older
    than those the world was seeded with, on the first page of a list that shows one page
    (``tasks._planting``)."""


class Rule(_Model):
    """A rule stored in the world that the agent must find and follow, in a colleague's email
    in the user's mailbox, which the plan reads first (step 0); the instruction points to it
    and never states it.

    ``value``: the email sets the value of ``step``'s ``param``. ``selection``: the email says
    which item of a list to take ("always the one with the latest close date"): every argument
    of the plan whose source is ``kind="rule"`` with a selection is picked by it.
    ``exception``: the email holds one item of a fan-out back ("leave Acme Corp out: on
    hold"): ``value`` names it, ``param`` is the item's field that holds the name, and the
    write left out for it is the scenario's trap of kind ``exception`` (at ``step``).
    ``threshold``: the email sets the task's condition's threshold (``value``; ``param`` is
    the condition's path): "only if the balance is more than the limit in Dana's email".
    """

    kind: RuleKind = "value"
    author: str
    subject: str
    step: int
    param: str
    value: Any
    selection: Selection | None = None


class Trap(_Model):
    """A step the naive plan makes and the reference leaves out, because of what the world
    holds; doing it fails the rubric.

    * ``idempotency`` — what ``step`` would create is already in the world (planted): doing
      it again is a duplicate.
    * ``exception`` — ``step`` is one write of a fan-out, for the item the rule's email holds
      back (``Rule.kind == "exception"``): doing it changes a record nobody asked to change.
    * ``decoy`` — ``record`` (planted in ``table``) has the name of the one the read ``step``
      (at ``position``, kept in the plan) finds; the instruction says which one is meant.
      Taking the decoy's values writes the wrong ones.
    """

    kind: TrapKind = "idempotency"
    table: str
    step: Step
    position: int
    """Where the left-out step stood in the plan (for the naive plan the gate runs); for a
    decoy, where the read that lists it stands."""
    record: str | None = None
    """A decoy's id."""


class Scenario(_Model):
    """What the task adds to a walk: who asks, records planted in the world, the rule to
    follow and the traps to avoid."""

    persona: str
    planted: list[Planted] = []
    rule: Rule | None = None
    traps: list[Trap] = []
    notes: list[str] = []
    """Sentences the instruction carries for the rule and the traps."""


class Labels(_Model):
    domain: str
    capabilities: list[Capability]
    services: list[str]


class Task(_Model):
    """A verified task: a world to build, what to ask, how to check it, and how it was made."""

    id: str
    seed: int
    """The seed of the task's world (its people, companies and records): drawn per batch of
    attempts from the run's seed (``provenance["run_seed"]``, the ``--seed`` of ``compoworld
    generate``; see ``tasks.world_seed``). Tasks written before worlds varied within a run
    have no ``run_seed``: theirs was this seed."""
    involved: list[str]
    distractors: list[str]
    interface: Literal["direct", "gateway"]
    today: str
    system_prompt: str
    instruction: str
    plan: list[Step]
    condition: Condition | None = None
    scenario: Scenario | None = None
    rubric: list[Criterion]
    labels: Labels
    verification: dict[str, bool]
    provenance: dict[str, Any]
