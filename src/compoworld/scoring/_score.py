"""Scoring a trajectory: rebuild the task's world, replay the calls, check the rubric."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import orjson

from compoworld.errors import UserError
from compoworld.models import ModelClient
from compoworld.rollout import CallRecord, Trajectory, build_world
from compoworld.scoring._model import CriterionScore, ReplayMismatch, ScoredTrajectory
from compoworld.service import Simulator
from compoworld.tasks import Call, Criterion, CriterionResult, Task, score
from compoworld.world import World

PROGRAMMATIC_KINDS = frozenset({"state", "answer", "call", "no_collateral"})
"""Criterion kinds checked by code; any other kind is judged by a model (``judge=``)."""

_JUDGE_PROMPT = """You check one requirement of a task an assistant did with tools.
Requirement: {requirement}
Task given to the assistant: {instruction}
Tool calls it made (name: success): {calls}
Its final answer: {answer}
Reply with one JSON object: {{"passed": true or false, "reason": "<one sentence>"}}."""


def called_tools(world: World, calls: Iterable[CallRecord]) -> list[Call]:
    """The calls that ran a tool successfully, as (qualified name, arguments) — through the
    gateway too (a ``call_tool`` is the call it made)."""
    out: list[Call] = []
    for call in calls:
        if not call.success or not isinstance(call.arguments, dict):
            continue
        if world.interface == "gateway":
            if call.name == "call_tool":
                arguments = call.arguments.get("arguments")
                out.append((str(call.arguments.get("tool_name")),
                            arguments if isinstance(arguments, dict) else {}))
        else:
            out.append((call.name, call.arguments))
    return out


def replay(world: World, calls: Iterable[CallRecord]) -> list[ReplayMismatch]:
    """Run ``calls`` again in order on ``world``; the calls whose outcome differs from the log.

    Only the calls logged as successful are run again: a failed call leaves no trace (the
    runtime rolls it back), and some were never run at all (unparsable arguments, calls past
    the per-turn limit), so running them could only add state the episode never had. A
    replayed call that now fails, or fails with another code, is a mismatch.
    """
    mismatches = []
    for index, call in enumerate(calls):
        if not call.success:
            continue
        envelope = world.call(call.name, call.arguments)
        error = envelope.get("error")
        code = error["code"] if error else None
        if envelope["success"] != call.success or code != call.code:
            mismatches.append(ReplayMismatch(
                index=index, name=call.name, logged_success=call.success, logged_code=call.code,
                replayed_success=envelope["success"], replayed_code=code))
    return mismatches


def _judge(client: ModelClient, criterion: Criterion, task: Task,
           trajectory: Trajectory) -> CriterionResult:
    """One model-judged criterion: the model reads the requirement, the calls and the answer."""
    calls = ", ".join(f"{c.name}: {c.success}" for c in trajectory.calls) or "none"
    prompt = _JUDGE_PROMPT.format(requirement=criterion.description, instruction=task.instruction,
                                  calls=calls, answer=trajectory.final_message or "(none)")
    reply = asyncio.run(client.chat([{"role": "user", "content": prompt}], temperature=0.0))
    try:
        verdict = orjson.loads((reply.content or "").strip().removeprefix("```json").strip("`\n "))
        return CriterionResult(criterion.id, bool(verdict["passed"]), str(verdict.get("reason", "")))
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return CriterionResult(criterion.id, False, f"judge reply not understood: {reply.content!r}")


def score_trajectory(task: Task, trajectory: Trajectory, *, simulator: Simulator | None = None,
                     judge: ModelClient | None = None,
                     world: World | None = None) -> ScoredTrajectory:
    """Score one trajectory of ``task`` on its rubric.

    The task's world is rebuilt and the successful calls of ``trajectory.calls`` replayed in
    order (:func:`replay`) — the runtime is deterministic, so this is the episode's final
    state; a replayed call whose outcome differs from the log is in ``replay_mismatches``.
    Then each criterion is checked against that state, the final message and the calls that
    succeeded.

    Args:
        task: The task the trajectory ran.
        trajectory: The rollout.
        simulator: The world model the episode used for simulated tools (default: a new
            offline simulator, which answers the same as the episode's offline one).
        judge: A model for criteria whose kind is not programmatic (``PROGRAMMATIC_KINDS``).
            The built-in rubrics have none; a task that declares one needs ``judge``.
        world: The task's world in its initial state, to replay on a fork of it (default:
            :func:`~compoworld.rollout.build_world`); it is not changed, so the rollouts of a
            group can share one.

    Raises:
        UserError: The trajectory is of another task, or a criterion needs a judge and none
            was given.

    Example:
        >>> import asyncio
        >>> from compoworld.tasks import generate_tasks
        >>> from compoworld.rollout import OracleAgent, run_episode
        >>> task = next(generate_tasks(1, seed=0))
        >>> scored = score_trajectory(task, asyncio.run(run_episode(task, OracleAgent())))
        >>> scored.score, scored.replay_mismatches
        (1.0, [])
    """
    if trajectory.task_id != task.id:
        raise UserError(f"trajectory of task {trajectory.task_id!r} scored against task {task.id!r}")
    judged = [c for c in task.rubric if c.kind not in PROGRAMMATIC_KINDS]
    if judged and judge is None:
        raise UserError(f"task {task.id!r} has model-judged criteria "
                        f"({', '.join(repr(c.id) for c in judged)}); pass a judge model client")
    initial = world if world is not None else build_world(task, simulator)
    episode = initial.fork()
    try:
        mismatches = replay(episode, trajectory.calls)
        programmatic = [c for c in task.rubric if c.kind in PROGRAMMATIC_KINDS]
        checked = {r.id: r for r in score(programmatic, initial.env, episode.env,
                                          trajectory.final_message,
                                          called_tools(episode, trajectory.calls))}
    finally:
        episode.env.close()
        if world is None:
            initial.env.close()
    for criterion in judged:
        assert judge is not None
        checked[criterion.id] = _judge(judge, criterion, task, trajectory)
    results = [checked[c.id] for c in task.rubric]
    return _scored(task, trajectory, results, mismatches)


def _scored(task: Task, trajectory: Trajectory, results: list[CriterionResult],
            mismatches: list[ReplayMismatch]) -> ScoredTrajectory:
    weights = [c.weight for c in task.rubric]
    passes = [r.passed for r in results]
    total = sum(weights)
    rubric_score = sum(w for w, p in zip(weights, passes, strict=True) if p) / total if total else 0.0
    criteria = [CriterionScore(id=c.id, kind=c.kind, weight=c.weight, passed=r.passed, reason=r.reason)
                for c, r in zip(task.rubric, results, strict=True)]
    env_errors = sum(1 for c in trajectory.calls if c.error_source == "environment")
    return ScoredTrajectory(
        task_id=task.id, rollout_idx=trajectory.rollout_idx, criteria=criteria, passes=passes,
        weights=weights, rubric_score=round(rubric_score, 6), score=1.0 if all(passes) else 0.0,
        replay_mismatches=mismatches, env_errors=env_errors, labels=task.labels,
        trajectory=trajectory)


def score_trajectories(tasks: Iterable[Task], trajectories: Iterable[Trajectory], *,
                       simulator: Simulator | None = None,
                       judge: ModelClient | None = None) -> list[ScoredTrajectory]:
    """Score each trajectory against its task (matched by ``task_id``), in input order.

    The rollouts of a task share one initial world and world model, as in their group.

    Raises:
        UserError: A trajectory's task is not among ``tasks``.
    """
    by_id = {t.id: t for t in tasks}
    worlds: dict[str, World] = {}  # one initial world (and world model) per task, as in a group
    out = []
    try:
        for trajectory in trajectories:
            task = by_id.get(trajectory.task_id)
            if task is None:
                raise UserError(f"trajectory {trajectory.rollout_idx} of task "
                                f"{trajectory.task_id!r}: no such task in the tasks file "
                                f"({len(by_id)} tasks)")
            if task.id not in worlds:
                worlds[task.id] = build_world(task, simulator)
            out.append(score_trajectory(task, trajectory, judge=judge, world=worlds[task.id]))
    finally:
        for world in worlds.values():
            world.env.close()
    return out
