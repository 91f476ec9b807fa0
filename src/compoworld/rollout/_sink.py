"""The rollouts file: JSONL appended as each trajectory ends, safe to interrupt and resume.

Each line is written with one ``write`` call on a file opened for appending (a crash loses
at most the line being written; the OS has every earlier one) and the file is fsynced at
least once a second and at the end. On open, a torn last line is dropped, and the pairs
(task id, rollout index) already there are the ones a rerun skips.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import orjson

from compoworld.errors import UserError
from compoworld.rollout._trajectory import Trajectory

Key = tuple[str, int]


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) and "task_id" in value and "rollout_idx" in value \
        else None


class RolloutSink:
    """Appends trajectories to ``path``; knows which (task, rollout) pairs are already there.

    Args:
        path: The JSONL file (created with its folder if missing).
        agent: The agent name this run records; a file holding another agent's (or model's)
            rollouts is refused, so two experiments never mix in one file.
        model: The model name this run records.
        fsync_every: Seconds between fsyncs.

    Raises:
        UserError: A line other than the last is not a trajectory, or the file holds another
            agent's rollouts.
    """

    def __init__(self, path: Path, *, agent: str, model: str | None,
                 fsync_every: float = 1.0) -> None:
        self.path = Path(path)
        self.done: set[Key] = set()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._recover(agent, model)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._fsync_every, self._synced = fsync_every, time.monotonic()

    def _recover(self, agent: str, model: str | None) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        complete = data.split(b"\n")[:-1]  # what follows the last newline is a torn line
        good = 0
        for number, line in enumerate(complete, start=1):
            record = _parse(line) if line.strip() else None
            if record is None and line.strip():
                if number == len(complete):
                    break  # the line being written when the run stopped
                raise UserError(f"{self.path}:{number} is not a trajectory; repair or move the "
                                f"file, or choose another --out")
            good += len(line) + 1
            if record is None:
                continue
            if (record.get("agent"), record.get("model")) != (agent, model):
                raise UserError(
                    f"{self.path} holds rollouts of agent {record.get('agent')!r} (model "
                    f"{record.get('model')!r}), not {agent!r} ({model!r}); choose another --out")
            self.done.add((record["task_id"], int(record["rollout_idx"])))
        if good < len(data):
            with self.path.open("r+b") as handle:  # drop the torn tail
                handle.truncate(good)

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

    def order(self, task_ids: list[str]) -> None:
        """Rewrite the file sorted by task (in ``task_ids`` order) and rollout index, so a
        finished run's file does not depend on which episode ended first. Atomic."""
        position = {task_id: i for i, task_id in enumerate(task_ids)}
        lines = [line for line in self.path.read_bytes().split(b"\n") if line.strip()]
        keyed = []
        for line in lines:
            head = _parse(line)
            assert head is not None
            keyed.append(((position.get(head["task_id"], len(position)), head["task_id"],
                           int(head["rollout_idx"])), line))
        keyed.sort(key=lambda pair: pair[0])
        temporary = self.path.with_name(self.path.name + ".sorting")
        with temporary.open("wb") as handle:
            handle.write(b"".join(line + b"\n" for _, line in keyed))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)
