"""SFT export: scored trajectories → SFT records (the release's schema, or the TRL-ready form).

The record shape lives in :mod:`compoworld.export._record`; the JSON Schema it follows is
``compoworld/export/sft_record.schema.json`` (:data:`SFT_SCHEMA_PATH`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from compoworld.errors import UserError
from compoworld.export._record import RecordForm, sft_record
from compoworld.export._write import read_records, write_records
from compoworld.scoring import ScoredTrajectory

if TYPE_CHECKING:
    from compoworld.tasks import Task

Format = Literal["jsonl", "parquet"]
SFT_SCHEMA_PATH = Path(__file__).with_name("sft_record.schema.json")
"""The JSON Schema (draft 2020-12) of a release-form SFT record."""


@dataclass
class ExportStats:
    """What an export kept and why it dropped the rest."""

    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    out: str = ""

    def drop(self, reason: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1


def export_sft(scored: Iterable[ScoredTrajectory], out: str | Path, min_score: float = 1.0,
               format: Format = "jsonl", *, tasks: Iterable[Task] = (),
               form: RecordForm = "release") -> ExportStats:
    """Write the SFT records of the trajectories that qualify.

    A trajectory qualifies when its ``score`` (full completion: 1.0 or 0.0) is at least
    ``min_score`` — use ``min_score=0`` with a filter of your own for partial credit — it
    ended with a final answer (``finish_reason == "stop"``) and its replay matched its log.
    A record whose conversation (tools and messages) repeats one already written for the same
    task — a deterministic agent's rollouts of a task do — is dropped as ``duplicate``: it
    would teach the same thing twice. Near-duplicates are
    :func:`compoworld.curate.distill`'s concern. Records keep the input order; the same input
    gives the same bytes.

    Args:
        scored: Scored trajectories (``compoworld score``).
        out: The file to write (replaced).
        min_score: Minimum ``score``.
        format: ``jsonl`` or ``parquet``.
        tasks: The trajectories' tasks, for each record's ``meta.src`` (the generation
            recipe); a trajectory whose task is not given gets null recipe fields.
        form: ``release`` (the released schema: arguments as objects) or ``trl`` (arguments
            and tools as JSON text, for ``datasets`` and TRL as they are).

    Returns:
        How many records were written, and the drops by reason.

    Raises:
        UserError: An unknown format.
    """
    if format not in ("jsonl", "parquet"):
        raise UserError(f"format must be 'jsonl' or 'parquet', got {format!r}")
    if form not in ("release", "trl"):
        raise UserError(f"form must be 'release' or 'trl', got {form!r}")
    by_id = {t.id: t for t in tasks}
    stats = ExportStats(out=str(out))
    records = []
    seen: set[bytes] = set()
    for s in scored:
        if s.score < min_score:
            stats.drop("score")
        elif s.trajectory.finish_reason != "stop":
            stats.drop("unfinished")
        elif s.replay_mismatches:
            stats.drop("replay_mismatch")
        else:
            record = sft_record(s, by_id.get(s.task_id), form=form)
            key = orjson.dumps([s.task_id, record["tools"], record["messages"]],
                               option=orjson.OPT_SORT_KEYS)
            if key in seen:
                stats.drop("duplicate")
                continue
            seen.add(key)
            records.append(record)
    write_records(records, Path(out), format, sft=form)
    stats.kept = len(records)
    return stats


def load_sft(path: str | Path) -> list[dict[str, Any]]:
    """The SFT records of a file :func:`export_sft` wrote (JSONL or Parquet), exactly as written.

    Reading the Parquet file with plain pyarrow gives tools and messages as JSON text (they are
    stored as ``datasets`` ``Json`` values); this decodes them. ``datasets.load_dataset`` reads
    either format directly.

    Raises:
        UserError: No such file, or a record that is not JSON.
    """
    return read_records(Path(path))
