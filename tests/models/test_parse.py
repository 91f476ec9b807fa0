"""Tool-call parsing of hand-written model texts, and JSON extraction of world-model answers."""

import json

import pytest

from compoworld.models import ToolCall, parse_tool_calls
from compoworld.simulate._prompt import AnswerError, close_truncated, extract_json


def test_text_without_tool_calls_is_content():
    assert parse_tool_calls("  Hello there.\n") == ("Hello there.", [])
    assert parse_tool_calls("") == (None, [])


def test_several_calls_keep_their_order_and_get_sequential_ids():
    text = ('Let me check.\n<tool_call>\n{"name": "crm__get_lead", "arguments": {"lead_id": "L1"}}\n'
            '</tool_call>\n<tool_call>\n{"name": "mail__send", "arguments": {"to": ["a@b.co"], "n": 2}}'
            "\n</tool_call>")
    content, calls = parse_tool_calls(text, start=3)
    assert content == "Let me check."
    assert [c.id for c in calls] == ["call_3", "call_4"]
    assert [c.name for c in calls] == ["crm__get_lead", "mail__send"]
    assert json.loads(calls[1].arguments) == {"to": ["a@b.co"], "n": 2}
    assert all(isinstance(c, ToolCall) for c in calls)


@pytest.mark.parametrize("body, name, raw", [
    ('{"name": "get_x", "arguments": {"id": "a",}}', "get_x", '{"id": "a",}'),  # trailing comma
    ('{"name": "get_x", "arguments": {"id": "a"', "get_x", '{"id": "a"'),         # cut off, no close tag
    ("get_x(id='a')", "", "get_x(id='a')"),                                        # not JSON at all
])
def test_malformed_calls_keep_the_raw_arguments(body, name, raw):
    tail = "</tool_call>" if body.endswith("}}") or "(" in body else ""
    content, calls = parse_tool_calls(f"<tool_call>{body}{tail}")
    assert content is None and len(calls) == 1
    assert calls[0].name == name and calls[0].arguments == raw
    with pytest.raises(json.JSONDecodeError):
        json.loads(calls[0].arguments)


def test_string_arguments_and_parameters_key_are_accepted():
    _, calls = parse_tool_calls('<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>'
                                '<tool_call>{"name": "g", "parameters": {"b": 2}}</tool_call>')
    assert [json.loads(c.arguments) for c in calls] == [{"a": 1}, {"b": 2}]


def test_extract_json_fenced_bare_and_with_prose():
    assert extract_json('```json\n{"a": 1}\n```') == ({"a": 1}, False)
    prose = 'The answer is {"a": [1, {"b": null}]} as requested.'
    assert extract_json(prose) == ({"a": [1, {"b": None}]}, False)
    assert extract_json("[1, 2]") == ([1, 2], False)


def test_extract_json_closes_a_truncated_answer():
    data, closed = extract_json('{"items": [{"id": "x1", "name": "Ann', truncated=True)
    assert closed and data == {"items": [{"id": "x1", "name": "Ann"}]}


@pytest.mark.parametrize("text", ["no json here", "{not json at all}", "]"])
def test_extract_json_refuses_text_without_json(text):
    with pytest.raises(AnswerError):
        extract_json(text)


def test_close_truncated_leaves_complete_or_broken_json_alone():
    assert close_truncated('{"a": 1}') is None
    assert close_truncated('{"a": 1]]') is None
    assert json.loads(close_truncated('{"a": "b", "c') or "") == {"a": "b"}


def test_the_reasoning_block_the_template_renders_is_split_off() -> None:
    from compoworld.models import TOOL_CHAT_TEMPLATE
    from compoworld.models._template import split_reasoning

    assert "<think>" in TOOL_CHAT_TEMPLATE  # what training renders is what is split here
    reasoning, rest = split_reasoning(
        '<think>\nThe invoice first.\n</think>\n\n<tool_call>{"name": "get_invoice", '
        '"arguments": {"id": "in_1"}}</tool_call>')
    content, calls = parse_tool_calls(rest)
    assert reasoning == "The invoice first." and content is None
    assert [c.name for c in calls] == ["get_invoice"]
    assert split_reasoning("<think>cut off by the token lim") == ("cut off by the token lim", "")
    assert split_reasoning("Text with <think>inside</think>") == (
        None, "Text with <think>inside</think>")
