"""Reward functions for TRL's ``GRPOTrainer``, scoring each rollout on its task's rubric.

TRL calls a reward function as ``f(prompts=..., completions=..., completion_ids=...,
**columns)`` and reads one float (or None) per completion. With an ``environment_factory`` it
also passes ``environments``: the environment instance of each completion, whose
:attr:`~compoworld.train.TaskEnvironment.episode` holds the world the model acted on. The final
answer is the content of the completion's last assistant turn (a rollout cut off in the middle
of a tool call has none: answer criteria fail). Every function here scores the rubric once per
rollout (cached on the episode) and turns the pass vector into a reward:

* :func:`rubric_reward` — per rollout, no group needed: ``uniform`` (weighted fraction of the
  criteria passed) or ``binary`` (1 only on full completion);
* :func:`criterion_reward` — the fraction passed of one criterion kind (``state``, ``answer``,
  ``call``, ``no_collateral``); None for a task without that kind, which TRL leaves out;
* :func:`group_reward` — a scheme that compares the rollouts of a group: ``cfr`` (the
  Completion-Focused Reward) or ``gdpo``, or any of :data:`compoworld.rewards.SCHEMES`.

**The group caveat.** A group is the ``num_generations`` consecutive rows of one prompt. A
group scheme needs the whole group at once: in one process it has it (TRL's sampler repeats
each prompt ``num_generations`` times in a row, and the generation batch is a multiple of it).
With several processes, TRL hands each process a slice of the batch, and a group may be split
between processes; :func:`group_reward` then gathers the pass vectors of every process (in rank
order, the order TRL itself uses to group rewards for the advantages), scores the whole batch
and keeps its own slice — every process must call it, as TRL does. In any case the rows it
groups must be whole groups of one task each, or it raises :class:`~compoworld.errors.UserError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from compoworld.errors import UserError
from compoworld.rewards import SCHEMES, binary, get_scheme, pack_groups, uniform
from compoworld.tasks._model import CriterionKind

RewardFunction = Callable[..., list[float | None]]
"""What ``GRPOTrainer(reward_funcs=...)`` accepts: keyword arguments in, one value per row out."""

_KINDS: tuple[CriterionKind, ...] = ("state", "answer", "call", "no_collateral")


def final_answer(completion: Any) -> str:
    """The model's final answer in a completion: the content of its last assistant turn when
    that turn calls no tool, else "" (the rollout was cut off). Plain-text completions are
    their own answer."""
    if isinstance(completion, str):
        return completion
    for message in reversed(completion or []):
        if message.get("role") == "assistant":
            return "" if message.get("tool_calls") else str(message.get("content") or "")
    return ""


def rollout_passes(environments: Sequence[Any] | None, completions: Sequence[Any]) -> list[list[bool]]:
    """The rubric pass vector of each rollout (cached on the episode: scored once per rollout).

    Raises:
        UserError: No environments (the trainer has no CompoWorld ``environment_factory``), or
            one that was never reset.
    """
    if environments is None:
        raise UserError("CompoWorld reward functions score the environment of each rollout: give "
                        "GRPOTrainer environment_factory=environment_factories(tasks)")
    if len(environments) != len(completions):
        raise UserError(f"{len(environments)} environments for {len(completions)} completions")
    out = []
    for env, completion in zip(environments, completions, strict=True):
        episode = getattr(env, "episode", None)
        if episode is None:
            raise UserError(f"{type(env).__name__} has no episode: not a reset CompoWorld environment")
        answer = final_answer(completion)
        cache = episode.__dict__.setdefault("_passes", {})
        if answer not in cache:
            cache[answer] = episode.passes(answer)
        out.append(cache[answer])
    return out


def _weights(environments: Sequence[Any]) -> list[list[float]]:
    return [[c.weight for c in env.episode.task.rubric] for env in environments]


def _named(fn: RewardFunction, name: str) -> RewardFunction:
    fn.__name__ = fn.__qualname__ = name  # TRL logs each reward under its function's name
    return fn


def rubric_reward(scheme: str = "uniform") -> RewardFunction:
    """A per-rollout rubric reward: ``uniform`` (weighted fraction passed) or ``binary``.

    Example:
        >>> rubric_reward("binary").__name__
        'rubric_binary'
    """
    if scheme not in ("uniform", "binary"):
        raise UserError(f"rubric_reward scheme must be 'uniform' or 'binary', got {scheme!r} "
                        "(group schemes such as 'cfr' are group_reward)")
    fn = uniform if scheme == "uniform" else binary

    def reward(completions: Sequence[Any], environments: Sequence[Any] | None = None,
               **_: Any) -> list[float | None]:
        passes = rollout_passes(environments, completions)
        assert environments is not None
        return [float(fn([[p]], weights=[w])[0, 0]) if p else 0.0
                for p, w in zip(passes, _weights(environments), strict=True)]

    return _named(reward, f"rubric_{scheme}")


def criterion_reward(kind: CriterionKind) -> RewardFunction:
    """The fraction of a task's criteria of one ``kind`` that the rollout passes (None when the
    task has none of that kind: TRL then leaves this reward out for that row).

    Example:
        >>> criterion_reward("state").__name__
        'criteria_state'
    """
    if kind not in _KINDS:
        raise UserError(f"criterion kind must be one of {', '.join(_KINDS)}; got {kind!r}")

    def reward(completions: Sequence[Any], environments: Sequence[Any] | None = None,
               **_: Any) -> list[float | None]:
        passes = rollout_passes(environments, completions)
        assert environments is not None
        out: list[float | None] = []
        for p, env in zip(passes, environments, strict=True):
            mine = [ok for ok, c in zip(p, env.episode.task.rubric, strict=True) if c.kind == kind]
            out.append(sum(mine) / len(mine) if mine else None)
        return out

    return _named(reward, f"criteria_{kind}")


def _gather(values: list[Any]) -> tuple[list[Any], int]:
    """Every process's ``values`` in rank order, and where this process's start (one process:
    ``values`` itself, offset 0)."""
    try:
        import torch.distributed as dist
    except ImportError:  # pragma: no cover - torch comes with the train extra
        return values, 0
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return values, 0
    parts: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(parts, values)
    offset = sum(len(p) for p in parts[: dist.get_rank()])
    return [v for part in parts for v in part], offset


def group_reward(scheme: str = "cfr", *, num_generations: int, **params: Any) -> RewardFunction:
    """A reward computed over each group of ``num_generations`` consecutive rollouts.

    Args:
        scheme: A name of :data:`compoworld.rewards.SCHEMES` (``cfr``, ``gdpo``, ``uniform``,
            ``binary``).
        num_generations: The group size ``G`` (the trainer's ``num_generations``).
        **params: The scheme's parameters (``cfr``: ``tau``, ``floor``).

    Raises:
        UserError: Unknown scheme, ``num_generations`` < 1; at call time, rows that are not
            whole groups of one task.

    Example:
        >>> group_reward("cfr", num_generations=4, tau=0.5).__name__
        'group_cfr'
    """
    if num_generations < 1:
        raise UserError(f"num_generations must be at least 1, got {num_generations}")
    if scheme not in SCHEMES:
        raise UserError(f"unknown reward scheme {scheme!r}; known: {', '.join(SCHEMES)}")
    compute = get_scheme(scheme, **params)

    def reward(completions: Sequence[Any], environments: Sequence[Any] | None = None,
               log_metric: Callable[[str, float], None] | None = None,
               **_: Any) -> list[float | None]:
        passes_local = rollout_passes(environments, completions)
        assert environments is not None
        local = [(env.episode.task.id, p, [c.weight for c in env.episode.task.rubric])
                 for env, p in zip(environments, passes_local, strict=True)]
        rows, offset = _gather(local)
        if len(rows) % num_generations:
            raise UserError(f"{len(rows)} rollouts are not whole groups of {num_generations}: set "
                            "the trainer's batch sizes to multiples of num_generations")
        groups = [rows[i:i + num_generations] for i in range(0, len(rows), num_generations)]
        for index, group in enumerate(groups):
            if len({task_id for task_id, _, _ in group}) != 1:
                raise UserError(f"group {index} mixes tasks {sorted({t for t, _, _ in group})}: the "
                                f"rows are not {num_generations} consecutive rollouts of one prompt")
        passes, mask, weights = pack_groups([[p for _, p, _ in g] for g in groups],
                                            [g[0][2] for g in groups])
        values = np.asarray(compute(passes, mask, weights)).reshape(-1)
        if log_metric is not None and local:
            log_metric("compoworld/full_completion", float(np.mean([all(p) for p in passes_local])))
        return [float(v) for v in values[offset:offset + len(local)]]

    return _named(reward, f"group_{scheme}")


def reward_functions(scheme: str, *, num_generations: int, per_kind: bool = False,
                     **params: Any) -> list[RewardFunction]:
    """The reward functions of a recipe, the one trained on first.

    The first is ``scheme``: a group scheme such as ``cfr`` (:func:`group_reward`), or
    ``uniform``/``binary`` per rollout (:func:`rubric_reward`). Then come monitors, to be given
    weight 0 in ``GRPOConfig.reward_weights`` so they are logged, not trained on: the uniform
    rubric score and full completion (so runs with different rewards compare on one scale),
    and with ``per_kind`` the pass rate of each criterion kind.

    Example:
        >>> [f.__name__ for f in reward_functions("cfr", num_generations=4)]
        ['group_cfr', 'rubric_uniform', 'rubric_binary']
    """
    main = (rubric_reward(scheme) if scheme in ("uniform", "binary") and not params
            else group_reward(scheme, num_generations=num_generations, **params))
    monitors = [rubric_reward(s) for s in ("uniform", "binary") if main.__name__ != f"rubric_{s}"]
    return [main, *monitors, *([criterion_reward(k) for k in _KINDS] if per_kind else [])]
