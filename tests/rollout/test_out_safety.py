"""The rollouts file is never lost, mixed or doubled (issue 18, defects 3, 4, 5 and 7): one
writer at a time, a file that is not a rollouts file is refused, rollouts of another tasks file
are refused, a failed episode is retried on rerun and supersedes its failed line."""

import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from compoworld.errors import UserError
from compoworld.models import AssistantMessage, ModelError
from compoworld.rollout import OracleAgent, RolloutSink, Trajectory, rollout
from compoworld.tasks import Task


def _lines(path: Path) -> list[Trajectory]:
    return [Trajectory.model_validate_json(line) for line in path.read_bytes().splitlines()]


def test_a_second_writer_of_the_same_out_is_refused(tmp_path: Path, tasks: list[Task]) -> None:
    out = tmp_path / "rollouts.jsonl"
    first = RolloutSink(out, agent="oracle", model=None)
    with pytest.raises(UserError, match="being written by another process"):
        rollout(tasks[:1], OracleAgent(), out=out)
    first.close()
    assert rollout(tasks[:1], OracleAgent(), out=out).done == 1


def test_a_second_process_is_refused_with_the_first_ones_pid(
        tmp_path: Path, tasks: list[Task]) -> None:
    out = tmp_path / "rollouts.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from compoworld._outfile import OutputLock
        lock = OutputLock(Path({str(out)!r}), "rollout")
        print("locked", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(UserError, match=rf"pid {holder.pid}\b"):
            rollout(tasks[:1], OracleAgent(), out=out)
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.05)
    assert rollout(tasks[:1], OracleAgent(), out=out).done == 1  # the lock died with it


@pytest.mark.parametrize("content", [b"my precious notes", b'{"id": "t0-000000", "seed": 0}',
                                     b"line one\nline two"])
def test_a_file_that_is_not_a_rollouts_file_is_left_alone(
        tmp_path: Path, tasks: list[Task], content: bytes) -> None:
    out = tmp_path / "notes.txt"
    out.write_bytes(content)
    with pytest.raises(UserError, match=r"notes\.txt:"):
        rollout(tasks[:1], OracleAgent(), out=out)
    assert out.read_bytes() == content


def test_a_torn_trajectory_line_is_still_dropped(tmp_path: Path, tasks: list[Task]) -> None:
    out = tmp_path / "rollouts.jsonl"
    rollout(tasks[:1], OracleAgent(), out=out, timings=False)
    whole = out.read_bytes()
    out.write_bytes(whole + whole[:50])
    assert rollout(tasks[:1], OracleAgent(), out=out).skipped == 1
    assert out.read_bytes() == whole


@pytest.mark.parametrize(("field", "value", "message"), [
    ("rollout_idx", '"zero"', "field 'rollout_idx' must be a non-negative integer"),
    ("task_id", "7", "field 'task_id' must be a string"),
    ("finish_reason", "[1]", "field 'finish_reason' must be a string"),
])
def test_wrong_typed_fields_are_one_clear_error_not_a_traceback(
        tmp_path: Path, tasks: list[Task], field: str, value: str, message: str) -> None:
    out = tmp_path / "rollouts.jsonl"
    rollout(tasks[:1], OracleAgent(), out=out)
    import orjson

    record = orjson.loads(out.read_bytes())
    record[field] = orjson.loads(value)
    out.write_bytes(orjson.dumps(record) + b"\n")
    with pytest.raises(UserError, match=rf"rollouts.jsonl:1: {message}"):
        rollout(tasks[:1], OracleAgent(), out=out)


def test_rollouts_of_another_tasks_file_are_refused(
        tmp_path: Path, direct_tasks: list[Task], gateway_tasks: list[Task]) -> None:
    out = tmp_path / "rollouts.jsonl"
    rollout(direct_tasks[:2], OracleAgent(), out=out)
    before = out.read_bytes()
    with pytest.raises(UserError, match="another tasks file"):  # other ids
        rollout(gateway_tasks[:1], OracleAgent(), out=out)
    changed = direct_tasks[0].model_copy(update={"instruction": "Something else entirely."})
    with pytest.raises(UserError, match="differs from the one in the tasks file"):  # same id
        rollout([changed], OracleAgent(), out=out)
    assert out.read_bytes() == before
    # a part of the same tasks file (--limit) is fine
    assert rollout(direct_tasks[:1], OracleAgent(), out=out,
                   all_tasks=direct_tasks).skipped == 1


class Flaky:
    """Fails every reply with a ModelError until ``heal`` is set; then plays the oracle."""

    name, model = "flaky", "m"

    def __init__(self) -> None:
        self.heal, self.oracle = False, OracleAgent()

    async def respond(self, task: Task, messages: list[dict[str, Any]],
                      tools: list[dict[str, Any]]) -> AssistantMessage:
        if not self.heal:
            raise ModelError("model endpoint http://127.0.0.1:9/v1 failed: connection refused")
        return await self.oracle.respond(task, messages, tools)


def test_model_errors_are_retried_on_rerun_and_supersede_the_failed_line(
        tmp_path: Path, direct_tasks: list[Task]) -> None:
    out = tmp_path / "rollouts.jsonl"
    agent = Flaky()
    first = rollout(direct_tasks[:2], agent, group=2, out=out)
    assert first.model_errors == 4
    assert first.first_error and "connection refused" in first.first_error
    kept = rollout(direct_tasks[:2], agent, group=2, out=out, retry_failed=False)
    assert kept.skipped == 4 and kept.done == 0
    agent.heal = True
    second = rollout(direct_tasks[:2], agent, group=2, out=out)
    assert second.retried == 4 and second.done == 4 and second.finished == 4
    lines = _lines(out)
    assert len(lines) == 4
    assert {t.finish_reason for t in lines} == {"stop"}
    assert rollout(direct_tasks[:2], agent, group=2, out=out).skipped == 4
