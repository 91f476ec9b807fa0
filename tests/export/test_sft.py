"""SFT export: which trajectories qualify, the record shape, determinism, loading with
``datasets``, rendering with the bundled model's tool chat template, the CLI."""

from __future__ import annotations

import json

import orjson
import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.errors import UserError
from compoworld.export import export_sft, load_sft, net_score, sft_record
from compoworld.scoring import save_scored


def _lines(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


META_KEYS = ["task_id", "src", "rollout_idx", "rubric_score", "score", "net_score",
             "n_tool_calls", "n_real_tool_calls", "n_steps", "discover_mode", "finish_reason",
             "services", "domain", "capabilities"]


def test_records_keep_the_conversation_and_describe_it(scored, tasks) -> None:
    by_id = {t.id: t for t in tasks}
    for s in scored:
        t, task = s.trajectory, by_id[s.task_id]
        record = sft_record(s, task)
        assert list(record) == ["tools", "meta", "source", "messages"]
        assert list(record["meta"]) == META_KEYS
        assert record["tools"] == t.tools and record["source"] == f"compoworld/{t.agent}"
        roles = [m["role"] for m in record["messages"]]
        assert roles[:2] == ["system", "user"] and roles[-1] == "assistant"
        assert "tool_calls" not in record["messages"][-1]
        calls = [c for m in record["messages"] for c in m.get("tool_calls", [])]
        assert [c["function"]["name"] for c in calls] == [c.name for c in t.calls]
        assert [c["function"]["arguments"] for c in calls] == [c.arguments for c in t.calls]
        ids = {c["id"] for c in calls}
        for m in record["messages"]:
            if m["role"] == "tool":
                assert m["tool_call_id"] in ids and m["name"]
                assert isinstance(orjson.loads(m["content"]), dict)
            if m["role"] == "assistant":
                assert list(m)[:3] == ["role", "content", "reasoning_content"]
        meta = record["meta"]
        assert meta["src"] == {"generator": task.provenance["generator"],
                               "motif": task.provenance.get("motif"),
                               "walk_length": len(task.plan), "n_services": len(task.involved),
                               "n_distractors": len(task.distractors), "seed": task.seed,
                               "agent": t.agent}
        real = [c for c in t.calls if c.name == "call_tool"] if t.interface == "gateway" else t.calls
        assert meta["n_tool_calls"] == len(t.calls) and meta["n_real_tool_calls"] == len(real)
        assert (meta["discover_mode"], meta["finish_reason"]) == (t.interface, t.finish_reason)
        assert (meta["score"], meta["rubric_score"]) == (s.score, s.rubric_score)
        # a clean full completion keeps its score; a failed one loses what it failed
        assert meta["net_score"] == (1.0 if s.score == 1.0 else meta["net_score"])
        assert meta["net_score"] <= s.rubric_score


def test_net_score_penalizes_collateral_and_refused_calls(scored) -> None:
    clean = scored[0]
    assert net_score(clean) == 1.0
    criteria = [c.model_copy(update={"passed": c.kind != "no_collateral"})
                for c in clean.criteria]
    assert net_score(clean.model_copy(update={"criteria": criteria})) == 0.0
    calls = list(clean.trajectory.calls)
    refused = calls[0].model_copy(update={"success": False, "code": 400, "error": "missing 'x'",
                                          "error_source": "agent"})
    unknown = calls[0].model_copy(update={"success": False, "code": 404, "name": "nope",
                                          "error": "unknown tool 'nope'", "error_source": "agent"})
    stumbled = clean.model_copy(update={"trajectory": clean.trajectory.model_copy(
        update={"calls": [refused, unknown, *calls]})})
    assert net_score(stumbled) == 0.95  # the unknown tool reached no tool: no penalty
    assert sft_record(stumbled)["meta"]["n_real_tool_calls"] == len(calls) + 1


def test_reasoning_is_kept_where_present(scored) -> None:
    s = scored[0]
    messages = [dict(m) for m in s.trajectory.messages]
    messages[2]["reasoning_content"] = "First find the record."
    record = sft_record(s.model_copy(update={"trajectory": s.trajectory.model_copy(
        update={"messages": messages})}))
    assert record["messages"][2]["reasoning_content"] == "First find the record."


def test_the_trl_form_holds_json_text(scored) -> None:
    release, trl = sft_record(scored[0]), sft_record(scored[0], form="trl")
    assert orjson.loads(trl["tools"]) == release["tools"] and trl["meta"] == release["meta"]
    for a, b in zip(release["messages"], trl["messages"], strict=True):
        for x, y in zip(a.get("tool_calls", []), b.get("tool_calls", []), strict=True):
            assert orjson.loads(y["function"]["arguments"]) == x["function"]["arguments"]


def test_only_complete_finished_consistent_rollouts_are_kept(tmp_path, scored) -> None:
    out = tmp_path / "sft.jsonl"
    stats = export_sft(scored, out)
    assert stats.kept == len(scored) - 1 and stats.dropped == {"score": 1}
    assert [r["meta"]["task_id"] for r in _lines(out)] == [s.task_id for s in scored[:-1]]
    assert export_sft(scored, out, min_score=0.0).kept == len(scored)
    cut = scored[0].model_copy(update={"trajectory": scored[0].trajectory.model_copy(
        update={"finish_reason": "max_steps"})})
    assert export_sft([cut], out).dropped == {"unfinished": 1}
    first = out.read_bytes()
    export_sft([cut, *scored], out)
    again = tmp_path / "again.jsonl"
    export_sft(scored, again)
    assert again.read_bytes() == out.read_bytes() != first
    with pytest.raises(UserError, match="jsonl' or 'parquet"):
        export_sft(scored, out, format="csv")  # type: ignore[arg-type]


def test_a_repeated_conversation_of_one_task_is_written_once(tmp_path, tasks, scored) -> None:
    """A deterministic agent's second rollout of a task says exactly what the first said: it
    is dropped as a duplicate; the same conversation for another task is not."""
    import asyncio

    from compoworld.rollout import OracleAgent, run_episode
    from compoworld.scoring import score_trajectory

    again = score_trajectory(tasks[0], asyncio.run(run_episode(tasks[0], OracleAgent(),
                                                               rollout_idx=2, timings=False)))
    assert again.trajectory.messages == scored[0].trajectory.messages
    out = tmp_path / "sft.jsonl"
    stats = export_sft([scored[0], again, scored[1]], out)
    assert stats.kept == 2 and stats.dropped == {"duplicate": 1}
    assert [r["meta"]["rollout_idx"] for r in _lines(out)] == [scored[0].rollout_idx,
                                                               scored[1].rollout_idx]
    other = again.model_copy(update={"task_id": "elsewhere"})
    assert export_sft([scored[0], other], out).kept == 2


def test_records_load_back_with_datasets_as_written(tmp_path, scored) -> None:
    datasets = pytest.importorskip("datasets")
    jsonl, parquet = tmp_path / "sft.jsonl", tmp_path / "sft.parquet"
    export_sft(scored, jsonl)
    export_sft(scored, parquet, format="parquet")
    expected = [sft_record(s) for s in scored[:-1]]
    for path, kind in ((jsonl, "json"), (parquet, "parquet")):
        ds = datasets.load_dataset(kind, data_files=str(path), split="train")
        assert ds.column_names == ["tools", "meta", "source", "messages"]
        assert len(ds) == len(expected)
        # every tool schema and message keeps its own keys (no nulls merged in from others)
        assert [ds[i] for i in range(len(ds))] == expected, kind
        assert load_sft(path) == expected  # without datasets, too
    again = tmp_path / "again.parquet"
    export_sft(scored, again, format="parquet")
    assert again.read_bytes() == parquet.read_bytes()


def test_export_sft_command(tmp_path, scored) -> None:
    source, out = tmp_path / "scored.jsonl", tmp_path / "sft.jsonl"
    save_scored(scored, source)
    result = CliRunner().invoke(app, ["export", "sft", str(source), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"kept": len(scored) - 1, "dropped": {"score": 1},
                                         "out": str(out)}
    assert len(_lines(out)) == len(scored) - 1
    bad = CliRunner().invoke(app, ["export", "sft", str(tmp_path / "nope.jsonl")])
    assert bad.exit_code != 0 and "compoworld score" in str(bad.exception)
