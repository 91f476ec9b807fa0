"""``Environment``: services mounted on one in-memory SQLite database, called by name.

An environment is cheap: the seeded state is built once, then every :meth:`Environment.fork`
is a fresh connection restored from that image (tens of microseconds) and every
:meth:`Environment.reset` restores it in place.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sqlite3
import traceback
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from compoworld.errors import NotFound, ToolError, UserError
from compoworld.service._connection import _connect, _load, _without
from compoworld.service._db import SEQUENCE_TABLE, VERSION_TABLE, Change, Db, RecentRow
from compoworld.service._envelope import (
    SEPARATOR,
    Envelope,
    ToolFailure,
    fail,
    ok,
    qualified_name,
    unknown_tool,
)
from compoworld.service._image import create_tables, fill
from compoworld.service._service import Service
from compoworld.service._simulation import SIMULATED_HISTORY, SimulatedCall, Simulator
from compoworld.service._tool import Tool
from compoworld.types import DEFAULT_TODAY, Pool, shared_pool


class Environment:
    """Services sharing one seeded SQLite state; the thing tool calls run against.

    Args:
        services: The services to mount (names must be unique).
        seed: World seed; the same seed gives byte-identical state.
        pool: The shared population to seed from (default: ``Pool(seed, today=today)``).
        today: The world's fixed date, seen by tools as ``db.today``.
        simulator: The world model answering tools marked ``simulated`` (shared by forks);
            without one, the first simulated call attaches an offline one
            (:class:`compoworld.simulate.OfflineSimulator`).

    Example:
        >>> from compoworld.catalog import load_service
        >>> env = Environment([load_service("contacts")], seed=0)
        >>> env.call("contacts__list_contacts", {"limit": 1})["success"]
        True
        >>> env.call("contacts__get_contact", {"contact_id": "nope"})["error"]["code"]
        404
    """

    def __init__(
        self, services: Sequence[Service], *, seed: int = 0, pool: Pool | None = None,
        today: date | None = None, simulator: Simulator | None = None,
        images: Mapping[str, bytes] | None = None,
    ) -> None:
        names = [s.name for s in services]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise UserError(f"services mounted twice: {', '.join(map(repr, duplicates))}")
        missing = [n for n in names if images is not None and n not in images]
        if missing:
            raise UserError(f"no seeded image given for {', '.join(map(repr, missing))}")
        self.seed = seed
        self.pool = pool or shared_pool(seed, today or DEFAULT_TODAY)
        self.today = today or self.pool.today
        self.services: dict[str, Service] = {s.name: s for s in services}
        self.tools: dict[str, Tool] = {
            qualified_name(s.name, t.name): t for s in services for t in s.tools.values()
        }
        self._conn = _connect()
        self._dbs = self._make_dbs()
        self._pending: dict[str, bytes] = {}
        self._build(images)
        self._journal.clear()  # seeding is the initial state, not a change
        self._image = self._conn.serialize()
        self.failures: list[ToolFailure] = []
        self.simulator = simulator
        self._simulated: list[tuple[str, dict[str, Any], Any]] = []
        self._at_initial = True
        self._interrupted = False
        self._begin_episode(at_initial=True)

    @classmethod
    def assemble(cls, services: Sequence[Service], images: Mapping[str, bytes], *,
                 seed: int = 0, today: date | None = None,
                 simulator: Simulator | None = None) -> Environment:
        """The environment of ``services`` assembled from their seeded images (each made by
        :meth:`image` with the same seed and date): the state a fresh build would hold, at
        the cost of copying rows instead of seeding them.

        Example:
            >>> from compoworld.catalog import load_service
            >>> contacts = load_service("contacts")
            >>> built = Environment([contacts], seed=3)
            >>> made = Environment.assemble([contacts], {"contacts": built.image()}, seed=3)
            >>> made.rows() == built.rows()
            True
        """
        return cls(services, seed=seed, today=today, simulator=simulator, images=images)

    def image(self) -> bytes:
        """The initial state as SQLite bytes (what :meth:`assemble` and :meth:`mount` take)."""
        return self.fork()._image if self._pending else self._image

    # -- lifecycle -----------------------------------------------------------------------

    def _make_dbs(self) -> dict[str, Db]:
        self._journal: list[Change] = []
        self._journal_complete = True
        self._recent = RecentRow()
        return {name: Db(self._conn, name, s.tables, self.today, self._journal, self._recent)
                for name, s in self.services.items()}

    def _build(self, images: Mapping[str, bytes] | None) -> None:
        conn = self._conn
        conn.execute(f"CREATE TABLE {SEQUENCE_TABLE} (name TEXT PRIMARY KEY, next INTEGER NOT NULL)")
        conn.execute(f"CREATE TABLE {VERSION_TABLE} (service TEXT PRIMARY KEY, version TEXT NOT NULL)")
        for service in self.services.values():
            for table in service.tables.values():
                for column in table.columns:
                    if column.ref and column.ref not in service.tables:
                        raise UserError(
                            f"{service.name}.{table.entity_name}.{column.name} refers to unknown "
                            f"entity {column.ref!r} (entities: {', '.join(service.tables)})"
                        )
        if images is not None:
            for name, service in self.services.items():
                fill(conn, service, images[name])
            return
        conn.execute("BEGIN")
        try:
            for name, service in self.services.items():
                create_tables(conn, service)
                service.seed(self._dbs[name], self.pool)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def mount(self, service: Service, image: bytes) -> None:
        """Add ``service`` in its seeded state (``image``, see :meth:`image`), keeping the
        episode under way: what the episode did stays, the new service starts at its initial
        state, and :meth:`reset` and :meth:`fork` include it from now on. Mounting a service
        already mounted does nothing. (A state :meth:`restore`-d afterwards must have been taken
        after the mount.)

        This is how a world grows on demand: task generation mounts a service the first time
        a walk reaches it, so it never pays for the services no walk reaches. (On an episode that
        has done nothing, it goes into the initial state at once: no reset settles it.)"""
        self._recover()
        if service.name in self.services:
            return
        self._interrupted = True  # until the service is registered (see _recover)
        # On the initial state, no call, plant or mount this episode: end it, and commit the fill.
        fresh = self._call_savepoint is None and not self._journal and not self._pending
        if initial := self._at_initial and fresh:
            self._conn.execute("ROLLBACK")
        fill(self._conn, service, image)  # else inside the episode: a reset settles it (below)
        self.services = {**self.services, service.name: service}  # forks share the old dicts
        self.tools = {**self.tools, **{qualified_name(service.name, t.name): t
                                       for t in service.tools.values()}}
        self._dbs[service.name] = Db(self._conn, service.name, service.tables, self.today,
                                     self._journal, self._recent)
        if initial:
            self._image = self._conn.serialize()  # last: what _recover trusts
            self._begin_episode(at_initial=True)
        else:
            self._pending = {**self._pending, service.name: image}  # last: what _recover trusts
        self._interrupted = False

    def _settle(self) -> None:
        """Make the services mounted during the episode part of the initial state (the episode's
        own work is dropped: this runs on reset)."""
        conn = self._conn
        if conn.in_transaction:  # (SQLite itself ends it on some errors, e.g. out of memory)
            conn.execute("ROLLBACK")
        if not self._at_initial:
            _load(conn, self._image)
        for name, image in self._pending.items():
            fill(conn, self.services[name], image)
        self._image = conn.serialize()  # before _pending is emptied: see _recover
        self._pending = {}
        self._begin_episode(at_initial=True)

    # A lifecycle operation (mount, reset, settle, snapshot, restore) may be stopped between two
    # statements (docs/runtime.md, "Interrupted operations"): it sets ``_interrupted`` while it
    # runs, and the next mount, reset or fork rebuilds the connection from the initial image and
    # the images of the services mounted since (``_pending``, assigned last when a service is
    # registered, emptied only after the image that holds them is kept).

    def _recover(self) -> None:
        """If a lifecycle operation did not finish (or SQLite ended the episode's transaction
        itself, as it does on out-of-memory and full-disk errors), rebuild the connection in
        the initial state: the initial image, and the services mounted since filled in."""
        if not self._interrupted and self._conn.in_transaction:
            return
        conn = _connect()
        conn.deserialize(self._image)
        in_image = {name for (name,) in conn.execute(f"SELECT service FROM {VERSION_TABLE}")}
        pending = {name: image for name, image in self._pending.items()
                   if name in self.services and name not in in_image}
        for name, image in pending.items():
            fill(conn, self.services[name], image)
        self.services = {n: s for n, s in self.services.items() if n in in_image or n in pending}
        self.tools = {n: t for n, t in self.tools.items()
                      if n.split(SEPARATOR, 1)[0] in self.services}
        old, self._conn = self._conn, conn
        old.close()
        self._dbs = self._make_dbs()
        self._image = conn.serialize()
        self._pending = {}
        self._begin_episode(at_initial=True)
        self._interrupted = False

    def fork(self) -> Environment:
        """A new, independent environment in this one's *initial* state (fast: no reseeding)."""
        self._recover()
        other = object.__new__(Environment)
        other.seed, other.pool, other.today = self.seed, self.pool, self.today
        other.services, other.tools, other._image = self.services, self.tools, self._image
        other._conn = _connect()
        other._conn.deserialize(self._image)
        other._dbs = other._make_dbs()
        other._pending = {}
        if self._pending:  # services mounted during this episode start in their initial state
            for name, image in self._pending.items():
                fill(other._conn, self.services[name], image)
            other._image = other._conn.serialize()
        other.failures = []
        other.simulator = self.simulator
        other._simulated = []
        other._interrupted = False
        other._begin_episode(at_initial=True)
        return other

    def restrict(self, names: Sequence[str]) -> Environment:
        """A new environment of some of this one's services, in their initial state.

        Services seed the same whatever else is mounted, so dropping the others' tables gives
        the state a fresh build of ``names`` would have — in milliseconds instead of seeding.
        """
        for name in names:
            self.db(name)  # NotFound with suggestions for a typo
        if self._pending:
            return self.fork().restrict(names)
        conn = _without(self._image, {name: [t.name for t in service.tables.values()]
                                      for name, service in self.services.items()
                                      if name not in names})
        other = object.__new__(Environment)
        other.seed, other.pool, other.today = self.seed, self.pool, self.today
        other.services = {n: s for n, s in self.services.items() if n in names}
        other.tools = {n: t for n, t in self.tools.items()
                       if n.split(SEPARATOR, 1)[0] in other.services}
        other._conn, other._image = conn, conn.serialize()
        other._dbs = other._make_dbs()
        other._pending = {}
        other.failures, other.simulator, other._simulated = [], self.simulator, []
        other._interrupted = False
        other._begin_episode(at_initial=True)
        return other

    # Every episode runs inside one open transaction, the savepoint "episode", opened on the
    # initial state. Resetting is rolling it back: the cost of what changed, not of the world,
    # and the schema and prepared statements stay valid. Calls nest their own savepoint in it.

    def _begin_episode(self, *, at_initial: bool) -> None:
        self._end_recall()
        self._conn.execute("SAVEPOINT episode")
        self._at_initial = at_initial
        self._call_savepoint: int | None = None  # see _open_call

    def _commit_episode(self) -> None:
        """Commit what the episode did (``serialize`` sees only committed pages)."""
        self._interrupted = True
        self._conn.execute("RELEASE episode")
        self._begin_episode(at_initial=False)
        self._interrupted = False

    def _replace(self, image: bytes, *, at_initial: bool) -> None:
        self._end_recall()
        self._interrupted = True
        self._conn.execute("ROLLBACK")
        _load(self._conn, image)
        self._begin_episode(at_initial=at_initial)
        self._interrupted = False

    def plant(self, service: str, entity: str, values: dict[str, Any]) -> dict[str, Any]:
        """Insert a record as part of the world, not of the episode: a rule stored for the
        agent to find, the record a trap needs. It is journaled as the world's
        (``origin="world"``, like what the world model writes back), so no diff of the episode
        counts it; :meth:`settle` makes it part of the initial state. Returns the record.

        Raises:
            CompoWorldError: the values do not fit the entity (as a tool's insert would).
        """
        mark = len(self._journal)
        record = self.db(service).insert(entity, **values)
        self._journal[mark:] = [dataclasses.replace(c, origin="world")
                                for c in self._journal[mark:]]
        return record

    def settle(self) -> None:
        """Make the current state the initial one: :meth:`reset` and :meth:`fork` return to it
        (a task's world with the records its scenario plants)."""
        self._interrupted = True
        self._conn.execute("RELEASE episode")
        self._image = self._conn.serialize()  # before _pending is emptied: see _recover
        self._pending = {}
        self._journal.clear()
        self._journal_complete = True
        self._begin_episode(at_initial=True)
        self._interrupted = False

    def reset(self) -> None:
        """Restore the initial seeded state (and forget failures and simulated answers).

        An environment whose last mount, reset, settle, snapshot or restore was interrupted
        (see ``_recover``) is rebuilt from its initial image instead."""
        self._end_recall()
        if self._interrupted or not self._conn.in_transaction:
            self._recover()  # a new connection, a new episode: no call savepoint
        elif self._pending:
            self._interrupted = True
            self._settle()  # a new episode: no call savepoint
        elif self._at_initial:
            self._interrupted = True
            self._conn.execute("ROLLBACK TO episode")  # also ends the call savepoint
            self._call_savepoint = None
        else:  # a snapshot or restore committed a state since: load the initial image
            self._replace(self._image, at_initial=True)
        self.failures.clear()
        self._simulated.clear()
        self._journal.clear()
        self._journal_complete = True
        self._interrupted = False

    def changes(self) -> list[Change] | None:
        """Every record written since the initial state, in order (None after a
        :meth:`restore`, when what changed is no longer known)."""
        return list(self._journal) if self._journal_complete else None

    def snapshot(self) -> bytes:
        """The whole state as bytes (SQLite's serialization), comparable byte for byte.

        The header fields that describe writes rather than content are zeroed: the change
        counter (bytes 24-27), the version-valid-for number and the writing library's version
        (92-99).
        """
        self._commit_episode()
        image = bytearray(self._conn.serialize())
        image[24:28] = bytes(4)
        image[92:100] = bytes(8)
        return bytes(image)

    def restore(self, image: bytes) -> None:
        """Put back a state taken with :meth:`snapshot`."""
        self._replace(image, at_initial=False)
        self._journal.clear()
        self._journal_complete = False

    def digest(self) -> str:
        """A short hash of the current state: equal digests, equal states."""
        return hashlib.blake2b(self.snapshot(), digest_size=16).hexdigest()

    def close(self) -> None:
        self._conn.close()

    def db(self, service: str) -> Db:
        """The :class:`Db` handle of a mounted service (for seeding checks and graders)."""
        try:
            return self._dbs[service]
        except KeyError:
            raise NotFound("mounted service", service, self._dbs) from None

    def rows(self) -> dict[str, list[dict[str, Any]]]:
        """Every record of every mounted table, keyed by table name (for inspection and diffs)."""
        out = {}
        for name, service in self.services.items():
            for entity in service.tables:
                out[service.tables[entity].name] = self._dbs[name].select(entity)
        return out

    # -- calling -------------------------------------------------------------------------

    def call(self, name: str, arguments: Any = None) -> Envelope:
        """Call a tool by qualified name (``service__tool``). Never raises; returns an envelope.

        Arguments are validated against the tool's schema first (400). The call runs in a
        savepoint: on any error, nothing it wrote remains. A tool that crashes gives a 500
        and is recorded in :attr:`failures` as an environment error.
        """
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return fail(404, unknown_tool(name, self.tools, self.services))
        try:
            args = tool.check_arguments(arguments)
        except ToolError as error:
            return fail(error.code, error.message)
        service = name.split(SEPARATOR, 1)[0]
        if tool.simulated and self.simulator is None:
            # The embedded default world model: offline, deterministic, no model needed.
            from compoworld.simulate import OfflineSimulator

            self.simulator = OfflineSimulator(self.pool)
        return self._run(name, tool, self._dbs[service], args)

    def _simulate(self, name: str, tool: Tool, db: Db, args: dict[str, Any]) -> Any:
        """Ask the world model; its answer must match the tool's output type."""
        assert self.simulator is not None
        call = SimulatedCall(name=name, tool=tool, arguments=args, db=db,
                             state_digest=db.digest(), seed=self.seed,
                             history=tuple(self._simulated[-SIMULATED_HISTORY:]))
        data = self.simulator.simulate(call)
        if tool.output is not None:
            tool.output.validate_python(data)
        self._simulated.append((name, args, data))
        return data

    # Each call runs in the savepoint "call". Opening and releasing it costs two statements, as
    # much as a point read, so it is left open after a call and the next call reuses it while it
    # still marks the present state: while conn.total_changes is what it was when the savepoint
    # was opened or last rolled back to (``_call_savepoint``). SQLite counts there every row an
    # INSERT, UPDATE or DELETE touched and never decreases it, and every write to the state is
    # one of those (Db's writes, sequence and version rows, and tools reach the state only through
    # Db; the schema is only made before the first episode). So an equal count proves nothing was
    # written since: a run of reads pays for one savepoint, and a failed call rolls back exactly
    # what it did. Ending the episode savepoint (reset, snapshot, restore) ends it too.

    def _open_call(self) -> None:
        """Make the savepoint "call" mark the present state (see above)."""
        changes = self._conn.total_changes
        if self._call_savepoint != changes:
            if self._call_savepoint is not None:  # written since: keep it, in the episode
                self._conn.execute("RELEASE call")
            self._conn.execute("SAVEPOINT call")
            self._call_savepoint = changes

    def _end_recall(self) -> None:
        """No row read before this point is remembered (see :class:`RecentRow`); run by every
        call's end and every operation that replaces or rolls back the state."""
        recent = self._recent
        recent.active = False
        recent.forget()

    def _run(self, name: str, tool: Tool, db: Db, args: dict[str, Any]) -> Envelope:
        conn = self._conn
        changes = conn.total_changes
        if self._call_savepoint != changes:  # _open_call, inline: once per call
            self._open_call()
        self._mark = len(self._journal)
        recent = self._recent
        try:
            # A write tool's second read of a record is answered from memory (RecentRow); a
            # read tool's reads rarely repeat, so they do not pay for remembering.
            if tool.simulated:  # what the world model invents is written back, even on reads
                recent.active = tool.kind == "write"
                data = self._simulate(name, tool, db, args)
                if tool.kind == "read":  # that write-back is the world's, not the caller's
                    self._journal[self._mark:] = [dataclasses.replace(c, origin="world")
                                                  for c in self._journal[self._mark:]]
            elif tool.kind == "read":
                data = tool.fn(db, **args)
                if conn.total_changes != changes:
                    raise RuntimeError(f"read tool {name!r} wrote to the state")
            else:
                recent.active = True
                data = tool.fn(db, **args)
        except ToolError as error:
            self._rollback()
            return fail(error.code, error.message)
        except sqlite3.IntegrityError as error:
            self._rollback()
            return fail(409, f"conflict with existing state: {error}")
        except Exception as error:  # a bug in the tool: an environment error
            self._rollback()
            self.failures.append(ToolFailure(name, dict(args), repr(error), traceback.format_exc()))
            return fail(500, f"tool {name!r} failed: {type(error).__name__}")
        finally:
            if recent.active:
                recent.active = False
                recent.forget()
        return ok(data)

    def _rollback(self) -> None:
        """Undo the failed call; its savepoint stays open, marking the state before it again."""
        self._end_recall()
        self._conn.execute("ROLLBACK TO call")
        self._call_savepoint = self._conn.total_changes
        del self._journal[self._mark:]
