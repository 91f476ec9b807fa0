"""Choosing a model client from flags and environment variables (what the CLI does)."""

from __future__ import annotations

import os
from typing import Literal

from compoworld.errors import UserError
from compoworld.models._client import ModelClient
from compoworld.models._local import LOCAL_MODEL_NAME
from compoworld.models._local_client import LocalClient
from compoworld.models._openai import ENV_BASE_URL, ENV_MODEL, OpenAIClient

__all__ = ["ClientKind", "client_from_settings", "make_client"]

ClientKind = Literal["openai", "local"]


def make_client(kind: ClientKind | str = "openai", *, base_url: str | None = None, model: str | None = None,
                api_key: str | None = None, timeout: float = 60.0, retries: int = 3) -> ModelClient:
    """A model client of the given kind.

    Args:
        kind: ``"openai"`` (an OpenAI-compatible endpoint: ``base_url``/``model``/``api_key`` or
            ``$COMPOWORLD_BASE_URL``/``$COMPOWORLD_MODEL``/``$COMPOWORLD_API_KEY``) or ``"local"``
            (the bundled SmolLM2, in process).
        base_url: The endpoint (``openai`` only).
        model: The model name to ask for, or to report (``local``).
        api_key: The endpoint's key (``openai`` only).
        timeout: Seconds per request.
        retries: Retries of transport failures (``openai`` only; the local model has none).

    Raises:
        UserError: an unknown kind, or an ``openai`` client with no endpoint or model.

    Example:
        >>> make_client("openai", base_url="http://127.0.0.1:8000/v1", model="smollm2").model
        'smollm2'
    """
    if kind == "openai":
        return OpenAIClient(base_url, model, api_key, timeout=timeout, retries=retries)
    if kind == "local":
        return LocalClient(model_name=model or LOCAL_MODEL_NAME, timeout=timeout)
    raise UserError(f"unknown model client kind {kind!r}; use 'openai' or 'local'")


def client_from_settings(base_url: str | None = None, model: str | None = None,
                         api_key: str | None = None, *, timeout: float = 60.0,
                         retries: int = 3) -> ModelClient | None:
    """The client that flags and environment ask for, or None when they ask for none.

    An endpoint (``base_url`` or ``$COMPOWORLD_BASE_URL``) gives an :class:`OpenAIClient`;
    otherwise ``model="local"`` (or ``"smollm2"``) gives the bundled model in process; otherwise
    None, and the caller runs its offline path.

    Raises:
        UserError: a model name other than the bundled one, with no endpoint to ask it from.
    """
    base_url = base_url or os.environ.get(ENV_BASE_URL)
    model = model or os.environ.get(ENV_MODEL)
    if base_url:
        return make_client("openai", base_url=base_url, model=model, api_key=api_key,
                           timeout=timeout, retries=retries)
    if model in ("local", LOCAL_MODEL_NAME):
        return make_client("local", timeout=timeout)
    if model:
        raise UserError(f"model {model!r} needs an endpoint: pass --base-url or set ${ENV_BASE_URL}, "
                        "or use --model local for the bundled model")
    return None
