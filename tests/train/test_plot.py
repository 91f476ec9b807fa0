"""The run plots: loss/reward curves from a log history, and the ablation's smoothed curves."""

import pytest

from compoworld.train import plot_ablation, plot_curves, smooth


def test_curves_of_a_grpo_log_history(tmp_path):
    history = [{"step": s, "loss": 0.1 / s, "reward": 0.2 * s, "rewards/group_cfr/mean": 0.2 * s,
                "rewards/criteria_answer/mean": None} for s in (1, 2, 3)]
    history.append({"step": 3, "train_runtime": 1.0})
    path = plot_curves(history, tmp_path / "curves.png", title="GRPO")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000


def test_ablation_plot_and_smoothing(tmp_path):
    assert smooth([]) == []
    assert smooth([1.0, 0.0], alpha=0.25) == pytest.approx([1.0, 0.25])
    path = plot_ablation({"cfr": ([0, 1, 2], [0.1, 0.3, 0.2]), "uniform": ([0, 1, 2], [0.1, 0.2, 0.2])},
                         tmp_path / "ablation.png", title="t", note="tiny")
    assert path.read_bytes()[:4] == b"\x89PNG"
