"""Generating verified tasks: walk (on the seeded catalog, see ``tasks._context``), prune,
reference run, rubric, instruction, gates; in order, over worker processes if asked."""

from __future__ import annotations

import multiprocessing
import os
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from faker import Faker

from compoworld.errors import CompoWorldError
from compoworld.service import SEPARATOR, Change, Environment
from compoworld.tasks._condition import add_condition
from compoworld.tasks._context import Context, warm, world_context
from compoworld.tasks._fanout import FANOUT_SHARE, add_fanout, separate
from compoworld.tasks._instruction import instruction, system_prompt
from compoworld.tasks._labels import capabilities
from compoworld.tasks._model import Condition, Criterion, Labels, Step, Task
from compoworld.tasks._purpose import motif_fields, purpose_sentence
from compoworld.tasks._ray import RayExecutor
from compoworld.tasks._rubric import (
    answer_criteria,
    collateral_criterion,
    knowing,
    state_criteria,
    trap_criteria,
)
from compoworld.tasks._scenario import (
    RULE_SERVICE,
    conditional_scenario,
    make_scenario,
    plant,
    run_planted,
)
from compoworld.tasks._temporal import TEMPORAL_SHARE, add_temporal
from compoworld.tasks._tradeoff import TRADEOFF_SHARE, trade
from compoworld.tasks._verify import gates
from compoworld.tasks._walk import Walk, walk
from compoworld.types import derive_seed
from compoworld.world import Interface, choose_distractors

GENERATOR_VERSION = "walk-v2"


@dataclass(frozen=True)
class GenerationSettings:
    """What shapes the tasks: walk length, distractors, interface, and the services walked
    over (None: the whole catalog; else a sorted tuple, see
    :func:`compoworld.tasks.select_services`, which distractors are drawn from too)."""

    min_steps: int = 3
    max_steps: int = 6
    distractors: int = 2
    interface: Interface = "direct"
    services: tuple[str, ...] | None = None


SETTINGS: dict[str, GenerationSettings] = {
    "default": GenerationSettings(),
    "long": GenerationSettings(min_steps=8, max_steps=12, distractors=10),
}
"""Named settings. ``long``: the release's layout — walks of 8–12 kept steps (fan-outs make
more calls), crossing up to 7 services, and 10 distractor services mounted beside them."""


@dataclass
class GenerationStats:
    """Walks attempted, tasks kept, and rejections per gate."""

    attempts: int = 0
    kept: int = 0
    rejected: Counter[str] = field(default_factory=Counter)

    @property
    def yield_rate(self) -> float:
        return self.kept / self.attempts if self.attempts else 0.0


@lru_cache(maxsize=1)
def _faker() -> Faker:
    """One Faker, reseeded for every attempt (building one costs ~2 ms)."""
    return Faker("en_US")


def _prune(plan: list[Step], env: Environment) -> list[Step]:
    """Drop reads that nothing uses: keep writes, the last step, and what they draw from."""
    keep = {len(plan) - 1} | {i for i, s in enumerate(plan) if env.tools[s.tool].kind == "write"}
    for i in range(len(plan) - 1, -1, -1):
        if i in keep:
            keep |= {src.step for src in plan[i].sources.values() if src.step is not None}
    index = {old: new for new, old in enumerate(sorted(keep))}
    return [step.model_copy(update={"sources": {
        name: src.model_copy(update={"step": index[src.step]}) if src.step is not None else src
        for name, src in step.sources.items()}}) for i, step in enumerate(plan) if i in keep]


def _signature(plan: list[Step], condition: Condition | None = None) -> tuple[object, ...]:
    steps = tuple((s.tool, tuple(sorted((k, v.kind, v.step) for k, v in s.sources.items())))
                  for s in plan)
    if condition is None:
        return steps
    return (*steps, ("if", condition.source, condition.path, condition.then.tool,
                     condition.holds))


def _services(plan: list[Step]) -> list[str]:
    return list(dict.fromkeys(s.tool.split(SEPARATOR, 1)[0] for s in plan))


CONDITIONAL_SHARE = 0.35
"""Share of attempts whose last write is put under a condition (where the plan allows)."""


Signature = tuple[object, ...]


def _plan(walked: Walk, env: Environment) -> tuple[list[Step], list[Criterion]]:
    """The walk without unused reads, and without a last read with nothing to tell; and the
    answer criteria when the plan ends on a read."""
    plan = _prune(walked.steps, env)
    while True:
        last = plan[-1]
        if env.tools[last.tool].kind != "read":
            return plan, []
        origin = next(i for i, s in enumerate(walked.steps) if s.tool == last.tool)
        answers = answer_criteria(last, env, walked.picks[origin], plan)
        if answers or len(plan) == 1:
            return plan, answers
        plan = _prune(plan[:-1], env)


REPORT_SHARE = 0.5
"""Share of attempts whose plan ends on a write that also ask to be told something found along
the way (where a read of the plan found a value worth reporting); the release asks for a report
in 13 of its 20 sampled tasks."""


def _report(walked: Walk, plan: list[Step], env: Environment) -> list[Criterion]:
    """A report back: the answer criteria of the last read of ``plan`` that found a value
    worth telling (none given to any call), or none."""
    for index in range(len(plan) - 1, -1, -1):
        step = plan[index]
        if env.tools[step.tool].kind != "read":
            continue
        origin = next(i for i, s in enumerate(walked.steps) if s.tool == step.tool)
        found = answer_criteria(step, env, walked.picks[origin], plan, step_index=index)
        if found:
            return found
    return []


def _restep(answer: Criterion, before: list[Step], plan: list[Step]) -> Criterion:
    """``answer`` with its step's index in ``plan`` (the same read, moved by the scenario)."""
    if answer.step is None:
        return answer
    read = before[answer.step]
    index = next(i for i, s in enumerate(plan)
                 if s.tool == read.tool and s.arguments == read.arguments)
    return answer.model_copy(update={"step": index})


def _reference(ctx: Context, walked: Walk, plan: list[Step]) -> list[list[Change]] | None:
    """Leave ``ctx.work`` as after the plan; each step's changes (None: it ran differently)."""
    if len(plan) == len(walked.steps):
        return walked.changes  # nothing pruned: the walk's own run is the reference run
    env = ctx.work
    env.reset()
    changes = []
    for step in plan:
        mark = len(env.changes() or ())
        envelope = env.call(step.tool, step.arguments)
        if not envelope["success"] or envelope["data"] != step.output:
            return None
        changes.append((env.changes() or [])[mark:])
    return changes


WORLD_BATCH = 32
"""Attempts that share one world: attempts ``k * WORLD_BATCH`` to ``(k + 1) * WORLD_BATCH - 1``
of a run walk the world of :func:`world_seed`. A small batch (~18 kept tasks at the default
setting's yield), so that no person or company of a world is in more than a handful of a run's
tasks (a world's walks keep meeting the same few records: the latest message, the largest
deal); not one attempt, since a new world costs ~0.85 CPU-s (its pool, seeding the ~20
services its walks reach, mounting them): at 8 attempts a world that was ~60% of generation's
CPU time (6.0 tasks per CPU-s), at 32 ~30% (13.7); see docs/design-tasks.md."""


def world_seed(seed: int, attempt: int) -> int:
    """The seed of the world attempt ``attempt`` of run ``seed`` walks (a task's ``seed``): one
    per batch of :data:`WORLD_BATCH` attempts, derived from both, 32 bits (exact in JSON).

    Example:
        >>> world_seed(0, 0) == world_seed(0, WORLD_BATCH - 1) != world_seed(0, WORLD_BATCH)
        True
    """
    return derive_seed(seed, "world", attempt // WORLD_BATCH) >> 31


def _attempt(seed: int, attempt: int, settings: GenerationSettings,
             seen: set[Signature] | None) -> tuple[Task | str, Signature | None]:
    """One attempt: a verified task or the gate that rejected it, and the plan's signature."""
    rng = random.Random(derive_seed(seed, "task", attempt))
    fake = _faker()
    fake.seed_instance(derive_seed(seed, "task-text", attempt))
    world = world_seed(seed, attempt)
    ctx = world_context(world, settings.services)
    env = ctx.fresh_work()
    walked = walk(ctx, rng, fake, rng.randint(settings.min_steps, settings.max_steps))
    if walked is None:
        return "walk", None
    plan, answers = _plan(walked, env)
    condition = None
    if rng.random() < CONDITIONAL_SHARE and not answers:
        made = add_condition(plan, env, rng)
        if made is not None and len(_services(made[0])) >= 2:
            plan, condition = made
    if not answers and rng.random() < REPORT_SHARE:
        answers = _report(walked, plan, env)
    fan = rng.random() < FANOUT_SHARE or walked.fans_out  # the motif does a write for each
    fanned = add_fanout(plan, env, rng) if condition is None and fan else None
    if len(_services(plan)) < 2:
        return "walk", None
    # The conditional write's service is mounted even when the plan stops before it.
    involved = _services([*plan, condition.then] if condition else plan)
    signature = _signature(plan, condition)
    if seen is not None and signature in seen:
        return "duplicate", signature  # checked before the gates, which cost the most
    changes = _reference(ctx, walked, plan)
    if changes is None:
        return "replay", signature
    if fanned is not None:
        ran = run_planted(ctx.fresh_work(), fanned)
        if ran is not None and separate(*ran):
            answers = [_restep(a, plan, ran[0]) for a in answers]
            plan, changes = ran
            signature = _signature(plan, condition)
            if seen is not None and signature in seen:
                return "duplicate", signature
        else:  # a copy refused, or copies that rewrite one record: the plan as it was
            ran = run_planted(ctx.fresh_work(), plan)
            if ran is None:
                return "fan_out", signature
            plan, changes = ran
    if condition is None and rng.random() < TRADEOFF_SHARE:
        traded = trade(plan, changes, answers, env, rng, ctx.fresh_work)
        if traded is None:
            return "replay", signature
        plan, changes, answers = traded
    if rng.random() < TEMPORAL_SHARE:
        dated = add_temporal(plan, env, rng)
        ran = run_planted(ctx.fresh_work(), dated) if dated is not None else None
        if ran is not None:
            plan, changes = ran
            if condition is not None and condition.holds:  # its write may be the one dated
                condition = condition.model_copy(update={"then": plan[-1]})
        elif dated is not None:  # the moved date is refused: the plan as it was
            ran = run_planted(ctx.fresh_work(), plan)
            if ran is None:
                return "replay", signature
            plan, changes = ran
    scenario = None
    if settings.services is None or RULE_SERVICE in settings.services:
        ctx.mount(RULE_SERVICE)
    before = plan  # what the answers' steps index (a limited condition moves them too)
    staged = make_scenario(plan, changes, env, rng, conditional=condition is not None,
                           fresh=lambda: ctx.fresh_scratch(_services(plan)))
    if condition is not None:
        limited = conditional_scenario(plan, condition, env, rng)
        if limited is not None:
            plan, condition, scenario = limited
            staged = plan, scenario
    if staged is not None:
        plan, scenario = staged
        try:
            env = plant(ctx.fresh_work(), scenario.planted)
        except CompoWorldError:
            return "scenario", signature  # the planted record does not fit the world
        ran = run_planted(env, plan)
        if ran is None:
            return "scenario", signature
        plan, changes = ran
        answers = [_restep(a, before, plan) for a in answers]
        # A trap's service stays mounted though the plan no longer calls it: its record is there.
        involved = list(dict.fromkeys([*_services([*plan, condition.then] if condition else plan),
                                       *(record.service for record in scenario.planted)]))
    answers = [knowing(answer, plan) for answer in answers]  # the plan as it now stands
    rubric = [*state_criteria(plan, changes, env), *trap_criteria(scenario, env), *answers]
    if not any(c.kind == "state" for c in rubric) and not answers:
        return "rubric", signature
    rubric.append(collateral_criterion())

    task_id = f"t{seed}-{attempt:06d}"
    text = instruction(plan, env, answers[0] if answers else None, condition,
                       notes=scenario.notes if scenario is not None else (),
                       rule=scenario.rule if scenario is not None else None,
                       traps=scenario.traps if scenario is not None else (),
                       purpose=purpose_sentence(walked, plan, env))
    planted = scenario.planted if scenario is not None else []

    def scratch() -> Environment:
        return plant(ctx.fresh_scratch(involved), planted)

    verification = gates(ctx.initial, scratch, plan, rubric, env, text, condition,
                         seed=derive_seed(world, task_id), scenario=scenario,
                         first_failure=True)
    failed = [gate for gate, ok in verification.items() if not ok]
    if failed:
        return failed[0], signature
    today = ctx.initial.today.isoformat()
    if settings.services is not None and len(set(settings.services) - set(involved)) < (
            settings.distractors):
        return "distractors", signature  # the subset has too few services left to distract
    distractors = choose_distractors(involved, settings.distractors, seed=world,
                                     pool=settings.services)
    task = Task(
        id=task_id, seed=world, involved=involved, distractors=distractors,
        interface=settings.interface, today=today, system_prompt=system_prompt(today),
        instruction=text, plan=plan, condition=condition, scenario=scenario, rubric=rubric,
        labels=Labels(domain="+".join(sorted({ctx.initial.services[n].domain
                                              for n in involved})),
                      capabilities=capabilities(plan, env, condition, scenario),
                      services=involved),
        verification={**verification, "not_duplicate": True},
        provenance={"generator": GENERATOR_VERSION, "run_seed": seed, "attempt": attempt,
                    **motif_fields(walked),
                    "steps": len(plan), "min_steps": settings.min_steps,
                    "max_steps": settings.max_steps},
    )
    return task, signature


def generate_task(seed: int, attempt: int, settings: GenerationSettings,
                  seen: set[Signature] | None = None) -> Task | str:
    """One attempt: a verified :class:`Task`, or the name of the gate that rejected it.

    Args:
        seed: The run's seed.
        attempt: The attempt number (the walk's randomness derives from seed and attempt; the
            world it walks is :func:`world_seed`'s, shared by a batch of attempts).
        settings: Walk length, distractors, interface.
        seen: Signatures of tasks kept so far: a plan with one of them is a ``duplicate``
            (checked before the costly gates); a kept task's signature is added.
    """
    outcome, signature = _attempt(seed, attempt, settings, seen)
    if isinstance(outcome, Task) and seen is not None and signature is not None:
        seen.add(signature)
    return outcome


_WORKER_SEEN: dict[str, dict[Signature, int]] = {}
"""In a worker process, per run: the signatures of the tasks this worker produced, with the
attempt of each. A later attempt with one of them is a duplicate whatever the other workers
found, since the parent takes outcomes in attempt order (so the output does not depend on the
number of workers). Only *earlier* attempts count: a worker may get its chunks out of order
(Ray does not promise the order of tasks), and an attempt is never the duplicate of a later one."""


def _chunk(job: tuple[int, int, int, GenerationSettings, str]
           ) -> list[tuple[Task | str, Signature | None]]:
    """Attempts ``start .. start + count - 1``, in a worker process."""
    seed, start, count, settings, run = job
    produced = _WORKER_SEEN.setdefault(run, {})
    seen = {signature for signature, attempt in produced.items() if attempt < start}
    out = []
    for attempt in range(start, start + count):
        outcome, signature = _attempt(seed, attempt, settings, seen)
        if isinstance(outcome, Task) and signature is not None:
            seen.add(signature)
            produced[signature] = min(produced.get(signature, attempt), attempt)
        out.append((outcome, signature))
    return out


def _pool(workers: int, seed: int, settings: GenerationSettings) -> ProcessPoolExecutor:
    """Worker processes. Forked (they inherit the loaded catalog, graph and seeded image: no
    start-up cost) when this process runs one thread; spawned (each loads the catalog) when
    other threads run, since forking those is unsafe."""
    warm(settings.services)
    method = ("fork" if "fork" in multiprocessing.get_all_start_methods()
              and threading.active_count() == 1 else "spawn")
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method))


def generate_tasks(n: int, seed: int = 0, settings: GenerationSettings | None = None, *,
                   start_attempt: int = 0, stats: GenerationStats | None = None,
                   seen: set[Signature] | None = None,
                   max_attempts: int | None = None, workers: int = 1,
                   ray: bool | str = False) -> Iterator[Task]:
    """Yield up to ``n`` verified tasks, attempt by attempt from ``start_attempt``.

    Deterministic: attempt ``i`` of seed ``s`` always gives the same task (or rejection), and
    results are taken in attempt order whatever ``workers`` is, so the output is the same with
    one process or many, and a run can resume from the last attempt it wrote.

    Args:
        n: How many tasks to keep.
        seed: The run's seed. Each batch of :data:`WORLD_BATCH` attempts walks a world of its
            own, seeded by :func:`world_seed` (a task's ``seed``; ``provenance["run_seed"]``
            is the run's), so people and companies do not recur across the run's tasks.
        settings: Walk length, distractors, interface.
        start_attempt: The first attempt number (a resumed run starts after its last one).
        stats: Filled with attempts, kept tasks and rejections per gate.
        seen: Signatures of tasks already kept (a resumed run's); kept ones are added.
        max_attempts: Give up after this many attempts (default ``max(20, 10 n)``).
        workers: Processes.
        ray: Run the attempts as Ray tasks instead (the same chunks ``workers`` sends to
            processes): True for the instance initialized in this process or a new local one,
            or an address (``"auto"``, ``"ray://host:10001"``). The output is the same.

    Example:
        >>> tasks = list(generate_tasks(2, seed=0))
        >>> [len(t.involved) >= 2 for t in tasks]
        [True, True]
    """
    settings = settings or GenerationSettings()
    stats = stats if stats is not None else GenerationStats()
    seen = seen if seen is not None else set()
    limit = max_attempts if max_attempts is not None else max(20, n * 10)
    end = start_attempt + limit
    kept = 0
    if n <= 0:
        return
    pool: ProcessPoolExecutor | RayExecutor | None = None
    if ray:
        warm(settings.services)  # the index on disk, for workers on this machine
        pool = RayExecutor(ray if isinstance(ray, str) else None)
        workers = pool.slots
    elif workers > 1:
        pool = _pool(workers, seed, settings)
    pending: deque[Any] = deque()
    run = f"{os.getpid()}-{id(stats)}-{time.monotonic_ns()}"
    cursor = start_attempt

    def submit() -> None:
        nonlocal cursor
        if pool is not None and cursor < end:
            # One job per world: a world is seeded in one worker only.
            count = min((cursor // WORLD_BATCH + 1) * WORLD_BATCH, end) - cursor
            pending.append(pool.submit(_chunk, (seed, cursor, count, settings, run)))
            cursor += count

    def outcomes() -> Iterator[tuple[Task | str, Signature | None]]:
        if pool is None:
            for attempt in range(start_attempt, end):
                yield _attempt(seed, attempt, settings, seen)
            return
        for _ in range(workers * 3):
            submit()
        while pending:
            done = pending.popleft().result()
            submit()
            yield from done

    try:
        for outcome, signature in outcomes():
            if kept >= n:
                break
            stats.attempts += 1
            if signature is not None and signature in seen:
                outcome = "duplicate"
            if isinstance(outcome, str):
                stats.rejected[outcome] += 1
                continue
            assert signature is not None
            seen.add(signature)
            stats.kept += 1
            kept += 1
            yield outcome
            if kept >= n:
                break
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

