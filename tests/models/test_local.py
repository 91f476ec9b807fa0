"""The bundled model: loading, the tool-calling template, and LocalClient on real generations."""

import asyncio
import json
import re

import pytest

from compoworld.models import TOOL_CHAT_TEMPLATE, AssistantMessage, LocalClient, ModelError, load_local_model

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
ASK = [{"role": "system", "content": "You are a helpful assistant. Call a tool when one helps."},
       {"role": "user", "content": "What is the weather in Oslo right now?"}]


def test_loaded_once_float32_and_not_marked_quantized(local_model):
    import torch

    model, tokenizer = local_model
    assert load_local_model() == (model, tokenizer)
    assert next(model.parameters()).dtype == torch.float32
    assert model.hf_quantizer is None and not model.is_quantized
    assert not hasattr(model.config, "quantization_config")
    assert tokenizer.chat_template == TOOL_CHAT_TEMPLATE and tokenizer.pad_token is not None


def test_template_renders_tools_calls_and_responses(local_model):
    _, tokenizer = local_model
    call = {"name": "get_weather", "arguments": {"city": "Oslo"}}
    messages = [*ASK,
                {"role": "assistant", "content": None,
                 "tool_calls": [{"id": "call_0", "type": "function", "function": call}]},
                {"role": "tool", "tool_call_id": "call_0", "content": '{"temp_c": 4}'},
                {"role": "assistant", "content": "It is 4 °C in Oslo."}]
    text = tokenizer.apply_chat_template(messages, tools=[WEATHER], tokenize=False)
    tools = re.search(r"<tools>\n(.*)\n</tools>", text, re.S).group(1)
    assert json.loads(tools) == WEATHER
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>' in text
    assert '<|im_start|>user\n<tool_response>\n{"temp_c": 4}\n</tool_response><|im_end|>' in text
    # OpenAI-style string arguments render the same as dict arguments (TRL datasets)
    as_string = json.loads(json.dumps(messages))
    as_string[2]["tool_calls"][0]["function"]["arguments"] = json.dumps(call["arguments"])
    assert tokenizer.apply_chat_template(as_string, tools=[WEATHER], tokenize=False) == text
    # the assistant turns are marked, for assistant-only losses
    rendered = tokenizer.apply_chat_template(messages, tools=[WEATHER], return_dict=True,
                                             return_assistant_tokens_mask=True)
    mask, ids = rendered["assistant_masks"], rendered["input_ids"]
    marked = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if m])
    assert "<tool_call>" in marked and "It is 4 °C in Oslo." in marked and "Oslo right now" not in marked


@pytest.mark.slow
def test_generation_is_parsed_into_a_well_formed_message(local_model):
    client = LocalClient(*local_model)
    reply = asyncio.run(client.chat(ASK, tools=[WEATHER], max_tokens=48))
    again = asyncio.run(client.chat(ASK, tools=[WEATHER], max_tokens=48))
    assert isinstance(reply, AssistantMessage) and reply == again  # greedy by default
    assert reply.content or reply.tool_calls
    assert reply.finish_reason in {"stop", "length", "tool_calls"}
    truncated = reply.finish_reason == "length"
    assert (reply.finish_reason == "tool_calls") == (bool(reply.tool_calls) and not truncated)
    assert [c.id for c in reply.tool_calls] == [f"call_{n}" for n in range(len(reply.tool_calls))]
    assert reply.usage.prompt_tokens > 100 and 0 < reply.usage.completion_tokens <= 48
    assert "<tool_call>" not in (reply.content or "")


@pytest.mark.slow
def test_max_tokens_seeded_sampling_and_timeout(local_model):
    client = LocalClient(*local_model)
    say = [{"role": "user", "content": "Write a long story about a cat."}]

    async def run():
        short = await client.chat(say, max_tokens=4)
        a = await client.chat(say, temperature=1.0, seed=7, max_tokens=12)
        b = await client.chat(say, temperature=1.0, seed=7, max_tokens=12)
        return short, a, b

    short, a, b = asyncio.run(run())
    assert short.finish_reason == "length" and short.usage.completion_tokens == 4
    assert a.content == b.content  # same seed, same sample
    slow = LocalClient(*local_model, timeout=0.05)
    with pytest.raises(ModelError, match="timed out"):
        asyncio.run(slow.chat(say, max_tokens=200))


@pytest.mark.slow
def test_the_event_loop_keeps_running_while_it_generates(local_model):
    client = LocalClient(*local_model)

    async def run():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        await client.chat([{"role": "user", "content": "Tell me about Oslo."}], max_tokens=24)
        task.cancel()
        return ticks

    assert asyncio.run(run()) >= 3
