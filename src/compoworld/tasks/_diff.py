"""The effect of a run as a row-level diff: every record that is not as it was, from the journal.

A run's effect is what the tools it called wrote, net: a record created then updated is one
creation with the final values, a record changed and changed back is no change. What the
world model wrote back to answer a read (``Change.origin == "world"``) is left out: it makes
later reads agree with what was invented, it is no effect of the caller's, so a run that
reads more than the reference does is not blamed for it.
"""

from __future__ import annotations

from typing import Any, Literal

from compoworld.service import Change, Environment

Key = tuple[str, str]
"""(table, record id)."""
Net = dict[Key, tuple[Any, Any]]
"""(table, record id) → (record before the run, record after it); None where it did not
exist."""
ChangeKind = Literal["create", "update", "delete"]


def net_changes(changes: list[Change]) -> Net:
    """(table, id) → (record before the first change, record after the last), for the records
    the tools changed (world-model write-backs on reads left out)."""
    net: Net = {}
    for change in changes:
        if change.origin == "world":
            continue
        key = (change.table, change.record_id)
        first = net[key][0] if key in net else change.before
        net[key] = (first, change.after)
    return {k: v for k, v in net.items() if v[0] != v[1]}


def kind_of(before: Any, after: Any) -> ChangeKind:
    """What a net change is: a record created, updated or deleted."""
    return "create" if before is None else "delete" if after is None else "update"


def rows_by_id(env: Environment, services: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Records by table and id, for ``services`` (default: every mounted one)."""
    out: dict[str, dict[str, Any]] = {}
    for name in services if services is not None else list(env.services):
        db = env.db(name)
        for entity, table in env.services[name].tables.items():
            out[table.name] = {r["id"]: r for r in db.select(entity)}
    return out


def run_diff(initial: Environment, env: Environment) -> Net:
    """The net changes ``env`` holds against ``initial`` (the same world, before the run).

    From the journal, so it costs what changed; after a ``restore`` the journal is gone and
    every table is compared (world-model write-backs can then not be told apart).
    """
    changes = env.changes()
    if changes is not None:
        return net_changes(changes)
    old_rows, new_rows = rows_by_id(initial), rows_by_id(env)
    return {(t, i): (old_rows.get(t, {}).get(i), new_rows[t].get(i))
            for t in new_rows for i in sorted(set(new_rows[t]) | set(old_rows.get(t, {})))
            if old_rows.get(t, {}).get(i) != new_rows[t].get(i)}


def undoes(earlier: Net, now: Net) -> bool:
    """Whether ``now`` takes back or overwrites part of ``earlier``'s effect: a record changed
    earlier is as it was again or deleted since, or a field set earlier holds another value
    now (the earlier step's change would no longer be seen)."""
    for key, (before, after) in earlier.items():
        current = now.get(key, (None, before))[1]
        if after is None:
            if current is not None:
                return True
            continue
        if current is None:
            return True
        if any(current.get(f) != v for f, v in after.items()
               if before is None or before.get(f) != v):
            return True
    return False
