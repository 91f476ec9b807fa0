"""Writing records as JSONL or Parquet, atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from compoworld.errors import UserError


def _sft_features(form: str) -> Any:
    """``datasets`` features of an SFT record: tools and messages as JSON objects (their keys
    vary from one tool or message to the next; TRL form: tools as text), meta as typed
    columns with ``src`` as a JSON object."""
    try:
        from datasets import Features, Json, List, Value
    except ImportError:  # pragma: no cover - datasets comes with the train extra
        raise UserError("parquet SFT output needs datasets>=4.7 (its Json feature): "
                        "pip install 'compoworld[train]'") from None
    text, count, rate = Value("string"), Value("int64"), Value("float64")
    return Features({
        "tools": List(Json()) if form == "release" else text,
        "meta": {"task_id": text, "src": Json(), "rollout_idx": count, "rubric_score": rate,
                 "score": rate, "net_score": rate, "n_tool_calls": count,
                 "n_real_tool_calls": count, "n_steps": count, "discover_mode": text,
                 "finish_reason": text, "services": List(text), "domain": text,
                 "capabilities": List(text)},
        "source": text, "messages": List(Json())})


def write_records(records: list[dict[str, Any]], path: Path, format: str, *,
                  sft: str | None = None) -> None:
    """Write ``records`` to ``path`` (replacing it only once the new file is complete).

    ``sft`` names the form of SFT records (``release`` or ``trl``). Parquet SFT records go
    through ``datasets`` with :func:`_sft_features`, so that tools and
    messages keep their own keys (a plain Arrow table would merge the keys of every tool
    schema into one struct and fill the gaps with nulls); ``datasets.load_dataset("parquet")``
    reads them back as they were.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    if format == "jsonl":  # orjson writes UTF-8 as is (ensure_ascii=False) and keeps key order
        tmp.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    else:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:  # pragma: no cover - pyarrow comes with the train extra
            raise UserError("parquet output needs pyarrow: pip install 'compoworld[train]'") from None
        if sft:
            from datasets import Dataset

            table = Dataset.from_list(records, features=_sft_features(sft)).data.table
        else:
            table = pa.Table.from_pylist(records)
        pq.write_table(table, tmp)
    tmp.replace(path)


def read_records(path: Path) -> list[dict[str, Any]]:
    """Records of a JSONL or Parquet file written by :func:`write_records`, as they were written.

    Parquet columns stored as ``datasets`` ``Json`` values (tools, messages, meta.src) come back from
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
        meta = row.get("meta")
        if isinstance(meta, dict) and isinstance(meta.get("src"), str):
            meta["src"] = orjson.loads(meta["src"])
    return rows
