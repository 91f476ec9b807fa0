"""``compoworld rollout`` end to end with the oracle, and its user errors."""

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compoworld.cli import app, main
from compoworld.rollout import Trajectory
from compoworld.tasks import Task

runner = CliRunner()


def test_rollout_command_writes_and_resumes(tmp_path: Path, tasks: list[Task]) -> None:
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_bytes(b"".join(t.model_dump_json().encode() + b"\n" for t in tasks))
    out = tmp_path / "rollouts.jsonl"
    args = ["rollout", "--tasks", str(tasks_file), "--agent", "oracle", "--out", str(out),
            "--concurrency", "4", "--limit", "3", "--group"]
    first = runner.invoke(app, [*args, "2"])
    assert first.exit_code == 0, first.output
    said = " ".join(first.output.split())
    assert "6 new rollouts" in said and "finished 6" in said
    second = runner.invoke(app, [*args, "3"])
    assert second.exit_code == 0, second.output
    said = " ".join(second.output.split())
    assert "3 new rollouts" in said and "(6 already there)" in said
    rows = [Trajectory.model_validate_json(line) for line in out.read_bytes().splitlines()]
    assert len(rows) == 9 and all(r.finish_reason == "stop" for r in rows)


@pytest.mark.parametrize(("args", "message"), [
    (["--agent", "gpt"], "--agent must be one of"),
    (["--tasks", "/no/such/tasks.jsonl"], "no tasks file"),
])
def test_rollout_command_user_errors(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                     tmp_path: Path, args: list[str], message: str) -> None:
    monkeypatch.setattr(sys, "argv", ["compoworld", "rollout", "--out", str(tmp_path / "o.jsonl"),
                                      *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
