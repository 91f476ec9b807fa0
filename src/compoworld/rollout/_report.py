"""The oracle's final answer: a markdown report of what it found and what it changed.

The values the task asks for come first, each as "The <what> you asked for is <value>." (the
answer criteria look for the values in the final message); then every change, with the record
it made and the values it set; then the checks that decided the way (a rule followed, a record
found already there, a condition), which the task's structures give
(:mod:`compoworld.rollout._plays`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from compoworld.rollout._narration import action, is_read, show, words
from compoworld.tasks import Task


def _variant(task: Task, n: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{task.id}\0report".encode()).digest()[:4], "big") % n


def _count(data: Any) -> int | None:
    """How many records a list answer holds (a list, or a page ``{"items": [...]}``)."""
    if isinstance(data, list):
        return len(data)
    if isinstance(data, dict) and isinstance(data.get("items"), list) and "id" not in data:
        return len(data["items"])
    return None


def _set(arguments: dict[str, Any]) -> str:
    shown = [f"{words(k)} {show(v, 40)}" for k, v in arguments.items() if v not in (None, "", [])]
    return "; ".join(shown[:4])


def report(task: Task, data: list[Any], errors: list[str | None], answers: list[str],
           arguments: list[dict[str, Any]], *, checks: Sequence[str] = (),
           changed: Sequence[str] = ()) -> str:
    """The report. ``data``/``errors``/``arguments``: per plan step, what it returned (None
    when it failed), why it failed, the arguments sent; ``answers``: the sentences stating the
    values asked for; ``checks``: what the task's structures decided (a rule followed, a
    record found already there, a condition); ``changed``: changes made beyond the plan's
    (markdown list items)."""
    services = list(dict.fromkeys(action(s)[0] for s in task.plan))
    writes = [i for i, s in enumerate(task.plan) if not is_read(s)]
    failed = [i for i, e in enumerate(errors) if e is not None]
    across = ", ".join(services[:-1]) + " and " + services[-1] if len(services) > 1 else services[0]
    head = (f"All {len(task.plan)} steps are done across {across}"
            if not failed else f"{len(task.plan) - len(failed)} of {len(task.plan)} steps are "
                               f"done across {across}; {len(failed)} did not go through (see "
                               "below)")
    changes = f"{len(writes)} change{'s' if len(writes) != 1 else ''}"
    how = [f"I read what I needed first and only then made {changes}, each with values taken "
           "from the earlier results rather than guessed.",
           f"Every value in the {changes} below comes from a lookup or from your request.",
           f"The {changes} use{'s' if len(writes) == 1 else ''} the records I found on the way; "
           "nothing was typed in from memory."]
    lines = ["## Summary", "", f"{head}. {how[_variant(task, len(how))]}", ""]
    if answers:
        lines += ["## What you asked for", "", *(f"- {a}" for a in answers), ""]
    found = [i for i, s in enumerate(task.plan) if is_read(s)]
    if found:
        lines += ["## What I looked up", ""]
        for i in found:
            service, verb, noun = action(task.plan[i])
            n = _count(data[i])
            got = (f"{n} record{'s' if n != 1 else ''} came back" if n is not None
                   else f"record {data[i]['id']}" if isinstance(data[i], dict) and "id" in data[i]
                   else "the record came back")
            lines.append(f"- **{service}** — {verb} {noun}: {got}"
                         + (f" (failed: {errors[i]})" if errors[i] else "") + ".")
        lines.append("")
    lines += ["## What changed", ""]
    for i in writes:
        service, verb, noun = action(task.plan[i])
        record = data[i]["id"] if isinstance(data[i], dict) and "id" in data[i] else None
        what = f"`{record}`" if record else "done"
        values = _set(arguments[i])
        lines.append(f"- **{service}** — {verb} {noun}: {what}"
                     + (f", with {values}" if values else "")
                     + (f". This did not succeed: {errors[i]}" if errors[i] else "") + ".")
    lines += changed
    if not writes and not changed:
        lines.append("- Nothing: the request only needed reading.")
    lines.append("")
    lines += ["## Checks", "", *(f"- {c}" for c in [*checks, "Nothing outside these changes "
                                                             "was touched."])]
    return "\n".join(lines)
