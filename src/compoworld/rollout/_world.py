"""The world of a rollout: the task's world with a world model attached.

The world model is the offline simulator unless configured otherwise: ``compoworld rollout
--simulator llm --simulator-model local|NAME``, or the ``COMPOWORLD_SIMULATOR*`` environment
variables (which the CLI sets, so Ray workers started by the run see the same choice).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, fields
from typing import Literal

from compoworld.errors import UserError
from compoworld.models import ModelClient, client_from_settings, make_client
from compoworld.service import Simulator
from compoworld.simulate import LLMSimulator, OfflineSimulator
from compoworld.tasks import Task
from compoworld.tasks import build_world as task_world
from compoworld.types import Pool
from compoworld.world import World

SimulatorKind = Literal["offline", "llm"]
SIMULATOR_KINDS: tuple[SimulatorKind, ...] = ("offline", "llm")
ENV_SIMULATOR = "COMPOWORLD_SIMULATOR"
"""``offline`` or ``llm``; the other fields are ``COMPOWORLD_SIMULATOR_<FIELD>``."""

_LOCK = threading.Lock()
_CLIENTS: dict[WorldModelSpec, ModelClient] = {}
_SIMULATORS: dict[tuple[WorldModelSpec, int], tuple[Pool, LLMSimulator]] = {}
_KEPT = 32


@dataclass(frozen=True)
class WorldModelSpec:
    """Which world model answers the simulated tools of a run, as plain data.

    Attributes:
        kind: ``offline`` (the seeded schema-driven simulator, no model) or ``llm``.
        model: ``local`` (the bundled SmolLM2, in process) or the name of a model served at
            ``base_url`` (default: ``$COMPOWORLD_MODEL``).
        base_url: OpenAI-compatible endpoint (default: ``$COMPOWORLD_BASE_URL``).
        api_key: The endpoint's key (default: ``$COMPOWORLD_API_KEY``).
        max_tokens: Cap on one answer's tokens.
        timeout: Seconds per model request; past it the offline simulator answers.
        repairs: Re-prompts with the validation error before falling back to offline.

    Example:
        >>> spec = WorldModelSpec("llm", model="local", max_tokens=64)
        >>> WorldModelSpec.from_env(spec.env()) == spec
        True
    """

    kind: SimulatorKind = "offline"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    max_tokens: int = 256
    timeout: float = 120.0
    repairs: int = 1

    def __post_init__(self) -> None:
        if self.kind not in SIMULATOR_KINDS:
            raise UserError(f"--simulator must be one of {', '.join(SIMULATOR_KINDS)}, "
                            f"got {self.kind!r}")
        if self.max_tokens < 1 or self.timeout <= 0 or self.repairs < 0:
            raise UserError("--simulator-max-tokens must be >= 1, --simulator-timeout > 0 and "
                            "--simulator-repairs >= 0")

    def env(self) -> dict[str, str]:
        """The environment variables that describe this spec (what :meth:`export` sets)."""
        out: dict[str, str] = {ENV_SIMULATOR: self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "kind" and value is not None:
                out[f"{ENV_SIMULATOR}_{f.name.upper()}"] = str(value)
        return out

    def export(self) -> None:
        """Make this the world model of every :func:`build_world` in this process and in the
        processes it starts (Ray workers): sets :meth:`env`, clears the other variables."""
        for f in fields(self):
            os.environ.pop(ENV_SIMULATOR if f.name == "kind" else f"{ENV_SIMULATOR}_{f.name.upper()}",
                           None)
        os.environ.update(self.env())

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> WorldModelSpec:
        """The spec the environment variables describe (offline when none is set)."""
        environ = dict(os.environ) if environ is None else environ
        values: dict[str, object] = {}
        for f in fields(cls):
            name = ENV_SIMULATOR if f.name == "kind" else f"{ENV_SIMULATOR}_{f.name.upper()}"
            if environ.get(name):
                raw = environ[name]
                try:
                    values[f.name] = (int(raw) if f.name in ("max_tokens", "repairs")
                                      else float(raw) if f.name == "timeout" else raw)
                except ValueError:
                    raise UserError(f"${name} must be a number, got {raw!r}") from None
        return cls(**values)  # type: ignore[arg-type]

    def client(self) -> ModelClient:
        """The model client (one per spec and process; the bundled model loads once).

        Raises:
            UserError: no model named, or a model name with no endpoint to ask it from.
        """
        with _LOCK:
            client = _CLIENTS.get(self)
            if client is None:
                if self.model == "local":
                    client = make_client("local", timeout=self.timeout)
                else:
                    client = client_from_settings(self.base_url, self.model, self.api_key,
                                                  timeout=self.timeout)
                if client is None:
                    raise UserError("--simulator llm needs a model: --simulator-model local (the "
                                    "bundled one), or a model name with --simulator-base-url or "
                                    "$COMPOWORLD_BASE_URL")
                _CLIENTS[self] = client
            return client

    def build(self, pool: Pool) -> Simulator:
        """The world model for worlds of ``pool``.

        Offline: a new simulator (share it across the forks of a group). LLM: one per spec and
        pool, shared by every world of that pool in this process, so its cache and its model
        thread serve the whole run.
        """
        if self.kind == "offline":
            return OfflineSimulator(pool)
        client = self.client()
        with _LOCK:
            kept = _SIMULATORS.get((self, id(pool)))
            if kept is not None and kept[0] is pool:
                return kept[1]
            simulator = LLMSimulator(client, pool, max_repairs=self.repairs, timeout=self.timeout,
                                     max_tokens=self.max_tokens)
            if len(_SIMULATORS) >= _KEPT:
                _SIMULATORS.pop(next(iter(_SIMULATORS)))[1].close()
            _SIMULATORS[(self, id(pool))] = (pool, simulator)  # the pool kept alive: its id stays
            return simulator


def build_world(task: Task, simulator: Simulator | None = None) -> World:
    """The world ``task`` was generated on (:func:`compoworld.tasks.build_world`), in its
    initial state, with a world model for simulated tools.

    Args:
        task: The task.
        simulator: The world model. Share one across a rollout group so every rollout sees the
            same answers; None attaches the configured one (:meth:`WorldModelSpec.from_env`:
            a new offline simulator unless ``$COMPOWORLD_SIMULATOR`` says ``llm``).

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> task = next(generate_tasks(1, seed=0))
        >>> world = build_world(task)
        >>> sorted(world.services) == sorted(task.involved + task.distractors)
        True
    """
    world = task_world(task, simulator)
    if simulator is None:
        # Attached now, not lazily by the environment on its first simulated call: forks of
        # this world (the rollouts of a group) then share one simulator and its cache.
        world.env.simulator = WorldModelSpec.from_env().build(world.env.pool)
    return world
