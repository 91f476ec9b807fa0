"""The rollouts file: JSONL appended as each trajectory ends, safe to interrupt and resume.

Each line is written with one ``write`` call on a file opened for appending (a crash loses
at most the line being written; the OS has every earlier one) and the file is fsynced at
least once a second and at the end. One writer at a time: the sink holds the file's lock
(:class:`compoworld._outfile.OutputLock`) while open, so a second run on the same ``--out``
is refused. On open, a torn last line is dropped (only when it starts like a trajectory: a
file that is not a rollouts file is refused, never "repaired"), and the pairs (task id,
rollout index) already there are the ones a rerun skips — except, with ``retry_failed``, the
episodes that ended in ``model_error``: a rerun runs them again and the new line supersedes
the old one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from compoworld._outfile import OutputLock, torn_tail, write_atomic
from compoworld.errors import UserError
from compoworld.rollout._trajectory import Trajectory

Key = tuple[str, int]


LINE_PREFIX = b'{"task_id":'
"""How every line of a rollouts file starts (the first field of a :class:`Trajectory`)."""
RETRIED: tuple[str, ...] = ("model_error",)
"""Finish reasons a rerun runs again (unless told not to): the endpoint failed, not the task."""


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) and "task_id" in value and "rollout_idx" in value \
        else None


def _problem(record: dict[str, Any]) -> str | None:
    """What is wrong with the fields a resume reads, to follow ``file:line`` (None: nothing)."""
    if not isinstance(record["task_id"], str):
        return f": field 'task_id' must be a string, got {type(record['task_id']).__name__}"
    index = record["rollout_idx"]
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        return f": field 'rollout_idx' must be a non-negative integer, got {index!r:.40}"
    for field in ("agent", "finish_reason", "task_digest"):
        value = record.get(field)
        if value is not None and not isinstance(value, str):
            return f": field {field!r} must be a string, got {type(value).__name__}"
    return None


class RolloutSink:
    """Appends trajectories to ``path``; knows which (task, rollout) pairs are already there.

    Args:
        path: The JSONL file (created with its folder if missing).
        agent: The agent name this run records; a file holding another agent's (or model's)
            rollouts is refused, so two experiments never mix in one file.
        model: The model name this run records.
        tasks: The digest of every task of the tasks file the run reads, by id
            (:func:`~compoworld.rollout.task_digest`): a file holding rollouts of other tasks
            (another tasks file) is refused. None: not checked.
        retry_failed: Leave the pairs whose episode ended in ``model_error`` out of
            :attr:`done`, so the run does them again.
        fsync_every: Seconds between fsyncs.

    Raises:
        UserError: Another process writes the file; the file is not a rollouts file (a line
            is not a trajectory, or a field a resume reads has the wrong type: the message
            names the line and the field); it holds another agent's rollouts, or rollouts of
            other tasks.
    """

    def __init__(self, path: Path, *, agent: str, model: str | None,
                 tasks: Mapping[str, str] | None = None, retry_failed: bool = True,
                 fsync_every: float = 1.0) -> None:
        self.path = Path(path)
        self.done: set[Key] = set()
        self.retrying: set[Key] = set()
        """Pairs on file whose episode failed and that this run does again."""
        self._lock = OutputLock(self.path, "rollout")
        self._fd = -1
        try:
            self._recover(agent, model, tasks, retry_failed)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except BaseException:
            self._lock.release()
            raise
        self._fsync_every, self._synced = fsync_every, time.monotonic()

    def _recover(self, agent: str, model: str | None, tasks: Mapping[str, str] | None,
                 retry_failed: bool) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        good = torn_tail(self.path, data, LINE_PREFIX, "rollouts")
        for number, line in enumerate(data[:good].split(b"\n")[:-1], start=1):
            if not line.strip():
                continue
            record = _parse(line)
            problem = " is not a trajectory" if record is None else _problem(record)
            if record is None or problem:
                raise UserError(f"{self.path}:{number}{problem}; repair or move the file, or "
                                f"choose another --out")
            if (record.get("agent"), record.get("model")) != (agent, model):
                raise UserError(
                    f"{self.path} holds rollouts of agent {record.get('agent')!r} (model "
                    f"{record.get('model')!r}), not {agent!r} ({model!r}); choose another --out")
            key = (record["task_id"], record["rollout_idx"])
            if tasks is not None:
                expected, digest = tasks.get(key[0]), record.get("task_digest")
                if expected is None or (digest is not None and digest != expected):
                    how = "is not in" if expected is None else "differs from the one in"
                    raise UserError(
                        f"{self.path}:{number} is a rollout of task {key[0]!r}, which {how} the "
                        f"tasks file of this run: the file holds rollouts of another tasks "
                        f"file; choose another --out")
            if retry_failed and record.get("finish_reason") in RETRIED:
                self.retrying.add(key)
                self.done.discard(key)
            else:
                self.retrying.discard(key)
                self.done.add(key)
        if good < len(data):
            os.truncate(self.path, good)  # drop the torn tail (atomic: never less than good)

    def write(self, trajectory: Trajectory) -> None:
        """Append one trajectory as one line (a pair already written is skipped)."""
        key = (trajectory.task_id, trajectory.rollout_idx)
        if key in self.done:
            return
        self.write_line(trajectory.to_line(), key)

    def write_line(self, line: bytes, key: Key) -> None:
        """Append one already-serialized trajectory."""
        if key in self.done:
            return
        os.write(self._fd, line + b"\n")
        self.done.add(key)
        if time.monotonic() - self._synced >= self._fsync_every:
            self.sync()

    def sync(self) -> None:
        os.fsync(self._fd)
        self._synced = time.monotonic()

    def close(self) -> None:
        if self._fd >= 0:
            self.sync()
            os.close(self._fd)
            self._fd = -1
        self._lock.release()

    def finish(self, task_ids: list[str]) -> None:
        """End a completed run: close, :meth:`order` the file, release the lock."""
        if self._fd >= 0:
            self.sync()
            os.close(self._fd)
            self._fd = -1
        self.order(task_ids)
        self.close()

    def order(self, task_ids: list[str]) -> None:
        """Rewrite the file sorted by task (in ``task_ids`` order) and rollout index, one line
        per pair (the last written: a retried episode supersedes its failed one), so a
        finished run's file does not depend on which episode ended first. Atomic; call it
        before :meth:`close` (under the lock)."""
        position = {task_id: i for i, task_id in enumerate(task_ids)}
        lines = [line for line in self.path.read_bytes().split(b"\n") if line.strip()]
        latest: dict[Key, bytes] = {}
        for line in lines:
            head = _parse(line)
            assert head is not None
            latest[(head["task_id"], int(head["rollout_idx"]))] = line
        keyed = sorted(latest.items(), key=lambda pair: (
            position.get(pair[0][0], len(position)), pair[0][0], pair[0][1]))
        write_atomic(self.path, b"".join(line + b"\n" for _, line in keyed))
