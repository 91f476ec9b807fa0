"""Running a coroutine from sync code, safely, with a timeout: a private event-loop thread.

The simulator protocol is sync (``Environment.call`` is), model clients are async. The caller
may be a plain thread, or a thread whose own event loop is running (an async rollout loop
calling ``env.call``), where ``asyncio.run`` would fail. The coroutine therefore runs on a
loop owned by a daemon thread, and the caller waits on it with a timeout.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["LoopThread"]


class LoopThread:
    """An event loop in a daemon thread, started on first use.

    Example:
        >>> async def add(a, b):
        ...     return a + b
        >>> runner = LoopThread()
        >>> runner.run(add(1, 2), timeout=5)
        3
        >>> runner.close()
    """

    def __init__(self, name: str = "compoworld-loop") -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name=self._name, daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float) -> T:
        """The coroutine's result; :class:`TimeoutError` (coroutine cancelled) past ``timeout``.

        Raises:
            RuntimeError: called from this runner's own loop thread (it would deadlock).
        """
        if threading.current_thread() is self._thread:
            coroutine.close()
            raise RuntimeError("LoopThread.run called from its own loop thread")
        future = asyncio.run_coroutine_threadsafe(coroutine, self._ensure())
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"no answer within {timeout:g}s") from None

    def close(self) -> None:
        """Stop the loop and its thread (a later :meth:`run` starts a new one)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is not None and thread is not None:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=5)
            if not thread.is_alive():
                loop.close()
