"""Model-backed agents: any :class:`~compoworld.models.ModelClient` as an :class:`Agent`, and
:func:`make_agent`, which builds an agent by name (``oracle``, ``openai``, ``local``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from compoworld.errors import UserError
from compoworld.models import AssistantMessage, ModelClient, ModelError

if TYPE_CHECKING:
    from compoworld.rollout._agent import Agent
    from compoworld.tasks import Task

AgentKind = Literal["oracle", "oracle-stumble", "openai", "local"]
AGENT_KINDS: tuple[AgentKind, ...] = ("oracle", "oracle-stumble", "openai", "local")


class ChatAgent:
    """An agent that asks a chat model for each turn, offering the episode's tools.

    The model client does the transport retries (never of a rejected request) and raises
    :class:`~compoworld.models.ModelError` when it gives up; the episode records that as
    ``model_error``. Malformed tool calls are the episode's to answer (a clear error message
    back to the model, counted in ``malformed_calls``).

    Args:
        client: The model client.
        name: What trajectories record as the agent (``openai``, ``local``).
        temperature: Sampling temperature (None: the endpoint's default). Rollouts of one
            group differ only by sampling, so keep it above 0 for GRPO.
        max_tokens: Tokens per reply (None: the endpoint's default).
        timeout: Seconds one reply may take, retries included (None: no limit here).

    Example:
        >>> from compoworld.models import OpenAIClient  # doctest: +SKIP
        >>> agent = ChatAgent(OpenAIClient("gpt-4o-mini"), name="openai")  # doctest: +SKIP
    """

    def __init__(self, client: ModelClient, name: str = "openai", *,
                 temperature: float | None = None, max_tokens: int | None = None,
                 timeout: float | None = 300.0) -> None:
        self.client, self.name = client, name
        self.model: str | None = client.model
        self.temperature, self.max_tokens, self.timeout = temperature, max_tokens, timeout

    async def respond(self, task: Task, messages: list[dict[str, Any]],
                      tools: list[dict[str, Any]]) -> AssistantMessage:
        # Servers differ on ``reasoning_content`` in the history; the trajectory keeps it.
        history = [{k: v for k, v in m.items() if k != "reasoning_content"} for m in messages]
        try:
            return await asyncio.wait_for(
                self.client.chat(history, tools or None, temperature=self.temperature,
                                 max_tokens=self.max_tokens),
                self.timeout)
        except TimeoutError:
            raise ModelError(f"{self.model!r} gave no reply within {self.timeout} s") from None


@dataclass(frozen=True)
class AgentSpec:
    """How to build an agent, as plain data (it crosses process boundaries, e.g. to Ray).

    Attributes:
        kind: ``oracle``, ``openai`` (any OpenAI-compatible endpoint) or ``local`` (the
            bundled SmolLM2, in process).
        model: The model name (``openai``).
        base_url: The endpoint (``openai``; default ``$COMPOWORLD_BASE_URL``).
        api_key: The key (``openai``; default ``$COMPOWORLD_API_KEY``).
        temperature: Sampling temperature.
        max_tokens: Tokens per reply.
        timeout: Seconds per reply.
    """

    kind: AgentKind = "oracle"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    timeout: float | None = 300.0

    def build(self) -> Agent:
        """The agent this spec describes."""
        return make_agent(self.kind, model=self.model, base_url=self.base_url,
                          api_key=self.api_key, temperature=self.temperature,
                          max_tokens=self.max_tokens, timeout=self.timeout)


def make_agent(kind: str = "oracle", *, model: str | None = None, base_url: str | None = None,
               api_key: str | None = None, temperature: float | None = None,
               max_tokens: int | None = None, timeout: float | None = 300.0) -> Agent:
    """An agent by name.

    Args:
        kind: ``oracle`` (plays the reference plan, no model), ``oracle-stumble`` (the
            oracle with one refused call it recovers from), ``openai`` (an
            OpenAI-compatible endpoint: ``model``, ``base_url``, ``api_key``) or ``local``
            (the bundled SmolLM2 in process).
        model: Model name (``openai``: default ``$COMPOWORLD_MODEL``).
        base_url: Endpoint URL for ``openai`` (default ``$COMPOWORLD_BASE_URL``).
        api_key: API key for ``openai`` (default ``$COMPOWORLD_API_KEY``).
        temperature: Sampling temperature for model agents.
        max_tokens: Tokens per reply for model agents.
        timeout: Seconds per reply for model agents.

    Raises:
        UserError: An unknown kind, a missing endpoint or model name, or a missing extra.

    Example:
        >>> make_agent("oracle").name
        'oracle'
    """
    if kind in ("oracle", "oracle-stumble"):
        from compoworld.rollout._oracle import OracleAgent

        return OracleAgent(stumble=kind == "oracle-stumble")
    if kind == "openai" or kind == "local":
        from compoworld.models import make_client

        client = make_client(kind, base_url=base_url, model=model, api_key=api_key,
                             timeout=timeout or 300.0)
        return ChatAgent(client, kind, temperature=temperature, max_tokens=max_tokens,
                         timeout=timeout)
    raise UserError(f"unknown agent {kind!r}; choose one of {', '.join(AGENT_KINDS)}")
