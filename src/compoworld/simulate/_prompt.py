"""What the LLM world model is shown, and how its answer is read back.

The prompt holds the tool spec (description, parameters, output JSON schema), the call's
arguments, the slice of state the tool works on (bounded), the episode's earlier simulated
answers (bounded) and, optionally, one answer of the right shape to imitate. The answer is
read as the first JSON value in the text (in a ```json fence or bare); a value cut off by
the token limit is closed (open strings, arrays and objects) before giving up on it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from compoworld.errors import CompoWorldError
from compoworld.service import SimulatedCall

__all__ = ["SYSTEM_PROMPT", "AnswerError", "build_messages", "close_truncated", "extract_json"]

SYSTEM_PROMPT = (
    "You are the backend of a software service. You receive one call of one of its tools and "
    "reply with the JSON value that tool returns: it must match the tool's output JSON schema "
    "exactly (every required field, no extra fields, the right types and formats). Stay "
    "consistent with the records in the current state and with the earlier answers of this "
    "session; invent realistic values for anything else. Reply with the JSON value only: no "
    "prose, no explanation."
)

STATE_RECORDS = 5
HISTORY_ANSWERS = 6
MAX_SECTION_CHARS = 3000


class AnswerError(CompoWorldError):
    """The model's answer is not usable: no JSON in it, or not what the schema asks."""


def _dump(value: Any, limit: int = MAX_SECTION_CHARS) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[:limit] + " …(cut)"


def _entities(call: SimulatedCall) -> list[str]:
    """The entities the tool works on: those its output is made of, and those it takes ids of."""
    found: list[str] = []
    schema: Any = call.tool.output_schema or {}
    for _ in range(3):  # the record, a list of records, a page {"items": [...]}
        if not isinstance(schema, dict):
            break
        entity = schema.get("properties", {}).get("id", {}).get("x-ref")
        if entity:
            found.append(entity)
            break
        schema = schema.get("items") or schema.get("properties", {}).get("items")
    found += [p.ref for p in call.tool.params if p.ref]
    return list(dict.fromkeys(found))


def state_slice(call: SimulatedCall, records: int = STATE_RECORDS) -> dict[str, list[dict[str, Any]]]:
    """Records of the tool's entities: the ones the arguments name, then the first few."""
    state: dict[str, list[dict[str, Any]]] = {}
    named = {str(call.arguments[p.name]) for p in call.tool.params
             if p.ref and isinstance(call.arguments.get(p.name), str)}
    for entity in _entities(call):
        try:
            rows = [r for r in call.db.select(entity, {"id__in": sorted(named)})] if named else []
            rows += [r for r in call.db.select(entity, limit=records) if r["id"] not in named]
        except CompoWorldError:
            continue  # an entity of another service
        state[entity] = rows[:records]
    return state


def build_messages(call: SimulatedCall, example: Any = None, *, records: int = STATE_RECORDS,
                   history: int = HISTORY_ANSWERS) -> list[dict[str, Any]]:
    """The chat messages asking the model for ``call``'s answer."""
    tool = call.tool
    parts = [
        f"Tool: {call.name}",
        f"Description: {tool.description}",
        f"Parameters (JSON schema): {_dump(tool.parameters)}",
        f"Output (JSON schema): {_dump(tool.output_schema or {'type': 'object'}, 2 * MAX_SECTION_CHARS)}",
        f"Today: {call.db.today.isoformat()}",
    ]
    state = state_slice(call, records)
    if state:
        parts.append("Current state (some records):\n" + "\n".join(
            f"- {entity}: {_dump(rows, MAX_SECTION_CHARS // max(1, len(state)))}"
            for entity, rows in state.items()))
    if call.history:
        earlier = call.history[-history:]
        parts.append("Earlier answers in this session:\n" + "\n".join(
            f"- {name}({_dump(args, 300)}) -> {_dump(answer, 600)}" for name, args, answer in earlier))
    if example is not None:
        parts.append("An answer of the right shape (write your own values, consistent with the "
                     f"state): {_dump(example, 2 * MAX_SECTION_CHARS)}")
    parts.append(f"Call: {call.name}({_dump(call.arguments, 1000)})\nReply with the JSON output only.")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n\n".join(parts)}]


_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)(?:```|\Z)", re.DOTALL)
_START = re.compile(r"[\[{]")


def extract_json(text: str, *, truncated: bool = False) -> tuple[Any, bool]:
    """The first JSON value in ``text`` and whether it had to be closed (a truncated answer).

    Raises:
        AnswerError: no JSON value can be read from the text.

    Example:
        >>> extract_json('Here: ```json\\n{"a": [1, 2]}\\n```')
        ({'a': [1, 2]}, False)
        >>> extract_json('{"a": "b", "c": [1', truncated=True)
        ({'a': 'b', 'c': [1]}, True)
    """
    fence = _FENCE.search(text)
    body = fence.group(1) if fence else text
    decoder = json.JSONDecoder()
    stripped = body.strip()
    try:
        return json.loads(stripped), False
    except json.JSONDecodeError:
        pass
    for match in _START.finditer(body):
        try:
            return decoder.raw_decode(body, match.start())[0], False
        except json.JSONDecodeError:
            continue
    start = _START.search(body)
    if start is not None and (truncated or fence is None or not fence.group(0).endswith("```")):
        closed = close_truncated(body[start.start():])
        if closed is not None:
            try:
                return json.loads(closed), True
            except json.JSONDecodeError:
                pass
    raise AnswerError("the answer holds no JSON value" if start is None
                      else "the answer's JSON is malformed or cut off")


def close_truncated(text: str) -> str | None:
    """``text`` (a JSON value cut off) with its open string, arrays and objects closed.

    A dangling key, colon or comma is dropped first. None when the text is not a cut-off
    prefix of JSON (a closing bracket that matches nothing).
    """
    stack: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            stack.append("]" if char == "[" else "}")
        elif char in "]}" and (not stack or stack.pop() != char):
            return None
    if not stack and not in_string:
        return None
    body = text + ('"' if in_string else "")
    body = re.sub(r'(,\s*"(?:[^"\\]|\\.)*"\s*:?\s*|[,:]\s*)$', "", body.rstrip())
    body = re.sub(r'([{]\s*)"(?:[^"\\]|\\.)*"\s*:?\s*$', r"\1", body)
    return body + "".join(reversed(stack))
