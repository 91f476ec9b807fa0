"""An LLM rewrite of the templated instruction, kept only if it still holds every value the user
states and gives away none the agent must discover."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Sequence

from compoworld.models import ModelClient, ModelError
from compoworld.tasks._instruction import leaked
from compoworld.tasks._model import Step, Task

_PROMPT = """Rewrite the request below as a user would write it to their assistant: natural, \
concise, in the first person, keeping its layout (a numbered list stays a numbered list, \
paragraphs stay paragraphs). Keep every quoted value exactly as written \
(same characters), keep every step and what must be reported back, do not add any value, name \
or number that is not in the request, and do not mention step numbers.

Request:
{text}

Rewritten request:"""


def stated_values(plan: list[Step]) -> list[str]:
    """The values the user states (what a rewrite must keep verbatim)."""
    values: list[str] = []
    for step in plan:
        for name, source in step.sources.items():
            if source.kind != "user":
                continue
            value = step.arguments[name]
            values.extend(str(v) for v in (value if isinstance(value, list) else [value]))
    return values


def check_rewrite(text: str, task: Task) -> str | None:
    """Why a rewrite must be rejected (None when it is fine)."""
    if not text or len(text) < 20:
        return "empty"
    if len(text) > 3 * len(task.instruction) + 200:
        return "too long"
    condition = task.condition
    steps = [*task.plan, condition.then] if condition and not condition.holds else task.plan
    stated = stated_values(steps) + ([str(condition.threshold)] if condition else [])
    missing = [v for v in stated if v.casefold() not in text.casefold()]
    if missing:
        return "dropped a stated value"
    if leaked(text, steps):
        return "leaks a value to discover"
    return None


async def rewrite_instruction(task: Task, client: ModelClient, *, seed: int = 0) -> Task | str:
    """The task with its instruction rewritten by ``client``, or why the rewrite was rejected
    (the template stays). The templated text is kept in ``provenance["instruction_template"]``.
    """
    try:
        reply = await client.chat([{"role": "user", "content": _PROMPT.format(
            text=task.instruction)}], temperature=0.0, max_tokens=900, seed=seed)
    except ModelError:
        return "model error"
    lines = [" ".join(line.split()) for line in (reply.content or "").strip().strip('"').split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    problem = check_rewrite(text, task)
    if problem is not None:
        return problem
    return task.model_copy(update={
        "instruction": text,
        "provenance": {**task.provenance, "instruction_template": task.instruction,
                       "rewritten_by": client.model},
    })


async def rewrite_instructions(tasks: Sequence[Task], client: ModelClient, *,
                               concurrency: int = 8) -> tuple[list[Task], Counter[str]]:
    """Rewrite many instructions concurrently; a task whose rewrite fails keeps its template.

    Returns:
        The tasks in input order, and the count of each outcome (``rewritten`` or the reason
        a rewrite was rejected).
    """
    gate = asyncio.Semaphore(concurrency)
    outcomes: Counter[str] = Counter()

    async def one(task: Task) -> Task:
        async with gate:
            result = await rewrite_instruction(task, client)
        if isinstance(result, str):
            outcomes[result] += 1
            return task
        outcomes["rewritten"] += 1
        return result

    return list(await asyncio.gather(*(one(t) for t in tasks))), outcomes
