"""Model clients: the contract (:class:`ModelClient`) and its implementations."""

from compoworld.models._client import AssistantMessage, ModelClient, ModelError, ToolCall, Usage

__all__ = ["AssistantMessage", "ModelClient", "ModelError", "ToolCall", "Usage"]
