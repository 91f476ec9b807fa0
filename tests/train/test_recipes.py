"""Recipe files: every one loads, names only settings TRL knows, and bad files say why."""

import dataclasses
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.errors import UserError
from compoworld.train import load_recipe, trainer_config
from compoworld.train._recipes import RECIPES_DIR

RECIPES = sorted(RECIPES_DIR.glob("*.yaml"))


def test_the_recipes_folder_has_cpu_and_gpu_recipes_of_both_kinds():
    names = {p.stem for p in RECIPES}
    assert {"sft-cpu-smollm2", "grpo-cpu-smollm2"} <= names
    assert any(n.startswith("sft-gpu-") for n in names) and any(n.startswith("grpo-gpu-") for n in names)


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.stem)
def test_every_recipe_loads_with_settings_trl_knows(path):
    from trl import GRPOConfig, SFTConfig

    recipe = load_recipe(path)
    config_class = SFTConfig if recipe.kind == "sft" else GRPOConfig
    known = {f.name for f in dataclasses.fields(config_class)}
    assert set(recipe.trainer) <= known, set(recipe.trainer) - known
    assert recipe.device in path.stem
    if recipe.device == "cpu":
        assert recipe.model == "local"
        config = trainer_config(recipe, "/tmp/unused", max_steps=1)
        assert config.max_steps == 1 and config.use_cpu


def test_a_recipe_by_name_and_the_errors(tmp_path: Path):
    assert load_recipe("grpo-cpu-smollm2").kind == "grpo"
    with pytest.raises(UserError, match=r"no recipe file.*grpo-cpu-smollm2"):
        load_recipe(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: grpo\ntrainer: {max_steps: 1}\nrewrd: {scheme: cfr}\n")
    with pytest.raises(UserError, match="rewrd"):
        load_recipe(bad)
    with pytest.raises(UserError, match="compoworld train grpo"):
        load_recipe("grpo-cpu-smollm2", "sft")
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("kind: sft\ntrainer: {max_stepz: 1}\n")
    with pytest.raises(UserError, match="max_stepz"):
        trainer_config(load_recipe(unknown), tmp_path)


def test_cli_refuses_a_recipe_of_the_other_kind():
    result = CliRunner().invoke(app, ["train", "sft", "--config", "grpo-cpu-smollm2"])
    assert result.exit_code != 0 and "compoworld train grpo" in str(result.exception)
    result = CliRunner().invoke(app, ["experiment", "reweighting", "--config", "sft-cpu-smollm2"])
    assert result.exit_code != 0 and "needs a 'grpo' one" in str(result.exception)
