"""The LLM world model: a model answers simulated tools, checked against their output types.

The answer goes through a gate before it reaches the agent: JSON extracted (fenced or bare;
cut off → closed), validated with the tool's output type; a failure re-prompts the model
with the validation error (``max_repairs`` times), then the offline simulator answers
instead. Endpoint failures (down, slow) fall back too, or raise, per ``on_error``. Answers
are cached like the offline simulator's, so every rollout of a group sees the same one.
"""

from __future__ import annotations

import threading
from typing import Any, Literal

from pydantic import ValidationError

from compoworld.errors import UserError
from compoworld.models import ModelClient, ModelError
from compoworld.service import SimulatedCall, SimulatorStats
from compoworld.simulate._bridge import LoopThread
from compoworld.simulate._cache import SimulationCache, cache_key
from compoworld.simulate._offline import OfflineSimulator, _asked_id
from compoworld.simulate._prompt import AnswerError, build_messages, extract_json
from compoworld.simulate._writeback import write_back
from compoworld.types import Pool, derive_seed

__all__ = ["LLMSimulator", "OnError"]

OnError = Literal["fallback", "raise"]
_STRIPES = 64  # locks by key hash: two rollouts asking the same call wait for one answer


class LLMSimulator:
    """Answers simulated tools with a model; never lets an invalid answer through.

    Share one instance (and its cache) across the rollouts of a group. ``simulate`` is sync
    (it is called from ``Environment.call``); the model's coroutine runs on a private
    event-loop thread, so it works from any thread, one running an event loop included.

    Args:
        client: The model (:class:`~compoworld.models.OpenAIClient`,
            :class:`~compoworld.models.LocalClient`, ...).
        pool: The world's shared pool (for the offline fallback).
        cache: Where answers are kept (default: a new in-memory cache).
        fallback: Answers when the model cannot (default: an :class:`OfflineSimulator`).
        max_repairs: Re-prompts with the validation error before falling back.
        timeout: Seconds per model request (the model's own timeout should not be longer).
        on_error: When the endpoint fails (down, timed out): ``"fallback"`` answers offline,
            ``"raise"`` raises :class:`~compoworld.models.ModelError` (an environment error
            on the trajectory, never an invalid answer).
        max_tokens: Cap on the answer's tokens.
        temperature: None (the endpoint's default; the local model is greedy) or a value.
        show_example: Show the model one offline answer as the shape to imitate (weak models
            need it; strong ones lose nothing).

    Example:
        >>> from compoworld.models import LocalClient
        >>> simulator = LLMSimulator(LocalClient(), env.pool)  # doctest: +SKIP
        >>> env.simulator = simulator  # doctest: +SKIP
    """

    def __init__(self, client: ModelClient, pool: Pool, cache: SimulationCache | None = None,
                 fallback: OfflineSimulator | None = None, *, max_repairs: int = 2,
                 timeout: float = 60.0, on_error: OnError = "fallback", max_tokens: int = 512,
                 temperature: float | None = None, show_example: bool = True) -> None:
        if on_error not in ("fallback", "raise"):
            raise UserError(f"on_error must be 'fallback' or 'raise', got {on_error!r}")
        if max_repairs < 0 or timeout <= 0:
            raise UserError("max_repairs must be >= 0 and timeout > 0")
        self.client = client
        self.pool = pool
        self.cache = cache if cache is not None else SimulationCache()
        self.fallback = fallback if fallback is not None else OfflineSimulator(pool)
        self.max_repairs = max_repairs
        self.timeout = timeout
        self.on_error = on_error
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.show_example = show_example
        self.stats = SimulatorStats()
        self._runner = LoopThread("compoworld-llm-simulator")
        self._locks = [threading.Lock() for _ in range(_STRIPES)]
        self._guard = threading.Lock()

    def simulate(self, call: SimulatedCall) -> Any:
        with self._guard:
            self.stats.simulated_calls += 1
            self.stats.by_tool[call.name] = self.stats.by_tool.get(call.name, 0) + 1
        key = cache_key(call.name, call.arguments, call.state_digest, call.seed)
        with self._key_lock(key):  # one answer per key, even when rollouts ask at once
            data = self.cache.get(key)
            if data is None:
                data = self.answer(call, key)
                self.cache.put(key, data)
            else:
                with self._guard:
                    self.stats.cache_hits += 1
        written = write_back(call.db, call.tool, data)
        with self._guard:
            self.stats.written_back += written
        return data

    def _key_lock(self, key: str) -> threading.Lock:
        return self._locks[int(key[:8], 16) % _STRIPES]

    def answer(self, call: SimulatedCall, key: str) -> Any:
        """A schema-valid answer for ``call``: the model's (repaired if need be) or the fallback's."""
        example = self.fallback.generate(call, key) if self.show_example else None
        messages = build_messages(call, example)
        seed = derive_seed(call.seed, key) % 2**31
        for attempt in range(self.max_repairs + 1):
            try:
                reply = self._runner.run(self.client.chat(
                    messages, temperature=self.temperature, max_tokens=self.max_tokens, seed=seed),
                    timeout=self.timeout)
            except (ModelError, TimeoutError) as error:
                return self._endpoint_failed(call, key, error)
            text = reply.content or ""
            try:
                data, closed = extract_json(text, truncated=reply.finish_reason == "length")
                data = self._validate(call, data)
                if closed or attempt:
                    self._count("schema_repairs")
                return data
            except AnswerError as error:
                problem = str(error)
            if attempt < self.max_repairs:
                messages = [*messages, {"role": "assistant", "content": text[:4000]},
                            {"role": "user", "content": _repair_request(problem, reply.finish_reason)}]
        self._count("llm_failures", "fallbacks")
        return self._offline(call, key, example)

    def _validate(self, call: SimulatedCall, data: Any) -> Any:
        output = call.tool.output
        asked = _asked_id(call.tool, call.arguments)
        if asked is not None and isinstance(data, dict):
            data["id"] = asked  # the record the call names by id is the one it answers about
        if output is None:
            return data
        try:
            return output.dump_python(output.validate_python(data), mode="json")
        except ValidationError as error:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
                                 for e in error.errors(include_url=False)[:8])
            raise AnswerError(f"the answer does not match the output schema: {problems}") from None

    def _endpoint_failed(self, call: SimulatedCall, key: str, error: Exception) -> Any:
        self._count("llm_failures")
        if self.on_error == "raise":
            if isinstance(error, ModelError):
                raise error
            raise ModelError(f"world model gave no answer for {call.name!r} within "
                             f"{self.timeout:g}s") from error
        self._count("fallbacks")
        return self._offline(call, key, None)

    def _offline(self, call: SimulatedCall, key: str, example: Any) -> Any:
        return example if example is not None else self.fallback.generate(call, key)

    def _count(self, *names: str) -> None:
        with self._guard:
            for name in names:
                setattr(self.stats, name, getattr(self.stats, name) + 1)

    def close(self) -> None:
        """Stop the private event-loop thread."""
        self._runner.close()


def _repair_request(problem: str, finish_reason: str | None) -> str:
    shorter = " Keep it short: your answer was cut off." if finish_reason == "length" else ""
    return (f"That answer cannot be used: {problem}.{shorter} Reply again with only the corrected "
            "JSON value, matching the output schema.")
