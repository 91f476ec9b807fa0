"""Whether the purpose of a write can be stated: a write whose purpose cannot be said is not
taken (the walk refuses it, ``tasks._walk``, outcome ``"purpose"``).

A person asks for a write for a reason the request can say, or that its own words show:

* a **send** reaches someone: the message is its purpose;
* a **delete** removes a record the plan found (the clean-up the motif is about);
* an **update** (a tag, a mark, a move, a set) changes at least one value, stated by the user
  or found along the way and said where: never "update the company of the contact" with
  nothing to change;
* a **create** makes a person's record in a system where the request can say why
  (:func:`~compoworld.tasks._vocabulary.why`: "so recruiting has them on file"), or carries
  content the user states — a title, a subject, a body, a tag, a date, an amount, a figure
  computed from what was found: the user's own words give it its point.

A create given nothing but values copied from elsewhere — a contact in some tool holding only a
phone number, a page holding only an author's name, a "portability check" of a number — has no
purpose a person would state: it is never taken. Read off the tool's kind, its name's verb and
noun, its parameters' choices and semantic types and its service's domain, never a service's
name.
"""

from __future__ import annotations

from typing import Any

from compoworld.service import Tool
from compoworld.tasks._model import ArgSource
from compoworld.tasks._phrasing import family, verb_and_noun
from compoworld.tasks._vocabulary import why

_PARTY = frozenset({"Email", "Phone", "PersonName", "CompanyName"})
"""Who a record is about: a value naming someone is a copy, not content the user adds."""


def _content(tool: Tool, name: str, source: ArgSource) -> bool:
    """Whether the argument ``name`` is content the user gives the record: a value they state
    that is not a pick among fixed choices nor who the record is about, or a computed figure."""
    if source.kind == "computed":
        return True
    if source.kind != "user":
        return False
    param = next((p for p in tool.params if p.name == name), None)
    return param is not None and not param.choices and param.semantic not in _PARTY


def purposeful(tool: Tool, domain: str, arguments: dict[str, Any],
               sources: dict[str, ArgSource]) -> bool:
    """Whether a write of ``tool`` (in a service of ``domain``) given ``arguments`` from
    ``sources`` has a purpose the request can state (see the module's docstring).

    """
    kind = family(tool.name, tool.kind)
    if kind in ("send", "delete"):
        return True
    targets = {p.name for p in tool.params if p.ref}
    if kind == "update":
        return any(name not in targets for name in arguments)
    if kind == "other" and targets & set(arguments):
        return True  # done to a record the plan found ("approve that request")
    noun = verb_and_noun(tool.name)[1] or "record"
    if why("create", noun, domain) is not None:
        return True
    return any(_content(tool, name, source) for name, source in sources.items())
