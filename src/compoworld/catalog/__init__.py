"""The catalog: every service CompoWorld knows, found automatically.

Sources, in order: the built-in service modules under ``compoworld/catalog/<domain>/`` (any
module-level :class:`~compoworld.service.Service`), the ``*.json`` service specs next to them,
and plugins registered under the entry-point group ``compoworld.services`` (an entry point may
name a ``Service``, a ``ServiceSpec`` or a function returning either).

Spec files are read for their name only and built on first use. A built catalog directory
(``compoworld catalog build --out DIR``) joins them when the
environment variable ``COMPOWORLD_CATALOG=DIR`` is set: its names are read from the manifest and
each spec is built on first use, so a catalog of hundreds of services costs nothing until used.
A name the built-in catalog already has keeps the built-in service.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import pkgutil
from functools import cache, lru_cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import orjson

from compoworld.errors import NotFound, UserError
from compoworld.service import Service, ServiceSpec, build_service, load_spec

__all__ = ["CATALOG_ENV", "load_service", "load_services", "service_digest", "service_domain",
           "service_names"]

ENTRY_POINT_GROUP = "compoworld.services"
CATALOG_ENV = "COMPOWORLD_CATALOG"


def _as_service(obj: Any, origin: str) -> Service:
    if callable(obj) and not isinstance(obj, Service | ServiceSpec):
        obj = obj()
    if isinstance(obj, ServiceSpec):
        return build_service(obj)
    if isinstance(obj, Service):
        return obj
    raise UserError(f"{origin} is not a Service or ServiceSpec (got {type(obj).__name__})")


class _SpecFile:
    """A spec file of the package, built into a :class:`Service` on first use (cached)."""

    def __init__(self, path: Any) -> None:
        self.path = path
        self.service: Service | None = None

    def load(self) -> Service:
        if self.service is None:
            self.service = build_service(load_spec(self.path))
        return self.service


def _spec_name(path: Any) -> str:
    try:
        name = orjson.loads(path.read_bytes()).get("name")
    except (orjson.JSONDecodeError, AttributeError):
        name = None
    return name if isinstance(name, str) else load_spec(path).name  # load_spec says what's wrong


def _add(found: dict[str, Service | _SpecFile], service: Service | _SpecFile, origin: str,
         name: str | None = None) -> None:
    name = name or str(getattr(service, "name", ""))
    if name in found and found[name] is not service:
        raise UserError(f"two services are named {name!r} (second one from {origin})")
    found[name] = service


_MODULES: dict[str, str] = {}
"""Service name → the module that defines it (hand-written and plugin services)."""


@lru_cache(maxsize=1)
def _discover() -> dict[str, Service | _SpecFile]:
    found: dict[str, Service | _SpecFile] = {}
    package = importlib.import_module(__name__)
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{__name__}."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, Service):
                _add(found, value, info.name)
                _MODULES[value.name] = info.name
    for path in sorted(_spec_files(resources.files(__name__)), key=str):
        _add(found, _SpecFile(path), str(path), _spec_name(path))
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        service = _as_service(entry_point.load(), f"entry point {entry_point.name!r}")
        _add(found, service, entry_point.value)
        _MODULES[service.name] = entry_point.value.partition(":")[0]
    return dict(sorted(found.items()))


def _spec_files(folder: Any) -> list[Any]:
    files = []
    for child in folder.iterdir():
        if child.is_dir() and not child.name.startswith(("_", ".")):
            files.extend(_spec_files(child))
        elif child.name.endswith(".json"):
            files.append(child)
    return files


@lru_cache(maxsize=4)
def _external(folder: str) -> dict[str, Path]:
    """Name → spec file of a built catalog directory (or a plain folder of spec files)."""
    root = Path(folder)
    if not root.is_dir():
        raise UserError(f"{CATALOG_ENV}={folder!r} is not a directory; point it at a catalog "
                        "built with 'compoworld catalog build --out DIR'")
    specs = root / "services" if (root / "services").is_dir() else root
    manifest = root / "catalog.json"
    if manifest.is_file():
        names = [r["name"] for r in orjson.loads(manifest.read_bytes())["services"]]
        return {n: specs / f"{n}.json" for n in sorted(names)}
    return {p.stem: p for p in sorted(specs.glob("*.json"))}


def _external_specs() -> dict[str, Path]:
    folder = os.environ.get(CATALOG_ENV)
    if not folder:
        return {}
    builtin = _discover()
    kept = _UNSHADOWED.get(folder)
    if kept is None or kept[0] is not builtin:  # computed once per folder and discovery
        kept = _UNSHADOWED[folder] = (builtin, {n: p for n, p in _external(folder).items()
                                                if n not in builtin})
    return kept[1]


_UNSHADOWED: dict[str, tuple[dict[str, Any], dict[str, Path]]] = {}
"""Per catalog folder: the specs no built-in service shadows (asked at every load)."""


@cache
def _build_external(path: Path) -> Service:
    return build_service(load_spec(path))


def service_names() -> list[str]:
    """Names of every service in the catalog, sorted (with ``$COMPOWORLD_CATALOG``'s)."""
    external = _external_specs()
    if not external:
        return list(_discover())
    return sorted([*_discover(), *external])


def load_service(name: str) -> Service:
    """The catalog service called ``name``.

    Raises:
        NotFound: No such service; the message lists the catalog and the closest names.

    Example:
        >>> load_service("contacts").domain
        'people'
    """
    services = _discover()
    try:
        found = services[name]
    except KeyError:
        external = _external_specs()
        if name in external:
            return _build_external(external[name])
        raise NotFound("service", name, [*services, *external]) from None
    return found.load() if isinstance(found, _SpecFile) else found


def load_services(names: list[str] | None = None) -> list[Service]:
    """The named services (default: all), in the order given."""
    if names is not None:
        return [load_service(n) for n in names]
    return [load_service(n) for n in service_names()]


@cache
def _file_digest(path: str) -> str:
    with open(path, "rb") as source:
        return hashlib.blake2b(source.read(), digest_size=16).hexdigest()


def service_digest(name: str) -> str | None:
    """A digest of what defines the service: its spec file's bytes, or the source of the module
    that declares it (None when that cannot be read: nothing about it is cached on disk).
    Caches of seeded images and of the graph's index are keyed by it.

    Raises:
        NotFound: No such service.
    """
    found = _discover().get(name)
    if found is None:
        external = _external_specs()
        if name not in external:
            raise NotFound("service", name, [*_discover(), *external])
        return _file_digest(str(external[name]))
    if isinstance(found, _SpecFile):
        return _file_digest(str(found.path))
    spec = importlib.util.find_spec(_MODULES.get(name, "")) if name in _MODULES else None
    return _file_digest(spec.origin) if spec and spec.origin and os.path.isfile(spec.origin) \
        else None


@cache
def _external_domain(path: Path) -> str:
    return str(orjson.loads(path.read_bytes()).get("domain") or "")


def service_domain(name: str) -> str:
    """The service's domain, without building it when it is a spec (read from the file)."""
    found = _discover().get(name)
    if found is None and name in _external_specs():
        return _external_domain(_external_specs()[name])
    if isinstance(found, _SpecFile) and found.service is None:
        return _external_domain(Path(str(found.path)))
    return load_service(name).domain
