"""Spending limits of a curation run: tokens over the whole run (resumes included), seconds
of wall time in this invocation."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from compoworld.rollout import Trajectory


@dataclass
class Budget:
    """What a run may spend and what it has spent (``None``: no limit)."""

    tokens: int | None = None
    seconds: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    started: float = field(default_factory=time.monotonic)

    def add(self, trajectory: Trajectory) -> None:
        self.prompt_tokens += trajectory.usage.get("prompt_tokens", 0)
        self.completion_tokens += trajectory.usage.get("completion_tokens", 0)

    @property
    def spent_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def exhausted(self) -> str | None:
        """``tokens`` or ``time`` when that limit is reached, else None."""
        if self.tokens is not None and self.spent_tokens >= self.tokens:
            return "tokens"
        if self.seconds is not None and self.elapsed() >= self.seconds:
            return "time"
        return None
