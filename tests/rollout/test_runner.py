"""The runner: groups, concurrency-independent output, resuming after Ctrl-C or a crash."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from compoworld.errors import UserError
from compoworld.models import AssistantMessage
from compoworld.rollout import OracleAgent, RolloutSink, Trajectory, rollout
from compoworld.tasks import Task


def _lines(path: Path) -> list[Trajectory]:
    return [Trajectory.model_validate_json(line) for line in path.read_bytes().splitlines()]


def test_same_tasks_same_bytes_whatever_the_concurrency(tmp_path: Path, tasks: list[Task]) -> None:
    outputs = []
    for concurrency in (1, 5, 64):
        out = tmp_path / f"c{concurrency}.jsonl"
        stats = rollout(tasks, OracleAgent(), group=3, out=out, concurrency=concurrency,
                        timings=False)
        assert (stats.done, stats.finished, stats.skipped) == (3 * len(tasks),) * 2 + (0,)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    rows = _lines(tmp_path / "c1.jsonl")
    assert [(t.task_id, t.rollout_idx) for t in rows] == [(t.id, i) for t in tasks for i in range(3)]
    assert {t.agent for t in rows} == {"oracle"}


def test_rerun_skips_what_is_done_and_grows_the_group(tmp_path: Path, tasks: list[Task]) -> None:
    out = tmp_path / "r.jsonl"
    rollout(tasks[:3], OracleAgent(), group=2, out=out)
    again = rollout(tasks[:3], OracleAgent(), group=2, out=out)
    assert (again.done, again.skipped) == (0, 6)
    more = rollout(tasks[:3], OracleAgent(), group=3, out=out)
    assert (more.done, more.skipped) == (3, 6)
    keys = [(t.task_id, t.rollout_idx) for t in _lines(out)]
    assert sorted(keys) == sorted({(t.id, i) for t in tasks[:3] for i in range(3)})


class Interrupting:
    """The oracle, until its ``after``-th reply: then Ctrl-C."""

    name, model = "oracle", None

    def __init__(self, after: int) -> None:
        self.after, self.replies, self.oracle = after, 0, OracleAgent()

    async def respond(self, task: Task, messages: list[dict[str, Any]],
                      tools: list[dict[str, Any]]) -> AssistantMessage:
        self.replies += 1
        if self.replies == self.after:
            raise KeyboardInterrupt
        return await self.oracle.respond(task, messages, tools)


def test_ctrl_c_then_resume_loses_nothing_and_duplicates_nothing(
        tmp_path: Path, tasks: list[Task]) -> None:
    reference = tmp_path / "reference.jsonl"
    rollout(tasks, OracleAgent(), group=2, out=reference, timings=False)
    out = tmp_path / "interrupted.jsonl"
    with pytest.raises(KeyboardInterrupt):
        rollout(tasks, Interrupting(after=40), group=2, out=out, concurrency=4, timings=False)
    kept = _lines(out)
    assert 0 < len(kept) < 2 * len(tasks)
    stats = rollout(tasks, OracleAgent(), group=2, out=out, concurrency=4, timings=False)
    assert stats.skipped == len(kept)
    assert out.read_bytes() == reference.read_bytes()


def test_a_killed_run_resumes_from_its_last_whole_line(tmp_path: Path, tasks: list[Task]) -> None:
    """SIGKILL mid-run (no cleanup at all), then a torn line added by hand: the rerun drops the
    torn line and completes the file, which then equals an uninterrupted run's."""
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_bytes(b"".join(t.model_dump_json().encode() + b"\n" for t in tasks))
    out = tmp_path / "killed.jsonl"
    script = textwrap.dedent(f"""
        import asyncio
        from pathlib import Path
        from compoworld.cli._tasks import read_tasks
        from compoworld.rollout import OracleAgent, rollout

        class Slow(OracleAgent):
            async def respond(self, task, messages, tools):
                await asyncio.sleep(0.05)
                return await super().respond(task, messages, tools)

        rollout(read_tasks(Path({str(tasks_file)!r})), Slow(), group=2,
                out=Path({str(out)!r}), concurrency=2, timings=False)
    """)
    process = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (
                not out.exists() or out.read_bytes().count(b"\n") < 4):
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    done = out.read_bytes().count(b"\n")
    assert 4 <= done < 2 * len(tasks)
    with out.open("ab") as handle:
        handle.write(b'{"task_id": "t0-0000')  # a line torn by the crash
    stats = rollout(tasks, OracleAgent(), group=2, out=out, timings=False)
    assert stats.skipped == done
    reference = tmp_path / "reference.jsonl"
    rollout(tasks, OracleAgent(), group=2, out=reference, timings=False)
    assert out.read_bytes() == reference.read_bytes()


def test_the_file_refuses_other_agents_and_broken_lines(tmp_path: Path, tasks: list[Task]) -> None:
    out = tmp_path / "mixed.jsonl"
    rollout(tasks[:1], OracleAgent(), out=out)
    with pytest.raises(UserError, match="holds rollouts of agent 'oracle'"):
        RolloutSink(out, agent="openai", model="m")
    out.write_bytes(b"not json\n" + out.read_bytes())
    with pytest.raises(UserError, match=r"mixed.jsonl:1 is not a trajectory"):
        RolloutSink(out, agent="oracle", model=None)


def test_bad_settings_are_user_errors(tmp_path: Path, tasks: list[Task]) -> None:
    with pytest.raises(UserError, match="--group"):
        rollout(tasks, OracleAgent(), group=0, out=tmp_path / "x.jsonl")
    with pytest.raises(UserError, match="twice"):
        rollout([tasks[0], tasks[0]], OracleAgent(), out=tmp_path / "x.jsonl")


def test_groups_share_one_world_model(tasks: list[Task]) -> None:
    """All rollouts of a group run on forks of one world, sharing its simulator."""
    from compoworld.rollout import EpisodeSettings
    from compoworld.rollout._runner import _Groups

    groups = _Groups({tasks[0].id: 2})
    first, second = (groups.episode(tasks[0], i, EpisodeSettings()) for i in range(2))
    assert first.world.env is not second.world.env
    assert first.world.env.simulator is second.world.env.simulator
    assert first.tools is second.tools


def test_a_group_builds_one_world_and_its_rollouts_do_not_see_each_others_writes(
        tasks: list[Task], monkeypatch: pytest.MonkeyPatch) -> None:
    """The task's world is built once per group; each rollout plays on its own fork."""
    import asyncio

    from compoworld.rollout import EpisodeSettings, _runner

    built: list[str] = []
    real = _runner.build_world
    monkeypatch.setattr(_runner, "build_world", lambda task: built.append(task.id) or real(task))
    changed = 0
    for task in tasks:
        groups = _runner._Groups({task.id: 3})
        first, second, third = (groups.episode(task, i, EpisodeSettings()) for i in range(3))
        initial = third.world.env.digest()
        trajectory = asyncio.run(first.run(OracleAgent()))
        assert trajectory.finish_reason == "stop"
        changed += first.world.env.digest() != initial
        assert second.world.env.digest() == initial == third.world.env.digest()
    assert built == [t.id for t in tasks]
    assert changed  # some oracle wrote, and the other forks did not see it
