"""The in-memory SQLite connection an :class:`~compoworld.service.Environment` runs on: how it
is opened, the SQL functions it needs, and how a database image replaces its contents."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence

from compoworld.service._db import SEQUENCE_TABLE, VERSION_TABLE, chain


def _connect() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None, cached_statements=1024,
                           check_same_thread=False)
    conn.execute("PRAGMA foreign_keys = ON")
    _register_functions(conn)
    return conn


def _register_functions(conn: sqlite3.Connection) -> None:
    # Registering a function that exists again also expires every prepared statement.
    conn.create_function("cw_chain", 2, chain, deterministic=True)


def _load(conn: sqlite3.Connection, image: bytes) -> None:
    """Replace the connection's database with ``image`` (no transaction may be open), and
    expire cached statements.

    Without the expiry, a write right after a reset crashed the process now and then (SIGBUS or
    SIGSEGV inside an UPDATE, 3 runs in 21 of ``bench/runtime.py --quick``; 0 in 20 with it):
    statements prepared against the replaced database stayed in the statement cache with the
    same schema cookie. Re-registering a function expires every prepared statement; each is
    re-prepared once on its next use.
    """
    conn.deserialize(image)
    _register_functions(conn)


def _without(image: bytes, dropped: Mapping[str, Sequence[str]]) -> sqlite3.Connection:
    """A connection holding ``image`` without the tables of the services in ``dropped``
    (service → its table names), their sequences and versions, vacuumed."""
    conn = _connect()
    conn.deserialize(image)
    conn.execute("PRAGMA foreign_keys = OFF")
    for name, tables in dropped.items():
        for table in tables:
            conn.execute(f'DROP TABLE "{table}"')
            conn.execute(f"DELETE FROM {SEQUENCE_TABLE} WHERE name = ?", (table,))
        conn.execute(f"DELETE FROM {VERSION_TABLE} WHERE service = ?", (name,))
    conn.execute("VACUUM")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn
