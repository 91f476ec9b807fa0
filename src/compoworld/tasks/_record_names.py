"""How a request names the records a plan's steps find or make: "the most recent message in
my mailbox" the first time, "that message" after; "the customer of that invoice" for a get by
an id an earlier step found; "the sender of that message" for the person a field names.

Naming is the first of the request's two stages (``tasks._request``): a :class:`RecordNames`
is built first, and the value phrasing (``tasks._value_words``) is built on it. The one way
back — a listed record is described by its filters, whose values are phrased — is the
``describe_filters`` the value phrasing gives it.

A description goes at most :data:`CHAIN` records deep: a read further down ("the deal with
the earliest close date owned by ...", inside "the contact of the account of ...") is looked
up first, in words of its own at the head of the item (``lead_ins``: "find the deal ...;
then add the contact of the account of that deal ..."), and named by a short back-reference
where it stood. No person writes "of the … of the … of the …".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._model import Rule, Selection, Step
from compoworld.tasks._phrasing import among, family, plural, singular, superlative, verb_and_noun, words
from compoworld.tasks._service_names import Mentions
from compoworld.tasks._vocabulary import COMPANIES, PAST, PEOPLE, VERB_PAST, is_list, last_field, pick_key

CHAIN = 2
"""How many records deep one description goes before a record is looked up on its own."""


class RecordNames:
    """The names of one plan's records, as the request says them (stateful: what is said
    once is referred back to after)."""

    def __init__(self, steps: list[Step], env: Environment, rule: Rule | None) -> None:
        self.steps, self.env, self.rule = steps, env, rule
        self.mentions = Mentions(env)  # which services the request has named
        self.introduced: set[tuple[Any, ...]] = set()  # records already described in full
        self.roles: Counter[str] = Counter()  # role → distinct people of that role named
        self.describe_filters: Callable[[int], str] = lambda i: ""  # set by the value words
        self.lead_ins: list[str] = []  # reads to look up first, for the item being written
        self.depth = 0  # how many records deep the description being written is

    # -- services ------------------------------------------------------------------------

    def service_of(self, i: int) -> str:
        return self.steps[i].tool.split(SEPARATOR, 1)[0]

    def service(self, i: int) -> str:
        """The step's service as a person names it (counted: named in full once)."""
        return self.mentions.name(self.service_of(i))

    def where(self, i: int, *, known: bool = False, found: bool = False) -> str:
        """Where step ``i`` happens: " in the Apideck CRM" once, then :meth:`Mentions.where`."""
        return self.mentions.where(self.service_of(i), self.entity(i),
                                   {self.service_of(j) for j in range(len(self.steps))},
                                   known=known, found=found)

    def entity(self, i: int) -> str:
        step = self.steps[i]
        tool = self.env.tools[step.tool]
        noun = verb_and_noun(tool.name)[1]
        if not noun or len(noun.split()) > 3:
            refs = [p.ref for p in tool.params if p.ref]
            noun = words(refs[0]) if refs else "record"
        if noun == "message" and any(p.semantic == "Email" for p in tool.params):
            noun = "email" if tool.kind == "write" else "message"
        return noun

    def company(self, i: int) -> bool:
        return self.entity(i).split(" ")[-1] in COMPANIES

    def person(self, i: int) -> bool:
        return self.entity(i).split(" ")[-1] in PEOPLE

    # -- records -------------------------------------------------------------------------

    def record(self, i: int, selection: Selection | None = None, *, whole: bool = False,
               path: str | None = None) -> str:
        """What step ``i`` found or made: in full first ("the most recent message from "x" in
        my mailbox"), then "that message" (two items of one list: their superlatives again).
        ``whole``: the list itself ("the deals owned by ..."); ``path``: inside a nested list
        of a record ("deals.1.owner" with a selection: that account's deal with ...). A read
        more than :data:`CHAIN` records deep is put in :attr:`lead_ins` and referred back to."""
        self.depth += 1
        try:
            if self.depth <= CHAIN or self.env.tools[self.steps[i].tool].kind == "write":
                return self._record(i, selection, whole=whole, path=path)
            outer, said = self.depth, len(self.introduced)
            self.depth = 0  # said at the head of its own words
            text = self._record(i, selection, whole=whole, path=path)
            self.depth = outer
            if len(self.introduced) == said:
                return text  # said before: already a back-reference
            self.lead_ins.append(text)
            return self._record(i, selection, whole=whole, path=path)
        finally:
            self.depth -= 1

    def _record(self, i: int, selection: Selection | None, *, whole: bool,
                path: str | None) -> str:
        step = self.steps[i]
        tool = self.env.tools[step.tool]
        entity = self.entity(i)
        if tool.kind == "write":
            key: tuple[Any, ...] = ("made", i)
            verb = verb_and_noun(tool.name)[0]
            past = VERB_PAST.get(verb) or PAST[family(tool.name, tool.kind)]
            if key in self.introduced:
                return f"the new {entity}" if past == "added" else f"that {entity}"
            self.introduced.add(key)
            return f"the {entity} you {past}{self.where(i, known=True)}"
        # A field of a record inside a list of the record ("contacts.0.email"), never an item
        # of a list of values ("phone_numbers.0": the value itself, not a record's).
        parts = (path or "").split(".")
        within = [p for p in parts[:-2 if parts[-1].isdigit() else -1] if not p.isdigit()]
        if within and not is_list(step.output):
            outer = self.record(i)
            inner = words(within[-1])
            item = singular(inner)
            if selection is not None and self.ruled(selection):
                return f"the {item} of {outer} that {self.rule.author}'s rule says to take"  # type: ignore[union-attr]
            if selection is not None:
                return (f"{superlative(selection.by, selection.order, item)}"
                        f"{among(selection.among)} of {outer}")
            return f"the {item} of {outer}"
        chain = self._chain(i)
        if chain is not None:
            return chain
        key = ("found", i, pick_key(selection), whole)
        if key in self.introduced:
            if whole:
                return f"those {plural(entity)}"
            if selection is not None and sum(k[:2] == ("found", i) for k in self.introduced) > 1:
                return superlative(selection.by, selection.order, entity) + among(selection.among)
            return f"that {entity}"
        listed = any(k[:2] == ("found", i) for k in self.introduced)
        self.introduced.add(key)
        if listed and selection is not None and is_list(step.output) and \
                not self.ruled(selection):  # the list is said already: "the oldest one of those"
            return (superlative(selection.by, selection.order, f"one of those {plural(entity)}")
                    + among(selection.among))
        nested = any(s.kind != "user" for s in step.sources.values())
        where = self.where(i, found=True) if nested else ""
        filters = self.describe_filters(i)
        if not nested:
            where = self.where(i, found=True)
        if whole:
            return f"all the {plural(entity)}{filters}{where}"
        if selection is not None and is_list(step.output):
            if self.ruled(selection):
                return (f"the {entity}{where}{filters} that {self.rule.author}'s rule "  # type: ignore[union-attr]
                        f"says to take")
            return (f"{superlative(selection.by, selection.order, entity)}"
                    f"{among(selection.among)}{where}{filters}")
        if nested and filters != " for me":  # "the invitation for me in my calendar"
            return f"the {entity}{where}{filters}"
        return f"the {entity}{filters}{where}"

    def ruled(self, selection: Selection) -> bool:
        """Whether ``selection`` is the one a rule stored in the world makes (never said)."""
        return self.rule is not None and self.rule.kind == "selection" and \
            self.rule.selection == selection

    def _chain(self, i: int) -> str | None:
        """A get by an id an earlier step found: that same record, or the one it refers to
        ("the customer of that invoice")."""
        step = self.steps[i]
        tool = self.env.tools[step.tool]
        refs = {p.name for p in tool.params if p.ref}
        keyed = [(n, s) for n, s in step.sources.items() if n in refs and s.kind == "step"]
        if is_list(step.output) or len(keyed) != 1 or len(step.sources) != 1:
            return None
        source = keyed[0][1]
        assert source.step is not None
        if last_field(source.path) == "id" and self.entity(source.step) == self.entity(i):
            return self.record(source.step, source.selection, path=source.path)
        key = ("chain", i)
        if key in self.introduced:
            return f"that {self.entity(i)}"
        self.introduced.add(key)
        of = self.record(source.step, source.selection, path=source.path)
        return self.referred(self.entity(i), source.step, of)

    def referred(self, noun: str, i: int, of: str) -> str:
        """The ``noun`` a record of step ``i`` (said ``of``) refers to: "the customer of that
        invoice", or "the lead linked to that lead" (never "the lead of the lead")."""
        return f"the {noun} linked to {of}" if noun == self.entity(i) else f"the {noun} of {of}"

    def role(self, step: int, selection: Selection | None, path: str | None, role: str) -> str:
        """The person a field names ("the sender of that message"), "that sender" after."""
        key = ("role", step, pick_key(selection), role)
        if key in self.introduced and self.roles[role] == 1:
            return f"that {role}"
        if key not in self.introduced:
            self.introduced.add(key)
            self.roles[role] += 1
        return f"the {role} of {self.record(step, selection, path=path)}"

