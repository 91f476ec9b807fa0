"""The simulation cache: one answer per (tool, arguments, state, seed), shared by a group.

Every rollout of a task group replays the same world; when they make the same simulated call
on the same state they must see the same answer. In memory by default; on disk (SQLite) when
a path is given, so a rerun is identical too.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path
from typing import Any

import orjson


def cache_key(name: str, arguments: dict[str, Any], state_digest: str, seed: int) -> str:
    """A stable key: the tool, its arguments (canonical JSON), the state's digest, the seed."""
    canonical = orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS, default=str)
    text = b"\x00".join((name.encode(), canonical, state_digest.encode(), str(seed).encode()))
    return hashlib.blake2b(text, digest_size=16).hexdigest()


class SimulationCache:
    """Answers by key, stored as JSON (callers get fresh copies, never shared objects).

    Args:
        path: A SQLite file to persist answers in (created if missing); None keeps them in
            memory only.

    Example:
        >>> cache = SimulationCache()
        >>> cache.put("k", {"a": 1}); cache.get("k")
        {'a': 1}
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self._memory: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, data BLOB)")

    def get(self, key: str) -> Any | None:
        with self._lock:
            data = self._memory.get(key)
            if data is None and self._db is not None:
                row = self._db.execute("SELECT data FROM answers WHERE key = ?", (key,)).fetchone()
                if row is not None:
                    data = self._memory[key] = row[0]
        return None if data is None else orjson.loads(data)

    def put(self, key: str, value: Any) -> None:
        data = orjson.dumps(value)
        with self._lock:
            self._memory[key] = data
            if self._db is not None:
                self._db.execute("INSERT OR IGNORE INTO answers(key, data) VALUES (?, ?)", (key, data))

    def __len__(self) -> int:
        with self._lock:
            if self._db is not None:
                return int(self._db.execute("SELECT count(*) FROM answers").fetchone()[0])
            return len(self._memory)
