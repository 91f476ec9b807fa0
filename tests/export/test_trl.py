"""SFT records as TRL and the bundled model's tokenizer take them: the tool chat template
renders every call and result, and TRL's SFTTrainer tokenizes and trains on them."""

from __future__ import annotations

import asyncio
import json

import pytest

from compoworld.export import export_sft, load_sft
from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import score_trajectory
from compoworld.tasks import GenerationSettings, generate_tasks
from compoworld.train._data import sft_dataset

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tokenizer():
    transformers = pytest.importorskip("transformers")
    from compoworld.models import TOOL_CHAT_TEMPLATE, local_model_path

    path = local_model_path()
    tok = transformers.AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    tok.chat_template = TOOL_CHAT_TEMPLATE
    tok.pad_token = tok.pad_token or tok.eos_token
    return tok


@pytest.fixture(scope="module", params=["release", "trl"])
def dataset(request, tmp_path_factory):
    """SFT records of oracle rollouts of gateway tasks (short prompts: four meta-tools): the
    release form through :func:`sft_dataset`, the TRL form loaded as it is with ``datasets``."""
    datasets = pytest.importorskip("datasets")
    tasks = list(generate_tasks(2, seed=5, settings=GenerationSettings(interface="gateway")))
    scored = [score_trajectory(t, asyncio.run(run_episode(t, OracleAgent(), timings=False)))
              for t in tasks]
    path = tmp_path_factory.mktemp("sft") / "sft.jsonl"
    assert export_sft(scored, path, tasks=tasks, form=request.param).kept == len(tasks)
    if request.param == "release":
        return sft_dataset(load_sft(path))
    return datasets.load_dataset("json", data_files=str(path), split="train")


def test_the_tool_template_renders_records(tokenizer, dataset) -> None:
    for record in dataset:
        tools = json.loads(record["tools"])  # JSON text in both: TRL's tools column takes it
        out = tokenizer.apply_chat_template(record["messages"], tools=tools,
                                            return_dict=True, return_assistant_tokens_mask=True)
        assert 0 < sum(out["assistant_masks"]) < len(out["input_ids"])
        text = tokenizer.decode(out["input_ids"])
        for message in record["messages"]:
            for call in message.get("tool_calls") or []:
                assert f'"name": "{call["function"]["name"]}"' in text
        assert text.count("<tool_response>") == sum(m["role"] == "tool" for m in record["messages"])
        assert "call_tool" in text and record["messages"][-1]["content"] in text


def test_sft_trainer_accepts_the_records(tokenizer, dataset, tmp_path) -> None:
    trl = pytest.importorskip("trl")
    from transformers import LlamaConfig, LlamaForCausalLM

    # A tiny model with the bundled tokenizer: the records and TRL's data path are under test
    # here; the bundled model's training runs are the train recipes'.
    model = LlamaForCausalLM(LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=4096,
        pad_token_id=tokenizer.pad_token_id))
    args = trl.SFTConfig(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=1,
                         assistant_only_loss=True, max_length=1024, use_cpu=True,
                         save_strategy="no", report_to="none", disable_tqdm=True)
    trainer = trl.SFTTrainer(model=model, processing_class=tokenizer, args=args,
                             train_dataset=dataset)
    assert "tools" in dataset.column_names and trainer.args.assistant_only_loss
    first = trainer.train_dataset[0]
    assert sum(label != -100 for label in first["labels"]) > 0  # assistant turns are trained on
    assert trainer.train().training_loss > 0
