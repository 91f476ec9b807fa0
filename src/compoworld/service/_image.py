"""Seeded images: one service's seeded state as SQLite bytes, and filling a connection from one.

A service seeds the same whatever else is mounted beside it (its rows come from the shared pool
and its own seed stream), so the state of any set of services is the union of their images:
a world is assembled from per-service images instead of being seeded, or cut from a seeded
catalog. :func:`seeding_version` names the code an image depends on: caches key images by it,
the service's spec digest and the seed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sqlite3
from functools import cache

import faker

from compoworld.service._db import SEQUENCE_TABLE, VERSION_TABLE
from compoworld.service._service import Service

SEEDING_MODULES = (
    "compoworld.service._db", "compoworld.service._table", "compoworld.service._entity",
    "compoworld.service._seed", "compoworld.service._bulk",
    "compoworld.service._engine", "compoworld.service._image", "compoworld.service._service",
    "compoworld.types._pool", "compoworld.types._builtin", "compoworld.types._semantic",
    "compoworld.types._naming",
)
"""Modules whose source decides what seeding writes."""


@cache
def seeding_version() -> str:
    """A digest of the seeding code (:data:`SEEDING_MODULES`' source, Faker's and SQLite's
    versions): an image made by other code is another image."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update(f"faker {faker.VERSION} sqlite {sqlite3.sqlite_version}".encode())
    for module in SEEDING_MODULES:
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec else None
        digest.update(module.encode())
        if origin:
            with open(origin, "rb") as source:
                digest.update(source.read())
    return digest.hexdigest()


def create_tables(conn: sqlite3.Connection, service: Service) -> None:
    """The service's tables, indexes, sequence rows and version row, empty."""
    conn.execute(f"INSERT INTO {VERSION_TABLE} VALUES (?, ?)", (service.name, service.name))
    for table in service.tables.values():
        for statement in table.ddl():
            conn.execute(statement)


def fill(conn: sqlite3.Connection, service: Service, image: bytes) -> None:
    """Create the service's tables in ``conn`` and copy its rows (rowids kept), sequences and
    version from ``image`` (a database holding that service, e.g. its seeded image).

    With no transaction open the image is attached and copied table by table inside SQLite;
    inside one (a service mounted during an episode) the rows go through a second connection,
    since an attached database cannot be detached before the transaction ends. Foreign keys are
    deferred while the rows go in, in whatever order the tables come.
    """
    if conn.in_transaction:
        _copy_rows(conn, service, image)
        return
    conn.execute("ATTACH ':memory:' AS cw_image")
    try:
        conn.deserialize(image, name="cw_image")
        conn.executescript(_fill_script(service))
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.execute("DETACH cw_image")


def _fill_script(service: Service) -> str:
    """The SQL of :func:`fill` for ``service`` as one script (run by ``executescript``: one
    call instead of five statements a table, and no statement of it evicts the connection's
    cached ones). Names are checked identifiers, so they are safe to write into the SQL."""
    statements = ["BEGIN", f"INSERT INTO {VERSION_TABLE} VALUES ('{service.name}', '{service.name}')"]
    for table in service.tables.values():
        statements.extend(table.ddl())
    statements.append("PRAGMA defer_foreign_keys = ON")
    for table in service.tables.values():
        columns = ", ".join(f'"{c.name}"' for c in table.columns)
        statements.append(f'INSERT INTO main."{table.name}"(rowid, {columns}) '
                          f'SELECT rowid, {columns} FROM cw_image."{table.name}" ORDER BY rowid')
        statements.append(f"UPDATE main.{SEQUENCE_TABLE} SET next = (SELECT next FROM "
                          f"cw_image.{SEQUENCE_TABLE} WHERE name = '{table.name}') "
                          f"WHERE name = '{table.name}'")
    statements.append(f"UPDATE main.{VERSION_TABLE} SET version = (SELECT version FROM "
                      f"cw_image.{VERSION_TABLE} WHERE service = '{service.name}') "
                      f"WHERE service = '{service.name}'")
    statements.append("COMMIT")
    return ";\n".join(statements) + ";"


def _copy_rows(conn: sqlite3.Connection, service: Service, image: bytes) -> None:
    source = sqlite3.connect(":memory:")
    try:
        source.deserialize(image)
        create_tables(conn, service)
        conn.execute("PRAGMA defer_foreign_keys = ON")
        for table in service.tables.values():
            columns = ", ".join(f'"{c.name}"' for c in table.columns)
            rows = source.execute(f'SELECT rowid, {columns} FROM "{table.name}" ORDER BY rowid')
            marks = ", ".join("?" * (len(table.columns) + 1))
            conn.executemany(f'INSERT INTO "{table.name}"(rowid, {columns}) VALUES ({marks})',
                             rows)
            conn.execute(f"UPDATE {SEQUENCE_TABLE} SET next = ? WHERE name = ?", (source.execute(
                f"SELECT next FROM {SEQUENCE_TABLE} WHERE name = ?", (table.name,)
            ).fetchone()[0], table.name))
        conn.execute("PRAGMA defer_foreign_keys = OFF")
        version = source.execute(f"SELECT version FROM {VERSION_TABLE} WHERE service = ?",
                                 (service.name,)).fetchone()[0]
        conn.execute(f"UPDATE {VERSION_TABLE} SET version = ? WHERE service = ?",
                     (version, service.name))
    finally:
        source.close()
