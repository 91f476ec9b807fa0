"""The instruction a user would give, templated from the plan's tool descriptions."""

from __future__ import annotations

import re
from typing import Any

from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._model import Condition, Criterion, Step

_ORDINALS = ("First", "Then", "Next", "After that", "Then", "Next", "After that", "Then",
             "Next", "After that", "Then", "Next")
_WHICH = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
          "tenth", "eleventh", "twelfth")


_LABELS = {"to": "recipient", "from": "sender", "cc": "cc recipient", "bcc": "bcc recipient"}


def _label(name: str) -> str:
    return _LABELS.get(name) or name.replace("_id", "").replace("_", " ")


# Verbs API descriptions start with in the third person ("Gets", "Inserts"): made imperative.
_VERBS = frozenset((
    "accept", "add", "apply", "approve", "archive", "assign", "attach", "cancel", "change",
    "check", "claim", "close", "copy", "count", "create", "decline", "delete", "detach",
    "disable", "download", "edit", "enable", "export", "fetch", "find", "flush", "generate",
    "get", "import", "initiate", "insert", "invite", "issue", "link", "list", "lock", "lookup",
    "mark", "merge", "modify", "move", "open", "patch", "ping", "post", "put", "query", "read",
    "refresh", "register", "reject", "release", "remove", "replace", "resend", "reset",
    "restore", "retrieve", "return", "revoke", "run", "schedule", "search", "send", "set",
    "show", "start", "stop", "submit", "subscribe", "sync", "test", "trigger", "unlink",
    "unlock", "unsubscribe", "update", "upload", "upsert", "validate", "verify", "view", "write"))


def _imperative(word: str) -> str:
    lowered = word.lower()
    for suffix, stem in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss"),
                         ("xes", "x"), ("s", "")):
        if lowered.endswith(suffix) and lowered[: -len(suffix)] + stem in _VERBS:
            return lowered[: -len(suffix)] + stem
    return word


def _action(description: str, tool: str) -> str:
    """The first sentence of a tool's description as an imperative clause: return-shape notes
    ('as {"items", ...}'), parentheses and backticks dropped, third person made imperative
    ("Gets" → "get"); a description that is only an HTTP route gives the tool's name."""
    first = description.split("\n")[0].split(". ")[0].rstrip(".")
    first = re.sub(r',? as \{.*$', "", first)
    first = re.sub(r"\s*\([^)]*\)", "", first)
    first = re.sub(r"\s*\(.*$", "", first).replace("`", "")
    first = re.sub(r",? (optionally filtered|a page at a time)", "", first).rstrip(" ,:;")
    first = re.sub(r"\ban array of (\w+) objects?\b", r"the \1 records", first)
    if not first or re.match(r"^(GET|POST|PUT|PATCH|DELETE)\b", first):
        return "use " + tool.replace("_", " ")
    word, _, rest = first.partition(" ")
    word = _imperative(word)
    if word[1:2].isupper():  # an acronym ("SMS", "URL"): kept as is
        return f"{word} {rest}".strip()
    return (word[:1].lower() + word[1:] + (" " + rest if rest else "")).strip()


def _value(value: Any) -> str:
    if isinstance(value, list):
        return " and ".join(_value(v) for v in value)
    return f'"{value}"' if isinstance(value, str) else str(value)


_DATED = ("date", "_at", "time", "birthday", "day", "created", "updated", "modified")


def _which(by: str, order: str) -> str:
    """How a selection reads: "the latest close date", "the highest amount"."""
    dated = any(word in by for word in _DATED)
    most = ("latest" if order == "max" else "earliest") if dated else (
        "highest" if order == "max" else "lowest")
    return f"{most} {_label(by)}"


def _semantic_words(semantic: str) -> str:
    """``PersonName`` → "name", ``Email`` → "email address", ``InvoiceNumber`` → "invoice
    number"."""
    special = {"Email": "email address", "Phone": "phone number", "PersonName": "name",
               "URL": "URL"}
    return special.get(semantic) or re.sub(r"(?<!^)(?=[A-Z])", " ", semantic).lower()


def system_prompt(today: str) -> str:
    return (f"You are an assistant working in the user's workspace of connected services. "
            f"Today is {today}. Use the tools to do what the user asks, and say what they asked "
            f"to be told in your final answer.")


def _condition_words(condition: Condition, plan: list[Step], env: Environment) -> str:
    """"only if the balance due you found in the second step is more than 1200"."""
    source = plan[condition.source]
    found = "you found in" if env.tools[source.tool].kind == "read" else "from"
    field = _label(condition.path.rpartition(".")[2])
    if isinstance(condition.threshold, str):
        compare = "after" if condition.op == "gt" else "before"
    else:
        compare = "more than" if condition.op == "gt" else "less than"
    return (f"only if the {field} {found} the {_WHICH[condition.source]} step is {compare} "
            f"{condition.threshold}")


def instruction(plan: list[Step], env: Environment, answer: Criterion | None,
                condition: Condition | None = None) -> str:
    """One sentence per step: what to do, the values the user knows, and which earlier finding
    each other value comes from (never the value itself: the agent must find it). Under a
    ``condition``, the last write's sentence says when to do it (and it is said even when the
    plan, the condition failing, stops before it)."""
    sentences = []
    described: set[tuple[int, str]] = set()  # list items already told how to pick
    steps = [*plan, condition.then] if condition is not None and not condition.holds else plan
    for i, step in enumerate(steps):
        tool = env.tools[step.tool]
        service = step.tool.split(SEPARATOR, 1)[0]
        parts = []
        for name, source in step.sources.items():
            if source.kind == "user":
                parts.append(f"{_label(name)} {_value(step.arguments[name])}")
                continue
            assert source.step is not None
            if source.kind == "rule" and source.selection is None:
                parts.append(f"{_label(name)}: the one the rule in your inbox sets (see below)")
                continue
            found = ("you found in" if env.tools[plan[source.step].tool].kind == "read"
                     else "from")
            if source.kind == "computed":
                assert source.paths
                field = _label(source.paths[0].rpartition(".")[2])
                parts.append(f"{_label(name)}: the sum of the {field} over all the items "
                             f"{found} the {_WHICH[source.step]} step")
                continue
            words = [p for p in (source.path or "").split(".") if not p.isdigit()]
            what = _label(words[-1]) if words else _label(name)
            if what == "id" and source.semantic == "id":
                what = _label(name)  # "invoice: the invoice you found", not "the id"
            text = f"{_label(name)}: the {what} {found} the {_WHICH[source.step]} step"
            if source.each:
                item = int((source.path or "").split(".")[1])
                text += f" (for each of them: here the {_WHICH[item]} one)"
            if source.kind == "rule":
                text += " (the one the rule in your inbox says to take; see below)"
            elif source.selection is not None:
                which = _which(source.selection.by, source.selection.order)
                item = (source.step, which)
                text += " (the same one)" if item in described else f" (the one with the {which})"
                described.add(item)
            parts.append(text)
        sentence = f"{_ORDINALS[i]}, in {service}: {_action(tool.description, tool.name)}"
        sentence += (" — " + "; ".join(parts) if parts else "") + "."
        if condition is not None and i == len(steps) - 1:
            sentence = (f"{_ORDINALS[i]}, {_condition_words(condition, plan, env)}: in {service}: "
                        f"{_action(tool.description, tool.name)}"
                        + (" — " + "; ".join(parts) if parts else "")
                        + "; otherwise, leave it there.")
        sentences.append(sentence)
    if answer is not None and answer.semantic:
        what = _semantic_words(answer.semantic)
        where = ("the last step" if answer.step is None or answer.step == len(plan) - 1
                 else f"the {_WHICH[answer.step]} step")
        if answer.selection is not None:
            which = _which(answer.selection.by, answer.selection.order)
            sentences.append(f"Finally, tell me the {what} of the one with the {which} among "
                             f"those you found in {where}.")
        else:
            sentences.append(f"Finally, tell me the {what} you found in {where}.")
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
