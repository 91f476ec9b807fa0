"""A :class:`ModelClient` running the bundled model in process."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

from compoworld.models._client import AssistantMessage, ModelError, Usage
from compoworld.models._local import LOCAL_MODEL_NAME, load_local_model
from compoworld.models._template import parse_tool_calls, split_reasoning

__all__ = ["LocalClient"]


class LocalClient:
    """The bundled SmolLM2 (or any causal LM with a tool-calling template) as a chat client.

    Generation runs in a worker thread (the event loop stays free), one request at a time (one
    model, one lock). Greedy by default; with a ``temperature`` it samples, seeded by ``seed``
    without touching the global random state. ``<tool_call>`` blocks in the output become
    :class:`~compoworld.models.ToolCall`\\ s with ids ``call_0``, ``call_1``, ...; a block that
    is not valid JSON keeps its raw text in ``arguments``.

    Args:
        model: A ``transformers`` causal LM; default: :func:`load_local_model` (loaded on first use).
        tokenizer: Its tokenizer, with a chat template that renders ``tools``.
        model_name: The name reported as ``model``.
        device: Where to load the default model.
        timeout: Seconds a request may take, waiting for the model included; past it,
            :class:`~compoworld.models.ModelError`.
        max_tokens: Default cap on generated tokens.
        max_prompt_tokens: Longest prompt (tools and messages rendered), in tokens: a longer
            one is refused (a non-transient :class:`~compoworld.models.ModelError`) before any
            compute, so no request holds the model for long. SmolLM2's context is 8,192.
        threads: torch CPU threads while generating (torch's setting is restored after; it is
            process-wide). One by default: a 135M model gains little from more, and on a busy
            machine several spinning threads are many times slower. None keeps torch's setting.

    Example:
        >>> client = LocalClient()  # doctest: +SKIP
        >>> reply = asyncio.run(client.chat([{"role": "user", "content": "Weather in Oslo?"}],
        ...                                 tools=[weather_tool]))  # doctest: +SKIP
        >>> reply.tool_calls[0].name  # doctest: +SKIP
        'get_weather'
    """

    def __init__(self, model: Any = None, tokenizer: Any = None, *, model_name: str = LOCAL_MODEL_NAME,
                 device: str = "cpu", timeout: float = 120.0, max_tokens: int = 256,
                 threads: int | None = 1, max_prompt_tokens: int = 8_192) -> None:
        if (model is None) != (tokenizer is None):
            raise ValueError("pass both model and tokenizer, or neither")
        self._model, self._tokenizer = model, tokenizer
        self.model = model_name
        self.device = device
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.threads = threads
        self.max_prompt_tokens = max_prompt_tokens
        self._lock = threading.Lock()

    def load(self) -> tuple[Any, Any]:
        """The model and tokenizer, loading the bundled ones on first use."""
        if self._model is None:
            self._model, self._tokenizer = load_local_model(self.device)
        return self._model, self._tokenizer

    async def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> AssistantMessage:
        if self._model is None:  # loading once is not part of any request's time
            await asyncio.to_thread(self.load)
        deadline = time.monotonic() + self.timeout
        return await asyncio.to_thread(self._generate, messages, tools, temperature,
                                       max_tokens or self.max_tokens, seed, deadline)

    def _generate(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                  temperature: float | None, max_tokens: int, seed: int | None,
                  deadline: float) -> AssistantMessage:
        if not self._lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise ModelError(f"local model busy: no slot within {self.timeout:g}s")
        try:
            model, tokenizer = self.load()
            left = deadline - time.monotonic()
            if left <= 0:
                raise ModelError(f"local model timed out after {self.timeout:g}s")
            return self._run(model, tokenizer, messages, tools, temperature, max_tokens, seed, left)
        finally:
            self._lock.release()

    def _run(self, model: Any, tokenizer: Any, messages: list[dict[str, Any]],
             tools: list[dict[str, Any]] | None, temperature: float | None, max_tokens: int,
             seed: int | None, left: float) -> AssistantMessage:
        import torch

        prompt = tokenizer.apply_chat_template(_plain(messages), tools=tools or None,
                                               add_generation_prompt=True, tokenize=False)
        inputs = tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(model.device)
        length = int(inputs["input_ids"].shape[1])
        if length > self.max_prompt_tokens:
            raise ModelError(f"the prompt is {length:,} tokens long; this model takes at most "
                             f"{self.max_prompt_tokens:,}", transient=False)
        # Below MIN_TEMPERATURE, logits / temperature overflow: sample greedily (the limit).
        sample = temperature is not None and temperature >= MIN_TEMPERATURE
        options: dict[str, Any] = {"max_new_tokens": max_tokens, "do_sample": sample,
                                   "max_time": left, "eos_token_id": _stop_ids(tokenizer),
                                   "pad_token_id": tokenizer.pad_token_id}
        if sample:
            options.update(temperature=temperature, top_p=1.0, top_k=0)
        else:
            options.update(temperature=None, top_p=None, top_k=None)
        started = time.monotonic()
        threads = torch.get_num_threads()
        try:
            if self.threads is not None and model.device.type == "cpu":
                torch.set_num_threads(self.threads)
            with torch.random.fork_rng(devices=[]), torch.inference_mode():
                if sample:
                    torch.manual_seed(0 if seed is None else seed)
                output = model.generate(**inputs, **options)
        finally:
            torch.set_num_threads(threads)
        elapsed = time.monotonic() - started
        new = output[0, inputs["input_ids"].shape[1]:]
        stop = set(_stop_ids(tokenizer))
        ended = len(new) > 0 and int(new[-1]) in stop
        if not ended and len(new) < max_tokens and elapsed >= left:
            raise ModelError(f"local model timed out after {self.timeout:g}s")
        text = tokenizer.decode(new, skip_special_tokens=True)
        reasoning, text = split_reasoning(text)
        content, calls = parse_tool_calls(text)
        finish = "length" if not ended else ("tool_calls" if calls else "stop")
        usage = Usage(prompt_tokens=int(inputs["input_ids"].shape[1]), completion_tokens=len(new))
        return AssistantMessage(content=content, tool_calls=calls, reasoning_content=reasoning,
                                finish_reason=finish, usage=usage)


MIN_TEMPERATURE = 1e-3
"""Temperatures below this decode greedily (what sampling tends to as the temperature → 0)."""


def _stop_ids(tokenizer: Any) -> list[int]:
    ids = {tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<|im_end|>")}
    return sorted(i for i in ids if isinstance(i, int) and i != tokenizer.unk_token_id)


def _plain(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI messages as the template wants them: text content, tool call arguments as text."""
    plain = []
    for message in messages:
        message = dict(message)
        content = message.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            message["content"] = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        elif content is not None and not isinstance(content, str):
            message["content"] = json.dumps(content, ensure_ascii=False)
        plain.append(message)
    return plain
