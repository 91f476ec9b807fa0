"""Curation: which trajectories and tasks are worth training on.

- :func:`distill` — a teacher's rollouts, rejection-sampled to the fully verified and
  deduplicated ones, exported as SFT records (``compoworld distill``);
- :func:`calibrate` — a model's pass rate per task over ``k`` rollouts, the RL filter
  (``0 < passes < k``) and train / validation / test splits (``compoworld calibrate``);
- :func:`split_tasks` — reproducible splits by task, by motif, by held-out services
  (``compoworld split``).

Both runs reuse the rollout runner (resumable JSONL), the scorer and the SFT exporter; they add
run-wide token and time budgets and the selection. See docs/training.md.
"""

from compoworld.curate._budget import Budget
from compoworld.curate._calibrate import CalibrationStats, TaskCalibration, calibrate, pass_rates
from compoworld.curate._dedup import fingerprint, near_duplicates, similarity
from compoworld.curate._distill import DistillStats, distill
from compoworld.curate._split import SPLIT_SCHEMES, Split, SplitBy, motif_of, split_tasks

__all__ = [
    "SPLIT_SCHEMES",
    "Budget",
    "CalibrationStats",
    "DistillStats",
    "Split",
    "SplitBy",
    "TaskCalibration",
    "calibrate",
    "distill",
    "fingerprint",
    "motif_of",
    "near_duplicates",
    "pass_rates",
    "similarity",
    "split_tasks",
]
