"""An LLM rewrite of a task's request, written from its structured scenario (date, persona,
the services as a person names them, the rule to point to, the traps) with the templated
instruction as the draft to keep faithful to. A rewrite is kept only if it passes the same
gates as the template: it keeps every value the user states, gives away none the agent must
find (a rule's value included), still points to the rule, and names no tool or service
identifier. The structured scenario stays in the task, so a rewrite can be checked again."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Sequence

from compoworld.catalog import load_service
from compoworld.models import ModelClient, ModelError
from compoworld.service import SEPARATOR
from compoworld.tasks._instruction import leaked
from compoworld.tasks._model import Step, Task
from compoworld.tasks._service_names import display_name

_PROMPT = """You write requests that a person sends to their AI assistant at work. Write the \
request below again as {persona} would write it on {today}: natural, concise, in the first \
person, keeping its layout (a numbered list stays a numbered list, paragraphs stay paragraphs).

What the request is about:
- the tools the assistant can use are in: {services} (name them only like this, as products);
{scenario}
Rules for the rewrite:
- keep every quoted value exactly as written (same characters) and every step, condition and \
thing to report back;
- add no value, name, date or number that is not in the draft;
- never write a tool's name, an identifier with underscores, or step numbers.

Draft:
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


def _scenario_lines(task: Task) -> str:
    """What the scenario adds, for the prompt: never a value the agent must find."""
    scenario = task.scenario
    lines = []
    if scenario is not None and scenario.rule is not None:
        lines.append(f"- the assistant must find and follow {scenario.rule.author}'s email "
                     f"({scenario.rule.subject!r}); point to it as the draft does, never say "
                     f"what it says;")
    if scenario is not None and scenario.traps:
        lines.append("- something the draft asks for may already exist: keep the draft's "
                     "words about not doing it twice;")
    return "\n".join(lines)


def _identifiers(task: Task) -> set[str]:
    """Tool and service identifiers of the task's world that a request must never name: every
    ``service__tool``, each tool's own name when it has an underscore, each service's id when
    it has one or differs from how a person names it."""
    names: set[str] = set()
    for service_name in (*task.involved, *task.distractors):
        service = load_service(service_name)
        names |= {f"{service_name}{SEPARATOR}{tool}" for tool in service.tools}
        names |= {tool for tool in service.tools if "_" in tool}
        if "_" in service_name or "-" in service_name:
            names.add(service_name)
    return names


def names_identifier(text: str, task: Task) -> list[str]:
    """The tool or service identifiers ``text`` names (as whole words)."""
    return sorted(name for name in _identifiers(task)
                  if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text))


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
    rule = task.scenario.rule if task.scenario is not None else None
    if rule is not None:  # its value is an argument the agent must find: leaked() covers it
        author = rule.author.split()[0]
        if author in task.instruction and author not in text:
            return "lost the rule's pointer"
    if names_identifier(text, task) and not names_identifier(task.instruction, task):
        return "names a tool"
    return None


def _prompt(task: Task) -> str:
    services = ", ".join(display_name(load_service(name)) for name in task.involved)
    persona = task.scenario.persona if task.scenario is not None else "the user"
    return _PROMPT.format(persona=persona, today=task.today, services=services,
                          scenario=_scenario_lines(task), text=task.instruction)


async def rewrite_instruction(task: Task, client: ModelClient, *, seed: int = 0) -> Task | str:
    """The task with its instruction rewritten by ``client``, or why the rewrite was rejected
    (the template stays). The templated text is kept in ``provenance["instruction_template"]``.
    """
    try:
        reply = await client.chat([{"role": "user", "content": _prompt(task)}],
                                  temperature=0.0, max_tokens=900, seed=seed)
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
