"""Generating verified tasks: walk, replay on the task's own world, rubric, instruction, gates."""

from __future__ import annotations

import multiprocessing
import random
import typing
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache

from faker import Faker

from compoworld.catalog import load_service, load_services, service_names
from compoworld.graph import DependencyGraph, build_graph
from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._instruction import instruction, system_prompt
from compoworld.tasks._model import Capability, Criterion, Labels, Step, Task
from compoworld.tasks._rubric import answer_criterion, state_criteria
from compoworld.tasks._verify import gates
from compoworld.tasks._walk import walk
from compoworld.types import derive_seed
from compoworld.world import Interface, World, compose

GENERATOR_VERSION = "walk-v0"


@dataclass(frozen=True)
class GenerationSettings:
    """What shapes the tasks: walk length, distractors, interface."""

    min_steps: int = 3
    max_steps: int = 6
    distractors: int = 2
    interface: Interface = "direct"


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


@lru_cache(maxsize=4)
def _catalog_world(seed: int) -> tuple[World, DependencyGraph]:
    names = service_names()
    return compose(names, seed=seed), build_graph(load_services(names))


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


def _signature(plan: list[Step]) -> tuple[object, ...]:
    return tuple((s.tool, tuple(sorted((k, v.kind, v.step) for k, v in s.sources.items())))
                 for s in plan)


def _capabilities(plan: list[Step]) -> list[Capability]:
    found: set[Capability] = set()
    for step in plan:
        service = step.tool.split(SEPARATOR, 1)[0]
        for source in step.sources.values():
            if source.kind == "user" or source.step is None:
                continue
            found.add("sequential-dependency")
            if source.kind == "computed":
                found.add("data-transformation")
            if plan[source.step].tool.split(SEPARATOR, 1)[0] != service:
                found.add("cross-env-constraint")
            if source.selection is not None:
                found.add("ranked-selection")
    return [c for c in typing.get_args(Capability) if c in found]


def generate_task(seed: int, attempt: int, settings: GenerationSettings,
                  seen: set[tuple[object, ...]] | None = None) -> Task | str:
    """One attempt: a verified :class:`Task`, or the name of the gate that rejected it."""
    rng = random.Random(derive_seed(seed, "task", attempt))
    fake = _faker()
    fake.seed_instance(derive_seed(seed, "task-text", attempt))
    template, graph = _catalog_world(seed)
    walked = walk(template.fork(), graph, rng, fake, rng.randint(settings.min_steps,
                                                                 settings.max_steps))
    if walked is None:
        return "walk"
    plan = _prune(walked.steps, template.env)
    involved = list(dict.fromkeys(s.tool.split(SEPARATOR, 1)[0] for s in plan))
    if len(involved) < 2:
        return "walk"
    world = compose(involved, distractors=settings.distractors, seed=seed,
                    interface=settings.interface)
    # Replay on the task's own world, building state criteria from each write's effect.
    env = world.fork().env
    rubric: list[Criterion] = []
    for i, step in enumerate(plan):
        mark = len(env.changes() or [])
        envelope = env.call(step.tool, step.arguments)
        if not envelope["success"] or envelope["data"] != step.output:
            return "replay"
        rubric.extend(state_criteria(i, step, (env.changes() or [])[mark:]))
    writes = sorted({s.tool for s in plan if env.tools[s.tool].kind == "write"})
    answer = answer_criterion(plan[-1], env) if env.tools[plan[-1].tool].kind == "read" else None
    if answer is not None:
        rubric.append(answer)
    if not any(c.kind in ("state", "answer") for c in rubric):
        return "rubric"
    rubric += [Criterion(id=f"call-{t}", kind="call", tool=t, description=f"{t} is called")
               for t in writes]
    changed = sorted({c.table for c in rubric if c.table})
    rubric.append(Criterion(id="no-collateral", kind="no_collateral", tables=changed,
                            description="no other records change"))

    text = instruction(plan, env, answer)
    verification = gates(world, plan, rubric, env, text, answer)
    failed = [gate for gate, ok in verification.items() if not ok]
    if failed:
        return failed[0]
    signature = _signature(plan)
    if seen is not None:
        if signature in seen:
            return "duplicate"
        seen.add(signature)
    services = [load_service(n) for n in involved]
    return Task(
        id=f"t{seed}-{attempt:06d}", seed=seed, involved=involved,
        distractors=list(world.distractors), interface=settings.interface,
        today=world.today.isoformat(), system_prompt=system_prompt(world.today.isoformat()),
        instruction=text, plan=plan, rubric=rubric,
        labels=Labels(domain="+".join(sorted({s.domain for s in services})),
                      capabilities=_capabilities(plan), services=involved),
        verification={**verification, "not_duplicate": True},
        provenance={"generator": GENERATOR_VERSION, "attempt": attempt,
                    "steps": len(plan), "min_steps": settings.min_steps,
                    "max_steps": settings.max_steps},
    )


def _attempt(job: tuple[int, int, GenerationSettings]) -> Task | str:
    """One attempt, in a worker process (no de-duplication: the parent does it in order)."""
    seed, attempt, settings = job
    return generate_task(seed, attempt, settings)


def generate_tasks(n: int, seed: int = 0, settings: GenerationSettings | None = None, *,
                   start_attempt: int = 0, stats: GenerationStats | None = None,
                   seen: set[tuple[object, ...]] | None = None,
                   max_attempts: int | None = None, workers: int = 1) -> Iterator[Task]:
    """Yield up to ``n`` verified tasks, attempt by attempt from ``start_attempt``.

    Deterministic: attempt ``i`` of seed ``s`` always gives the same task (or rejection), and
    results are taken in attempt order whatever ``workers`` is, so the output is the same with
    one process or many, and a run can resume from the last attempt it wrote.
    """
    settings = settings or GenerationSettings()
    stats = stats if stats is not None else GenerationStats()
    seen = seen if seen is not None else set()
    limit = max_attempts if max_attempts is not None else max(20, n * 10)
    jobs = ((seed, a, settings) for a in range(start_attempt, start_attempt + limit))
    kept = 0
    # "spawn": a forked child would inherit the parent's open SQLite connections.
    pool = (ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
            if workers > 1 else None)
    try:
        outcomes = pool.map(_attempt, jobs, chunksize=4) if pool else map(_attempt, jobs)
        for outcome in outcomes:
            if kept >= n:
                break
            stats.attempts += 1
            if isinstance(outcome, Task):
                signature = _signature(outcome.plan)
                if signature in seen:
                    outcome = "duplicate"
                else:
                    seen.add(signature)
            if isinstance(outcome, str):
                stats.rejected[outcome] += 1
                continue
            stats.kept += 1
            kept += 1
            yield outcome
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
