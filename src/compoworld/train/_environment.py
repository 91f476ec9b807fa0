"""The ``environment_factory`` adapter: CompoWorld tasks as TRL ``GRPOTrainer`` environments.

TRL's contract (``GRPOTrainer(environment_factory=...)``, TRL ≥ 1.x): an environment is an
object whose public methods are the tools the model may call (TRL builds their JSON schemas
from the type hints and the Google docstring's ``Args:``), plus ``reset(**row)``, called with
the dataset row before each rollout. One instance serves one rollout at a time; instances are
pooled and reset between rollouts. With a ``dict`` of factories, each row's ``environment``
column picks its factory, and only that environment's tools are shown in its prompt.

A world's tools depend on its services, so :func:`environment_factories` makes one class per
world (services + interface) of a task set. The rubric is scored by the reward functions of
:mod:`compoworld.train._rewards` (they see the model's final answer, which an environment never
does): each instance keeps its episode in :attr:`TaskEnvironment.episode` — an instance
attribute, so TRL does not take it for a tool.
"""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar, Literal

import orjson

from compoworld.errors import UserError
from compoworld.rollout import CallRecord, build_world
from compoworld.scoring import PROGRAMMATIC_KINDS, called_tools
from compoworld.tasks import Task, score
from compoworld.world import World

_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool,
                          "object": dict}


def world_key(task: Task) -> str:
    """The name of a task's world class: interface and mounted services, e.g.
    ``direct:calendar+contacts+mail+tasks``. Tasks with the same key see the same tools."""
    return f"{task.interface}:" + "+".join(sorted({*task.involved, *task.distractors}))


@lru_cache(maxsize=1024)
def _task(text: str) -> Task:
    return Task.model_validate_json(text)


@dataclass
class EnvironmentEpisode:
    """What one rollout did in its world: the calls, and the rubric checks at the end.

    Attributes:
        task: The task of the rollout.
        initial: The task's world in its initial state (never called).
        world: The world the model acts on.
        calls: Every call the model made, with its outcome.
    """

    task: Task
    initial: World
    world: World
    calls: list[CallRecord] = field(default_factory=list)

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Run one tool call on the world; the envelope as JSON text (what the model reads)."""
        envelope = self.world.call(name, arguments)
        error = envelope.get("error")
        code = error["code"] if error else None
        self.calls.append(CallRecord(
            turn=len(self.calls), call_id=f"call_{len(self.calls)}", name=name,
            arguments=arguments, success=envelope["success"], code=code,
            error=error["message"] if error else None,
            error_source=None if error is None else ("environment" if code == 500 else "agent")))
        return orjson.dumps(envelope).decode()

    def passes(self, final_message: str) -> list[bool]:
        """One bool per rubric criterion, in rubric order, on the world as it is now."""
        results = score(self.task.rubric, self.initial.env, self.world.env, final_message,
                        called_tools(self.world, self.calls))
        return [r.passed for r in results]


class TaskEnvironment:
    """Base of the per-world environment classes :func:`environment_factories` makes.

    Subclasses add one public method per tool of their world. ``reset(**row)`` reads the
    task from the row's ``task`` column (the task as JSON, as :func:`compoworld.export.rl_row`
    writes it) and builds a fresh world for it.

    Attributes:
        world_key: The world this class serves (see :func:`world_key`).
        episode: The current rollout (None before the first ``reset``).
    """

    world_key: ClassVar[str] = ""
    interface: ClassVar[Literal["direct", "gateway"]] = "direct"

    def __init__(self) -> None:
        self.episode: EnvironmentEpisode | None = None

    def reset(self, **row: Any) -> None:
        """Start a rollout of the row's task in a new world (``task``: the task's JSON)."""
        text = row.get("task")
        if not isinstance(text, str):
            raise UserError("a row for a CompoWorld environment needs a 'task' column holding the task "
                            "as JSON (compoworld export rl writes it); got columns: "
                            + ", ".join(sorted(row)))
        task = _task(text)
        if self.world_key and world_key(task) != self.world_key:
            raise UserError(f"task {task.id!r} runs in world {world_key(task)!r}, but this environment "
                            f"is {self.world_key!r}: the row's 'environment' column must be its world key")
        judged = [c.id for c in task.rubric if c.kind not in PROGRAMMATIC_KINDS]
        if judged:
            raise UserError(f"task {task.id!r} has model-judged criteria ({', '.join(judged)}); "
                            "GRPO training scores programmatic criteria only")
        if self.episode is not None:  # free the last rollout's databases
            self.episode.world.env.close()
            self.episode.initial.env.close()
        initial = build_world(task)
        world = initial.fork()
        world.env.simulator = initial.env.simulator
        self.episode = EnvironmentEpisode(task, initial, world)

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.episode is None:
            raise UserError("the environment was called before reset()")
        return self.episode.call(name, arguments)


def _annotation(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "array":
        return list[_annotation(schema.get("items") or {"type": "string"})]  # type: ignore[misc]
    return _TYPES.get(kind if isinstance(kind, str) else "string", str)


def _describe(schema: dict[str, Any]) -> str:
    text = " ".join(str(schema.get("description") or "No description.").split())
    if "default" in schema and schema["default"] is not None:
        text += f" Default: {orjson.dumps(schema['default']).decode()}."
    if "enum" in schema:  # transformers reads "(choices: [...])" into the schema's enum
        text += " (choices: " + orjson.dumps(schema["enum"]).decode() + ")"
    return text


def _python_names(properties: dict[str, Any]) -> dict[str, str]:
    """A Python parameter name for each schema property (``from`` → ``from_``, ``a-b`` → ``a_b``)."""
    out: dict[str, str] = {}
    for prop in properties:
        name = re.sub(r"\W", "_", prop)
        if not name or name[0].isdigit():
            name = "p_" + name
        if keyword.iskeyword(name):
            name += "_"
        while name in out.values() or name == "self":
            name += "_"
        out[prop] = name
    return out


def _tool_method(name: str, function: dict[str, Any]) -> Callable[..., str]:
    """A method ``name(self, **arguments) -> str`` with the signature and docstring of a tool.

    A parameter whose name is not a Python identifier (or is a keyword) is shown under a
    Python name (``from`` → ``from_``) and sent to the tool under its own.
    """
    parameters = function.get("parameters") or {}
    properties: dict[str, Any] = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    python = _python_names(properties)
    original = {v: k for k, v in python.items() if v != k}
    ordered = sorted(properties, key=lambda p: p not in required)  # required ones first

    def method(self: TaskEnvironment, **arguments: Any) -> str:
        return self._call(name, {original.get(k, k): v for k, v in arguments.items()})

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for p in ordered:
        default = inspect.Parameter.empty if p in required else properties[p].get("default")
        params.append(inspect.Parameter(python[p], inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=_annotation(properties[p])))
    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = {p.name: p.annotation for p in params[1:]} | {"return": str}
    description = str(function.get("description") or name).strip()
    args = "".join(f"\n    {python[p]}: {_describe(properties[p])}" for p in ordered)
    method.__doc__ = (f"{description}\n\n" + (f"Args:{args}\n\n" if args else "")
                      + "Returns:\n    The result envelope, as JSON.")
    return method


def environment_class(task: Task) -> type[TaskEnvironment]:
    """The environment class of ``task``'s world: one method per tool of its interface.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> task = next(generate_tasks(1, seed=0))
        >>> env = environment_class(task)()
        >>> env.reset(task=task.model_dump_json())
        >>> step = task.plan[0]  # the reference plan's first call, as the model would make it
        >>> getattr(env, step.tool)(**step.arguments)[:15]
        '{"success":true'
    """
    world = build_world(task)
    methods = {t["function"]["name"]: _tool_method(t["function"]["name"], t["function"])
               for t in world.tools()}
    world.env.close()
    clash = sorted(set(methods) & {"reset", "get_reward", "episode", "world_key", "interface"})
    if clash:
        raise UserError(f"tools named {clash} would shadow the environment's own attributes")
    key = world_key(task)
    name = "World_" + "".join(ch if ch.isalnum() else "_" for ch in key)
    return type(name, (TaskEnvironment,), {"world_key": key, "interface": task.interface,
                                           "__doc__": f"CompoWorld world {key}.", **methods})


def environment_factories(tasks: Iterable[Task]) -> dict[str, type[TaskEnvironment]]:
    """One environment class per world of ``tasks``, keyed by :func:`world_key`: the ``dict``
    ``environment_factory`` of TRL's ``GRPOTrainer`` (each class is its own factory). Pair it
    with a dataset whose ``environment`` column is each row's world key (:func:`rl_dataset`).

    Raises:
        UserError: No tasks.

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> tasks = list(generate_tasks(2, seed=0))
        >>> factories = environment_factories(tasks)
        >>> all(world_key(t) in factories for t in tasks), next(iter(factories))[:7]
        (True, 'direct:')
    """
    out: dict[str, type[TaskEnvironment]] = {}
    for task in tasks:
        key = world_key(task)
        if key not in out:
            out[key] = environment_class(task)
    if not out:
        raise UserError("no tasks: an environment factory needs at least one task")
    return out


def rl_rows(tasks: Iterable[Task]) -> list[dict[str, Any]]:
    """The RL rows of ``tasks`` (:func:`compoworld.export.rl_row`) with the ``environment``
    column that routes each to its world class."""
    from compoworld.export import rl_row

    return [{**rl_row(task), "environment": world_key(task)} for task in tasks]
