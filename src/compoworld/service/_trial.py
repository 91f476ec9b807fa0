"""Trials: calls made on an environment to see what they do, then undone or kept.

A trial is the savepoint ``trial`` opened inside an environment's episode (:func:`trial`). Undoing
it is ``ROLLBACK TO trial``: it costs what the calls in it changed, where a reset and a replay
of the episode's earlier calls cost the whole episode. The calls made in a trial nest their own
savepoint ``call`` inside it, so a failed call still rolls back only what it did.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from compoworld.service._environment import Environment


class Trial:
    """What the calls made inside ``with trial(env) as attempt:`` do, undone on leaving the
    block — the records they wrote, the journal's entries, the simulated answers and the tool
    failures they added — unless :meth:`keep` was called, which makes them part of the episode
    as if no trial had been opened.

    Only calls (and :meth:`Environment.plant`) belong in a trial: a reset, snapshot, restore or
    settle ends the episode and the trial with it (leaving the block then raises), and mounting
    a service inside one is refused on leaving it (the environment rebuilds itself from its
    initial image at its next reset). Trials nest.

    Example:
        >>> from compoworld.catalog import load_service
        >>> from compoworld.service import Environment, trial
        >>> env = Environment([load_service("contacts")], seed=0)
        >>> before = env.digest()
        >>> with trial(env):
        ...     env.call("contacts__create_contact", {"first_name": "Ada", "last_name": "Byron",
        ...                                           "email": "ada@example.com"})["success"]
        True
        >>> env.digest() == before, env.changes()
        (True, [])
    """

    def __init__(self, env: Environment) -> None:
        self._env = env
        self._kept = False

    def keep(self) -> None:
        """Keep what the trial's calls did when the block ends."""
        self._kept = True

    def __enter__(self) -> Trial:
        env = self._env
        env._end_recall()
        self._marks = len(env._journal), len(env._simulated), len(env.failures)
        self._services = env.services
        self._call = env._call_savepoint
        env._conn.execute("SAVEPOINT trial")
        env._call_savepoint = None  # the trial's calls open their savepoint inside it
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        env = self._env
        env._end_recall()
        if env._interrupted or not env._conn.in_transaction:
            return  # an interrupted operation or SQLite ended it: the next reset recovers
        journal, simulated, failures = self._marks
        if env.services is not self._services:  # a service mounted in the trial (see the class)
            del env._journal[journal:], env._simulated[simulated:], env.failures[failures:]
            env._interrupted = True  # the next reset rebuilds the connection from the images
            if kind is None:
                raise RuntimeError("a service was mounted inside a trial: mount it before")
            return
        if self._kept:
            env._conn.execute("RELEASE trial")  # the trial's call savepoints merge into it
        else:
            env._conn.execute("ROLLBACK TO trial")
            env._conn.execute("RELEASE trial")
            del env._journal[journal:], env._simulated[simulated:], env.failures[failures:]
        # The savepoint "call" opened before the trial (if any) still marks the state it did:
        # the next call reopens it unless nothing was written since (see Environment._open_call).
        env._call_savepoint = self._call


def trial(env: Environment) -> Trial:
    """Calls made on ``env`` to see what they do: ``with trial(env) as attempt:`` undoes them on
    leaving the block (a savepoint rollback, costing what they changed) unless
    ``attempt.keep()`` was called (:class:`Trial`)."""
    return Trial(env)
