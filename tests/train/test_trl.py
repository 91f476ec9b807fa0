"""Real TRL on the bundled SmolLM2: an SFT step on exported records, a GRPO step in CompoWorld
environments with the CFR reward, and TRL parsing the model's tool calls. Tiny lengths."""

import asyncio
import copy

import orjson
import pytest

from compoworld.export import export_sft
from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import score_trajectory
from compoworld.train import Recipe
from compoworld.train._data import load_sft_records
from compoworld.train._run import prepare_tool_parsing, train_grpo, train_sft

pytestmark = pytest.mark.slow


def _fresh(local_model):
    model, tokenizer = local_model
    return copy.deepcopy(model), copy.deepcopy(tokenizer)


def test_trl_parses_the_bundled_models_tool_calls(local_model):
    from trl.chat_template_utils import is_chat_template_prefix_preserving, parse_response

    _, tokenizer = _fresh(local_model)
    prepare_tool_parsing(tokenizer)
    assert is_chat_template_prefix_preserving(tokenizer)
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], add_generation_prompt=True,
                                           tokenize=True, return_dict=True)["input_ids"]
    text = ('Looking.\n<tool_call>\n{"name": "call_tool", "arguments": {"tool_name": "mail__get_mailbox", '
            '"arguments": {}}}\n</tool_call><|im_end|>')
    parsed = parse_response(tokenizer, tokenizer(text, add_special_tokens=False)["input_ids"], prefix=prompt)
    assert parsed["content"] == "Looking."
    assert parsed["tool_calls"][0]["function"] == {
        "name": "call_tool", "arguments": {"tool_name": "mail__get_mailbox", "arguments": {}}}


def test_an_sft_step_on_exported_records(local_model, gateway_tasks, tmp_path):
    scored = [score_trajectory(t, asyncio.run(run_episode(t, OracleAgent()))) for t in gateway_tasks]
    export_sft(scored, tmp_path / "sft.jsonl")
    records = load_sft_records(tmp_path / "sft.jsonl")
    assert len(records) == len(gateway_tasks)
    recipe = Recipe.model_validate({
        "kind": "sft", "torch_threads": 1,
        "trainer": {"max_steps": 1, "per_device_train_batch_size": 1, "max_length": 1024,
                    "assistant_only_loss": True, "use_cpu": True, "learning_rate": 1e-5}})
    model, tokenizer = _fresh(local_model)
    result = train_sft(recipe, tmp_path / "run", records=records, model=model, tokenizer=tokenizer)
    losses = [e["loss"] for e in result.log_history if "loss" in e]
    assert len(losses) == 1 and losses[0] > 0
    assert (tmp_path / "run" / "curves.png").stat().st_size > 1000
    lines = (tmp_path / "run" / "log_history.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line) for line in lines] == result.log_history
    assert orjson.loads((tmp_path / "run" / "run.json").read_bytes())["records"] == len(records)


def test_a_grpo_step_in_compoworld_environments_with_cfr(local_model, gateway_tasks, tmp_path):
    recipe = Recipe.model_validate({
        "kind": "grpo", "torch_threads": 1, "reward": {"scheme": "cfr", "per_kind": True},
        "trainer": {"max_steps": 1, "num_generations": 2, "per_device_train_batch_size": 2,
                    "max_completion_length": 12, "max_tool_calling_iterations": 1, "beta": 0.0,
                    "use_cpu": True, "activation_checkpointing": False, "shuffle_dataset": False}})
    model, tokenizer = _fresh(local_model)
    result = train_grpo(recipe, tmp_path, tasks=gateway_tasks[:1], model=model, tokenizer=tokenizer)
    (entry,) = [e for e in result.log_history if "reward" in e]
    for name in ("group_cfr", "rubric_uniform", "rubric_binary", "criteria_state"):
        assert 0.0 <= entry[f"rewards/{name}/mean"] <= 1.0
    assert entry["reward"] == entry["rewards/group_cfr/mean"]  # the monitors weigh 0
    assert "compoworld/full_completion" in entry and entry["completions/max_length"] <= 12
    assert (tmp_path / "curves.png").stat().st_size > 1000
