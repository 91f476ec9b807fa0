"""``compoworld serve model``: the bundled model behind an OpenAI-compatible HTTP API."""

from __future__ import annotations

from typing import Annotated

import typer

from compoworld.errors import UserError


def model(
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    model_name: Annotated[str, typer.Option("--model-name", help="Name clients ask for.")] = "smollm2",
    timeout: Annotated[float, typer.Option(help="Seconds one completion may take.")] = 120.0,
    max_tokens: Annotated[int, typer.Option("--max-tokens",
                                            help="Default cap on generated tokens.")] = 256,
    log_level: Annotated[str, typer.Option("--log-level", help="uvicorn log level.")] = "info",
    max_prompt_tokens: Annotated[int, typer.Option(
        "--max-prompt-tokens", help="Longest prompt, in tokens (a 400 past it).")] = 8_192,
    max_request_bytes: Annotated[int, typer.Option(
        "--max-request-bytes", help="Largest request body (a 413 past it).")] = 4_000_000,
) -> None:
    """Serve the bundled SmolLM2-135M-Instruct with the OpenAI chat-completions API.

    POST /v1/chat/completions (tools and tool_calls), GET /v1/models, GET /health (503 while
    the model loads, 200 once it is ready; the port opens at once). Point any OpenAI client at
    http://HOST:PORT/v1, e.g.
    COMPOWORLD_BASE_URL=http://127.0.0.1:8000/v1 COMPOWORLD_MODEL=smollm2.
    """
    if not 0 < port < 65536:
        raise UserError(f"--port must be between 1 and 65535, got {port}")
    for option, value in (("--timeout", timeout), ("--max-prompt-tokens", max_prompt_tokens),
                          ("--max-request-bytes", max_request_bytes)):
        if value <= 0:
            raise UserError(f"{option} must be positive, got {value:g}")
    import importlib.util

    for package in ("transformers", "torch", "uvicorn", "starlette"):
        if importlib.util.find_spec(package) is None:  # fail before binding the port
            raise UserError(f"serving the bundled model needs {package!r}: "
                            f"pip install 'compoworld[local]'")
    from compoworld.models import LocalClient
    from compoworld.models._server import serve_model

    client = LocalClient(model_name=model_name, timeout=timeout, max_tokens=max_tokens,
                         max_prompt_tokens=max_prompt_tokens)
    typer.echo(f"serving {model_name!r} on http://{host}:{port}/v1", err=True)
    serve_model(client, host, port, model_name, log_level=log_level,
                max_request_bytes=max_request_bytes)
