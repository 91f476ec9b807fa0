"""Task generation on Ray: the attempt chunks ``--workers`` sends to processes, sent to Ray
tasks instead, through the same executor interface (``submit`` → a future, ``shutdown``).

The driver still takes outcomes in attempt order and keeps the run's record of signatures, so
the tasks are the ones one process writes, byte for byte, whatever the cluster.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any

from compoworld.errors import UserError

FORWARDED_ENV = ("COMPOWORLD_CATALOG", "COMPOWORLD_CACHE")
"""Environment variables a Ray worker takes from the driver (which catalog, which caches)."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserError("--ray needs the 'ray' extra: pip install 'compoworld[ray]'") from None
    return ray


def _run(fn: Callable[[Any], Any], job: Any, env: dict[str, str]) -> Any:
    """In a Ray worker: the driver's catalog and caches, then the job."""
    for name in FORWARDED_ENV:
        if name in env:
            os.environ[name] = env[name]
        else:
            os.environ.pop(name, None)
    return fn(job)


class _RayFuture:
    def __init__(self, ray: Any, ref: Any) -> None:
        self._ray, self.ref = ray, ref

    def result(self) -> Any:
        return self._ray.get(self.ref)


class RayExecutor:
    """Runs ``fn(job)`` as Ray tasks (one CPU each) on the instance at ``address`` (``"auto"``,
    ``"ray://host:10001"``), or the one initialized in this process, else a local one.

    Attributes:
        slots: CPUs the instance has (how many jobs to keep in flight, with some to spare).
    """

    def __init__(self, address: str | None = None, num_cpus: int | None = None) -> None:
        ray = self._ray = _ray()
        if not ray.is_initialized():
            ray.init(address=None if address in (None, "local") else address,
                     num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
        self.slots = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._remote = ray.remote(_run)
        self._env = {n: os.environ[n] for n in FORWARDED_ENV if n in os.environ}
        self._refs: list[Any] = []

    def submit(self, fn: Callable[[Any], Any], job: Any) -> _RayFuture:
        ref = self._remote.remote(fn, job, self._env)
        self._refs.append(ref)
        return _RayFuture(self._ray, ref)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Cancel what has not finished (the driver stopped taking results)."""
        if cancel_futures:
            for ref in self._refs:
                with contextlib.suppress(Exception):  # a finished task cannot be cancelled
                    self._ray.cancel(ref)
        self._refs.clear()
