"""Reading a finished task for role leaks and copies, as a reviewer would (``bench/roles.py``).

Per write of the plan (and a trap's or a condition's write, which the request asks for too):

- **role leak** — a found person's value in a field of the other side (:func:`crosses_roles`:
  an assignee's email made an applicant's, a customer's name made an owner), a value whose
  field says it is no person's used as one, the user's own email, phone or name as the subject
  of a record (not who sends, owns or is assigned it), or a colleague's (someone at the user's
  company, :meth:`Pool.role`) in a customer's, lead's, applicant's or vendor's field whatever
  the record it was found in says (``colleague as ...``: the pool's word alone);
- **copy** — one found value written into 3 services or more (sends aside: a message to a
  person copies nothing; and a fan-out's writes, one per item of a list, have their reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compoworld.service import SEPARATOR, Tool
from compoworld.tasks._model import Step, Task
from compoworld.tasks._phrasing import family
from compoworld.tasks._roles import (
    _ACTOR_WORDS,
    COPY_LIMIT,
    OUTSIDE,
    PERSON_TYPES,
    crosses_roles,
    entity_of,
    found_in,
    slot_role,
)
from compoworld.types import Pool


@dataclass
class RoleAudit:
    """What :func:`audit` found in one task: ``leaks`` (one line each: the kind, the step, the
    parameter) and ``copies`` (values written into more than :data:`COPY_LIMIT` services)."""

    leaks: list[str] = field(default_factory=list)
    copies: list[str] = field(default_factory=list)


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _writes(task: Task) -> list[Step]:
    steps = list(task.plan)
    if task.condition is not None and not task.condition.holds:
        steps.append(task.condition.then)
    if task.scenario is not None:
        steps.extend(t.step for t in task.scenario.traps if t.kind != "decoy")
    return steps


def audit(task: Task, pool: Pool, tools: dict[str, Tool]) -> RoleAudit:
    """Role leaks and copies in ``task``, read against its world's ``pool`` and its services'
    ``tools`` (by qualified name).

    Example:
        >>> from compoworld.tasks import generate_tasks
        >>> from compoworld.catalog import load_service
        >>> task = next(generate_tasks(1, seed=3))
        >>> tools = {f"{s}__{n}": t for s in task.involved
        ...          for n, t in load_service(s).tools.items()}
        >>> isinstance(audit(task, Pool(task.seed), tools).leaks, list)
        True
    """
    return audit_writes(_writes(task), task.plan, pool, tools)


def audit_writes(writes: list[Step], plan: list[Step], pool: Pool,
                 tools: dict[str, Tool]) -> RoleAudit:
    """:func:`audit` of ``writes`` (the plan's, and any trap's or condition's write the request
    asks for), whose found values are followed back through ``plan``: what generation checks a
    plan it changed after the walk with (a choice by two criteria picks another item)."""
    found = RoleAudit()
    user = pool.user
    mine = {user.email.casefold(), user.phone.casefold(), user.name.casefold()}
    written: dict[str, set[str]] = {}
    for i, step in enumerate(writes):
        tool = tools[step.tool]
        if tool.kind != "write":
            continue
        service = step.tool.split(SEPARATOR, 1)[0]
        params = {p.name: p for p in tool.params}
        for name, source in step.sources.items():
            param = params.get(name)
            semantic = param.semantic if param is not None else source.semantic
            target = (name, entity_of(tool.name))
            for value in _items(step.arguments.get(name)):
                if source.kind in ("step", "rule") and source.step is not None:
                    if source.step < len(plan):
                        origin = found_in(plan, source.step, source.path or "", value)
                        why = crosses_roles(pool, value, origin, semantic, target)
                        if why is not None:
                            found.leaks.append(f"{why}: step {i} {step.tool}.{name}")
                    if family(tool.name, tool.kind) != "send" and not source.each and \
                            isinstance(value, str) and len(value) > 2:
                        written.setdefault(value, set()).add(service)
                if semantic not in PERSON_TYPES or not isinstance(value, str):
                    continue
                role = slot_role(*target)
                if value.casefold() in mine and role != "staff" and not any(
                        word in name.lower() for word in _ACTOR_WORDS):
                    found.leaks.append(f"user as subject: step {i} {step.tool}.{name}")
                person = pool.person_with(value)
                if person is not None and pool.role(person) == "colleague" and role in OUTSIDE:
                    found.leaks.append(f"colleague as {role}: step {i} {step.tool}.{name}")
    found.copies = sorted(f"{value!r} into {len(into)} services"
                          for value, into in written.items() if len(into) > COPY_LIMIT)
    return found
