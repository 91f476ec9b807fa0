"""``compoworld generate --out`` never loses or overwrites a file (issue 18, defect 3) and a
bad tasks file is one line naming file, line and field (defect 7)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from compoworld._outfile import OutputLock
from compoworld.cli import app
from compoworld.errors import UserError
from compoworld.tasks import load_tasks

runner = CliRunner()


@pytest.mark.parametrize("content", [b"my precious notes", b"a,b,c\n1,2,3",
                                     b'{"task_id": "t0-000000", "rollout_idx": 0}'])
def test_generate_leaves_a_file_that_is_not_its_output_alone(tmp_path: Path,
                                                             content: bytes) -> None:
    out = tmp_path / "notes.txt"
    out.write_bytes(content)
    result = runner.invoke(app, ["generate", "--tasks", "1", "--out", str(out)])
    assert isinstance(result.exception, UserError)
    assert "notes.txt:" in str(result.exception)
    assert out.read_bytes() == content


def test_a_second_generate_on_the_same_out_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "tasks.jsonl"
    with OutputLock(out, "generate"):
        result = runner.invoke(app, ["generate", "--tasks", "1", "--out", str(out)])
    assert isinstance(result.exception, UserError)
    assert "being written by another process" in str(result.exception)
    assert not out.exists()


def test_killing_generate_while_it_resumes_never_empties_the_file(tmp_path: Path) -> None:
    """A resume never rewrites the file: kill -9 at any moment keeps every whole line."""
    out = tmp_path / "tasks.jsonl"
    assert runner.invoke(app, ["generate", "--tasks", "3", "--out", str(out)]).exit_code == 0
    whole = out.read_bytes()
    for delay in (0.5, 1.0, 2.0, 3.0):
        out.write_bytes(whole + whole[:40])  # a torn line: the resume cuts it off
        run = subprocess.Popen([sys.executable, "-m", "compoworld", "generate", "--tasks", "6",
                                "--out", str(out)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env={**os.environ})
        time.sleep(delay)
        run.send_signal(signal.SIGKILL)
        run.wait()
        data = out.read_bytes()
        assert data.startswith(whole), (delay, len(data))
        out.write_bytes(whole)


def test_a_bad_tasks_file_is_one_line_naming_file_line_and_field(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    assert runner.invoke(app, ["generate", "--tasks", "2", "--out", str(good)]).exit_code == 0
    first, second = good.read_bytes().splitlines()
    task = orjson.loads(second)
    task["rubric"][0]["kind"] = 42
    task["seed"] = "zero"
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(first + b"\n" + orjson.dumps(task) + b"\n")
    with pytest.raises(UserError) as error:
        load_tasks(bad)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{bad}:2 is not a task: field 'seed'")
    assert "more problem" in message
    assert len(message) < 300


def test_an_interrupted_resume_keeps_every_task(tmp_path: Path, monkeypatch) -> None:
    """The old resume truncated the file and wrote it again: a kill between the two lost all
    of it. A write that is cut short (truncate, then the process dies) must find nothing to
    cut: the resume only trims the torn tail in place."""
    out = tmp_path / "tasks.jsonl"
    assert runner.invoke(app, ["generate", "--tasks", "2", "--out", str(out)]).exit_code == 0
    whole = out.read_bytes()
    out.write_bytes(whole + whole[:40])

    def killed_mid_write(self: Path, data: bytes) -> int:
        self.open("wb").close()  # truncated, then the kill
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_bytes", killed_mid_write)
    runner.invoke(app, ["generate", "--tasks", "2", "--out", str(out)])
    assert out.read_bytes() == whole
