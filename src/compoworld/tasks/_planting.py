"""Putting a scenario's records in a world: as the world's own (no diff counts them), each
where it belongs in its table's default order."""

from __future__ import annotations

from collections.abc import Iterable

from compoworld.service import Environment
from compoworld.tasks._model import Planted

_FIRST = ("UPDATE {%s} SET rowid = (SELECT min(rowid) FROM {%s}) - 1 WHERE id = ?")
"""Moves a record before the others in insertion order (the order a list shows by default)."""


def plant(env: Environment, planted: Iterable[Planted]) -> Environment:
    """Put ``planted`` in ``env`` as the world's records (``Environment.plant``); a record
    marked ``first`` goes before the table's others in insertion order, as a record made
    before them. Returns ``env``.

    Example:
        >>> from compoworld.world import compose
        >>> env = compose(["crm"], seed=1).env
        >>> record = Planted(service="crm", entity="account", first=True,
        ...                  values={"id": "ac_first", "name": "Aardvark Ltd", "owner": "Ann Lee",
        ...                          "created_on": "2026-01-05"})
        >>> plant(env, [record]).db("crm").select("account", limit=1)[0]["id"]
        'ac_first'
    """
    for record in planted:
        made = env.plant(record.service, record.entity, record.values)
        if record.first:
            # a change of row order only: no record's content changes, so nothing journals it
            env.db(record.service).sql(_FIRST % (record.entity, record.entity), [made["id"]])
    return env
