"""Plots of training runs (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compoworld.errors import UserError


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise UserError("plots need matplotlib: pip install 'compoworld[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _series(history: Sequence[Mapping[str, Any]], key: str) -> tuple[list[float], list[float]]:
    points = [(float(e["step"]), float(e[key])) for e in history
              if key in e and isinstance(e[key], int | float) and "step" in e]
    return [p[0] for p in points], [p[1] for p in points]


def plot_curves(history: Sequence[Mapping[str, Any]], path: str | Path, *, title: str = "") -> Path:
    """Loss and reward curves of a trainer's log history, by step, as a PNG.

    Panels: the training loss; for GRPO, the mean reward and each reward function's mean
    (``rewards/<name>/mean``); the evaluation reward where there is one.
    """
    plt = _pyplot()
    rewards = sorted({k for e in history for k in e
                      if k.startswith("rewards/") and k.endswith("/mean")})
    panels = [("loss", ["loss"])]
    if any("reward" in e for e in history):
        panels.append(("reward", ["reward", *rewards]))
    if any("eval_reward" in e for e in history):
        panels.append(("evaluation reward", ["eval_reward"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 3.8), squeeze=False)
    for ax, (name, keys) in zip(axes[0], panels, strict=True):
        for key in keys:
            steps, values = _series(history, key)
            if steps:
                ax.plot(steps, values, marker="o", markersize=3, label=key.removeprefix("rewards/"))
        ax.set_title(name)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
        if len(keys) > 1:
            ax.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def smooth(values: Sequence[float], alpha: float = 0.6) -> list[float]:
    """Exponential moving average (``alpha`` weight on the past), as TensorBoard smooths.

    Example:
        >>> smooth([0.0, 1.0, 1.0], alpha=0.5)
        [0.0, 0.5, 0.75]
    """
    out: list[float] = []
    for value in values:
        out.append(value if not out else alpha * out[-1] + (1 - alpha) * value)
    return out


def plot_ablation(curves: Mapping[str, tuple[Sequence[float], Sequence[float]]], path: str | Path,
                  *, title: str, note: str = "", alpha: float = 0.6) -> Path:
    """Smoothed evaluation scores of each arm (``name → (steps, scores)``) on one axis."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for name, (steps, scores) in curves.items():
        line = ax.plot(list(steps), smooth(list(scores), alpha), linewidth=2, marker="o",
                       label=f"{name} (smoothed)")
        ax.plot(list(steps), list(scores), linestyle=":", marker=".", color=line[0].get_color(),
                alpha=0.6)
    ax.set_xlabel("training step")
    ax.set_ylabel("evaluation rubric score")
    ax.set_ylim(-0.03, 1.03)  # a rubric score lies in [0, 1]
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    lines = textwrap.wrap(note, 110) if note else []
    if lines:
        fig.text(0.01, 0.01, "\n".join(lines), fontsize=7, alpha=0.8)
    fig.tight_layout(rect=(0, 0.03 * len(lines), 1, 1))
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
