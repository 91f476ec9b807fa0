"""Writing records as JSONL or Parquet, atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from compoworld.errors import UserError


def _sft_features() -> Any:
    """``datasets`` features of an SFT record: tools and messages as JSON objects (their keys
    vary from one tool or message to the next), meta as typed columns."""
    try:
        from datasets import Features, Json, List, Value
    except ImportError:  # pragma: no cover - datasets comes with the train extra
        raise UserError("parquet SFT output needs datasets>=4.7 (its Json feature): "
                        "pip install 'compoworld[train]'") from None
    text, count, rate = Value("string"), Value("int64"), Value("float64")
    return Features({
        "tools": List(Json()), "messages": List(Json()),
        "meta": {"task_id": text, "rollout_idx": count, "services": List(text), "domain": text,
                 "capabilities": List(text), "rubric_score": rate, "score": rate,
                 "n_tool_calls": count, "n_steps": count, "interface": text,
                 "finish_reason": text, "agent": text, "model": text}})


def write_records(records: list[dict[str, Any]], path: Path, format: str, *,
                  sft: bool = False) -> None:
    """Write ``records`` to ``path`` (replacing it only once the new file is complete).

    Parquet SFT records go through ``datasets`` with :func:`_sft_features`, so that tools and
    messages keep their own keys (a plain Arrow table would merge the keys of every tool
    schema into one struct and fill the gaps with nulls); ``datasets.load_dataset("parquet")``
    reads them back as they were.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    if format == "jsonl":
        tmp.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    else:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:  # pragma: no cover - pyarrow comes with the train extra
            raise UserError("parquet output needs pyarrow: pip install 'compoworld[train]'") from None
        if sft:
            from datasets import Dataset

            table = Dataset.from_list(records, features=_sft_features()).data.table
        else:
            table = pa.Table.from_pylist(records)
        pq.write_table(table, tmp)
    tmp.replace(path)


def read_records(path: Path) -> list[dict[str, Any]]:
    """Records of a JSONL or Parquet file written by :func:`write_records`, as they were written.

    Parquet columns stored as ``datasets`` ``Json`` values (tools, messages) come back from
    pyarrow as JSON text; they are decoded here.

    Raises:
        UserError: No such file, or a line or value that is not JSON.
    """
    if not path.is_file():
        raise UserError(f"no records file {str(path)!r} (make one with `compoworld export`)")
    if path.suffix != ".parquet":
        records = []
        for number, line in enumerate(path.read_bytes().splitlines(), start=1):
            if line.strip():
                try:
                    records.append(orjson.loads(line))
                except orjson.JSONDecodeError as error:
                    raise UserError(f"{path}:{number} is not JSON: {error}") from None
        return records
    import pyarrow.parquet as pq

    rows = pq.read_table(path).to_pylist()
    for row in rows:
        for key, value in row.items():
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value) and (
                    key in ("tools", "messages")):
                row[key] = [orjson.loads(v) for v in value]
    return rows
