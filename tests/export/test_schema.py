"""Every exported SFT record validates against the project's JSON Schema of the release format
(``compoworld/export/sft_record.schema.json``), and keeps the format's key order."""

from __future__ import annotations

import json

import orjson
import pytest

from compoworld.export import SFT_SCHEMA_PATH, export_sft

jsonschema = pytest.importorskip("jsonschema")

META_ORDER = ["task_id", "src", "rollout_idx", "rubric_score", "score", "net_score",
              "n_tool_calls", "n_real_tool_calls", "n_steps", "discover_mode", "finish_reason",
              "services", "domain", "capabilities"]


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SFT_SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["meta"]["required"] == META_ORDER
    return jsonschema.Draft202012Validator(schema)


def test_exported_records_follow_the_schema(tmp_path, scored, tasks, validator) -> None:
    out = tmp_path / "sft.jsonl"
    stats = export_sft(scored, out, tasks=tasks, min_score=0.0)
    lines = out.read_bytes().splitlines()
    assert stats.kept == len(lines) == len(scored)
    for line in lines:
        record = orjson.loads(line)
        errors = sorted(validator.iter_errors(record), key=str)
        assert not errors, errors[0]
        assert list(record) == ["tools", "meta", "source", "messages"]
        assert list(record["meta"]) == META_ORDER
        last = record["messages"][-1]
        assert last["role"] == "assistant" and "tool_calls" not in last
        assert line.decode() == json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def test_the_schema_rejects_what_the_format_forbids(scored, validator) -> None:
    from compoworld.export import sft_record

    record = sft_record(scored[0])
    assert validator.is_valid(record)
    broken = json.loads(json.dumps(record))
    broken["meta"]["interface"] = "direct"
    assert not validator.is_valid(broken)
    broken = json.loads(json.dumps(record))
    call = next(m for m in broken["messages"] if m.get("tool_calls"))["tool_calls"][0]
    call["type"] = "tool"
    assert not validator.is_valid(broken)
    broken = json.loads(json.dumps(record))
    broken["messages"] = broken["messages"][:-1]  # ends on a tool result
    assert not validator.is_valid(broken)


def test_non_ascii_text_is_written_as_is(tmp_path, scored) -> None:


    s = scored[0]
    out = tmp_path / "sft.jsonl"
    messages = [*s.trajectory.messages[:-1], {"role": "assistant", "content": "Fertig — café ✓"}]
    export_sft([s.model_copy(update={"trajectory": s.trajectory.model_copy(
        update={"messages": messages})})], out)
    assert "Fertig — café ✓" in out.read_text(encoding="utf-8")
