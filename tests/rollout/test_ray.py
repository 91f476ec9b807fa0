"""The runner on a local Ray instance started by the test: same lines as the local runner."""

from pathlib import Path
from typing import Any

import pytest

from compoworld.rollout import OracleAgent, Trajectory, rollout
from compoworld.tasks import Task


@pytest.mark.slow
def test_ray_runner_writes_what_the_local_runner_writes(local_ray: Any, tmp_path: Path,
                                                        tasks: list[Task]) -> None:
    chosen = tasks[:3] + tasks[-2:]
    local = tmp_path / "local.jsonl"
    rollout(chosen, OracleAgent(), group=3, out=local, timings=False)
    on_ray = tmp_path / "ray.jsonl"
    stats = rollout(chosen, OracleAgent(), group=3, out=on_ray, timings=False, ray=True,
                    concurrency=2)
    assert (stats.done, stats.finished) == (15, 15)
    assert on_ray.read_bytes() == local.read_bytes()

    lines = on_ray.read_bytes().splitlines(keepends=True)  # lose some: Ray redoes only those
    on_ray.write_bytes(b"".join(lines[:7]) + lines[7][:40])
    again = rollout(chosen, OracleAgent(), group=3, out=on_ray, timings=False, ray=True)
    assert (again.skipped, again.done) == (7, 8)
    assert on_ray.read_bytes() == local.read_bytes()
    assert {Trajectory.model_validate_json(line).agent for line in lines} == {"oracle"}
