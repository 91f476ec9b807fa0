"""A :class:`ModelClient` for any OpenAI-compatible chat endpoint (vLLM, SGLang, llama.cpp's
server, ``compoworld serve model``, hosted APIs)."""

from __future__ import annotations

import asyncio
import os
import random
import re
import weakref
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from compoworld.errors import UserError
from compoworld.models._client import AssistantMessage, ModelError, ToolCall, Usage

__all__ = ["ENV_API_KEY", "ENV_BASE_URL", "ENV_MODEL", "OpenAIClient", "redact_url"]

ENV_BASE_URL = "COMPOWORLD_BASE_URL"
ENV_MODEL = "COMPOWORLD_MODEL"
ENV_API_KEY = "COMPOWORLD_API_KEY"


_SECRET_QUERY = re.compile(r"(?i)((?:api[-_]?)?key|token|secret|password|sig|signature)=[^&]*")


def redact_url(url: str) -> str:
    """``url`` safe to record: a password in it and the values of key-like query parameters
    become ``***``.

    Example:
        >>> redact_url("https://me:s3cret@host/v1?api-key=abc&x=1")
        'https://me:***@host/v1?api-key=***&x=1'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:***@{host}" if ":" in userinfo else f"***@{host}"
    query = _SECRET_QUERY.sub(lambda m: f"{m.group(1)}=***", parts.query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


class OpenAIClient:
    """Chat completions over HTTP with the ``openai`` package.

    Every request has a timeout. Transport failures (connection refused or reset, timeout,
    HTTP 429 and 5xx) are retried ``retries`` times with exponential backoff and jitter
    (``backoff * 2**attempt`` seconds, capped at ``max_backoff``); a request the endpoint
    rejects (other 4xx) is not retried. Either way the last failure is a
    :class:`~compoworld.models.ModelError`. ``retried`` counts the retries made.

    Args:
        base_url: The endpoint, e.g. ``http://127.0.0.1:8000/v1``; default ``$COMPOWORLD_BASE_URL``.
        model: The model name to ask for; default ``$COMPOWORLD_MODEL``.
        api_key: Default ``$COMPOWORLD_API_KEY``, else ``"none"`` (local servers ignore it).
        timeout: Seconds per request (connect included).
        retries: Retries of a transport failure after the first attempt.
        backoff: First backoff, in seconds.
        max_backoff: Longest backoff, in seconds.

    Raises:
        UserError: no base URL or no model, from the arguments or the environment.

    Example:
        >>> client = OpenAIClient("http://127.0.0.1:8000/v1", "smollm2")
        >>> client.model
        'smollm2'
    """

    def __init__(self, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, *, timeout: float = 60.0, retries: int = 3,
                 backoff: float = 0.5, max_backoff: float = 8.0) -> None:
        base_url = base_url or os.environ.get(ENV_BASE_URL)
        model = model or os.environ.get(ENV_MODEL)
        if not base_url:
            raise UserError(f"no model endpoint: pass --base-url or set ${ENV_BASE_URL} "
                            "(e.g. http://127.0.0.1:8000/v1)")
        if not model:
            raise UserError(f"no model name: pass --model or set ${ENV_MODEL}")
        try:
            from openai import AsyncOpenAI
        except ImportError:
            raise UserError("the HTTP model client needs the 'llm' extra: "
                            "pip install 'compoworld[llm]'") from None
        self.base_url = base_url
        self.shown_url = redact_url(base_url)
        """The endpoint as messages and records show it (credentials redacted)."""
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.retried = 0
        self._api_key = api_key or os.environ.get(ENV_API_KEY) or "none"
        self._factory = AsyncOpenAI
        self._clients: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

    def _client(self) -> Any:
        """One ``AsyncOpenAI`` per event loop (its connection pool belongs to the loop)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = self._factory(
                base_url=self.base_url, api_key=self._api_key, timeout=self.timeout, max_retries=0)
        return client

    async def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> AssistantMessage:
        import openai

        request: dict[str, Any] = {"model": self.model, "messages": messages}
        for key, value in (("tools", tools or None), ("temperature", temperature),
                           ("max_tokens", max_tokens), ("seed", seed)):
            if value is not None:
                request[key] = value
        client = self._client()
        for attempt in range(self.retries + 1):
            try:
                response = await client.chat.completions.create(**request)
                return _message(response, self.shown_url)
            except (openai.APIConnectionError, openai.RateLimitError,
                    openai.InternalServerError) as error:
                if attempt == self.retries:
                    raise ModelError(f"model endpoint {self.shown_url} failed after "
                                     f"{attempt + 1} attempts: {_describe(error)}") from None
            except openai.APIStatusError as error:
                if error.status_code < 500 and error.status_code != 429:
                    raise ModelError(f"model endpoint {self.shown_url} rejected the request: "
                                     f"{_describe(error)}", transient=False) from None
                if attempt == self.retries:
                    raise ModelError(f"model endpoint {self.shown_url} failed after "
                                     f"{attempt + 1} attempts: {_describe(error)}") from None
            self.retried += 1
            delay = min(self.max_backoff, self.backoff * 2 ** attempt)
            await asyncio.sleep(delay * (0.5 + random.random() / 2))
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        """Close the connection pool of the running loop's client."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()


def _describe(error: Exception) -> str:
    status = getattr(error, "status_code", None)
    kind = type(error).__name__
    text = str(error)
    body = getattr(error, "body", None)
    if body is not None and str(body)[:80] not in text:
        text += f"; the endpoint answered: {_shown(body)}"
    return f"{kind} (HTTP {status}): {text}" if status else f"{kind}: {text}"


def _shown(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text):,} characters)"


def _message(response: Any, url: str = "") -> AssistantMessage:
    """An ``openai`` chat completion as an :class:`AssistantMessage`.

    Raises:
        ModelError: The endpoint's answer is not a chat completion (the message quotes it).
    """
    try:
        return _read(response)
    except ModelError:
        raise
    except (AttributeError, TypeError, ValueError, IndexError, KeyError) as error:
        raise ModelError(f"model endpoint {url} answered with something that is not a chat "
                         f"completion ({type(error).__name__}: {error}): {_shown(response)}",
                         transient=False) from None


def _read(response: Any) -> AssistantMessage:
    if not response.choices:
        raise ModelError("model endpoint answered with no choices", transient=False)
    choice = response.choices[0]
    message = choice.message
    calls = [ToolCall(id=call.id or f"call_{n}", name=call.function.name,
                      arguments=call.function.arguments or "")
             for n, call in enumerate(message.tool_calls or ()) if call.type == "function"]
    extra = message.model_extra or {}
    reasoning = extra.get("reasoning_content") or extra.get("reasoning")
    usage = response.usage
    return AssistantMessage(
        content=message.content, tool_calls=calls,
        reasoning_content=reasoning if isinstance(reasoning, str) else None,
        finish_reason=choice.finish_reason,
        usage=Usage(prompt_tokens=usage.prompt_tokens if usage else 0,
                    completion_tokens=usage.completion_tokens if usage else 0))
