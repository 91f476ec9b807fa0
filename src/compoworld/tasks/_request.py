"""What a plan asks for, in words: one item per write, with the reads it needs folded in.

A step's answer is a *record* the request refers to: "the most recent message in my mailbox"
the first time, "that message" after. A value an earlier step found is "the email address of
the sender of that message"; a value a write took from an earlier step is traced back to where
it was found ("the same name"); one the user states is quoted. Services: ``Mentions``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from compoworld.service import SEPARATOR, Environment
from compoworld.tasks._model import ArgSource, Condition, Criterion, Rule, Selection, Step
from compoworld.tasks._phrasing import (
    action,
    among,
    article,
    compare,
    family,
    literal,
    param_words,
    plural,
    relative_day,
    singular,
    split_field,
    superlative,
    type_words,
    verb_and_noun,
    words,
)
from compoworld.tasks._service_names import Mentions
from compoworld.tasks._temporal import relation
from compoworld.tasks._vocabulary import (
    BY,
    COMPANIES,
    KEPT,
    ORDINALS,
    PAST,
    PEOPLE,
    VERB_PAST,
    find,
    is_list,
    join,
    last_field,
    own_words,
    pick_key,
    subject_param,
    why,
)


class Request:
    """The words for one plan (``steps``: with a failing condition's write appended)."""

    def __init__(self, steps: list[Step], env: Environment, condition: Condition | None, *,
                 mine: bool = True, rule: Rule | None = None,
                 unless: frozenset[int] = frozenset()) -> None:
        self.steps, self.env, self.condition, self.mine = steps, env, condition, mine
        self.rule = rule  # a rule stored in the world: what it sets is never said, only where
        self.unless = unless  # steps that may be done already (a trap): asked "unless ..."
        self.mentions = Mentions(env)  # which services the request has named
        self.introduced: set[tuple[Any, ...]] = set()  # records already described in full
        self.values: Counter[str] = Counter()  # type words → distinct found values mentioned
        self.seen_values: dict[tuple[Any, ...], str] = {}
        self.subject: tuple[Any, ...] | None = None  # the record the current item is about
        self.why_said: set[str] = set()
        self.roles: Counter[str] = Counter()  # role → distinct people of that role named
        self.grouped = False  # the item being written is a whole fan-out ("for each of ...")

    # -- names ---------------------------------------------------------------------------

    def _service(self, i: int) -> str:
        return self.steps[i].tool.split(SEPARATOR, 1)[0]

    def service(self, i: int) -> str:
        """The step's service as a person names it (counted: named in full once)."""
        return self.mentions.name(self._service(i))

    def _in(self, i: int, *, known: bool = False, found: bool = False) -> str:
        """Where step ``i`` happens: " in the Apideck CRM" once, then :meth:`Mentions.where`."""
        return self.mentions.where(self._service(i), self.entity(i),
                                   {self._service(j) for j in range(len(self.steps))},
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

    # -- records -------------------------------------------------------------------------

    def _filters(self, i: int) -> str:
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
            found = source.kind != "user" and typed in ("Email", "PersonName", "Phone",
                                                        "CompanyName")
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
        origin = self._origin(source)
        if origin.step is None:
            return True
        role = split_field(last_field(origin.path), origin.semantic)[0] if origin.path else ""
        return bool(role) or self._person(origin.step) or self._company(origin.step)

    def record(self, i: int, selection: Selection | None = None, *, whole: bool = False,
               path: str | None = None) -> str:
        """What step ``i`` found or made: in full first ("the most recent message from "x" in
        my mailbox"), then "that message" (two items of one list: their superlatives again).
        ``whole``: the list itself ("the deals owned by ..."); ``path``: inside a nested list
        of a record ("deals.1.owner" with a selection: that account's deal with ...)."""
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
            return f"the {entity} you {past}{self._in(i, known=True)}"
        # A field of a record inside a list of the record ("contacts.0.email"), never an item
        # of a list of values ("phone_numbers.0": the value itself, not a record's).
        parts = (path or "").split(".")
        within = [p for p in parts[:-2 if parts[-1].isdigit() else -1] if not p.isdigit()]
        if within and not is_list(step.output):
            outer = self.record(i)
            inner = words(within[-1])
            item = singular(inner)
            if selection is not None and self._ruled(selection):
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
                not self._ruled(selection):  # the list is said already: "the oldest one of those"
            return (superlative(selection.by, selection.order, f"one of those {plural(entity)}")
                    + among(selection.among))
        nested = any(s.kind != "user" for s in step.sources.values())
        where = self._in(i, found=True) if nested else ""
        filters = self._filters(i)
        if not nested:
            where = self._in(i, found=True)
        if whole:
            return f"all the {plural(entity)}{filters}{where}"
        if selection is not None and is_list(step.output):
            if self._ruled(selection):
                return (f"the {entity}{where}{filters} that {self.rule.author}'s rule "  # type: ignore[union-attr]
                        f"says to take")
            return (f"{superlative(selection.by, selection.order, entity)}"
                    f"{among(selection.among)}{where}{filters}")
        if nested and filters != " for me":  # "the invitation for me in my calendar"
            return f"the {entity}{where}{filters}"
        return f"the {entity}{filters}{where}"

    def _ruled(self, selection: Selection) -> bool:
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
        return f"the {self.entity(i)} of {of}"

    # -- values ----------------------------------------------------------------------------

    def _origin(self, source: ArgSource) -> ArgSource:
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
        if source.kind == "user":
            text = literal(value)
            day = relative_day(value, self.env.today)
            return f"{text} ({day})" if day else text
        assert source.step is not None
        if source.kind == "rule" and source.selection is None:
            author = self.rule.author if self.rule is not None else "my colleague"
            return f"the {words(name)} {author} asked for in their email"
        if source.each:
            field = last_field(source.path)
            own = "" if field == "id" else f"the {words(field)} of "  # "tag each of ..."
            listed = self.record(source.step, whole=True)
            if self.grouped:  # "each of the messages from ...", "each of those messages"
                return f"{own}each of {listed.removeprefix('all ')}"
            item = int((source.path or "0.0").split(".")[1])
            return f"{own}the {ORDINALS[item]} of {listed}"
        if source.kind == "computed" and source.shift is not None:  # a date said relative
            on = source.path or ""
            holder = (self.record(source.step, path=on) if len(on.split(".")) < 3 else
                      self.record(source.step, source.selection, path=on))
            return f"{relation(source.shift)} the {words(last_field(on))} of {holder}"
        if source.kind == "computed":
            first = (source.paths[0] if source.paths else "amount").split(".")
            field = words(first[-1])
            if first[0] != "items" and not first[0].isdigit() and len(first) > 2:
                return (f"the sum of the {plural(field)} of all the {words(first[0])} on "
                        f"{self.record(source.step)}")
            return f"the sum of the {plural(field)} of {self.record(source.step, whole=True)}"
        mine = self._mine(value, use)
        if mine is not None:
            return mine
        source = self._origin(source)
        assert source.step is not None
        tail = last_field(source.path)
        typed = source.semantic if source.semantic not in (None, "id", "Ref") else None
        if (typed is None and type_words(semantic) is None) or tail in ("id", ""):
            if tail.endswith("_id") and tail != "id":  # "the customer of that invoice"
                return (f"the {words(tail[:-3])} of "
                        f"{self.record(source.step, source.selection, path=source.path)}")
            return self.record(source.step, source.selection, path=source.path)
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
                return self._role(source, role)
            holder = self.record(source.step, source.selection, path=source.path)
            if typed == "CompanyName" and not self._company(source.step):
                return f"the {own} of {holder}"
            return holder
        if self.subject == holder_key:
            return f"{'their' if role or self._person(source.step) else 'its'} {own}"
        if repeated:
            return f"the same {own}"
        if role:
            return f"the {own} of {self._role(source, role)}"
        return f"the {own} of {self.record(source.step, source.selection, path=source.path)}"

    def _role(self, source: ArgSource, role: str) -> str:
        """The person a field names ("the sender of that message"), "that sender" after."""
        key = ("role", source.step, pick_key(source.selection), role)
        if key in self.introduced and self.roles[role] == 1:
            return f"that {role}"
        if key not in self.introduced:
            self.introduced.add(key)
            self.roles[role] += 1
        assert source.step is not None
        return f"the {role} of {self.record(source.step, source.selection, path=source.path)}"

    def _mine(self, value: Any, use: str) -> str | None:
        """The user's own name, email, phone or company, as they say it ("my email address")."""
        return own_words(self.env.pool.user, value, use) if self.mine else None

    def _company(self, i: int) -> bool:
        return self.entity(i).split(" ")[-1] in COMPANIES

    def _person(self, i: int) -> bool:
        return self.entity(i).split(" ")[-1] in PEOPLE

    # -- items ---------------------------------------------------------------------------

    def item(self, i: int) -> str:
        step = self.steps[i]
        tool = self.env.tools[step.tool]
        verb = verb_and_noun(tool.name)[0]
        kind = family(tool.name, tool.kind)
        entity = self.entity(i)
        semantic = {p.name: p.semantic for p in tool.params}
        ref = {p.name: p.ref for p in tool.params}
        self.subject = None
        target = next((n for n in step.sources if ref.get(n)), None)
        rest = [n for n in step.sources if n != target]
        head, setting = "", False
        noun = verb_and_noun(tool.name)[1]
        structured = bool(noun) and (noun.casefold() in tool.description.casefold()
                                     or not tool.description.strip()
                                     or len(noun.split()) <= 2)
        if kind == "create" and structured:
            subject = subject_param(step, entity, semantic)
            if subject is not None:
                source = self._origin(step.sources[subject])
                role = split_field(last_field(source.path), source.semantic)[0]
                if source.semantic == "CompanyName" and source.step is not None and \
                        not self._company(source.step):
                    role = role or "company"
                who = self.value(step.sources[subject], step.arguments[subject], subject,
                                 semantic.get(subject), "who")
                self.subject = (source.step, pick_key(source.selection), role)
                rest.remove(subject)
                head = f"add {who} as {article(entity)} {entity}{self._in(i)}"
            else:
                named = next((n for n in rest if step.sources[n].kind == "user"
                              and n in ("name", "title", "subject", "display_name", "legal_name",
                                       "full_name", "company_name")), None)
                called = ""
                if named is not None:
                    rest.remove(named)
                    called = f" called {self.value(step.sources[named], step.arguments[named], named, None)}"
                on = ""
                if target is not None:
                    on = " for " + self.value(step.sources[target], step.arguments[target],
                                              target, None)
                make = verb if verb in KEPT else "create"
                head = f"{make} {article(entity)} {entity}{called}{on}{self._in(i)}"
        elif kind in ("update", "delete") and target is not None:
            what = self.value(step.sources[target], step.arguments[target], target, None)
            self.subject = ("target",)
            if verb == "tag":
                tag = rest.pop(0) if rest else None
                head = f"tag {what}" + (f" with {self._arg(step, tag, semantic)}" if tag else "")
            elif verb == "move":
                to = rest.pop(0) if rest else None
                head = f"move {what}" + (f" to {self._arg(step, to, semantic)}" if to else "")
            elif verb == "mark":
                flags = [words(n).removeprefix("is ") for n in rest
                         if step.arguments[n] is True] or [words(tool.name.partition("_")[2])]
                rest = [n for n in rest if not isinstance(step.arguments[n], bool)]
                head = f"mark {what} as {' and '.join(f for f in flags if f)}".rstrip(" as")
            elif kind == "delete":
                head = f"{verb if verb in ('cancel', 'archive', 'remove', 'revoke') else 'delete'} {what}"
            else:
                head = f"update {what}"
                setting = True
        elif kind == "send":
            to = next((n for n in rest if words(n) in ("to", "recipient", "email")), None)
            if target is not None and verb == "reply":
                what = self.value(step.sources[target], step.arguments[target], target, None)
                head = f"reply to {what}"
            else:
                head = f"send {article(entity)} {entity}{self._in(i)}"
                if to is not None:
                    rest.remove(to)
                    head += f" to {self._arg(step, to, semantic)}"
        elif kind in ("update", "delete"):
            head = f"{'update' if kind == 'update' else 'delete'} the {entity}{self._in(i)}"
            setting = kind == "update"
        else:
            place, does = self._in(i), action(tool.description, tool.name)
            # "use Twilio Numbers to check if ...": reads as a request in a list and in prose.
            head = (f"use {place.removeprefix(' in ')} to {does}" if place.startswith(" in ")
                    else does + place)
            kind = "other"
        fields = self._fields(step, rest, semantic, ref, setting=setting)
        if kind == "other" and fields.startswith(", with "):
            fields = " for " + fields.removeprefix(", with ")
        text = head + fields
        domain = self.env.services[self._service(i)].domain
        because = why(kind, entity, domain)
        last = self.condition is not None and i == len(self.steps) - 1
        if because and not last and because not in self.why_said and \
                not head.startswith("add me ") and entity.split(" ")[-1] in PEOPLE:
            self.why_said.add(because)
            text += f", {because}" if not fields else f" — {because}"
        if self.condition is not None and i == len(self.steps) - 1:
            text += self._only_if()
        return text

    def _arg(self, step: Step, name: str, semantic: dict[str, str | None]) -> str:
        return self.value(step.sources[name], step.arguments[name], name, semantic.get(name))

    def _fields(self, step: Step, names: list[str], semantic: dict[str, str | None],
                ref: dict[str, str | None], *, setting: bool = False) -> str:
        """The values a write sets: ", with the email address of ... and the start date "x""
        (``setting``: an update, ", setting its display name to ...")."""
        if not names:
            return ""
        parts: list[str] = []
        links: list[str] = []  # records the new one refers to: ", linked to the deal you added"
        for name in names:
            label = param_words(name, semantic.get(name))
            if ref.get(name):
                label = words(name).removesuffix(" ID")
            value = self._arg(step, name, semantic)
            source = step.sources[name]
            if ref.get(name) and source.kind != "user" and not setting:
                links.append(value)
            elif setting:
                parts.append(f"the {label} to {value}")
            elif source.kind == "user":
                parts.append(f"the {label} {value}")
            elif value.startswith((f"the {label} of ", f"the same {label}")) or value in (
                    f"their {label}", f"its {label}"):
                parts.append(value)  # "the email address of ...", "their phone number"
            else:
                parts.append(f"the {label} set to {value}")
        text = ", linked to " + join(links) if links else ""
        if parts:
            text += (", setting " if setting else ", with ") + join(parts)
        return text

    def _only_if(self) -> str:
        condition = self.condition
        assert condition is not None
        owner = self.record(condition.source, path=condition.path)
        if self.rule is not None and self.rule.kind == "threshold":  # never said: where it is
            dated = isinstance(condition.threshold, str)
            side = ("after" if condition.op == "gt" else "before") if dated else (
                "more than" if condition.op == "gt" else "less than")
            limit = f"the {'cutoff date' if dated else 'limit'} {self.rule.author} set in their email"
            return (f" — but only if the {words(last_field(condition.path))} of {owner} is "
                    f"{side} {limit}; otherwise leave that alone")
        clause = compare(last_field(condition.path), condition.op, condition.threshold, owner)
        return f" — but only if {clause}; otherwise leave that alone"

    def items(self) -> list[str]:
        """One item per step with an effect, in plan order; a fan-out's copies (one write per
        item of a list) are one item, "for each of" the list."""
        out = []
        copies = self._fanouts()
        for i, step in enumerate(self.steps):
            if self.env.tools[step.tool].kind != "write" or copies.get(i, i) != i:
                continue
            self.grouped = i in copies.values()
            out.append(self.item(i) + (" — unless there already is one: then leave it as it "
                                       "is and don't add a second" if i in self.unless else ""))
            self.grouped = False
        return out

    def _fanouts(self) -> dict[int, int]:
        """Each fan-out copy's first copy: consecutive writes of one tool whose values come
        from the items of one list (``ArgSource.each``), none of them a trap's."""
        first: dict[int, int] = {}
        run: list[int] = []

        def lists(i: int) -> set[int | None]:
            return {s.step for s in self.steps[i].sources.values() if s.each}

        for i, step in enumerate(self.steps):
            if run and step.tool == self.steps[run[0]].tool and lists(i) == lists(run[0]):
                run.append(i)
                continue
            if len(run) > 1 and not self.unless & set(run):
                first.update((j, run[0]) for j in run)
            run = [i] if lists(i) else []
        if len(run) > 1 and not self.unless & set(run):
            first.update((j, run[0]) for j in run)
        return first

    def report(self, answer: Criterion | None) -> str | None:
        """"tell me the phone number of ...", for what the user asks to be told."""
        if answer is None or not answer.semantic or not answer.values:
            return None
        last = answer.step if answer.step is not None else len(self.steps) - 1
        output = self.steps[last].output
        path = find(output, answer.values[0], answer.selection is not None)
        kind = type_words(answer.semantic) or words(answer.semantic)
        role, own = split_field(last_field(path), answer.semantic) if path else ("", kind)
        source = ArgSource(kind="step", step=last, path=path, selection=answer.selection)
        if role:
            return f"tell me the {own} of {self._role(source, role)}."
        return f"tell me the {own} of {self.record(last, answer.selection, path=path)}."
