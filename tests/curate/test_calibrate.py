"""``compoworld calibrate``: pass rate per task over k rollouts, the RL filter (0 < passes < k),
splits written with the data. Fast tests drive the loop with scripted agents (the counting,
filtering and files are under test); the slow one calibrates the served bundled model."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.curate import calibrate
from compoworld.errors import UserError
from compoworld.rollout import OracleAgent
from compoworld.scoring import ClaimProbe
from compoworld.tasks import Task


class Alternating:
    """Solves every other episode it starts (the oracle), fails the rest (a false claim).
    Needs episodes run one at a time (concurrency 1)."""

    name, model = "alternating", None

    def __init__(self) -> None:
        self.started = 0
        self.current: Any = None

    async def respond(self, task: Task, messages: list[dict[str, Any]], tools: list[dict[str, Any]]):
        if len(messages) == 2:
            self.started += 1
            self.current = OracleAgent() if self.started % 2 else ClaimProbe()
        return await self.current.respond(task, messages, tools)


def _lines(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_pass_rates_filter_and_splits(tmp_path, tasks) -> None:
    stats = calibrate(tasks, Alternating(), tmp_path, k=2, concurrency=1, seed=1)
    assert (stats.calibrated, stats.never, stats.always, stats.rl_kept) == (len(tasks), 0, 0,
                                                                             len(tasks))
    assert stats.mean_pass_rate == 0.5
    records = _lines(tmp_path / "calibration.jsonl")
    assert [r["task_id"] for r in records] == [t.id for t in tasks]
    assert all(r["passes"] == 1 and r["k"] == 2 and r["rl"] for r in records)
    assert [t["id"] for t in _lines(tmp_path / "rl_tasks.jsonl")] == [t.id for t in tasks]
    splits = json.loads((tmp_path / "splits.json").read_text())
    assert list(splits) == ["task", "motif", "services"]
    for by, split in splits.items():
        assert sorted(split["train"] + split["validation"] + split["test"]) == sorted(
            t.id for t in tasks)
        for r in records:
            assert r["task_id"] in split[r["splits"][by]]
        assert stats.split_sizes[by]["train"] == len(split["train"])


def test_always_solved_tasks_carry_no_gradient(tmp_path, tasks) -> None:
    stats = calibrate(tasks[:3], OracleAgent(), tmp_path, k=2)
    assert (stats.always, stats.rl_kept, stats.mean_pass_rate) == (3, 0, 1.0)
    assert (tmp_path / "rl_tasks.jsonl").read_bytes() == b""
    before = (tmp_path / "calibration.jsonl").read_bytes()
    assert calibrate(tasks[:3], OracleAgent(), tmp_path, k=2).calibrated == 3  # resumes
    assert (tmp_path / "calibration.jsonl").read_bytes() == before
    with pytest.raises(UserError, match="k must be at least 2"):
        calibrate(tasks, OracleAgent(), tmp_path, k=1)


def test_split_command_writes_task_files(tmp_path, tasks) -> None:
    source = tmp_path / "tasks.jsonl"
    source.write_bytes(b"".join(t.model_dump_json().encode() + b"\n" for t in tasks))
    result = CliRunner().invoke(app, ["split", str(source), "--by", "services", "--seed", "3",
                                      "--fractions", "0.5,0.25,0.25"])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "tasks-split-services"
    split = json.loads((folder / "split.json").read_text())
    for name in ("train", "validation", "test"):
        assert [t["id"] for t in _lines(folder / f"{name}.jsonl")] == split[name]
    bad = CliRunner().invoke(app, ["split", str(source), "--fractions", "1,2"])
    assert isinstance(bad.exception, UserError) and "--fractions" in str(bad.exception)


@pytest.mark.slow
def test_calibrate_command_against_the_served_bundled_model(tmp_path, served_model,
                                                            gateway_tasks: list[Task]) -> None:
    source = tmp_path / "tasks.jsonl"
    source.write_bytes(gateway_tasks[0].model_dump_json().encode() + b"\n")
    out = tmp_path / "calibration"
    result = CliRunner().invoke(app, [
        "calibrate", "--tasks", str(source), "--out", str(out), "--model", "smollm2",
        "--base-url", served_model, "--api-key", "none", "-k", "2", "--concurrency", "2",
        "--max-steps", "2", "--reply-tokens", "48", "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["calibrated"] == 1 and stats["completion_tokens"] > 0
    (record,) = _lines(out / "calibration.jsonl")
    assert record["k"] == 2 and 0 <= record["passes"] <= 2
    assert record["rl"] == (0 < record["passes"] < 2)
