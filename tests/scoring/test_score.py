"""Scoring trajectories: replay, rubric results, mismatches, the judge hook, the CLI."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.errors import UserError
from compoworld.models import AssistantMessage
from compoworld.rollout import run_episode
from compoworld.scoring import (
    ClaimProbe,
    load_scored,
    score_trajectories,
    score_trajectory,
    summarize,
)
from compoworld.tasks import Criterion


def test_the_oracle_completes_every_task(tasks, oracle_runs) -> None:
    for task, trajectory in zip(tasks, oracle_runs, strict=True):
        scored = score_trajectory(task, trajectory)
        assert scored.score == 1.0 and scored.rubric_score == 1.0
        assert scored.passes == [True] * len(task.rubric)
        assert [c.id for c in scored.criteria] == [c.id for c in task.rubric]
        assert scored.replay_mismatches == [] and scored.env_errors == 0
        assert scored.labels == task.labels and scored.trajectory == trajectory


def _write_calls(task, trajectory) -> list[int]:
    """Indexes of the calls that made the plan's writes (a call per plan step: direct mode)."""
    if task.interface != "direct":
        return []
    steps = {int(c.id.split("-", 1)[0][1:]) for c in task.rubric
             if c.kind == "state" and re.match(r"s\d+-", c.id)}  # a plan step's, not a trap's
    return [i for i, c in enumerate(trajectory.calls) if i in steps
            and c.name == task.plan[i].tool]


def test_a_missing_write_fails_its_criteria_with_reasons(tasks, oracle_runs) -> None:
    # a task with two writes or more: without the last, the first still counts
    task, trajectory = next((t, r) for t, r in zip(tasks, oracle_runs, strict=True)
                            if len(_write_calls(t, r)) >= 2)
    last_write = _write_calls(task, trajectory)[-1]
    cut = trajectory.model_copy(update={"calls": trajectory.calls[:last_write]})
    scored = score_trajectory(task, cut)
    assert scored.score == 0.0 and 0.0 < scored.rubric_score < 1.0
    failed = [c for c in scored.criteria if not c.passed]
    assert failed and all(c.kind == "state" and c.id.startswith(f"s{last_write}-")
                          for c in failed), failed
    assert all(c.reason for c in failed)
    assert scored.rubric_score == pytest.approx(
        sum(c.weight for c in scored.criteria if c.passed) / sum(c.weight for c in scored.criteria))


def test_a_log_that_disagrees_with_the_replay_is_reported(tasks, oracle_runs) -> None:
    task, trajectory = tasks[1], oracle_runs[1]
    calls = list(trajectory.calls)
    calls[0] = calls[0].model_copy(update={"arguments": {"no_such_argument": 1}})
    scored = score_trajectory(task, trajectory.model_copy(update={"calls": calls}))
    (mismatch,) = [m for m in scored.replay_mismatches if m.index == 0]
    assert (mismatch.logged_success, mismatch.replayed_success, mismatch.replayed_code) == (
        True, False, 400)


def test_calls_logged_as_failed_are_not_run_again(tasks, oracle_runs) -> None:
    # e.g. a call past the per-turn limit: logged with its arguments, refused, never run
    # a task whose last write is its last call (no later call needs what it made)
    task, trajectory = next((t, r) for t, r in zip(tasks, oracle_runs, strict=True)
                            if _write_calls(t, r) and _write_calls(t, r)[-1] == len(r.calls) - 1)
    writes = _write_calls(task, trajectory)
    calls = list(trajectory.calls)
    calls[writes[-1]] = calls[writes[-1]].model_copy(update={
        "success": False, "code": 400, "error": "too many calls in one turn"})
    scored = score_trajectory(task, trajectory.model_copy(update={"calls": calls}))
    assert scored.score == 0.0 and scored.replay_mismatches == []
    assert not next(c for c in scored.criteria
                    if c.id.startswith(f"s{writes[-1]}-")).passed


def test_doing_nothing_scores_nothing(tasks) -> None:
    for task in tasks:
        trajectory = asyncio.run(run_episode(task, ClaimProbe()))
        scored = score_trajectory(task, trajectory)
        assert scored.score == 0.0 and scored.rubric_score == 0.0
        idle = next(c for c in scored.criteria if c.kind == "no_collateral")
        writes = any(c.kind == "state" for c in task.rubric)
        assert idle.reason == ("nothing the task asks for changed either" if writes
                               else "nothing the task asks for was told either")


def test_scoring_against_the_wrong_task_is_an_error(tasks, oracle_runs) -> None:
    with pytest.raises(UserError, match="scored against task"):
        score_trajectory(tasks[0], oracle_runs[1])
    with pytest.raises(UserError, match="no such task"):
        score_trajectories(tasks[:1], oracle_runs[1:2])


class _Verdicts:
    """A model client that answers a judge prompt with a fixed verdict (the judge's plumbing is
    under test here, not a model's judgement)."""

    model = "scripted"

    def __init__(self, reply: str) -> None:
        self.reply, self.prompts = reply, []

    async def chat(self, messages: list[dict[str, Any]], tools: Any = None, **_: Any) -> AssistantMessage:
        self.prompts.append(messages[-1]["content"])
        return AssistantMessage(content=self.reply)


def test_model_judged_criteria_go_through_the_judge(tasks, oracle_runs) -> None:
    judged = Criterion.model_construct(id="tone", kind="judge", weight=1.0,  # type: ignore[arg-type]
                                       description="the answer is polite")
    task = tasks[0].model_copy(update={"rubric": [*tasks[0].rubric, judged]})
    with pytest.raises(UserError, match="pass a judge model client"):
        score_trajectory(task, oracle_runs[0])
    judge = _Verdicts('{"passed": false, "reason": "curt"}')
    scored = score_trajectory(task, oracle_runs[0], judge=judge)
    assert scored.criteria[-1].model_dump() == {"id": "tone", "kind": "judge", "weight": 1.0,
                                                "passed": False, "reason": "curt"}
    assert "the answer is polite" in judge.prompts[0]
    assert oracle_runs[0].final_message in judge.prompts[0]
    garbled = score_trajectory(task, oracle_runs[0], judge=_Verdicts("yes!"))
    assert not garbled.passes[-1] and "not understood" in garbled.criteria[-1].reason


def test_summary_counts_by_kind(tasks, oracle_runs) -> None:
    scored = score_trajectories(tasks, oracle_runs)
    claim = score_trajectory(tasks[0], asyncio.run(run_episode(tasks[0], ClaimProbe())))
    summary = summarize([*scored, claim])
    assert summary.trajectories == len(tasks) + 1 and summary.tasks == len(tasks)
    assert summary.full_completion == pytest.approx(len(tasks) / (len(tasks) + 1), abs=1e-6)
    assert summary.criteria_by_kind["no_collateral"] == len(tasks) + 1
    assert summary.pass_rate_by_kind["no_collateral"] < 1.0


def test_summary_leaves_out_what_the_environment_ended(tasks, oracle_runs) -> None:
    # A broken environment is never the agent's failure: such a trajectory scores 0 but is
    # counted apart, not in full completion or the pass rates.
    broken = oracle_runs[0].model_copy(update={
        "calls": [], "messages": oracle_runs[0].messages[:2], "final_message": "",
        "finish_reason": "env_error", "error": "the episode failed before it ended"})
    scored = score_trajectories(tasks, [*oracle_runs, broken])
    assert scored[-1].score == 0.0
    summary = summarize(scored)
    assert summary.trajectories == len(tasks) + 1 and summary.env_failed == 1
    assert summary.full_completion == 1.0 and summary.mean_rubric_score == 1.0
    assert summary.criteria_by_kind["no_collateral"] == len(tasks)
    assert summary.pass_rate_by_kind["no_collateral"] == 1.0


def test_score_command(tmp_path, tasks, oracle_runs) -> None:
    tasks_file, rollouts, out = tmp_path / "tasks.jsonl", tmp_path / "r.jsonl", tmp_path / "s.jsonl"
    tasks_file.write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    rollouts.write_text("".join(t.model_dump_json() + "\n" for t in oracle_runs))
    runner = CliRunner()
    result = runner.invoke(app, ["score", str(rollouts), "--tasks", str(tasks_file), "--out", str(out),
                                 "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["full_completion"] == 1.0 and figures["trajectories"] == len(tasks)
    assert set(figures["pass_rate_by_kind"]) >= {"state", "no_collateral"}
    assert [s.task_id for s in load_scored(out)] == [t.id for t in tasks]
    table = runner.invoke(app, ["score", str(rollouts), "--tasks", str(tasks_file), "--out", str(out)])
    assert "full completion" in table.stdout and "no_collateral" in table.stdout
    rollouts.write_text('{"task_id": 3}\n' + rollouts.read_text())
    bad = runner.invoke(app, ["score", str(rollouts), "--tasks", str(tasks_file), "--out", str(out)])
    assert bad.exit_code != 0 and "r.jsonl:1 is not a trajectory" in str(bad.exception)
