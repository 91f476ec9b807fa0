from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from compoworld.errors import UserError
from compoworld.view import CHUNKS, build_bundle, read_source


def test_kinds_are_told_apart_by_content(files: dict[str, Path]) -> None:
    for kind, path in files.items():
        source, records = read_source(path)
        assert source.kind == kind
        assert source.count == len(records) == len(path.read_bytes().splitlines()) > 0
        first = records.read([0])[0]
        assert first == orjson.loads(path.read_bytes().splitlines()[0])
        assert source.notes == ()


@pytest.mark.parametrize(("content", "says"), [
    (b'{"tools": [], "messages": [], "meta": {}}\n', "holds SFT records (compoworld export sft)"),
    (b'{"a": 1,\n "b": 2}\n', "is one JSON document, not JSON lines"),
    (b"hello\n", "is not JSON lines"),
    (b"", "is empty"),
    (b'{"name": "x"}\n', "holds JSON objects with fields name"),
])
def test_other_files_get_one_line_saying_what_they_are(tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(content)
    with pytest.raises(UserError) as error:
        read_source(path)
    message = str(error.value)
    assert says in message and "expected a tasks, rollouts or scored JSONL file" in message
    assert "\n" not in message


def test_a_database_is_named(tmp_path: Path) -> None:
    path = tmp_path / "world.sqlite"
    sqlite3.connect(path).execute("create table t (x)").connection.commit()
    with pytest.raises(UserError, match="is a SQLite database"):
        read_source(path)


def test_a_line_of_another_kind_is_named(files: dict[str, Path], tmp_path: Path) -> None:
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(files["tasks"].read_bytes() + files["rollouts"].read_bytes().splitlines()[0] + b"\n")
    with pytest.raises(UserError, match=r"mixed.jsonl:4 is .* not like line 1 \(a tasks record\)"):
        read_source(mixed)


def test_unknown_fields_are_kept_and_noted(files: dict[str, Path], tmp_path: Path) -> None:
    """A newer writer's fields (a scenario on tasks, reasoning on messages) never break the viewer."""
    lines = [orjson.loads(line) for line in files["scored"].read_bytes().splitlines()]
    for record in lines:
        record["trajectory"]["messages"][-1]["reasoning_content"] = "I checked the list first."
        record["trajectory"]["x_report"] = "# Report\n- done"
        record["criteria"][0]["x_evidence"] = {"row": 1}
    newer = tmp_path / "newer.jsonl"
    newer.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
    source, records = read_source(newer)
    assert source.kind == "scored" and len(records) == len(lines)
    assert "trajectory.x_report" in source.notes[0] and "criteria.x_evidence" in source.notes[0]
    assert records.read([0])[0]["trajectory"]["x_report"] == "# Report\n- done"

    tasks = [orjson.loads(line) for line in files["tasks"].read_bytes().splitlines()]
    tasks[0]["x_scenario"] = {"purpose": "quarterly close", "rules": [{"id": "rule-1"}]}
    tasks[0]["labels"]["capabilities"].append("x-capability")  # a value of a newer fixed set
    tasks[0]["plan"][0]["sources"] = {"x": {"kind": "x-kind", "step": 0, "x_each": True}}
    newer_tasks = tmp_path / "tasks.jsonl"
    newer_tasks.write_bytes(b"".join(orjson.dumps(t) + b"\n" for t in tasks))
    bundle = build_bundle([newer_tasks, newer])
    assert bundle.task(0)["x_scenario"]["purpose"] == "quarterly close"
    notes = bundle.index["sources"][0]["notes"]
    assert "x_scenario" in notes[0] and "plan.sources.x_each" in notes[0]  # a dict's values are walked
    assert "='x-capability'" in notes[1] and "kind='x-kind'" in notes[1]
    assert "x-capability" in bundle.index["tasks"][0]["caps"]


def test_a_record_that_is_wrong_not_newer_is_named(files: dict[str, Path], tmp_path: Path) -> None:
    tasks = [orjson.loads(line) for line in files["tasks"].read_bytes().splitlines()]
    tasks[1]["x_scenario"] = {"purpose": "x"}
    tasks[2]["seed"] = "zero"
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(b"".join(orjson.dumps(t) + b"\n" for t in tasks))
    with pytest.raises(UserError, match=r"tasks.jsonl:3 is not a task: seed: Input should be a valid int"):
        read_source(path)


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no file"):
        read_source(tmp_path / "nope.jsonl")


def test_bundle_indexes_groups_rewards_and_summary(files: dict[str, Path]) -> None:
    bundle = build_bundle([files["tasks"], files["rollouts"], files["scored"]])
    index = bundle.index
    # the rollouts file repeats the scored trajectories: each is shown once, with its scores
    assert len(bundle.runs) == 9 and all(bundle.run(i)["scored"] is not None for i in range(9))
    assert [len(g["runs"]) for g in index["groups"]] == [3, 3, 3]
    for group in index["groups"]:
        weights = group["cfr_weights"]
        assert weights is not None and abs(sum(weights) - 1) < 1e-3
        oracle, *probes = (index["runs"][i] for i in group["runs"])
        assert oracle["agent"] == "oracle" and oracle["score"] == 1.0 and oracle["reward"] == 1.0
        assert all(p["score"] == 0.0 and p["reward"] < 1.0 for p in probes)
    summary = index["summary"]
    assert summary["runs"] == 9 and summary["full_completion"] == pytest.approx(1 / 3, abs=1e-3)
    assert summary["most_failed"] and summary["most_failed"][0]["failed"] >= 1
    scored = [orjson.loads(line) for line in files["scored"].read_bytes().splitlines()]
    kinds = {c["kind"] for record in scored for c in record["criteria"]}
    assert {row["name"] for row in summary["by_kind"]} == kinds and "no_collateral" in kinds
    assert sum(summary["histograms"]["CFR reward"]) == 9
    # the tools offered are stored once per world, not once per rollout
    names = dict(bundle.data_files())
    assert len(bundle.toolsets) == 3 and all(f"tools/{k}.js" in names for k in bundle.toolsets)
    assert all(bundle.run(i)["trajectory"]["tools"]["toolset"] in bundle.toolsets for i in range(9))


def test_data_files_are_scripts_and_chunks(files: dict[str, Path]) -> None:
    bundle = build_bundle([files["tasks"], files["scored"]])
    names = dict(bundle.data_files())
    assert set(names) >= {"index.js", "tasks/0.js", "runs/0.js"}
    for body in names.values():
        assert body.startswith(b"CW.receive(") and body.endswith(b");\n")
    chunk = orjson.loads(names["tasks/0.js"].split(b",", 1)[1][:-3])
    ids = [bundle.task(i)["id"] for i in range(len(bundle.tasks))]
    assert [t["id"] for t in chunk] == ids[:CHUNKS["tasks"]]
    with pytest.raises(KeyError):
        bundle.script("tasks/99")
    with pytest.raises(KeyError):
        bundle.script("../secret")


def test_a_large_file_is_indexed_from_heads_and_validated_per_record(
        files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compoworld.view import _files

    monkeypatch.setattr(_files, "VALIDATE_UPFRONT", 0)  # every file counts as large
    lines = [orjson.loads(line) for line in files["scored"].read_bytes().splitlines()]
    lines[0]["trajectory"]["x_report"] = "new field: fine"
    lines[1]["score"] = "high"  # wrong type: the model refuses it
    path = tmp_path / "scored.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
    source, records = read_source(path)
    assert "validated when opened" in source.notes[0] and "trajectory.x_report" in source.notes[1]
    first, second, third = records.read([0, 1, 2])
    assert "_invalid" not in first and "_invalid" not in third
    assert second["_invalid"].startswith("score:")
    bundle = build_bundle([files["tasks"], path])
    assert bundle.index["runs"][0]["score"] == 1.0  # the index comes from the heads


def test_the_index_of_a_large_file_is_kept_until_the_file_changes(
        files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compoworld.view import _cache, _files

    monkeypatch.setenv("COMPOWORLD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(_cache, "CACHE_FROM", 0)
    path = tmp_path / "scored.jsonl"
    path.write_bytes(files["scored"].read_bytes())
    source, records = read_source(path)
    assert len(list((tmp_path / "cache" / "view").iterdir())) == 1

    def refuse(*args: object) -> None:
        raise AssertionError("the file was parsed again")

    with monkeypatch.context() as m:
        m.setattr(_files, "_sniff", refuse)
        again, cached = read_source(path)
    assert again == source and cached.heads == records.heads and cached.spans == records.spans
    assert cached.read([4]) == records.read([4])
    path.write_bytes(path.read_bytes() + path.read_bytes().splitlines(keepends=True)[0])
    grown, _ = read_source(path)
    assert grown.count == source.count + 1
