"""The tool-calling chat template given to the bundled model, and the parser of its tool calls.

SmolLM2's own template knows no tools. This one is the Qwen2.5 convention (ChatML turns,
which SmolLM2's tokenizer already has as special tokens): the system turn lists the tools as
JSON inside ``<tools></tools>``; the assistant calls a tool with
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``; tool results come back in a user
turn wrapping ``<tool_response>...</tool_response>``. An assistant turn's ``reasoning_content``
is rendered first, as a ``<think>...</think>`` block (the way reasoning models' templates
write it: Qwen3, DeepSeek-R1), so a model trained on the oracle's trajectories learns the
reasoning along with the calls. Assistant turns are wrapped in
``{% generation %}`` markers so trainers can mask everything else
(``return_assistant_tokens_mask``, TRL's ``assistant_only_loss``).
"""

from __future__ import annotations

import json
import re

from compoworld.models._client import ToolCall

__all__ = ["DEFAULT_SYSTEM_PROMPT", "TOOL_CHAT_TEMPLATE", "parse_tool_calls"]

DEFAULT_SYSTEM_PROMPT = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"

TOOL_CHAT_TEMPLATE = (
    "{%- if messages and messages[0]['role'] == 'system' %}"
    "{%- set system_message = messages[0]['content'] %}{%- set loop_messages = messages[1:] %}"
    "{%- else %}"
    "{%- set system_message = '" + DEFAULT_SYSTEM_PROMPT + "' %}{%- set loop_messages = messages %}"
    "{%- endif %}"
    "{{- '<|im_start|>system\\n' + (system_message or '') }}"
    "{%- if tools %}"
    "{{- '\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n"
    "You are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}"
    "{%- for tool in tools %}{{- '\\n' }}{{- tool | tojson }}{%- endfor %}"
    "{{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and "
    "arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n"
    "{\"name\": <function-name>, \"arguments\": <args-json-object>}\\n</tool_call>' }}"
    "{%- endif %}"
    "{{- '<|im_end|>\\n' }}"
    "{%- for message in loop_messages %}"
    "{%- if message['role'] == 'assistant' %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- generation %}"
    "{%- if message.get('reasoning_content') %}"
    "{{- '<think>\\n' + message['reasoning_content'] + '\\n</think>\\n\\n' }}{%- endif %}"
    "{%- if message.get('content') %}{{- message['content'] }}{%- endif %}"
    "{%- for tool_call in message.get('tool_calls') or [] %}"
    "{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}"
    "{%- if loop.first and message.get('content') or not loop.first %}{{- '\\n' }}{%- endif %}"
    "{{- '<tool_call>\\n{\"name\": \"' + tool_call.name + '\", \"arguments\": ' }}"
    "{%- if tool_call.arguments is string %}{{- tool_call.arguments }}"
    "{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}"
    "{{- '}\\n</tool_call>' }}"
    "{%- endfor %}"
    "{{- '<|im_end|>' }}"
    "{%- endgeneration %}"
    "{{- '\\n' }}"
    "{%- elif message['role'] == 'tool' %}"
    "{%- if loop.first or loop.previtem['role'] != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}"
    "{{- '\\n<tool_response>\\n' + (message['content'] or '') + '\\n</tool_response>' }}"
    "{%- if loop.last or loop.nextitem['role'] != 'tool' %}{{- '<|im_end|>\\n' }}{%- endif %}"
    "{%- else %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + (message['content'] or '') + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)
"""Jinja chat template (Qwen2.5 tool-calling style) for the bundled SmolLM2 tokenizer."""

_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)


_THINK = re.compile(r"\A\s*<think>(.*?)(?:</think>|\Z)", re.DOTALL)


def split_reasoning(text: str) -> tuple[str | None, str]:
    r"""A generation's opening ``<think>…</think>`` block (how the bundled template renders
    ``reasoning_content``, so a model trained on it writes one) and the rest. An unclosed block
    (cut by the token limit) is all reasoning.

    Example:
        >>> split_reasoning("<think>\nI need the invoice.\n</think>\n\nOn it.")
        ('I need the invoice.', 'On it.')
        >>> split_reasoning("No block here.")
        (None, 'No block here.')
    """
    match = _THINK.match(text)
    if match is None:
        return None, text
    return (match.group(1).strip() or None), text[match.end():].strip()


def parse_tool_calls(text: str, *, start: int = 0) -> tuple[str | None, list[ToolCall]]:
    """Split a generation into its text and its ``<tool_call>`` blocks.

    A block holding ``{"name": ..., "arguments": {...}}`` becomes a :class:`ToolCall` whose
    ``arguments`` is the arguments object as compact JSON. A block that is not valid JSON (or
    is cut off by the token limit) still becomes a call: its name is recovered when it can be
    read, and ``arguments`` keeps the raw text so the caller can tell the model what was wrong.

    Args:
        text: The model's completion (special tokens removed).
        start: Number of the first call, for the ids (``call_<n>``).

    Returns:
        The text outside the blocks (None when empty) and the calls, in order.

    Example:
        >>> content, calls = parse_tool_calls(
        ...     'Sure.<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>')
        >>> content, calls[0].name, calls[0].arguments, calls[0].id
        ('Sure.', 'get_weather', '{"city": "Oslo"}', 'call_0')
    """
    calls: list[ToolCall] = []
    for match in _BLOCK.finditer(text):
        body = match.group(1).strip()
        name, arguments = _read_call(body)
        calls.append(ToolCall(id=f"call_{start + len(calls)}", name=name, arguments=arguments))
    content = _BLOCK.sub("", text).strip()
    return (content or None), calls


_NAME = re.compile(r'"name"\s*:\s*"([^"]*)"')
_ARGUMENTS = re.compile(r'"(?:arguments|parameters)"\s*:\s*', re.DOTALL)


def _read_call(body: str) -> tuple[str, str]:
    """(name, arguments JSON or raw text) from one block's body."""
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("name"), str):
        arguments = data.get("arguments", data.get("parameters", {}))
        if isinstance(arguments, str):  # some models send the arguments as a JSON string
            return data["name"], arguments
        return data["name"], json.dumps(arguments, ensure_ascii=False)
    name = _NAME.search(body)
    raw = _ARGUMENTS.split(body, maxsplit=1)
    arguments = raw[1].rstrip().removesuffix("}").rstrip() if len(raw) == 2 else body
    return (name.group(1) if name else ""), arguments
