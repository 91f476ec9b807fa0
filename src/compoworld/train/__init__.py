"""Training: TRL integration (environment adapter, reward functions), recipes, the ablation.

* :func:`environment_factories` — one TRL environment class per world of a task set (its
  public methods are the world's tools), for ``GRPOTrainer(environment_factory=...)``;
* reward functions for ``GRPOTrainer(reward_funcs=...)`` that score each rollout on its task's
  rubric: :func:`rubric_reward`, :func:`criterion_reward`, :func:`group_reward` (CFR);
* recipes (``recipes/*.yaml``) run by ``compoworld train sft|grpo`` and the reweighting
  ablation (``compoworld experiment reweighting``). See docs/training.md.

``torch``, ``transformers`` and ``trl`` are imported only when training runs.
"""

from compoworld.train._ablation import AblationResult, Arm, run_reweighting
from compoworld.train._environment import (
    EnvironmentEpisode,
    TaskEnvironment,
    environment_class,
    environment_factories,
    rl_rows,
    world_key,
)
from compoworld.train._plot import plot_ablation, plot_curves, smooth
from compoworld.train._recipes import DataSettings, Recipe, RewardSettings, load_recipe, trainer_config
from compoworld.train._rewards import (
    RewardFunction,
    criterion_reward,
    final_answer,
    group_reward,
    reward_functions,
    rollout_passes,
    rubric_reward,
)
from compoworld.train._run import RunResult, grpo_trainer, train_grpo, train_sft

__all__ = [
    "AblationResult",
    "Arm",
    "DataSettings",
    "EnvironmentEpisode",
    "Recipe",
    "RewardFunction",
    "RewardSettings",
    "RunResult",
    "TaskEnvironment",
    "criterion_reward",
    "environment_class",
    "environment_factories",
    "final_answer",
    "group_reward",
    "grpo_trainer",
    "load_recipe",
    "plot_ablation",
    "plot_curves",
    "reward_functions",
    "rl_rows",
    "rollout_passes",
    "rubric_reward",
    "run_reweighting",
    "smooth",
    "train_grpo",
    "train_sft",
    "trainer_config",
    "world_key",
]
