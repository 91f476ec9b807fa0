"""The index of a large file, kept between runs: reopening 10,000 trajectories reads a few MB
of heads instead of parsing the whole file again.

Kept under ``$COMPOWORLD_CACHE`` (or ``~/.cache/compoworld``) in ``view/``, keyed by the file's
absolute path, size and modification time, and by the shape of the heads: a changed file, or a
new version of the viewer reading other fields, is indexed afresh. A cache that cannot be
written is skipped, never an error.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import orjson

from compoworld.view._heads import HEADS

VERSION = 2
"""Bumped when what a head keeps changes (beyond the head models' shape)."""

CACHE_FROM = 16_000_000
"""Files smaller than this are indexed afresh each time (it is faster than a cache)."""


def _key(path: Path) -> Path | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    if stat.st_size < CACHE_FROM:
        return None
    shapes = orjson.dumps({k: m.model_json_schema() for k, m in HEADS.items()}, option=orjson.OPT_SORT_KEYS)
    identity = f"{VERSION}|{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode() + shapes
    root = Path(os.environ.get("COMPOWORLD_CACHE") or Path.home() / ".cache" / "compoworld")
    return root / "view" / (hashlib.blake2b(identity, digest_size=16).hexdigest() + ".json")


def load_index(path: Path) -> dict[str, Any] | None:
    """The cached index of ``path`` (``kind``, ``spans``, ``heads``, ``notes``,
    ``validated``), or None."""
    key = _key(path)
    if key is None or not key.exists():
        return None
    try:
        index: dict[str, Any] = orjson.loads(key.read_bytes())
        return index
    except (OSError, orjson.JSONDecodeError):
        return None


def save_index(path: Path, index: dict[str, Any]) -> None:
    """Keep the index of ``path`` for the next run (nothing for a small file)."""
    key = _key(path)
    if key is None:
        return
    try:
        key.parent.mkdir(parents=True, exist_ok=True)
        tmp = key.with_suffix(".tmp")
        tmp.write_bytes(orjson.dumps(index))
        tmp.replace(key)
    except OSError:
        pass
