"""A small OpenAI-compatible HTTP server for a :class:`ModelClient` (``compoworld serve model``).

Starlette + uvicorn: both come with the ``mcp`` extra already, pure Python wheels, async (the
model runs in a worker thread, so ``/health`` answers while it generates). llama.cpp's own
server (``llama-cpp-python[server]``) would need a C++ compile at install time and its own
tool-call template handling; this one reuses :class:`LocalClient`, so the HTTP path and the
in-process path give the same answers.

Routes: ``POST /v1/chat/completions`` (tools in, ``tool_calls`` out; no streaming),
``GET /v1/models``, ``GET /health``.

Hardened like a public endpoint: the port opens at once and the model loads behind it
(``/health`` answers 503 until it is ready); every failure is the OpenAI error JSON
(``{"error": {"message", "type", "code"}}``) — a malformed request or a prompt past the
model's limit a 400, a body past ``max_request_bytes`` a 413, a reply past ``timeout`` a
504 — never a plain-text 500 or a reset connection.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from contextlib import asynccontextmanager
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from compoworld.errors import UserError
from compoworld.models._client import ModelClient, ModelError

__all__ = ["create_app", "serve_model"]


MAX_REQUEST_BYTES = 4_000_000
"""Largest request body, by default (a 413 past it)."""


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Part(_Lenient):
    type: str
    text: str | None = None


class _Function(_Lenient):
    name: str
    arguments: str | dict[str, Any] = ""


class _CallIn(_Lenient):
    id: str | None = None
    type: Literal["function"] = "function"
    function: _Function


class _Message(_Lenient):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[_Part] | None = None
    name: str | None = None
    tool_calls: list[_CallIn] | None = None
    tool_call_id: str | None = None
    reasoning_content: str | None = None


class _ChatRequest(_Lenient):
    """The chat-completion fields this server honours; unknown ones are ignored, like vLLM."""

    model: str | None = None
    messages: list[_Message] = Field(min_length=1)
    tools: list[dict[str, Any]] | None = None
    temperature: float | None = Field(None, ge=0, le=2, allow_inf_nan=False)
    max_tokens: int | None = Field(None, ge=1, le=1_000_000)
    max_completion_tokens: int | None = Field(None, ge=1, le=1_000_000)
    seed: int | None = Field(None, ge=0, lt=2 ** 63)
    stream: bool = False
    n: int = 1


def _describe(error: ValidationError) -> str:
    """A validation error in one line: where, what, how many more."""
    problems = error.errors(include_url=False)
    first = problems[0]
    where = ".".join(str(part) for part in first["loc"]) or "body"
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    return f"bad request: {where}: {first['msg']}{more}"


def _error(status: int, message: str, kind: str = "invalid_request_error") -> Any:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status_code=status)


def create_app(client: ModelClient, model_name: str | None = None, *, preload: bool = True,
               timeout: float | None = None,
               max_request_bytes: int = MAX_REQUEST_BYTES) -> Any:
    """A Starlette app serving ``client`` with the OpenAI chat-completions API.

    Args:
        client: The model behind the server (e.g. :class:`~compoworld.models.LocalClient`).
        model_name: The name in ``/v1/models`` and responses; requests naming another model
            get a 404. Default: ``client.model``.
        preload: Load the model as the server starts (``client.load()`` when it has one), in
            the background: the port is open at once, ``/health`` answers 503 until the model
            is ready and requests wait for it.
        timeout: Seconds a request may take, prompt processing and waiting for the model
            included (default: ``client.timeout``, else none); past it, a 504.
        max_request_bytes: Largest request body; past it, a 413.
    """
    try:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route
    except ImportError:
        raise UserError("serving a model needs starlette and uvicorn: "
                        "pip install 'compoworld[local]'") from None
    name = model_name or client.model
    ids = itertools.count()
    ready = asyncio.Event()
    failed: list[str] = []
    limit = timeout if timeout is not None else getattr(client, "timeout", None)

    async def health(request: Request) -> Any:
        if failed:
            return JSONResponse({"status": "failed", "model": name, "error": failed[0]},
                                status_code=500)
        if not ready.is_set():
            return JSONResponse({"status": "loading", "model": name}, status_code=503)
        return JSONResponse({"status": "ok", "model": name})

    async def models(request: Request) -> Any:
        return JSONResponse({"object": "list", "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": "compoworld"}]})

    async def read(request: Request) -> bytes | None:
        """The body, or None past ``max_request_bytes`` (read no further)."""
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_request_bytes:
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    async def chat(request: Request) -> Any:
        try:
            return await complete(request)
        except Exception as error:  # never a plain-text 500: the OpenAI error shape
            return _error(500, f"the server failed: {type(error).__name__}: {str(error)[:300]}",
                          "server_error")

    async def complete(request: Request) -> Any:
        body = await read(request)
        if body is None:
            return _error(413, f"the request body is larger than {max_request_bytes:,} bytes")
        try:
            req = _ChatRequest.model_validate(orjson.loads(body))
        except ValidationError as error:
            return _error(400, _describe(error))
        except orjson.JSONDecodeError as error:
            return _error(400, f"the request body is not JSON: {error}")
        if req.model not in (None, name):
            return _error(404, f"model {req.model!r} is not served here; this server serves {name!r}",
                          "not_found_error")
        if req.stream:
            return _error(400, "streaming is not supported by this server; send stream=false")
        if req.n != 1:
            return _error(400, "n must be 1")
        messages = [m.model_dump(exclude_none=True) for m in req.messages]
        started = time.monotonic()
        try:
            async with asyncio.timeout(limit):
                if not ready.is_set():
                    if failed:
                        return _error(503, f"the model failed to load: {failed[0]}",
                                      "server_error")
                    await ready.wait()
                reply = await client.chat(messages, req.tools, temperature=req.temperature,
                                          max_tokens=req.max_completion_tokens or req.max_tokens,
                                          seed=req.seed)
        except TimeoutError:
            return _error(504, f"no reply within {time.monotonic() - started:.0f} s (the "
                               f"server's --timeout is {limit:g} s)", "timeout")
        except ModelError as error:
            if not error.transient:
                return _error(400, str(error))
            return _error(503, str(error), "server_error")
        except (ValueError, TypeError, KeyError, RecursionError) as error:
            return _error(400, f"cannot render these messages: {type(error).__name__}: "
                               f"{str(error)[:300]}")
        except Exception as error:
            if type(error).__module__.startswith("jinja2"):  # the chat template refused them
                return _error(400, f"cannot render these messages: {str(error)[:300]}")
            raise
        usage = reply.usage
        return JSONResponse({
            "id": f"chatcmpl-{next(ids)}", "object": "chat.completion", "created": int(time.time()),
            "model": name,
            "choices": [{"index": 0, "message": reply.to_openai(), "finish_reason": reply.finish_reason}],
            "usage": {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                      "total_tokens": usage.prompt_tokens + usage.completion_tokens},
        })

    async def load_in_background(load: Any) -> None:
        try:
            await asyncio.to_thread(load)
        except Exception as error:
            failed.append(f"{type(error).__name__}: {error}")
            return
        ready.set()

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        load = getattr(client, "load", None)
        loading = None
        if preload and callable(load):
            loading = asyncio.create_task(load_in_background(load))
        else:
            ready.set()
        yield
        if loading is not None:
            loading.cancel()

    return Starlette(routes=[
        Route("/health", health), Route("/v1/models", models),
        Route("/v1/chat/completions", chat, methods=["POST"]),
    ], lifespan=lifespan)


def serve_model(client: ModelClient, host: str = "127.0.0.1", port: int = 8000,
                model_name: str | None = None, *, log_level: str = "info",
                max_request_bytes: int = MAX_REQUEST_BYTES) -> None:
    """Serve ``client`` over HTTP until interrupted (blocking).

    Example:
        >>> from compoworld.models import LocalClient
        >>> serve_model(LocalClient(), port=8000)  # doctest: +SKIP
    """
    import uvicorn

    uvicorn.run(create_app(client, model_name, max_request_bytes=max_request_bytes), host=host,
                port=port, log_level=log_level)
