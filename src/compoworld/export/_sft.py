"""SFT export: scored trajectories → tool-calling chat records (``tools``, ``messages``, ``meta``).

The record is the OpenAI tool-calling shape that TRL's ``SFTTrainer`` (a conversational
dataset with a ``tools`` column) and most trainers read; arguments of tool calls stay JSON
text, as the OpenAI format has them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from compoworld.errors import UserError
from compoworld.export._write import read_records, write_records
from compoworld.scoring import ScoredTrajectory

Format = Literal["jsonl", "parquet"]


def _message(message: dict[str, Any]) -> dict[str, Any]:
    """One message in the record's shape (only the keys its role uses)."""
    role = message.get("role")
    if role == "assistant":
        out: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
        calls = message.get("tool_calls") or []
        if calls:
            out["tool_calls"] = [{
                "id": c["id"], "type": "function",
                "function": {"name": c["function"]["name"],
                             "arguments": c["function"]["arguments"]
                             if isinstance(c["function"]["arguments"], str)
                             else orjson.dumps(c["function"]["arguments"]).decode()}}
                for c in calls]
        if message.get("reasoning_content"):
            out["reasoning_content"] = message["reasoning_content"]
        return out
    if role == "tool":
        return {"role": "tool", "tool_call_id": message["tool_call_id"],
                "name": message.get("name", ""), "content": message.get("content") or ""}
    return {"role": str(role), "content": message.get("content") or ""}


def sft_record(scored: ScoredTrajectory) -> dict[str, Any]:
    """The SFT record of one scored trajectory.

    Example:
        >>> import asyncio
        >>> from compoworld.tasks import generate_tasks
        >>> from compoworld.rollout import OracleAgent, run_episode
        >>> from compoworld.scoring import score_trajectory
        >>> task = next(generate_tasks(1, seed=0))
        >>> record = sft_record(score_trajectory(task, asyncio.run(run_episode(task, OracleAgent()))))
        >>> sorted(record), [m["role"] for m in record["messages"]][:3]
        (['messages', 'meta', 'tools'], ['system', 'user', 'assistant'])
    """
    t = scored.trajectory
    return {
        "tools": t.tools,
        "messages": [_message(m) for m in t.messages],
        "meta": {
            "task_id": t.task_id, "rollout_idx": t.rollout_idx,
            "services": scored.labels.services, "domain": scored.labels.domain,
            "capabilities": list(scored.labels.capabilities),
            "rubric_score": scored.rubric_score, "score": scored.score,
            "n_tool_calls": len(t.calls), "n_steps": t.n_steps, "interface": t.interface,
            "finish_reason": t.finish_reason, "agent": t.agent, "model": t.model,
        },
    }


@dataclass
class ExportStats:
    """What an export kept and why it dropped the rest."""

    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    out: str = ""

    def drop(self, reason: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1


def export_sft(scored: Iterable[ScoredTrajectory], out: str | Path, min_score: float = 1.0,
               format: Format = "jsonl") -> ExportStats:
    """Write the SFT records of the trajectories that qualify.

    A trajectory qualifies when its ``score`` (full completion: 1.0 or 0.0) is at least
    ``min_score`` — use ``min_score=0`` with a filter of your own for partial credit — it
    ended with a final answer (``finish_reason == "stop"``) and its replay matched its log.
    Records keep the input order; the same input gives the same bytes.

    Args:
        scored: Scored trajectories (``compoworld score``).
        out: The file to write (replaced).
        min_score: Minimum ``score``.
        format: ``jsonl`` or ``parquet``.

    Returns:
        How many records were written, and the drops by reason.

    Raises:
        UserError: An unknown format.
    """
    if format not in ("jsonl", "parquet"):
        raise UserError(f"format must be 'jsonl' or 'parquet', got {format!r}")
    stats = ExportStats(out=str(out))
    records = []
    for s in scored:
        if s.score < min_score:
            stats.drop("score")
        elif s.trajectory.finish_reason != "stop":
            stats.drop("unfinished")
        elif s.replay_mismatches:
            stats.drop("replay_mismatch")
        else:
            records.append(sft_record(s))
    write_records(records, Path(out), format, sft=True)
    stats.kept = len(records)
    return stats


def load_sft(path: str | Path) -> list[dict[str, Any]]:
    """The SFT records of a file :func:`export_sft` wrote (JSONL or Parquet), exactly as written.

    Reading the Parquet file with plain pyarrow gives tools and messages as JSON text (they are
    stored as ``datasets`` ``Json`` values); this decodes them. ``datasets.load_dataset`` reads
    either format directly.

    Raises:
        UserError: No such file, or a record that is not JSON.
    """
    return read_records(Path(path))
