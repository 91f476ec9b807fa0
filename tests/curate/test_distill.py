"""``compoworld distill``: rollouts → scores → fully verified, deduplicated SFT records; resumable,
budgeted, byte-reproducible. The fast tests drive the loop with the oracle as the teacher (the
selection, budgets and files are under test); the slow one runs the real command against
``compoworld serve model`` on loopback."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.curate import distill
from compoworld.errors import UserError
from compoworld.rollout import OracleAgent, Trajectory
from compoworld.scoring import ClaimProbe
from compoworld.tasks import Task


def _lines(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_keeps_the_verified_and_drops_repeats(tmp_path, tasks) -> None:
    stats = distill(tasks, OracleAgent(), tmp_path, group=3, concurrency=4)
    # the oracle plays each task the same way three times: one record per task survives
    assert (stats.rollouts, stats.new_rollouts, stats.kept, stats.kept_tasks) == (
        18, 18, len(tasks), len(tasks))
    assert stats.rejected == {"near_duplicate": 2 * len(tasks)}
    records = _lines(tmp_path / "sft.jsonl")
    assert [r["meta"]["task_id"] for r in records] == [t.id for t in tasks]
    assert all(r["meta"]["rollout_idx"] == 0 and r["meta"]["score"] == 1.0 for r in records)
    assert json.loads((tmp_path / "distill.json").read_text()) == stats.model_dump()
    assert len(_lines(tmp_path / "scored.jsonl")) == 18


def test_failed_rollouts_are_rejected(tmp_path, tasks) -> None:
    stats = distill(tasks[:2], ClaimProbe(), tmp_path, group=2)
    assert stats.kept == 0 and stats.rejected == {"score": 4}
    assert (tmp_path / "sft.jsonl").read_bytes() == b""


def test_budgets_stop_between_tasks_and_a_rerun_resumes(tmp_path, tasks) -> None:
    stopped = distill(tasks, OracleAgent(), tmp_path, group=2, concurrency=2, time_budget=0)
    assert stopped.stopped_by == "time" and stopped.rollouts == 0
    first = distill(tasks[:3], OracleAgent(), tmp_path, group=2, concurrency=2)
    assert first.rollouts == 6 and first.stopped_by is None
    done = distill(tasks, OracleAgent(), tmp_path, group=2, concurrency=2)
    assert (done.new_rollouts, done.rollouts, done.kept) == (6, 12, len(tasks))
    rows = [Trajectory.model_validate_json(line)
            for line in (tmp_path / "rollouts.jsonl").read_bytes().splitlines()]
    assert len({(r.task_id, r.rollout_idx) for r in rows}) == len(rows) == 12
    again = distill(tasks, OracleAgent(), tmp_path, group=2, concurrency=2)
    assert again.new_rollouts == 0 and again.kept == done.kept
    fresh = tmp_path / "fresh"
    distill(tasks, OracleAgent(), fresh, group=2, concurrency=5)
    for name in ("rollouts.jsonl", "scored.jsonl", "sft.jsonl"):
        assert (fresh / name).read_bytes() == (tmp_path / name).read_bytes(), name


def test_bad_settings_are_user_errors(tmp_path, tasks) -> None:
    with pytest.raises(UserError, match="no tasks"):
        distill([], OracleAgent(), tmp_path)
    with pytest.raises(UserError, match="similarity"):
        distill(tasks, OracleAgent(), tmp_path, similarity=0)


@pytest.mark.slow
def test_distill_command_against_the_served_bundled_model(tmp_path, served_model,
                                                          gateway_tasks: list[Task]) -> None:
    """The real command, the real teacher endpoint: the small model keeps few or none; the
    plumbing and the counts are what is checked."""
    source = tmp_path / "tasks.jsonl"
    source.write_bytes(b"".join(t.model_dump_json().encode() + b"\n" for t in gateway_tasks[:2]))
    out = tmp_path / "distill"
    arguments = ["distill", "--tasks", str(source), "--out", str(out), "--model", "smollm2",
                 "--base-url", served_model, "--api-key", "none", "--group", "2",
                 "--concurrency", "2", "--max-steps", "2", "--reply-tokens", "48", "--json"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["rollouts"] == stats["new_rollouts"] == 4 and stats["tasks"] == 2
    assert stats["completion_tokens"] > 0 and stats["prompt_tokens"] > stats["completion_tokens"]
    assert stats["kept"] + sum(stats["rejected"].values()) == 4
    assert sum(stats["finish_reasons"].values()) == 4
    rows = [Trajectory.model_validate_json(line)
            for line in (out / "rollouts.jsonl").read_bytes().splitlines()]
    assert {(r.agent, r.model) for r in rows} == {("openai", "smollm2")}
    assert sum(r.usage["completion_tokens"] for r in rows) == stats["completion_tokens"]
    assert len(_lines(out / "sft.jsonl")) == stats["kept"]
    again = json.loads(CliRunner().invoke(app, arguments).stdout)  # resumes: nothing new
    assert again["new_rollouts"] == 0 and again["kept"] == stats["kept"]
