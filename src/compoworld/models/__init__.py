"""Model clients: the contract (:class:`ModelClient`) and its implementations.

* :class:`OpenAIClient`: any OpenAI-compatible endpoint (``$COMPOWORLD_BASE_URL``,
  ``$COMPOWORLD_MODEL``, ``$COMPOWORLD_API_KEY``).
* :class:`LocalClient`: the bundled SmolLM2-135M-Instruct in process
  (:func:`load_local_model`, with the tool-calling :data:`TOOL_CHAT_TEMPLATE`).

``torch``/``transformers`` and ``openai`` are imported only when a client is used.
"""

from compoworld.models._client import AssistantMessage, ModelClient, ModelError, ToolCall, Usage
from compoworld.models._factory import ClientKind, client_from_settings, make_client
from compoworld.models._local import GGUF_FILE, load_local_model, local_model_path
from compoworld.models._local_client import LocalClient
from compoworld.models._openai import OpenAIClient
from compoworld.models._template import TOOL_CHAT_TEMPLATE, parse_tool_calls

__all__ = [
    "GGUF_FILE",
    "TOOL_CHAT_TEMPLATE",
    "AssistantMessage",
    "ClientKind",
    "LocalClient",
    "ModelClient",
    "ModelError",
    "OpenAIClient",
    "ToolCall",
    "Usage",
    "client_from_settings",
    "load_local_model",
    "local_model_path",
    "make_client",
    "parse_tool_calls",
]
