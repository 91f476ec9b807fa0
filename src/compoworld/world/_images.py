"""Seeded service images cached on disk: each service's seeded state made once per (service,
seed, date) and kept under ``$COMPOWORLD_CACHE/images`` (default ``~/.cache/compoworld``).

A file is named by what made it (content-addressed): the service's digest (its spec's bytes or
its module's source, :func:`compoworld.catalog.service_digest`), the seed, the date and the
seeding code's version (:func:`compoworld.service.seeding_version`). Change any of them and
another file is made; an old one is never read again (delete the folder to reclaim the space).
Files are written whole (a temporary file renamed into place), so an interrupted run leaves
none half-written and concurrent processes may make the same one.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from datetime import date
from functools import lru_cache
from pathlib import Path

from compoworld.catalog import load_service, service_digest
from compoworld.service import Environment, seeding_version

IMAGES_ENV = "COMPOWORLD_CACHE"


def image_dir() -> Path:
    """Where seeded images are kept: ``$COMPOWORLD_CACHE/images`` (or ``~/.cache/...``)."""
    root = Path(os.environ.get(IMAGES_ENV) or Path.home() / ".cache" / "compoworld")
    return root / "images"


def image_key(name: str, seed: int, today: date) -> str | None:
    """The content address of a service's seeded image (None: not cacheable on disk)."""
    digest = service_digest(name)
    if digest is None:
        return None
    text = f"{name}\x00{digest}\x00{seed}\x00{today.isoformat()}\x00{seeding_version()}"
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


@lru_cache(maxsize=512)
def service_image(name: str, seed: int, today: date) -> bytes:
    """The seeded state of service ``name`` alone, as SQLite bytes: read from the disk cache,
    or seeded now and written there (kept in memory for the process too).

    Raises:
        NotFound: No such service.
    """
    key = image_key(name, seed, today)
    path = image_dir() / f"{name}-{key}.sqlite" if key else None
    if path is not None and path.is_file():
        return path.read_bytes()
    image = Environment([load_service(name)], seed=seed, today=today).image()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{name}-",
                                             delete=False) as tmp:
                tmp.write(image)
            os.replace(tmp.name, path)
        except OSError:  # a read-only or full disk: the image still serves this process
            pass
    return image


def assemble(names: list[str], seed: int, today: date) -> Environment:
    """The seeded environment of the named services, assembled from their images."""
    return Environment.assemble([load_service(n) for n in names],
                                {n: service_image(n, seed, today) for n in names},
                                seed=seed, today=today)
