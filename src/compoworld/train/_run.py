"""Running a recipe: load the model, build the trainer, train, write the log and the curves.

Every run writes to its output folder ``log_history.jsonl`` (the trainer's log history, one
entry a line), ``curves.png`` (loss, and for GRPO the rewards, by step) and ``run.json`` (the
recipe, wall time, peak memory, the last metrics).
"""

from __future__ import annotations

import copy
import os
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from compoworld.errors import UserError
from compoworld.tasks import Task
from compoworld.train._data import make_tasks, sft_dataset, sft_records
from compoworld.train._environment import environment_factories, rl_rows
from compoworld.train._plot import plot_curves
from compoworld.train._recipes import Recipe, trainer_config
from compoworld.train._rewards import reward_functions


@dataclass
class RunResult:
    """What a training run did.

    Attributes:
        output_dir: Where its files are.
        log_history: The trainer's log entries.
        wall_s: Seconds from the start of the run (data, model, training) to the end.
        train_s: Seconds of ``trainer.train()``.
        peak_rss_mb: Peak resident memory of the process so far, in MB.
        metrics: The ``train()`` metrics.
    """

    output_dir: Path
    log_history: list[dict[str, Any]]
    wall_s: float
    train_s: float
    peak_rss_mb: float
    metrics: dict[str, Any] = field(default_factory=dict)


def peak_rss_mb() -> float:
    """Peak resident set size of this process, in MB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def load_model(recipe: Recipe, model: Any = None, tokenizer: Any = None) -> tuple[Any, Any]:
    """The model and tokenizer of ``recipe``: given ones win; ``local`` is a copy of the bundled
    SmolLM2 (:func:`compoworld.models.load_local_model`, so the cached one stays untrained);
    any other name is left for TRL to load (tokenizer None)."""
    if recipe.torch_threads is not None:
        import torch

        torch.set_num_threads(recipe.torch_threads)
    if model is not None:
        return model, tokenizer
    if recipe.model == "local":
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the bundled model needs no hub
        from compoworld.models import load_local_model

        base, base_tokenizer = load_local_model()
        return copy.deepcopy(base), copy.deepcopy(base_tokenizer)
    return recipe.model, tokenizer


def prepare_tool_parsing(tokenizer: Any) -> None:
    """Let TRL parse the tool calls of a tokenizer carrying CompoWorld's tool chat template.

    TRL recognizes a model's tool-call format by its exact chat template; the bundled model's
    template (:data:`compoworld.models.TOOL_CHAT_TEMPLATE`) writes Qwen-style ``<tool_call>``
    blocks, so it gets TRL's Qwen response parser.
    """
    from compoworld.models import TOOL_CHAT_TEMPLATE

    if tokenizer is None or tokenizer.chat_template != TOOL_CHAT_TEMPLATE:
        return
    from trl import chat_template_utils as ctu

    if getattr(ctu, "_SUPPORTS_RESPONSE_TEMPLATE", False):
        tokenizer.response_template = ctu.qwen3_template
    else:
        tokenizer.response_schema = ctu.qwen3_schema


def _peft_config(recipe: Recipe) -> Any:
    if recipe.peft is None:
        return None
    try:
        from peft import LoraConfig
    except ImportError:
        raise UserError("the recipe asks for LoRA (peft:), which needs `pip install peft`") from None
    return LoraConfig(**recipe.peft)


def _finish(trainer: Any, recipe: Recipe, out: Path, started: float, train_s: float,
            metrics: dict[str, Any], extra: dict[str, Any]) -> RunResult:
    history = list(trainer.state.log_history)
    (out / "log_history.jsonl").write_bytes(
        b"".join(orjson.dumps(entry, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n" for entry in history))
    model = "bundled SmolLM2-135M-Instruct" if recipe.model == "local" else recipe.model
    what = f"GRPO, {recipe.reward.scheme} reward" if recipe.kind == "grpo" else "SFT"
    plot_curves(history, out / "curves.png", title=f"{what} · {model}")
    if recipe.save_model:
        trainer.save_model(str(out / "model"))
    result = RunResult(out, history, time.perf_counter() - started, train_s, peak_rss_mb(), metrics)
    summary = {"recipe": recipe.model_dump(), "wall_s": round(result.wall_s, 2),
               "train_s": round(train_s, 2), "peak_rss_mb": round(result.peak_rss_mb, 1),
               "metrics": metrics, **extra}
    (out / "run.json").write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2 |
                                                orjson.OPT_SERIALIZE_NUMPY) + b"\n")
    return result


def train_sft(recipe: Recipe, out: str | Path, *, records: list[dict[str, Any]] | None = None,
              max_steps: int | None = None, model: Any = None, tokenizer: Any = None) -> RunResult:
    """Run an SFT recipe: TRL's ``SFTTrainer`` on SFT records (default: made on the embedded
    defaults from ``recipe.data``).

    Raises:
        UserError: Not an SFT recipe, no records, or a trainer setting TRL does not know.
    """
    from trl import SFTTrainer

    if recipe.kind != "sft":
        raise UserError(f"train_sft needs an 'sft' recipe, got {recipe.kind!r}")
    started = time.perf_counter()
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    data = records if records is not None else sft_records(make_tasks(recipe.data))
    dataset = sft_dataset(data)
    model, tokenizer = load_model(recipe, model, tokenizer)
    trainer = SFTTrainer(model=model, args=trainer_config(recipe, folder, max_steps=max_steps),
                         train_dataset=dataset, processing_class=tokenizer,
                         peft_config=_peft_config(recipe))
    begin = time.perf_counter()
    metrics = trainer.train().metrics
    return _finish(trainer, recipe, folder, started, time.perf_counter() - begin, metrics,
                   {"records": len(dataset)})


def grpo_trainer(recipe: Recipe, tasks: list[Task], out: str | Path, *, model: Any = None,
                 tokenizer: Any = None, max_steps: int | None = None,
                 eval_tasks: list[Task] | None = None, callbacks: list[Any] | None = None) -> Any:
    """TRL's ``GRPOTrainer`` for ``recipe`` on ``tasks``: the CompoWorld environments of the
    tasks' worlds, and the recipe's rubric reward (plus, weighted 0, per-kind pass rates)."""
    from datasets import Dataset
    from trl import GRPOTrainer

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    config = trainer_config(recipe, out, max_steps=max_steps)
    reward = recipe.reward
    params = {"tau": reward.tau, "floor": reward.floor} if reward.scheme == "cfr" else {}
    funcs = reward_functions(reward.scheme, num_generations=config.num_generations,
                             per_kind=reward.per_kind, **params)
    if config.reward_weights is None and len(funcs) > 1:
        config.reward_weights = [1.0] + [0.0] * (len(funcs) - 1)
    model, tokenizer = load_model(recipe, model, tokenizer)
    prepare_tool_parsing(tokenizer)
    every = tasks + list(eval_tasks or [])
    return GRPOTrainer(
        model=model, reward_funcs=list[Any](funcs), args=config, processing_class=tokenizer,
        train_dataset=Dataset.from_list(rl_rows(tasks)),
        eval_dataset=Dataset.from_list(rl_rows(eval_tasks)) if eval_tasks else None,
        environment_factory=dict(environment_factories(every)), callbacks=callbacks,
        peft_config=_peft_config(recipe))


def train_grpo(recipe: Recipe, out: str | Path, *, tasks: list[Task] | None = None,
               max_steps: int | None = None, model: Any = None, tokenizer: Any = None) -> RunResult:
    """Run a GRPO recipe: TRL's ``GRPOTrainer`` with CompoWorld environments and the recipe's
    reward on ``tasks`` (default: made on the embedded defaults from ``recipe.data``).

    Raises:
        UserError: Not a GRPO recipe, or a trainer setting TRL does not know.
    """
    if recipe.kind != "grpo":
        raise UserError(f"train_grpo needs a 'grpo' recipe, got {recipe.kind!r}")
    started = time.perf_counter()
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    tasks = tasks if tasks is not None else make_tasks(recipe.data)
    trainer = grpo_trainer(recipe, tasks, folder, model=model, tokenizer=tokenizer,
                           max_steps=max_steps)
    begin = time.perf_counter()
    metrics = trainer.train().metrics
    return _finish(trainer, recipe, folder, started, time.perf_counter() - begin, metrics,
                   {"tasks": len(tasks)})
