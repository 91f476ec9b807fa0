"""A small OpenAI-compatible HTTP server for a :class:`ModelClient` (``compoworld serve model``).

Starlette + uvicorn: both come with the ``mcp`` extra already, pure Python wheels, async (the
model runs in a worker thread, so ``/health`` answers while it generates). llama.cpp's own
server (``llama-cpp-python[server]``) would need a C++ compile at install time and its own
tool-call template handling; this one reuses :class:`LocalClient`, so the HTTP path and the
in-process path give the same answers.

Routes: ``POST /v1/chat/completions`` (tools in, ``tool_calls`` out; no streaming),
``GET /v1/models``, ``GET /health``.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from contextlib import asynccontextmanager
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from compoworld.errors import UserError
from compoworld.models._client import ModelClient, ModelError

__all__ = ["create_app", "serve_model"]


class _ChatRequest(BaseModel):
    """The chat-completion fields this server honours; unknown ones are ignored, like vLLM."""

    model_config = ConfigDict(extra="ignore")

    model: str | None = None
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    max_completion_tokens: int | None = None
    seed: int | None = None
    stream: bool = False
    n: int = 1


def _error(status: int, message: str, kind: str = "invalid_request_error") -> Any:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status_code=status)


def create_app(client: ModelClient, model_name: str | None = None, *, preload: bool = True) -> Any:
    """A Starlette app serving ``client`` with the OpenAI chat-completions API.

    Args:
        client: The model behind the server (e.g. :class:`~compoworld.models.LocalClient`).
        model_name: The name in ``/v1/models`` and responses; requests naming another model
            get a 404. Default: ``client.model``.
        preload: Load the model before accepting requests (``client.load()`` when it has one),
            so ``/health`` answering 200 means ready.
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

    async def health(request: Request) -> Any:
        if not ready.is_set():
            return JSONResponse({"status": "loading", "model": name}, status_code=503)
        return JSONResponse({"status": "ok", "model": name})

    async def models(request: Request) -> Any:
        return JSONResponse({"object": "list", "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": "compoworld"}]})

    async def chat(request: Request) -> Any:
        try:
            body = await request.json()
            req = _ChatRequest.model_validate(body)
        except ValidationError as error:
            return _error(400, f"bad request: {error.errors(include_url=False)}")
        except ValueError:
            return _error(400, "the request body is not JSON")
        if req.model not in (None, name):
            return _error(404, f"model {req.model!r} is not served here; this server serves {name!r}",
                          "not_found_error")
        if req.stream:
            return _error(400, "streaming is not supported by this server; send stream=false")
        if req.n != 1:
            return _error(400, "n must be 1")
        try:
            reply = await client.chat(req.messages, req.tools, temperature=req.temperature,
                                      max_tokens=req.max_completion_tokens or req.max_tokens,
                                      seed=req.seed)
        except ModelError as error:
            return _error(503, str(error), "server_error")
        except (ValueError, TypeError, KeyError) as error:  # messages the template cannot render
            return _error(400, f"cannot render these messages: {error}")
        usage = reply.usage
        return JSONResponse({
            "id": f"chatcmpl-{next(ids)}", "object": "chat.completion", "created": int(time.time()),
            "model": name,
            "choices": [{"index": 0, "message": reply.to_openai(), "finish_reason": reply.finish_reason}],
            "usage": {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                      "total_tokens": usage.prompt_tokens + usage.completion_tokens},
        })

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        load = getattr(client, "load", None)
        if preload and callable(load):
            await asyncio.to_thread(load)
        ready.set()
        yield

    return Starlette(routes=[
        Route("/health", health), Route("/v1/models", models),
        Route("/v1/chat/completions", chat, methods=["POST"]),
    ], lifespan=lifespan)


def serve_model(client: ModelClient, host: str = "127.0.0.1", port: int = 8000,
                model_name: str | None = None, *, log_level: str = "info") -> None:
    """Serve ``client`` over HTTP until interrupted (blocking).

    Example:
        >>> from compoworld.models import LocalClient
        >>> serve_model(LocalClient(), port=8000)  # doctest: +SKIP
    """
    import uvicorn

    uvicorn.run(create_app(client, model_name), host=host, port=port, log_level=log_level)
