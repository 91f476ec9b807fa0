"""RL export: one row per task, prompts, and the task JSON that rebuilds the world."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.errors import UserError
from compoworld.export import export_rl, rl_row
from compoworld.rollout import build_world
from compoworld.tasks import Task


def test_a_row_rebuilds_the_task_world(tasks) -> None:
    for task in tasks:
        row = rl_row(task)
        assert row["prompt"] == [{"role": "system", "content": task.system_prompt},
                                 {"role": "user", "content": task.instruction}]
        rebuilt = Task.model_validate_json(row["task"])
        assert rebuilt == task and row["task_id"] == task.id
        assert build_world(rebuilt).env.digest() == build_world(task).env.digest()


def test_jsonl_and_parquet_files(tmp_path, tasks) -> None:
    path = export_rl(tasks, tmp_path / "rl", format="jsonl")
    assert path.name == "train.jsonl"
    rows = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert [r["task_id"] for r in rows] == [t.id for t in tasks]
    with pytest.raises(UserError, match="no tasks"):
        export_rl([], tmp_path / "empty")
    with pytest.raises(UserError, match="format"):
        export_rl(tasks, tmp_path / "x", format="csv")  # type: ignore[arg-type]


def test_a_datasets_dataset_on_disk(tmp_path, tasks) -> None:
    datasets = pytest.importorskip("datasets")
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    result = CliRunner().invoke(app, ["export", "rl", str(tasks_file), "--out", str(tmp_path / "rl")])
    assert result.exit_code == 0, result.output
    ds = datasets.load_from_disk(str(tmp_path / "rl"))
    assert len(ds) == len(tasks) and ds[0]["task_id"] == tasks[0].id
    assert ds[0]["prompt"][1]["content"] == tasks[0].instruction
    assert Task.model_validate_json(ds[-1]["task"]) == tasks[-1]
    parquet = export_rl(tasks, tmp_path / "pq", format="parquet")
    assert len(datasets.load_dataset("parquet", data_files=str(parquet), split="train")) == len(tasks)
