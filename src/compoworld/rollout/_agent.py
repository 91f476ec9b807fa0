"""The agent contract: given the task and the conversation so far, the next assistant turn.

Agents are stateless between calls — everything an agent knows about its episode is in
``messages`` — so one agent object serves any number of concurrent episodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from compoworld.models import AssistantMessage
    from compoworld.tasks import Task


@runtime_checkable
class Agent(Protocol):
    """Produces the next assistant message of an episode.

    Attributes:
        name: What the trajectory records as its agent (``oracle``, ``openai``, ``local``, ...).
        model: The model behind it, if any.
    """

    name: str
    model: str | None

    async def respond(
        self, task: Task, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> AssistantMessage:
        """The next turn: tool calls to execute, or a final answer (no tool calls)."""
        ...
