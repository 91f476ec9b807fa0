"""The runtime's extension point for simulated tools: what a world model receives and owes.

Implementations live in :mod:`compoworld.simulate` (the offline simulator, the LLM one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from compoworld.service._db import Db
    from compoworld.service._tool import Tool


#: How many of an episode's earlier simulated answers a call carries (bounded, so a long-lived
#: environment does not copy its whole history into every call).
SIMULATED_HISTORY = 32


@dataclass(frozen=True)
class SimulatedCall:
    """One call of a simulated tool, with what the world model may look at.

    Attributes:
        name: Qualified tool name (``service__tool``).
        tool: The tool (its description, parameters and output type).
        arguments: Validated arguments.
        db: The tool's service state (read it; writes go through the write-back).
        state_digest: Hash of the service's current state (part of the cache key).
        seed: The world seed.
        history: The episode's latest simulated answers (at most ``SIMULATED_HISTORY``),
            oldest first.
    """

    name: str
    tool: Tool
    arguments: dict[str, Any]
    db: Db
    state_digest: str
    seed: int
    history: tuple[tuple[str, dict[str, Any], Any], ...] = ()


@dataclass
class SimulatorStats:
    """Counters per run: what the world model did."""

    simulated_calls: int = 0
    cache_hits: int = 0
    llm_failures: int = 0
    fallbacks: int = 0
    schema_repairs: int = 0
    written_back: int = 0
    by_tool: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {k: (dict(v) if isinstance(v, dict) else v) for k, v in vars(self).items()}


class Simulator(Protocol):
    """Answers a simulated tool call with data matching the tool's output type.

    Implementations must be deterministic for a given :class:`SimulatedCall` key (tool,
    arguments, state digest, seed) and must never raise for a well-formed call: a failure of
    the model is theirs to repair or to fall back from.
    """

    stats: SimulatorStats

    def simulate(self, call: SimulatedCall) -> Any: ...
