"""SFT export: which trajectories qualify, the record shape, determinism, loading with
``datasets``, rendering with the bundled model's tool chat template, the CLI."""

from __future__ import annotations

import json

import orjson
import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.errors import UserError
from compoworld.export import export_sft, load_sft, sft_record
from compoworld.scoring import save_scored


def _lines(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_records_keep_the_conversation_and_describe_it(scored) -> None:
    for s in scored:
        record = sft_record(s)
        t = s.trajectory
        assert record["tools"] == t.tools
        roles = [m["role"] for m in record["messages"]]
        assert roles[:2] == ["system", "user"] and roles[-1] == "assistant"
        calls = [c for m in record["messages"] for c in m.get("tool_calls", [])]
        assert [c["function"]["name"] for c in calls] == [c.name for c in t.calls]
        assert all(isinstance(c["function"]["arguments"], str) for c in calls)
        ids = {c["id"] for c in calls}
        for m in record["messages"]:
            if m["role"] == "tool":
                assert m["tool_call_id"] in ids and m["name"]
        assert record["meta"] | {"agent": None, "model": None} == {
            "task_id": t.task_id, "rollout_idx": t.rollout_idx, "services": s.labels.services,
            "domain": s.labels.domain, "capabilities": list(s.labels.capabilities),
            "rubric_score": s.rubric_score, "score": s.score, "n_tool_calls": len(t.calls),
            "n_steps": t.n_steps, "interface": t.interface, "finish_reason": t.finish_reason,
            "agent": None, "model": None}


def test_reasoning_is_kept_where_present(scored) -> None:
    s = scored[0]
    messages = [dict(m) for m in s.trajectory.messages]
    messages[2]["reasoning_content"] = "First find the record."
    record = sft_record(s.model_copy(update={"trajectory": s.trajectory.model_copy(
        update={"messages": messages})}))
    assert record["messages"][2]["reasoning_content"] == "First find the record."
    assert "reasoning_content" not in record["messages"][-1]


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


def test_records_load_back_with_datasets_as_written(tmp_path, scored) -> None:
    datasets = pytest.importorskip("datasets")
    jsonl, parquet = tmp_path / "sft.jsonl", tmp_path / "sft.parquet"
    export_sft(scored, jsonl)
    export_sft(scored, parquet, format="parquet")
    expected = [sft_record(s) for s in scored[:-1]]
    for path, kind in ((jsonl, "json"), (parquet, "parquet")):
        ds = datasets.load_dataset(kind, data_files=str(path), split="train")
        assert ds.column_names == ["tools", "messages", "meta"] and len(ds) == len(expected)
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
