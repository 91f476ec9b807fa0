"""A finished rollout as data: what one JSONL line of ``compoworld rollout`` holds.

Scoring (``compoworld score``) rebuilds the task's world and replays ``calls`` in order — the
runtime is deterministic, so the replayed final state is the episode's — then checks the
rubric against that state and ``final_message``.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from compoworld.tasks import Task

FinishReason = Literal["stop", "max_steps", "max_tokens", "timeout", "model_error", "env_error"]
"""``stop``: the agent gave a final answer. The others end a truncated episode;
``env_error``: the environment broke (a bug, never the agent's fault; ``error`` says how)."""

ErrorSource = Literal["agent", "environment"]
"""Who a failed call is blamed on: bad arguments / unknown tools / 4xx are the agent's;
500s and world-model failures are the environment's."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CallRecord(_Model):
    """One tool call the episode executed, with its envelope's outcome."""

    turn: int
    call_id: str
    name: str
    arguments: Any
    """Parsed arguments, or the raw text when the model's JSON did not parse."""
    success: bool
    code: int | None = None
    error: str | None = None
    error_source: ErrorSource | None = None
    seconds: float = 0.0


class Timings(_Model):
    total_s: float = 0.0
    env_s: float = 0.0
    model_s: float = 0.0


class Trajectory(_Model):
    """One rollout of one task: the conversation, the tools offered, every call, how it ended."""

    task_id: str
    rollout_idx: int
    agent: str
    model: str | None = None
    interface: Literal["direct", "gateway"]
    messages: list[dict[str, Any]]
    """OpenAI chat format (system, user, assistant with ``tool_calls``, tool with
    ``tool_call_id`` and ``name``); ``reasoning_content`` kept when the model sent it."""
    tools: list[dict[str, Any]]
    calls: list[CallRecord]
    final_message: str = ""
    finish_reason: FinishReason
    n_steps: int = 0
    malformed_calls: int = 0
    timings: Timings = Timings()
    usage: dict[str, int] = {}
    error: str | None = None
    """Why a ``model_error``, ``env_error`` or ``timeout`` episode ended, in words."""
    task_digest: str | None = None
    """:func:`task_digest` of the task rolled out: a rerun refuses to mix in rollouts of a
    task of the same id from another tasks file."""

    def to_line(self) -> bytes:
        """The trajectory as one JSONL line (no newline). One that cannot be serialized (a
        value nothing should have let through) becomes an ``env_error`` trajectory holding
        the opening messages and the reason, so a run never stops on it."""
        try:
            return self.model_dump_json().encode()
        except Exception as error:  # whatever it is, it is recorded
            return self.model_copy(update={
                "messages": self.messages[:2], "calls": [], "finish_reason": "env_error",
                "error": f"the trajectory could not be serialized ({type(error).__name__}: "
                         f"{str(error)[:200]}); its messages and calls were dropped",
            }).model_dump_json().encode()


def task_digest(task: Task) -> str:
    """A short hash of a task's content (equal digests, equal tasks)."""
    return hashlib.blake2b(task.model_dump_json().encode(), digest_size=8).hexdigest()
