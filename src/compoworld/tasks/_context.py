"""What one process keeps to generate tasks fast: the catalog's graph with the walk's indexes
(:class:`Catalog`, once per process and service set), and per world (one per batch of
attempts, see ``tasks._generate.world_seed``) three environments that are *reset* (a savepoint
rollback, costing what changed) between attempts instead of being rebuilt.

The environments start empty and grow: a service is mounted (from its seeded image, cached on
disk) the first time a walk reaches it, so a world costs only the services its walks reach.
Why one growing environment and not each task's own world: a service seeds the same whatever
else is mounted, and a tool only reads and writes its own service's tables, so a plan's calls,
answers and changes are the same here as on its task's world. Building each task's world costs
more than the rest of an attempt; ``tasks verify`` re-runs every gate on the task's own rebuilt
world.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from compoworld.catalog import load_service, service_digest, service_domain, service_names
from compoworld.errors import UserError
from compoworld.graph import DependencyGraph, Key, indexed_graph, statable
from compoworld.service import Environment
from compoworld.simulate import OfflineSimulator, SimulationCache
from compoworld.types import derive_seed
from compoworld.world import service_image

# Types too generic to carry a dependency: a date or an amount links everything to everything.
WEAK_TYPES = frozenset({"Date", "DateTime", "Time", "DurationMinutes", "Money", "Currency",
                        "Percent", "Quantity", "Country", "Region", "City", "Timezone",
                        "Language", "Industry", "Color", "JobTitle", "FirstName", "LastName"})

# Types that identify one person or company in *any* service: the only ones that carry a value
# from one service into another. Other typed values (a domain, a URL, an address, a username,
# an account number...) link steps of one service only: across services the compiler's typing
# of them is too loose (a Greenpeace event's "domain" is no mail domain; a company's website is
# no fax's media URL; mailscript's "address" is an email address, not a street address).
LINK_TYPES = frozenset({"Email", "Phone", "PersonName", "CompanyName"})


def strong(key: Key | None) -> bool:
    """Whether a value of this key identifies something (an id, an email, a name, a number)."""
    return key is not None and (key[0] == "ref" or key[1] not in WEAK_TYPES)


def carries(key: Key | None, *, cross: bool) -> bool:
    """Whether a value of this key may flow into a parameter: within a service any strong key
    (references included); across services only the identifying :data:`LINK_TYPES`."""
    if key is None:
        return False
    if cross:
        return key[0] == "type" and key[1] in LINK_TYPES
    return strong(key)


@dataclass
class Context:
    """The per-process state of task generation for one seed.

    Attributes:
        seed: The world seed.
        graph: The catalog's dependency graph.
        initial: The seeded catalog, never called (the initial state scoring compares with).
        work: Where walks and reference runs happen; reset at each attempt.
        scratch: Where gates replay the plan (ablations, the second run); reset before each,
            with the task's services mounted.
        starts: Read tools a walk can start from: the user can state every required argument
            (a value of a knowable type, or one of fixed choices) and a carrying link leaves
            the service within two steps.
        leaves: Tools with a carrying link into another service.
        anchored: Starts that take a value the user can state (an email, a name, a number).
        needs: Per tool, the keys of its required arguments only an earlier answer can give
            (an id): a walk that holds none of one cannot take the tool (None: nothing can).
    """

    seed: int
    graph: DependencyGraph
    initial: Environment
    work: Environment
    scratch: Environment
    starts: tuple[str, ...]
    leaves: frozenset[str]
    anchored: frozenset[str]
    needs: dict[str, tuple[Key | None, ...]]
    _values: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    statable: dict[tuple[str, str, str, str], list[Any]] = field(default_factory=dict)
    """Per (service, semantic type, field, record): the :meth:`user_values` the user may state
    for that field of a write (``tasks._values``; the same all through the world)."""
    _start_services: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def draw_starts(self, rng: random.Random, count: int) -> list[str]:
        """Up to ``count`` starts to try, in order: services drawn uniformly (without
        replacement) and one start of each (anchored ones first, within a service and then
        across), then the next start of each drawn service, and so on. Drawing services, not
        tools, is what lets a catalog's small services start walks as often as its large
        ones."""
        if not self._start_services:  # built whole, then kept (an interrupt leaves none)
            by_service: dict[str, tuple[str, ...]] = {}
            for name in self.starts:
                service = self.graph.nodes[name].service
                by_service[service] = (*by_service.get(service, ()), name)
            self._start_services = by_service
        services = rng.sample(sorted(self._start_services), min(count, len(self._start_services)))
        ranked = []
        for service in services:
            tools = list(self._start_services[service])
            rng.shuffle(tools)
            tools.sort(key=lambda n: n not in self.anchored)
            ranked.append(tools)
        order = [(i, tools[i] not in self.anchored, tools[i])
                 for i in range(max(map(len, ranked), default=0))
                 for tools in ranked if i < len(tools)]
        return [name for *_, name in sorted(order, key=lambda o: o[:2])][:count]

    def mount(self, service: str) -> None:
        """Mount ``service`` in the initial and work environments (its seeded image; the first
        time a walk reaches it), keeping what the work environment's episode did so far. The
        scratch environment mounts only what the gates replay (:meth:`fresh_scratch`)."""
        if service in self.work.services:
            return
        built = load_service(service)
        image = service_image(service, self.seed, self.initial.today)
        for env in (self.initial, self.work):
            env.mount(built, image)

    def next_tools(self, used: set[str]) -> set[str]:
        """The tools an answer of one of ``used`` can feed (a carrying key links them), found
        through the graph's index by key: within a service any strong key, across services
        the :data:`LINK_TYPES`."""
        return {t for u in used for t in linked(self.graph, u)}

    def user_values(self, service: str, semantic: str) -> list[Any]:
        """Values of ``semantic`` type the service holds initially: what a user could know."""
        key = (service, semantic)
        if key not in self._values:
            self.mount(service)
            db = self.initial.db(service)
            values: list[Any] = []
            for entity, table in self.initial.services[service].tables.items():
                for column in table.columns:
                    if column.semantic == semantic and column.kind in ("str", "int", "float"):
                        rows = db.sql(f'SELECT DISTINCT "{column.name}" AS v FROM {{{entity}}} '
                                      f'WHERE "{column.name}" IS NOT NULL ORDER BY rowid LIMIT 40')
                        values.extend(r["v"] for r in rows)
            self._values[key] = values
        return self._values[key]

    def column_values(self, service: str, name: str) -> list[Any]:
        """Text values of columns called ``name`` in the service's initial state (how a user
        names an untyped identifier, e.g. a ``server_id``, with a value that exists)."""
        key = (service, "\x00" + name)
        if key not in self._values:
            self.mount(service)
            db = self.initial.db(service)
            values: list[Any] = []
            for entity, table in self.initial.services[service].tables.items():
                if any(c.name == name and c.kind == "str" for c in table.columns):
                    rows = db.sql(f'SELECT DISTINCT "{name}" AS v FROM {{{entity}}} '
                                  f'WHERE "{name}" IS NOT NULL ORDER BY rowid LIMIT 40')
                    values.extend(r["v"] for r in rows if r["v"])
            self._values[key] = values
        return self._values[key]

    def fresh_work(self) -> Environment:
        """The work environment reset (its simulation cache is kept across attempts — answers
        are a function of the call and the state — but emptied past 20,000 answers)."""
        self.work.reset()
        simulator = self.work.simulator
        if isinstance(simulator, OfflineSimulator) and len(simulator.cache) > 20_000:
            simulator.cache = SimulationCache()
        return self.work

    def fresh_scratch(self, services: Iterable[str] = ()) -> Environment:
        """The scratch environment reset, with ``services`` mounted (a task's: the gates replay
        its plan, and a tool touches its own service only) and an empty simulation cache: a
        replay recomputes every simulated answer, so it checks the world model's determinism
        too."""
        for service in services:
            if service not in self.scratch.services:
                self.mount(service)
                self.scratch.mount(load_service(service),
                                   service_image(service, self.seed, self.initial.today))
        self.scratch.reset()
        simulator = self.scratch.simulator
        if isinstance(simulator, OfflineSimulator):
            simulator.cache = SimulationCache()
        return self.scratch


_LINKED: dict[int, tuple[DependencyGraph, dict[str, tuple[str, ...]]]] = {}
"""Per graph (by identity), what :func:`linked` found for each tool: a walk asks it of every
step it took, at every step it tries."""


def linked(graph: DependencyGraph, name: str) -> tuple[str, ...]:
    """The tools an answer of ``name`` can feed (with repeats): what a carrying key links
    (computed once per graph and tool)."""
    cached = _LINKED.get(id(graph))
    if cached is None or cached[0] is not graph:
        cached = _LINKED[id(graph)] = (graph, {})
    found = cached[1].get(name)
    if found is None:
        found = cached[1][name] = tuple(_linked(graph, name))
    return found


def _linked(graph: DependencyGraph, name: str) -> Iterator[str]:
    service = graph.nodes[name].service
    for key in graph.nodes[name].outputs:
        if not strong(key):
            continue
        cross = key[0] == "type" and key[1] in LINK_TYPES
        for target, _ in graph.consumers(key):
            if target != name and (cross or graph.nodes[target].service == service):
                yield target


def _leaves(graph: DependencyGraph) -> frozenset[str]:
    """Tools with a carrying link into another service (a link type some other service takes)."""
    takers: dict[Key, set[str]] = {}
    for key in graph.taken_keys():
        if key[0] == "type" and key[1] in LINK_TYPES:
            takers[key] = {graph.nodes[t].service for t, _ in graph.consumers(key)}
    return frozenset(name for name, node in graph.nodes.items()
                     if any(takers.get(k, set()) - {node.service} for k in node.outputs))


stated = statable
"""Whether the user can state a value for this parameter of a read (a knowable type, or one
of fixed choices): :func:`compoworld.graph.statable`."""


def _starts(graph: DependencyGraph, leaves: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(
        name for name, node in graph.nodes.items()
        if node.kind == "read" and node.required <= node.statable
        and (name in leaves or any(graph.nodes[t].service == node.service and t in leaves
                                   for t in linked(graph, name)))))


def select_services(services: Sequence[str] | None = None,
                    domains: Sequence[str] | None = None) -> tuple[str, ...]:
    """The catalog services generation walks over: all of them, or those named in ``services``
    and those of ``domains`` (sorted).

    Raises:
        UserError: A domain no service has.
        NotFound: An unknown service name (with the closest ones).
    """
    names = service_names()
    if not services and not domains:
        return tuple(names)
    chosen = set()
    for name in services or ():
        service_digest(name)  # NotFound with suggestions for a typo
        chosen.add(name)
    if domains:
        by_domain: dict[str, list[str]] = {}
        for name in names:
            by_domain.setdefault(service_domain(name), []).append(name)
        unknown = sorted(set(domains) - set(by_domain))
        if unknown:
            raise UserError(f"no service has domain {', '.join(map(repr, unknown))} (domains: "
                            f"{', '.join(sorted(by_domain))})")
        chosen.update(n for d in domains for n in by_domain[d])
    return tuple(sorted(chosen))


@dataclass(frozen=True)
class Catalog:
    """What generation reads of the catalog, the same for every world: the dependency graph
    and the walk's indexes (see :class:`Context` for each). Built once per process and
    service set; forked workers inherit it."""

    graph: DependencyGraph
    starts: tuple[str, ...]
    leaves: frozenset[str]
    anchored: frozenset[str]
    needs: dict[str, tuple[Key | None, ...]]
    start_services: dict[str, tuple[str, ...]]


@lru_cache(maxsize=4)
def _catalog(names: tuple[str, ...]) -> Catalog:
    """The catalog's graph (from the index on disk) and the walk's indexes over it."""
    graph = indexed_graph(names, load=load_service, digest=service_digest)
    leaves = _leaves(graph)
    starts = _starts(graph, leaves)
    anchored = frozenset(n for n in starts
                         if any(strong(graph.nodes[n].inputs[p]) for p in graph.nodes[n].statable))
    needs = {name: tuple(node.inputs[p] for p in sorted(node.required)
                         if not node.suppliable[p]) for name, node in graph.nodes.items()}
    by_service: dict[str, tuple[str, ...]] = {}
    for name in starts:
        service = graph.nodes[name].service
        by_service[service] = (*by_service.get(service, ()), name)
    return Catalog(graph=graph, starts=starts, leaves=leaves, anchored=anchored, needs=needs,
                   start_services=by_service)


@lru_cache(maxsize=2)
def _context(seed: int, names: tuple[str, ...], pid: int) -> Context:
    index = _catalog(names)
    envs = []
    for _ in range(3):  # own connections and world models: nothing shared with a parent process
        env = Environment([], seed=seed)
        env.simulator = OfflineSimulator(env.pool)
        envs.append(env)
    return Context(seed=seed, graph=index.graph, initial=envs[0], work=envs[1], scratch=envs[2],
                   starts=index.starts, leaves=index.leaves, anchored=index.anchored,
                   needs=index.needs, _start_services=index.start_services)


def context(seed: int, services: tuple[str, ...] | None = None) -> Context:
    """This process's generation context for the world of ``seed`` over ``services`` (default:
    the catalog): the catalog's indexes, shared by every world, and the world's own
    environments, which start empty (a forked worker builds its own: no SQLite connection
    crosses a fork). The two most recent worlds are kept.

    Example:
        >>> ctx = context(3)
        >>> ctx.seed, ctx.initial.pool.seed  # the world's people come from its seed
        (3, 3)
        >>> ctx.graph is context(4).graph  # the catalog's indexes are built once
        True
    """
    return _context(seed, services if services is not None else tuple(service_names()),
                    os.getpid())


WORLD_SERVICES = 96
"""The most catalog services one world walks over (:func:`world_services`); more than the
embedded catalog (44), so its worlds walk it whole. A trade of cost against yield, measured on
a 274-service build (64 attempts each, CPU time): 48 services a world, 201 ms an attempt and
25% yield (random services link less than the curated default); 96, 253 ms and 44%; 144,
465 ms and 61%; the whole catalog, 825 ms and 72% — most tasks per CPU-second at 96."""


def world_services(seed: int, services: tuple[str, ...] | None = None
                   ) -> tuple[str, ...] | None:
    """The services the world of ``seed`` walks over: all of ``services`` (default: the
    catalog) where they are :data:`WORLD_SERVICES` or fewer, else that many of them drawn
    with the world's seed (sorted). A world's attempts start, step and aim within it, so a
    world seeds only services among its own — what it costs does not grow with the catalog —
    while over many worlds every service is drawn alike. (A task's world is still its
    involved services and distractors: ``tasks.build_world``.)

    Example:
        >>> world_services(0) is None  # the embedded catalog fits one world
        True
    """
    pool = services if services is not None else tuple(service_names())
    if len(pool) <= WORLD_SERVICES:
        return services
    drawn = random.Random(derive_seed(seed, "world-services")).sample(sorted(pool),
                                                                     WORLD_SERVICES)
    return tuple(sorted(drawn))


def world_context(seed: int, services: tuple[str, ...] | None = None) -> Context:
    """:func:`context` of the world of ``seed`` over its own services
    (:func:`world_services`): what an attempt walks."""
    return context(seed, world_services(seed, services))


def warm(services: tuple[str, ...] | None = None) -> None:
    """Load the graph and the walk's indexes now (before starting worker processes that
    inherit them)."""
    _catalog(services if services is not None else tuple(service_names()))
