"""``Episode``: one task in its own world, turn by turn — the loop every agent runs in.

A bad rollout is data, not a crash: malformed arguments, unknown tools, huge arguments and
failing endpoints all end up in the trajectory (as error envelopes the agent sees, as
``malformed_calls``, as ``finish_reason``), never as an exception out of :meth:`Episode.run`.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import orjson

from compoworld.errors import BadArguments, UserError
from compoworld.models import AssistantMessage, ModelError, ToolCall
from compoworld.rollout._trajectory import CallRecord, FinishReason, Timings, Trajectory
from compoworld.rollout._world import build_world
from compoworld.service import Envelope, fail
from compoworld.service._limits import check_limits

if TYPE_CHECKING:
    from compoworld.rollout._agent import Agent
    from compoworld.service import Simulator
    from compoworld.tasks import Task
    from compoworld.world import World

MAX_ARGUMENT_CHARS = 100_000
"""Arguments longer than this (as JSON text) are refused without being parsed."""
MAX_CALLS_PER_TURN = 64
"""Calls past this many in one turn are refused (each gets an error message)."""
_LOGGED_RAW_CHARS = 2_000


def _parse(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """The arguments object of a tool call, or None and what is wrong with the text."""
    if len(raw) > MAX_ARGUMENT_CHARS:
        return None, (f"the arguments are {len(raw):,} characters long; the limit is "
                      f"{MAX_ARGUMENT_CHARS:,}. Send shorter arguments")
    if not raw.strip():
        return {}, None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        return None, (f"the arguments are not valid JSON ({error}). Send the arguments as one "
                      f"JSON object, e.g. {{\"name\": \"value\"}}")
    if not isinstance(value, dict):
        return None, (f"the arguments must be a JSON object, got a JSON {type(value).__name__}. "
                      f"Send them as {{\"parameter\": value, ...}}")
    try:  # too deep, too big: never run, and logged as text (the log must serialize)
        check_limits(value)
    except BadArguments as error:
        return None, error.message
    return value, None


class Episode:
    """One rollout of ``task``: its world, the conversation, the call log and the budgets.

    Args:
        task: The task to run.
        world: The task's world in its initial state (default: :func:`build_world`); the
            episode changes it, so give each episode its own (``world.fork()``).
        simulator: The world model when ``world`` is None (share one across a group).
        max_steps: Assistant turns before the episode is cut (``max_steps``).
        max_tokens: Tokens the model may generate over the episode (``max_tokens``).
        time_limit: Seconds of wall time for the episode (``timeout``).
        rollout_idx: This rollout's index in its group.
        tools: The interface's tools, when already known (``world.tools()``: the rollouts of
            a group share one list; it is never modified).

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> from compoworld.models import AssistantMessage
        >>> episode = Episode(next(generate_tasks(1, seed=0)))
        >>> messages, tools = episode.reset()
        >>> [m["role"] for m in messages]
        ['system', 'user']
        >>> episode.step(AssistantMessage(content="Nothing to do."))
        []
        >>> episode.finish_reason
        'stop'
    """

    def __init__(self, task: Task, world: World | None = None, *,
                 simulator: Simulator | None = None, max_steps: int = 30,
                 max_tokens: int | None = None, time_limit: float | None = None,
                 rollout_idx: int = 0, tools: list[dict[str, Any]] | None = None) -> None:
        if max_steps < 1:
            raise UserError(f"max_steps must be at least 1, got {max_steps}")
        self.task = task
        self.world = world if world is not None else build_world(task, simulator)
        self.max_steps, self.max_tokens, self.time_limit = max_steps, max_tokens, time_limit
        self.rollout_idx = rollout_idx
        self.tools = tools if tools is not None else self.world.tools()
        self.reset()

    def reset(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Start over (the world back to its initial state): the opening messages (system
        prompt with the date, the user's instruction) and the tools of the interface."""
        self.world.reset()
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.task.system_prompt},
            {"role": "user", "content": self.task.instruction}]
        self.calls: list[CallRecord] = []
        self.n_steps = self.malformed_calls = 0
        self.finish_reason: FinishReason | None = None
        self.final_message = ""
        self.error: str | None = None
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0}
        self.timings = Timings()
        self._started = time.perf_counter()
        self._ids: set[str] = set()
        return list(self.messages), self.tools

    @property
    def done(self) -> bool:
        return self.finish_reason is not None

    def remaining_time(self) -> float | None:
        """Seconds left before the time limit (None: no limit)."""
        if self.time_limit is None:
            return None
        return self.time_limit - (time.perf_counter() - self._started)

    def end(self, reason: FinishReason, error: str | None = None) -> None:
        """End the episode (truncated unless ``reason`` is ``stop``)."""
        if self.finish_reason is None:
            self.finish_reason, self.error = reason, error

    def step(self, assistant: AssistantMessage) -> list[dict[str, Any]]:
        """Take one assistant turn: run its tool calls in order, return the tool messages.

        A turn without tool calls is the final answer and ends the episode (``stop``). After
        the calls, the budgets are checked; a spent budget ends the episode as truncated.
        """
        if self.done:
            raise UserError(f"episode of task {self.task.id!r} has ended "
                            f"({self.finish_reason}); reset() to start again")
        self.n_steps += 1
        self.usage["prompt_tokens"] += assistant.usage.prompt_tokens
        self.usage["completion_tokens"] += assistant.usage.completion_tokens
        calls = [self._unique(call) for call in assistant.tool_calls]
        message = assistant.model_copy(update={"tool_calls": calls}).to_openai()
        self.messages.append(message)
        if not calls:
            self.final_message = assistant.content or ""
            self.end("stop")
            return []
        started = time.perf_counter()
        replies = [self._execute(i, call) for i, call in enumerate(calls)]
        self.timings.env_s += time.perf_counter() - started
        self.messages.extend(replies)
        self._check_budgets()
        return replies

    def _check_budgets(self) -> None:
        remaining = self.remaining_time()
        if self.max_tokens is not None and self.usage["completion_tokens"] >= self.max_tokens:
            self.end("max_tokens")
        elif remaining is not None and remaining <= 0:
            self.end("timeout")
        elif self.n_steps >= self.max_steps:
            self.end("max_steps")

    def _unique(self, call: ToolCall) -> ToolCall:
        """The call, with an id no earlier call of the episode has (models repeat them)."""
        if call.id and call.id not in self._ids:
            self._ids.add(call.id)
            return call
        number = len(self._ids)
        while f"call_{number}" in self._ids:
            number += 1
        self._ids.add(f"call_{number}")
        return call.model_copy(update={"id": f"call_{number}"})

    def _execute(self, index: int, call: ToolCall) -> dict[str, Any]:
        """Run one call; a call that is not run logs its raw text as its arguments (so a
        replay of the log skips it)."""
        started = time.perf_counter()
        arguments, problem = _parse(call.arguments)
        logged: Any = arguments
        if index >= MAX_CALLS_PER_TURN or arguments is None:
            if index >= MAX_CALLS_PER_TURN:
                envelope = fail(400, f"too many calls in one turn (limit {MAX_CALLS_PER_TURN}); "
                                     f"this one was not run")
            else:
                self.malformed_calls += 1
                envelope = fail(400, f"call {call.id!r} to {call.name!r} was not run: {problem}")
            raw = call.arguments
            logged = raw if len(raw) <= _LOGGED_RAW_CHARS else (
                raw[:_LOGGED_RAW_CHARS] + f"… ({len(raw):,} characters)")
        else:
            envelope = self.world.call(call.name, arguments)
        self.calls.append(self._record(call, logged, envelope, time.perf_counter() - started))
        return {"role": "tool", "tool_call_id": call.id, "name": call.name,
                "content": orjson.dumps(envelope).decode()}

    def _record(self, call: ToolCall, arguments: Any, envelope: Envelope,
                seconds: float) -> CallRecord:
        error = envelope.get("error")
        code = error["code"] if error else None
        return CallRecord(
            turn=self.n_steps - 1, call_id=call.id, name=call.name, arguments=arguments,
            success=envelope["success"], code=code,
            error=error["message"] if error else None,
            error_source=None if error is None else (
                "environment" if code is not None and code >= 500 else "agent"),
            seconds=round(seconds, 6))

    async def run(self, agent: Agent, *, timings: bool = True) -> Trajectory:
        """Play the episode with ``agent`` to its end; never raises for what happens inside.

        A :class:`~compoworld.models.ModelError` (or any other failure of the agent) ends it
        with ``model_error``; running out of time while the agent thinks ends it with
        ``timeout``; an exception out of the environment ends it with ``env_error``.
        """
        while not self.done:
            remaining = self.remaining_time()
            if remaining is not None and remaining <= 0:
                self.end("timeout")
                break
            started = time.perf_counter()
            try:
                reply = await asyncio.wait_for(
                    agent.respond(self.task, list(self.messages), self.tools), remaining)
            except TimeoutError:
                self.end("timeout", f"the agent did not answer within {self.time_limit} s")
                break
            except ModelError as error:
                self.end("model_error", str(error))
                break
            except Exception as error:  # an agent bug: data about this rollout, not a crash
                self.end("model_error", f"{type(error).__name__}: {error}")
                break
            finally:
                self.timings.model_s += time.perf_counter() - started
            if not isinstance(reply, AssistantMessage):
                self.end("model_error", f"the agent answered with a {type(reply).__name__}, "
                                        f"not an AssistantMessage")
                break
            try:
                self.step(reply)
            except Exception as error:  # a bug of the environment: recorded, the run goes on
                self.end("env_error", f"the environment failed on turn {self.n_steps}: "
                                      f"{type(error).__name__}: {str(error)[:300]}")
        return self.to_trajectory(agent.name, agent.model, timings=timings)

    def to_trajectory(self, agent: str, model: str | None = None, *,
                      timings: bool = True) -> Trajectory:
        """The episode as a :class:`Trajectory` (unfinished episodes count as ``max_steps``).

        Args:
            agent: The agent's name to record.
            model: The model behind it.
            timings: Record wall times; False zeroes them, so that a deterministic agent gives
                byte-identical trajectories.
        """
        self.timings.total_s = time.perf_counter() - self._started
        spent = Timings(**{k: round(v, 6) for k, v in self.timings.model_dump().items()})
        calls = self.calls if timings else [c.model_copy(update={"seconds": 0.0})
                                            for c in self.calls]
        return Trajectory(
            task_id=self.task.id, rollout_idx=self.rollout_idx, agent=agent, model=model,
            interface=self.task.interface, messages=self.messages, tools=self.tools,
            calls=calls, final_message=self.final_message,
            finish_reason=self.finish_reason or "max_steps", n_steps=self.n_steps,
            malformed_calls=self.malformed_calls, timings=spent if timings else Timings(),
            usage=dict(self.usage), error=self.error)


async def run_episode(task: Task, agent: Agent, *, world: World | None = None,
                      simulator: Simulator | None = None, rollout_idx: int = 0,
                      max_steps: int = 30, max_tokens: int | None = None,
                      time_limit: float | None = None, timings: bool = True) -> Trajectory:
    """Run one rollout of ``task`` with ``agent`` and return its trajectory.

    Example:
        >>> import asyncio
        >>> from compoworld.tasks import generate_tasks
        >>> from compoworld.rollout import OracleAgent
        >>> trajectory = asyncio.run(run_episode(next(generate_tasks(1)), OracleAgent()))
        >>> trajectory.finish_reason, all(c.success for c in trajectory.calls)
        ('stop', True)
    """
    episode = Episode(task, world, simulator=simulator, max_steps=max_steps,
                      max_tokens=max_tokens, time_limit=time_limit, rollout_idx=rollout_idx)
    return await episode.run(agent, timings=timings)
