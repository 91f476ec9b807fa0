"""How a request gives a value: quoted if the user states it ("q2", "March 5, 2026
(Thursday)"), theirs in their own words ("my email address"), else described by where it is
found ("the email address of the sender of that message", "the same phone number"), traced
back through the writes that echoed it to where it was first found.

The second of the request's two stages: built on the :class:`RecordNames` of the plan (a value
is "of" a record), and giving it back the one thing naming needs of values — the filters a
listed record is described by (:meth:`ValueWords.filters`: "from "x"", "owned by the ...").
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from compoworld.tasks._model import ArgSource
from compoworld.tasks._phrasing import (
    literal,
    param_words,
    plural,
    relative_day,
    relative_to,
    split_field,
    type_words,
    words,
)
from compoworld.tasks._record_names import RecordNames
from compoworld.tasks._temporal import relation
from compoworld.tasks._vocabulary import BY, ORDINALS, last_field, own_words, pick_key

_PARTY = ("Email", "PersonName", "Phone", "CompanyName")


_PERSON_NAMES = frozenset({"PersonName", "FirstName", "LastName"})


class ValueWords:
    """The words for the values of one plan's calls (stateful: a value said once is "the
    same ..." after)."""

    def __init__(self, names: RecordNames, *, mine: bool = True) -> None:
        self.names, self.steps, self.env, self.mine = names, names.steps, names.env, mine
        self.values: Counter[str] = Counter()  # type words → distinct found values mentioned
        self.seen_values: dict[tuple[Any, ...], str] = {}
        self.subject: tuple[Any, ...] | None = None  # the record the current item is about
        self.grouped = False  # the item being written is a whole fan-out ("for each of ...")
        self.setting: str | None = None  # the field an update is setting, while its value is said
        names.describe_filters = self.filters  # a listed record is described by its filters

    def filters(self, i: int) -> str:
        """The arguments of read step ``i`` as a filter ("from "x"", "owned by the ...")."""
        step, tool = self.steps[i], self.env.tools[self.steps[i].tool]
        semantic = {p.name: p.semantic for p in tool.params}
        ref = {p.name: p.ref for p in tool.params}
        parts = []
        for name, source in step.sources.items():
            label = words(name)
            if ref.get(name):
                parts.append(f"of {self.value(source, step.arguments[name], name, None)}")
                continue
            typed = semantic.get(name)
            found = source.kind != "user" and typed in _PARTY
            if found and not self._names_someone(source, step.arguments[name]):
                # Found on a record that is no one: "with the email address of that page".
                parts.append("with " + self.value(source, step.arguments[name], name, typed))
                continue
            value = self.value(source, step.arguments[name], name, typed,
                               "who" if found else "field")
            by = BY.get(label)
            if by is None and any(w in label.split() for w in ("after", "before", "since",
                                                               "until", "from", "to")):
                by = label
            if found and (by is None or by.startswith("with")):
                by = "for"
            if by is None:
                by = f"with the {param_words(name, typed)}"
            parts.append(f"{by} {value}")
        return (" " + " and ".join(parts)) if parts else ""

    def _names_someone(self, source: ArgSource, value: Any) -> bool:
        """Whether a found value is said as someone ("the sender of that message", "me")."""
        if self.mine and self._mine(value, "who") is not None:
            return True
        origin = self.origin(source)
        if origin.step is None:
            return True
        role = split_field(last_field(origin.path), origin.semantic)[0] if origin.path else ""
        return bool(role) or self.names.person(origin.step) or self.names.company(origin.step)

    def origin(self, source: ArgSource) -> ArgSource:
        """Where a value a write took from an earlier step was first found (a write's answer
        echoes its arguments: ``create_contact``'s ``name`` is the name it was given)."""
        seen = 0
        while source.kind == "step" and source.step is not None and seen < 20:
            seen += 1
            step = self.steps[source.step]
            if self.env.tools[step.tool].kind != "write":
                break
            head = (source.path or "").split(".")[0]
            given = step.sources.get(head)
            if given is None or given.kind != "step":
                break
            source = given
        return source

    def value(self, source: ArgSource, value: Any, name: str, semantic: str | None,
              use: str = "field") -> str:
        """How the request gives an argument's value: quoted if the user knows it, else
        described by where it is found. ``use``: ``field`` (a value: "the email address of
        the sender of that message"), ``who`` (the person or company it identifies: "the
        sender of that message", for a filter or the subject of a create)."""
        names = self.names
        if source.kind == "user":
            text = literal(value)
            day = relative_day(value, self.env.today)
            return f"{text} ({day})" if day else text
        assert source.step is not None
        if source.kind == "rule" and source.selection is None:
            author = names.rule.author if names.rule is not None else "my colleague"
            return f"the {words(name)} {author} asked for in their email"
        if source.each:
            field = last_field(source.path)
            own = "" if field == "id" else f"the {words(field)} of "  # "tag each of ..."
            listed = names.record(source.step, whole=True)
            if self.grouped:  # "each of the messages from ...", "each of those messages"
                return f"{own}each of {listed.removeprefix('all ')}"
            item = int((source.path or "0.0").split(".")[1])
            return f"{own}the {ORDINALS[item]} of {listed}"
        if source.kind == "computed" and source.shift is not None:  # a date said relative
            on = source.path or ""
            holder = (names.record(source.step, path=on) if len(on.split(".")) < 3 else
                      names.record(source.step, source.selection, path=on))
            return relative_to(relation(source.shift), last_field(on), holder)
        if source.kind == "computed":
            first = (source.paths[0] if source.paths else "amount").split(".")
            field = words(first[-1])
            if first[0] != "items" and not first[0].isdigit() and len(first) > 2:
                return (f"the sum of the {plural(field)} of all the {words(first[0])} on "
                        f"{names.record(source.step)}")
            return f"the sum of the {plural(field)} of {names.record(source.step, whole=True)}"
        mine = self._mine(value, use)
        if mine is not None:
            return mine
        source = self.origin(source)
        assert source.step is not None
        tail = last_field(source.path)
        typed = source.semantic if source.semantic not in (None, "id", "Ref") else None
        holder_of = (source.step, source.selection, source.path)
        if (typed is None and type_words(semantic) is None) or tail in ("id", ""):
            if tail.endswith("_id") and tail != "id":  # "the customer of that invoice"
                of = names.record(source.step, source.selection, path=source.path)
                return names.referred(words(tail[:-3]), source.step, of)
            return names.record(source.step, source.selection, path=source.path)
        typed = typed or semantic
        role, own = split_field(tail, typed)
        key = (source.step, source.path, pick_key(source.selection))
        holder_key = (source.step, pick_key(source.selection), role)
        repeated = key in self.seen_values and self.values[own] == 1
        if key not in self.seen_values:
            self.seen_values[key] = own
            self.values[own] += 1
        if use == "who":
            if repeated:
                return "the same company" if typed == "CompanyName" else "the same person"
            if role:
                return names.role(*holder_of, role)
            holder = names.record(source.step, source.selection, path=source.path)
            if typed == "CompanyName" and not names.company(source.step):
                return f"the {own} of {holder}"
            return holder
        if self.subject == holder_key:  # a person's is "their", whatever their record is
            person = role or names.person(source.step) or typed in _PERSON_NAMES or \
                self.env.pool.person_with(value) is not None
            return f"{'their' if person else 'its'} {own}"
        # "Setting the email address to the same email address" reads as no change: whose.
        if repeated and self.setting != own:
            return f"the same {own}"
        if role:
            return f"the {own} of {names.role(*holder_of, role)}"
        return f"the {own} of {names.record(source.step, source.selection, path=source.path)}"

    def _mine(self, value: Any, use: str) -> str | None:
        """The user's own name, email, phone or company, as they say it ("my email address")."""
        return own_words(self.env.pool.user, value, use) if self.mine else None
