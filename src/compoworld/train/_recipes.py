"""Recipes: one YAML file names everything a training run needs — model, data, trainer settings.

A recipe is a :class:`Recipe`: ``kind`` (``sft`` or ``grpo``), ``model`` (``local`` for the
bundled SmolLM2-135M-Instruct, else a Hugging Face model id or path), ``data`` (how to make the
training data on the embedded defaults when no file is given), ``reward`` (GRPO), ``peft``
(LoRA settings, or none) and ``trainer``: the keyword arguments of TRL's ``SFTConfig`` or
``GRPOConfig``, passed through as they are. The ``recipes/`` folder holds CPU smoke recipes
(the bundled model, a few steps) and GPU recipes that name the settings of a large run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from compoworld.errors import UserError

RecipeKind = Literal["sft", "grpo"]

RECIPES_DIR = Path(__file__).resolve().parents[3] / "recipes"
"""The ``recipes/`` folder of a source checkout."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DataSettings(_Model):
    """The data made on the embedded defaults when the command gets no data file: tasks (and,
    for SFT, oracle rollouts of them, scored and exported)."""

    tasks: int = Field(8, ge=1)
    seed: int = 0
    walk_length: str = "2-3"
    distractors: int = Field(0, ge=0)
    interface: Literal["direct", "gateway"] = "gateway"
    eval_tasks: int = Field(0, ge=0, description="Held-out tasks (seed + 1) for evaluation.")

    @field_validator("walk_length")
    @classmethod
    def _range(cls, value: str) -> str:
        low, _, high = value.partition("-")
        if not (low.isdigit() and (high or low).isdigit() and 1 <= int(low) <= int(high or low)):
            raise ValueError(f"walk_length must look like '2-3' or '3', got {value!r}")
        return value

    @property
    def steps(self) -> tuple[int, int]:
        low, _, high = self.walk_length.partition("-")
        return int(low), int(high or low)


class RewardSettings(_Model):
    """The GRPO reward: a scheme of :mod:`compoworld.rewards` and its parameters."""

    scheme: Literal["cfr", "uniform", "binary", "gdpo"] = "cfr"
    tau: float = Field(1.0, gt=0)
    floor: float = Field(0.1, gt=0, le=1)
    per_kind: bool = Field(True, description="Also log the pass rate of each criterion kind "
                                             "(weight 0: logged, not trained on).")


class Recipe(_Model):
    """A training recipe (one YAML file).

    Example:
        >>> recipe = Recipe.model_validate({"kind": "grpo", "model": "local",
        ...                                 "trainer": {"max_steps": 2}})
        >>> recipe.reward.scheme, recipe.data.interface
        ('cfr', 'gateway')
    """

    kind: RecipeKind
    model: str = "local"
    description: str = ""
    device: Literal["cpu", "gpu"] = "cpu"
    data: DataSettings = DataSettings()
    reward: RewardSettings = RewardSettings()
    peft: dict[str, Any] | None = None
    save_model: bool = False
    torch_threads: int | None = Field(
        None, ge=1, description="torch intra-op threads; 1 on a shared CPU, where more threads "
                                "contend (measured 2-6x slower on 2 busy cores). None: torch's default.")
    trainer: dict[str, Any] = {}


def load_recipe(path: str | Path, kind: RecipeKind | None = None) -> Recipe:
    """Read a recipe file (YAML; JSON is YAML too).

    Args:
        path: The file, or the name of a recipe in ``recipes/`` (``grpo-cpu-smollm2``).
        kind: The kind the caller runs; a recipe of another kind is refused.

    Raises:
        UserError: No such file, not YAML, not a valid recipe, or of another kind.
    """
    import yaml

    file = Path(path)
    if not file.is_file() and (RECIPES_DIR / f"{path}.yaml").is_file():
        file = RECIPES_DIR / f"{path}.yaml"
    if not file.is_file():
        known = sorted(p.stem for p in RECIPES_DIR.glob("*.yaml")) if RECIPES_DIR.is_dir() else []
        listed = f" (recipes: {', '.join(known)})" if known else ""
        raise UserError(f"no recipe file {str(path)!r}{listed}")
    try:
        data = yaml.safe_load(file.read_text())
    except yaml.YAMLError as error:
        raise UserError(f"{file}: not valid YAML: {error}") from None
    try:
        recipe = Recipe.model_validate(data or {})
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise UserError(f"{file}: not a valid recipe: {problems}") from None
    if kind is not None and recipe.kind != kind:
        raise UserError(f"{file} is a {recipe.kind!r} recipe, but this needs a {kind!r} one "
                        f"(run it with `compoworld train {recipe.kind}`)")
    return recipe


def trainer_config(recipe: Recipe, output_dir: str | Path, *, max_steps: int | None = None) -> Any:
    """TRL's ``SFTConfig`` / ``GRPOConfig`` of ``recipe``, writing to ``output_dir``.

    Raises:
        UserError: A trainer setting TRL does not know.
    """
    from trl import GRPOConfig, SFTConfig

    settings = {"report_to": "none", "save_strategy": "no", "logging_steps": 1,
                **recipe.trainer, "output_dir": str(output_dir)}
    if max_steps is not None:
        settings["max_steps"] = max_steps
    config_class = SFTConfig if recipe.kind == "sft" else GRPOConfig
    try:
        return config_class(**settings)
    except TypeError as error:
        raise UserError(f"trainer setting not known to TRL's {config_class.__name__}: {error}") from None
