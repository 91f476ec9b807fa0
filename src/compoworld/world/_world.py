"""``World``: mounted services, the task-relevant ones and distractors, behind one interface."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from typing import Any, Literal

from compoworld.catalog import load_service, service_names
from compoworld.errors import ToolError, UserError
from compoworld.service import (
    Envelope,
    Environment,
    Service,
    Simulator,
    fail,
    ok,
    openai_tools,
)
from compoworld.types import DEFAULT_TODAY, derive_seed
from compoworld.world._gateway import GATEWAY_TOOLS
from compoworld.world._images import assemble
from compoworld.world._schemas import tool_definitions

Interface = Literal["direct", "gateway"]


@dataclass(frozen=True)
class World:
    """An environment an agent works in: services (involved + distractors) and an interface.

    Attributes:
        env: The services on their shared SQLite state.
        involved: The services a task needs.
        distractors: Services mounted only to be ignored (the agent cannot tell which).
        interface: ``direct`` (every tool as a function ``service__tool``) or ``gateway``
            (four meta-tools to discover and call them).
        seed: The world seed.
    """

    env: Environment
    involved: tuple[str, ...]
    distractors: tuple[str, ...]
    interface: Interface
    seed: int

    @property
    def today(self) -> date:
        return self.env.today

    @property
    def services(self) -> tuple[str, ...]:
        """Every mounted service, in the (alphabetical) order the agent sees them."""
        return tuple(self.env.services)

    def tools(self) -> list[dict[str, Any]]:
        """The OpenAI function definitions the agent is given for this interface."""
        if self.interface == "gateway":
            return openai_tools(GATEWAY_TOOLS)
        return tool_definitions(self.env)

    def call(self, name: str, arguments: Any = None) -> Envelope:
        """Call a tool of the interface by name; never raises, always an envelope."""
        if self.interface == "direct":
            return self.env.call(name, arguments)
        tool = GATEWAY_TOOLS.get(name) if isinstance(name, str) else None
        if tool is None:
            hint = (f"; in this workspace, call it with call_tool(tool_name={name!r}, ...)"
                    if isinstance(name, str) and name in self.env.tools else "")
            return fail(404, f"unknown tool {name!r}{hint} (tools: {', '.join(GATEWAY_TOOLS)})")
        try:
            args = tool.check_arguments(arguments)
            if name == "call_tool":
                return self.env.call(args["tool_name"], args.get("arguments") or {})
            return ok(tool.fn(self, **args))
        except ToolError as error:
            return fail(error.code, error.message)

    def fork(self) -> World:
        """An independent world in this one's initial state."""
        return replace(self, env=self.env.fork())

    def reset(self) -> None:
        self.env.reset()


@lru_cache(maxsize=4)
def _catalog(seed: int, today: date) -> Environment:
    """Every catalog service, seeded (assembled from the services' cached images)."""
    return assemble(service_names(), seed, today)


def catalog_environment(seed: int = 0, today: date = DEFAULT_TODAY) -> Environment:
    """The seeded environment of every catalog service (built once per process; assembled from
    the services' seeded images, like every world). Shared: call tools only on a
    :meth:`Environment.fork`. Nothing on the way to a task's world needs it: a world mounts
    only its own services.

    Example:
        >>> env = catalog_environment(0).fork()
        >>> env.db("contacts").count("contact") > 0
        True
    """
    return _catalog(seed, today)


@lru_cache(maxsize=64)
def _seeded(names: tuple[str, ...], seed: int, today: date) -> Environment:
    """The seeded environment of a service set, assembled from each service's seeded image
    (made once per service, seed and date, and cached on disk); worlds are forks of it."""
    return assemble(list(names), seed, today)


def _names(services: Sequence[str | Service]) -> list[str]:
    return [s.name if isinstance(s, Service) else s for s in services]


def choose_distractors(involved: Sequence[str], count: int, *, seed: int = 0,
                       pool: Sequence[str] | None = None) -> list[str]:
    """The distractor services :func:`compose` mounts beside ``involved`` (sorted): drawn
    from ``pool`` (default: the catalog) by the seed and the involved set alone.

    Raises:
        UserError: Fewer than ``count`` other services to draw from.

    Example:
        >>> choose_distractors(["contacts", "crm"], 2, seed=1) == list(
        ...     compose(["contacts", "crm"], distractors=2, seed=1).distractors)
        True
    """
    candidates = sorted(set(pool if pool is not None else service_names()) - set(involved))
    if count > len(candidates):
        raise UserError(f"{count} distractors asked for, but only {len(candidates)} other "
                        f"services can be mounted ({', '.join(candidates) or 'none'})")
    rng = random.Random(derive_seed(seed, "distractors", *sorted(involved)))
    return sorted(rng.sample(candidates, count))


def compose(
    involved: Sequence[str | Service],
    *,
    distractors: int = 0,
    seed: int = 0,
    interface: Interface = "direct",
    today: date = DEFAULT_TODAY,
    pool: Sequence[str] | None = None,
    simulator: Simulator | None = None,
) -> World:
    """Compose a world: the involved services plus ``distractors`` others from the catalog.

    Distractors are drawn deterministically from ``pool`` (default: the whole catalog) by the
    seed; all mounted services are ordered by name, so nothing marks which ones matter. State
    is seeded from the shared pool, so people and companies agree across services.

    Args:
        involved: Services (names or catalog ``Service`` objects) the task needs.
        distractors: How many other services to mount.
        seed: World seed (state and distractor choice).
        interface: ``"direct"`` or ``"gateway"``.
        today: The world's fixed date.
        pool: Service names to draw distractors from.
        simulator: The world model for simulated tools (share one across a rollout group).

    Raises:
        UserError: Unknown interface, or not enough services to draw distractors from.
        NotFound: An unknown service name.

    Example:
        >>> world = compose(["contacts", "crm"], distractors=2, seed=1)
        >>> len(world.services), world.involved
        (4, ('contacts', 'crm'))
    """
    if interface not in ("direct", "gateway"):
        raise UserError(f"interface must be 'direct' or 'gateway', got {interface!r}")
    chosen = _names(involved)
    for name in chosen:
        load_service(name)  # NotFound with suggestions for a typo
    extra = choose_distractors(chosen, distractors, seed=seed, pool=pool)
    env = _seeded(tuple(sorted({*chosen, *extra})), seed, today).fork()
    env.simulator = simulator
    return World(env=env, involved=tuple(chosen), distractors=tuple(extra), interface=interface,
                 seed=seed)
