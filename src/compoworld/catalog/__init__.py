"""The catalog: every service CompoWorld knows, found automatically.

Sources, in order: the built-in service modules under ``compoworld/catalog/<domain>/`` (any
module-level :class:`~compoworld.service.Service`), the ``*.json`` service specs next to them,
and plugins registered under the entry-point group ``compoworld.services`` (an entry point may
name a ``Service``, a ``ServiceSpec`` or a function returning either).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from importlib import metadata, resources
from typing import Any

from compoworld.errors import NotFound, UserError
from compoworld.service import Service, ServiceSpec, build_service, load_spec

__all__ = ["load_service", "load_services", "service_names"]

ENTRY_POINT_GROUP = "compoworld.services"


def _as_service(obj: Any, origin: str) -> Service:
    if callable(obj) and not isinstance(obj, Service | ServiceSpec):
        obj = obj()
    if isinstance(obj, ServiceSpec):
        return build_service(obj)
    if isinstance(obj, Service):
        return obj
    raise UserError(f"{origin} is not a Service or ServiceSpec (got {type(obj).__name__})")


def _add(found: dict[str, Service], service: Service, origin: str) -> None:
    if service.name in found and found[service.name] is not service:
        raise UserError(f"two services are named {service.name!r} (second one from {origin})")
    found[service.name] = service


@lru_cache(maxsize=1)
def _discover() -> dict[str, Service]:
    found: dict[str, Service] = {}
    package = importlib.import_module(__name__)
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{__name__}."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, Service):
                _add(found, value, info.name)
    for path in sorted(_spec_files(resources.files(__name__)), key=str):
        _add(found, build_service(load_spec(path)), str(path))
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        _add(found, _as_service(entry_point.load(), f"entry point {entry_point.name!r}"),
             entry_point.value)
    return dict(sorted(found.items()))


def _spec_files(folder: Any) -> list[Any]:
    files = []
    for child in folder.iterdir():
        if child.is_dir() and not child.name.startswith(("_", ".")):
            files.extend(_spec_files(child))
        elif child.name.endswith(".json"):
            files.append(child)
    return files


def service_names() -> list[str]:
    """Names of every service in the catalog, sorted."""
    return list(_discover())


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
        return services[name]
    except KeyError:
        raise NotFound("service", name, services) from None


def load_services(names: list[str] | None = None) -> list[Service]:
    """The named services (default: all), in the order given."""
    return [load_service(n) for n in names] if names is not None else list(_discover().values())
