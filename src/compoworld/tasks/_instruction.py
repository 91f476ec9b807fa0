"""The instruction a user would give, templated from the plan's tool descriptions."""

from __future__ import annotations

import re
from typing import Any

from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._model import Criterion, Step

_ORDINALS = ("First", "Then", "Next", "After that", "Then", "Next", "After that", "Then",
             "Next", "After that", "Then", "Next")
_WHICH = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
          "tenth", "eleventh", "twelfth")


def _label(name: str) -> str:
    return name.replace("_id", "").replace("_", " ")


def _action(description: str) -> str:
    """The first sentence of a tool's description, as an imperative clause (return-shape notes
    such as 'as {"items", ...}' dropped)."""
    first = description.split("\n")[0].split(". ")[0].rstrip(".")
    first = re.sub(r',? as \{.*$', "", first).rstrip(" ,:;")
    return first[:1].lower() + first[1:]


def _value(value: Any) -> str:
    if isinstance(value, list):
        return " and ".join(_value(v) for v in value)
    return f'"{value}"' if isinstance(value, str) else str(value)


def system_prompt(today: str) -> str:
    return (f"You are an assistant working in the user's workspace of connected services. "
            f"Today is {today}. Use the tools to do what the user asks, and say what they asked "
            f"to be told in your final answer.")


def instruction(plan: list[Step], env: Environment, answer: Criterion | None) -> str:
    """One sentence per step: what to do, the values the user knows, and which earlier finding
    each other value comes from (never the value itself: the agent must find it)."""
    sentences = []
    for i, step in enumerate(plan):
        tool = env.tools[step.tool]
        service = step.tool.split(SEPARATOR, 1)[0]
        parts = []
        for name, source in step.sources.items():
            if source.kind == "user":
                parts.append(f"{_label(name)} {_value(step.arguments[name])}")
            elif source.kind == "computed":
                assert source.step is not None and source.paths
                field = _label(source.paths[0].rpartition(".")[2])
                parts.append(f"{_label(name)}: the total {field} of all the items you found in "
                             f"the {_WHICH[source.step]} step")
            else:
                assert source.step is not None
                words = [p for p in (source.path or "").split(".") if not p.isdigit()]
                what = _label(words[-1]) if words else _label(name)
                text = f"{_label(name)}: the {what} you found in the {_WHICH[source.step]} step"
                if source.selection is not None:
                    most = "highest" if source.selection.order == "max" else "lowest"
                    text += f" (of the one with the {most} {_label(source.selection.by)})"
                parts.append(text)
        sentence = f"{_ORDINALS[i]}, in {service}: {_action(tool.description)}"
        sentences.append(sentence + (" — " + "; ".join(parts) if parts else "") + ".")
    if answer is not None:
        sentences.append(f"Finally, tell me the {answer.semantic} you found in the last step.")
    return " ".join(sentences)


def leaked(text: str, plan: list[Step]) -> list[str]:
    """Values the agent must discover (step-sourced arguments) that the text gives away."""
    found = []
    lowered = text.casefold()
    stated = {str(v).casefold() for step in plan for name, source in step.sources.items()
              if source.kind == "user"
              for v in (step.arguments[name] if isinstance(step.arguments[name], list)
                        else [step.arguments[name]])}
    for step in plan:
        for name, source in step.sources.items():
            if source.kind == "user":
                continue
            values = step.arguments[name]
            for value in values if isinstance(values, list) else [values]:
                if (len(str(value)) > 2 and str(value).casefold() in lowered
                        and str(value).casefold() not in stated):
                    found.append(str(value))
    return found
