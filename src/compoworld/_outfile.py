"""Output files a command owns: one writer at a time, replaced atomically, recognised before use.

* :class:`OutputLock` — an advisory ``fcntl`` lock on ``<out>.lock`` (holding the writer's
  pid), taken without waiting: a second process writing the same ``--out`` is refused with
  a message naming the first one. The lock file stays; the lock goes with the process (a
  killed run never leaves a stale lock).
* :func:`write_atomic` — a temporary file beside the target, fsynced, then renamed over it: a
  kill at any moment leaves the old file or the new one, never a truncated one.
* :func:`torn_tail` — where a JSONL output's complete lines end, refusing a file whose text
  is not recognisably this command's output (so a file ``--out`` names by mistake is never
  "repaired" into nothing).
"""

from __future__ import annotations

import os
from pathlib import Path

from compoworld.errors import UserError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, no protection
    fcntl = None  # type: ignore[assignment]


class OutputLock:
    """Hold the write lock of ``path`` (as a context manager, or until :meth:`release`).

    Raises:
        UserError: Another process holds it (its pid is named).
    """

    def __init__(self, path: Path, command: str) -> None:
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(self._fd, 32, 0).decode(errors="replace").strip() or "?"
                os.close(self._fd)
                self._fd = -1
                raise UserError(
                    f"{self.path} is being written by another process (pid {holder}); wait for "
                    f"it to end, or choose another --out for this {command}") from None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing drops the flock
            self._fd = -1

    def __enter__(self) -> OutputLock:
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically (temporary file, fsync, rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def torn_tail(path: Path, data: bytes, prefix: bytes, what: str) -> int:
    """The length of ``data`` up to its last newline, after checking that what follows it
    (the line an interrupted run was writing) starts like one of this command's lines.

    Args:
        path: The file (for messages).
        data: Its bytes.
        prefix: How every line the command writes starts (e.g. ``b'{"task_id":'``).
        what: What the file holds, for messages ("tasks", "rollouts").

    Raises:
        UserError: The text after the last newline does not start with ``prefix`` (the file
            is not this command's output, or not only).
    """
    end = data.rfind(b"\n") + 1
    tail = data[end:]
    if tail.strip() and not prefix.startswith(tail[:len(prefix)]):
        line = data.count(b"\n") + 1
        raise UserError(f"{path}:{line} is not a line of {what} (and the file does not end "
                        f"with a newline): this is not the output of a {what} run, so it is "
                        f"left as it is; move it or choose another --out")
    return end
