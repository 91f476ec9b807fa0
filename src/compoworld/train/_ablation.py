"""The reweighting ablation (the paper's Fig. 6): GRPO with CFR against GRPO with the uniform
rubric reward, same tasks, same model, same seed; evaluation scores by step, smoothed, plotted.

Both arms log the same monitors (the uniform rubric score and full completion, weight 0), so
their evaluations are on one scale whatever reward each trains on. The evaluation runs TRL's
evaluation loop (rollouts of held-out tasks, or of the training tasks when there are none) at
step 0 and every ``eval_every`` steps.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from compoworld.errors import UserError
from compoworld.train._data import make_tasks
from compoworld.train._plot import plot_ablation
from compoworld.train._recipes import Recipe
from compoworld.train._run import grpo_trainer, load_model, peak_rss_mb

EVAL_KEY = "eval_rewards/rubric_uniform/mean"
"""The evaluation score compared: mean uniform rubric score of the evaluation rollouts."""
COMPLETION_KEY = "eval_rewards/rubric_binary/mean"


@dataclass
class Arm:
    """One arm of the ablation: its reward scheme and its evaluation points."""

    scheme: str
    steps: list[int]
    scores: list[float]
    completion: list[float]
    train_s: float


@dataclass
class AblationResult:
    """Both arms, the plot and the run's figures."""

    arms: list[Arm]
    plot: Path
    wall_s: float
    peak_rss_mb: float
    note: str

    def to_dict(self) -> dict[str, Any]:
        return {"arms": [a.__dict__ for a in self.arms], "plot": str(self.plot),
                "wall_s": round(self.wall_s, 2), "peak_rss_mb": round(self.peak_rss_mb, 1),
                "note": self.note}


def _points(history: list[dict[str, Any]], key: str) -> tuple[list[int], list[float]]:
    pairs = [(int(e.get("step", 0)), float(e[key])) for e in history if key in e]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def run_reweighting(recipe: Recipe, out: str | Path, *, steps: int, eval_every: int = 1,
                    schemes: tuple[str, ...] = ("cfr", "uniform"), model: Any = None,
                    tokenizer: Any = None) -> AblationResult:
    """Train one GRPO arm per reward scheme from the same start and compare their evaluations.

    Args:
        recipe: A GRPO recipe (its ``reward.scheme`` is replaced by each arm's).
        out: Folder for ``reweighting.png``, ``reweighting.json`` and each arm's logs.
        steps: Training steps per arm.
        eval_every: Steps between evaluations (there is one at step 0 too).
        schemes: The arms' reward schemes.
        model: The starting model (default: the recipe's); each arm trains its own copy.
        tokenizer: Its tokenizer.

    Raises:
        UserError: Not a GRPO recipe, or ``steps``/``eval_every`` < 1.
    """
    import copy

    if recipe.kind != "grpo":
        raise UserError(f"the reweighting ablation needs a 'grpo' recipe, got {recipe.kind!r}")
    if steps < 1 or eval_every < 1:
        raise UserError(f"steps and eval_every must be at least 1, got {steps} and {eval_every}")
    started = time.perf_counter()
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    tasks = make_tasks(recipe.data)
    held_out = (make_tasks(recipe.data, n=recipe.data.eval_tasks, seed_offset=1)
                if recipe.data.eval_tasks else [])
    base, tokenizer = load_model(recipe, model, tokenizer)
    arms = []
    for scheme in schemes:
        arm_recipe = recipe.model_copy(deep=True)
        arm_recipe.reward.scheme = scheme  # type: ignore[assignment]
        arm_recipe.trainer.update({"eval_strategy": "steps", "eval_steps": eval_every,
                                   "per_device_eval_batch_size":
                                       recipe.trainer.get("per_device_train_batch_size", 8)})
        arm_model = copy.deepcopy(base) if not isinstance(base, str) else base
        trainer = grpo_trainer(arm_recipe, tasks, folder / scheme, model=arm_model,
                               tokenizer=copy.deepcopy(tokenizer), max_steps=steps,
                               eval_tasks=held_out or tasks)
        trainer.evaluate()  # the step-0 point: both arms start from the same model
        start = [{**e, "step": 0} for e in trainer.state.log_history if EVAL_KEY in e][-1:]
        begin = time.perf_counter()
        trainer.train()  # starts a new log history: keep the step-0 evaluation ourselves
        train_s = time.perf_counter() - begin
        history = start + list(trainer.state.log_history)
        (folder / scheme).mkdir(parents=True, exist_ok=True)
        (folder / scheme / "log_history.jsonl").write_bytes(
            b"".join(orjson.dumps(e, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n" for e in history))
        xs, ys = _points(history, EVAL_KEY)
        _, full = _points(history, COMPLETION_KEY)
        arms.append(Arm(scheme, xs, ys, full, round(train_s, 2)))
        del trainer, arm_model
    n_eval = len(held_out or tasks)
    model = "the bundled SmolLM2-135M-Instruct" if recipe.model == "local" else recipe.model
    note = (f"CPU smoke scale: {model}, {len(tasks)} training tasks, {n_eval} evaluation "
            f"tasks, {steps} steps per arm — far too small to show the effect the paper reports; "
            "it shows that the harness runs end to end.") if recipe.device == "cpu" else ""
    plot = plot_ablation({f"GRPO + {a.scheme}": (a.steps, a.scores) for a in arms},
                         folder / "reweighting.png",
                         title="Reward reweighting ablation: evaluation rubric score", note=note)
    result = AblationResult(arms, plot, time.perf_counter() - started, peak_rss_mb(), note)
    (folder / "reweighting.json").write_bytes(orjson.dumps(result.to_dict(),
                                                           option=orjson.OPT_INDENT_2) + b"\n")
    return result
