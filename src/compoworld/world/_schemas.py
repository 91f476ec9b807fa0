"""Tool schemas cached on disk: each catalog service's OpenAI function definitions made once per
service and schema code, kept under ``$COMPOWORLD_CACHE/tools`` beside the seeded images.

Every episode hands the agent its world's tools (``World.tools()``); making a tool's schema
builds its pydantic validator (~10-20 ms a tool, ~400 tools in a world of 17 services), and
most tools of a world are never called. A file is named by what made it, as images are: the
service's digest (:func:`compoworld.catalog.service_digest`) and :func:`schema_version` (the
source of the code that turns parameters into schemas, and pydantic's version); change either
and another file is made. Files are written whole (a temporary file renamed into place). A
tool that is called still builds its validator then: the cache skips only unused validators.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import orjson
import pydantic

import compoworld.catalog
import compoworld.service
import compoworld.types
from compoworld.catalog import load_service, service_digest
from compoworld.errors import NotFound
from compoworld.service import SEPARATOR, Environment, Service, openai_tools, qualified_name
from compoworld.world._images import image_dir


@cache
def schema_version() -> str:
    """A digest of what turns a service's parameters into schemas: the source of
    ``compoworld.service``, ``compoworld.types`` and ``compoworld.catalog``'s own modules (the
    helpers built-in services share), and pydantic's version."""
    digest = hashlib.blake2b(f"pydantic {pydantic.VERSION}".encode(), digest_size=12)
    for package in (compoworld.service, compoworld.types, compoworld.catalog):
        for folder in package.__path__:
            for path in sorted(Path(folder).glob("*.py")):
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _path(name: str, digest: str) -> Path:
    key = hashlib.blake2b(f"{name}\x00{digest}\x00{schema_version()}".encode(),
                          digest_size=16).hexdigest()
    return image_dir().parent / "tools" / f"{name}-{key}.json"


@lru_cache(maxsize=1024)
def _schemas(name: str, digest: str) -> bytes:
    """The catalog service's tool definitions as JSON (``{tool: definition}``): read from the
    disk cache, or made now and written there."""
    path = _path(name, digest)
    if path.is_file():
        return path.read_bytes()
    service = load_service(name)
    made = openai_tools({qualified_name(name, t): tool for t, tool in service.tools.items()})
    text = orjson.dumps(dict(zip(service.tools, made, strict=True)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{name}-", delete=False) as tmp:
            tmp.write(text)
        os.replace(tmp.name, path)
    except OSError:  # a read-only or full disk: the schemas still serve this process
        pass
    return text


def _cached(service: Service) -> dict[str, Any] | None:
    """The definitions of ``service``'s tools by tool name (a new copy), or None when it is not
    the catalog's own service (one built by hand, or whose source cannot be read, has no digest
    to key its schemas by)."""
    try:
        if load_service(service.name) is not service:
            return None
        digest = service_digest(service.name)
    except NotFound:
        return None
    if digest is None:
        return None
    definitions: dict[str, Any] = orjson.loads(_schemas(service.name, digest))
    return definitions if definitions.keys() == service.tools.keys() else None


def tool_definitions(env: Environment) -> list[dict[str, Any]]:
    """``openai_tools(env.tools)``, the same definitions in the same order, with the schemas
    of catalog services read from the cache instead of building every tool's validator.

    Example:
        >>> from compoworld.world import compose
        >>> from compoworld.service import openai_tools
        >>> env = compose(["contacts", "crm"], seed=0).env
        >>> tool_definitions(env) == openai_tools(env.tools)
        True
    """
    services: dict[str, dict[str, Any] | None] = {}
    out: list[dict[str, Any]] = []
    for name, tool in env.tools.items():
        service_name, tool_name = name.split(SEPARATOR, 1)
        service = env.services[service_name]
        if service_name not in services:
            services[service_name] = _cached(service)
        cached = services[service_name]
        if cached is not None and service.tools.get(tool_name) is tool:
            out.append(cached[tool_name])
        else:
            out.extend(openai_tools({name: tool}))
    return out
