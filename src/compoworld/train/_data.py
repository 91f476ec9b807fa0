"""Training data: tasks and SFT records from files, or made on the embedded defaults.

On the embedded defaults the pipeline runs end to end without a model or network: verified
tasks (:func:`compoworld.tasks.generate_tasks`) → oracle rollouts → rubric scores → SFT
records (:func:`compoworld.export.sft_record`, full completions only).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from compoworld.errors import UserError
from compoworld.tasks import GenerationSettings, Task, generate_tasks, load_tasks
from compoworld.train._recipes import DataSettings


def make_tasks(settings: DataSettings, *, n: int | None = None, seed_offset: int = 0) -> list[Task]:
    """``n`` (default ``settings.tasks``) verified tasks of ``settings``, seeded by
    ``settings.seed + seed_offset`` (offset 1: the held-out evaluation tasks).

    Raises:
        UserError: Fewer tasks than asked could be generated.
    """
    low, high = settings.steps
    generation = GenerationSettings(min_steps=low, max_steps=high, distractors=settings.distractors,
                                    interface=settings.interface)
    count = settings.tasks if n is None else n
    tasks = list(generate_tasks(count, seed=settings.seed + seed_offset, settings=generation))
    if len(tasks) < count:
        raise UserError(f"only {len(tasks)} of {count} tasks could be generated with {settings}; "
                        "ask for fewer or change the walk length")
    return tasks


def sft_records(tasks: Iterable[Task]) -> list[dict[str, Any]]:
    """SFT records of the oracle's rollouts of ``tasks`` that complete their rubric."""
    from compoworld.export import sft_record
    from compoworld.rollout import OracleAgent, run_episode
    from compoworld.scoring import score_trajectory

    async def run_all(items: list[Task]) -> list[Any]:
        agent = OracleAgent()
        return [await run_episode(task, agent) for task in items]

    items = list(tasks)
    return [sft_record(s, task) for task, trajectory in zip(items, asyncio.run(run_all(items)),
                                                            strict=True)
            if (s := score_trajectory(task, trajectory)).score == 1.0]


def load_sft_records(path: str | Path) -> list[dict[str, Any]]:
    """SFT records from a JSONL or Parquet file (``compoworld export sft`` writes them).

    Raises:
        UserError: No such file, or a record without ``messages``.
    """
    from compoworld.export import load_sft

    file = Path(path)
    if not file.is_file():
        raise UserError(f"no SFT data file {str(path)!r} (make one with `compoworld export sft`)")
    records = load_sft(file)
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
            raise UserError(f"{file}: record {number} has no 'messages' list")
    if not records:
        raise UserError(f"{file} holds no records")
    return records


def load_task_file(path: str | Path) -> list[Task]:
    """The tasks of a JSONL file; at least one.

    Raises:
        UserError: No such file, a bad line, or no task.
    """
    tasks = load_tasks(path)
    if not tasks:
        raise UserError(f"{path} holds no tasks")
    return tasks


def sft_dataset(records: Iterable[dict[str, Any]]) -> Any:
    """A ``datasets.Dataset`` for TRL's ``SFTTrainer``: ``messages`` plus ``tools`` as JSON text.

    Takes SFT records of either form (``release`` or ``trl``). TRL reads a ``tools`` column
    given as JSON text; as text, the tool schemas of different records never get merged into
    one Arrow struct (which would fill them with nulls).
    """
    from datasets import Dataset

    rows = [{"messages": [_plain(m) for m in r["messages"]],
             "tools": tools if isinstance(tools := r.get("tools") or [], str)
             else orjson.dumps(tools).decode()} for r in records]
    if not rows:
        raise UserError("no SFT records to train on")
    return Dataset.from_list(rows)


def _plain(message: dict[str, Any]) -> dict[str, Any]:
    """A message with the keys every message has (so the Arrow column has one type); an
    assistant turn keeps its ``reasoning_content``, which the bundled chat template renders
    as a ``<think>`` block inside the trained span."""
    out = {"role": message["role"], "content": message.get("content") or "",
           "reasoning_content": message.get("reasoning_content") or None}
    calls = message.get("tool_calls")
    out["tool_calls"] = [{"type": "function", "function": {
        "name": c["function"]["name"],
        "arguments": c["function"]["arguments"] if isinstance(c["function"]["arguments"], str)
        else orjson.dumps(c["function"]["arguments"]).decode()}} for c in calls] if calls else None
    out["name"] = message.get("name")
    return out
