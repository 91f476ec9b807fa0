"""The model-client contract shared by the LLM world model, the chat agents and the instruction
rewriter: OpenAI-format chat messages (and optional tools) in, one assistant message out.

Implementations: :class:`compoworld.models.OpenAIClient` (any OpenAI-compatible HTTP endpoint)
and :class:`compoworld.models.LocalClient` (the bundled SmolLM2, in process).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from compoworld.errors import CompoWorldError


class ModelError(CompoWorldError):
    """The model endpoint failed for good: down, timed out, or still failing after the retries.

    ``transient`` is true for transport failures (connection, timeout, 5xx, 429) — the ones
    that were retried — and false for a request the endpoint rejected (4xx).
    """

    def __init__(self, message: str, *, transient: bool = True) -> None:
        super().__init__(message)
        self.transient = transient


class ToolCall(BaseModel):
    """A tool call as the model emitted it. ``arguments`` is the raw JSON text (it may be
    malformed: parsing it, and telling the model when it is not JSON, is the caller's job)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    arguments: str

    def to_openai(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class AssistantMessage(BaseModel):
    """The model's reply: text, tool calls, or both; ``reasoning_content`` when the model
    sends its reasoning apart (kept, so SFT data can carry it)."""

    model_config = ConfigDict(extra="forbid")

    content: str | None = None
    tool_calls: list[ToolCall] = []
    reasoning_content: str | None = None
    finish_reason: str | None = None
    usage: Usage = Usage()

    def to_openai(self) -> dict[str, Any]:
        """The message as an OpenAI chat ``assistant`` message dict."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        if self.reasoning_content:
            message["reasoning_content"] = self.reasoning_content
        return message


@runtime_checkable
class ModelClient(Protocol):
    """Chat completion with tools. Implementations time out every request, retry transport
    errors with backoff (never a rejected request), and raise :class:`ModelError` at the end.
    """

    model: str

    async def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> AssistantMessage: ...
