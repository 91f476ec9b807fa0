"""Training sees the oracle's reasoning: the bundled chat template renders each assistant turn's
``reasoning_content`` as a ``<think>`` block, and TRL's ``assistant_only_loss`` trains on it."""

import asyncio
import copy

import pytest

from compoworld.export import export_sft
from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import score_trajectory
from compoworld.train import Recipe
from compoworld.train._data import load_sft_records, sft_dataset
from compoworld.train._recipes import trainer_config

pytestmark = pytest.mark.slow


def test_the_template_renders_reasoning_before_the_content(local_model):
    _, tokenizer = local_model
    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hello.", "reasoning_content": "They greet me."}]
    text = tokenizer.apply_chat_template(messages, tokenize=False)
    assert "<|im_start|>assistant\n<think>\nThey greet me.\n</think>\n\nHello.<|im_end|>" in text
    plain = tokenizer.apply_chat_template([messages[0], {"role": "assistant", "content": "Hello."}],
                                          tokenize=False)
    assert "<think>" not in plain  # no reasoning, no empty block


def test_reasoning_tokens_are_in_the_assistant_only_loss_mask(local_model, direct_tasks, tmp_path):
    from trl import SFTTrainer

    scored = [score_trajectory(t, asyncio.run(run_episode(t, OracleAgent(), timings=False)))
              for t in direct_tasks[:1]]
    export_sft(scored, tmp_path / "sft.jsonl")
    (record,) = load_sft_records(tmp_path / "sft.jsonl")
    reasonings = [m["reasoning_content"] for m in record["messages"] if m["role"] == "assistant"]
    assert all(reasonings)
    recipe = Recipe.model_validate({
        "kind": "sft", "torch_threads": 1,
        "trainer": {"max_steps": 1, "per_device_train_batch_size": 1, "max_length": 32768,
                    "assistant_only_loss": True, "use_cpu": True}})
    model, tokenizer = copy.deepcopy(local_model[0]), copy.deepcopy(local_model[1])
    trainer = SFTTrainer(model=model, args=trainer_config(recipe, tmp_path / "run"),
                         train_dataset=sft_dataset([record]), processing_class=tokenizer)
    row = trainer.train_dataset[0]  # labels: the token, or -100 where the loss is masked
    ids, labels = row["input_ids"], row["labels"]
    assert len(ids) < 32768  # nothing cut off (the tool schemas alone are ~10k tokens)
    trained = tokenizer.decode([t for t, label in zip(ids, labels, strict=True) if label != -100])
    untrained = tokenizer.decode([t for t, label in zip(ids, labels, strict=True) if label == -100])
    for reasoning in reasonings:
        assert f"<think>\n{reasoning}\n</think>" in trained
        assert reasoning not in untrained
    assert record["messages"][1]["content"] not in trained  # the user's turn is not trained on
