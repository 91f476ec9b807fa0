"""What a plan asks for, in words: one item per write, with the reads it needs folded in.

Two stages build the words, in order: :class:`~compoworld.tasks._record_names.RecordNames`
names the records the steps find or make ("the most recent message in my mailbox", then "that
message"), and :class:`~compoworld.tasks._value_words.ValueWords`, built on it, gives each
value ("the email address of the sender of that message", "the same name", a quoted value the
user states). A :class:`Request` puts them into items: one per write, a fan-out's copies as
one, with the condition, the trap's "unless" and the report back.
"""

from __future__ import annotations

from compoworld.service import Environment
from compoworld.tasks._model import Condition, Criterion, Rule, Step
from compoworld.tasks._phrasing import (
    action,
    article,
    compare,
    family,
    param_words,
    split_field,
    type_words,
    verb_and_noun,
    words,
)
from compoworld.tasks._record_names import RecordNames
from compoworld.tasks._value_words import ValueWords
from compoworld.tasks._vocabulary import (
    KEPT,
    PEOPLE,
    find,
    join,
    last_field,
    pick_key,
    subject_param,
    why,
)


class Request:
    """The words for one plan (``steps``: with a failing condition's write appended)."""

    def __init__(self, steps: list[Step], env: Environment, condition: Condition | None, *,
                 mine: bool = True, rule: Rule | None = None,
                 unless: frozenset[int] = frozenset()) -> None:
        self.steps, self.env, self.condition = steps, env, condition
        self.rule = rule  # a rule stored in the world: what it sets is never said, only where
        self.unless = unless  # steps that may be done already (a trap): asked "unless ..."
        self.names = RecordNames(steps, env, rule)  # first: the records
        self.words = ValueWords(self.names, mine=mine)  # then the values, "of" those records
        self.why_said: set[str] = set()

    # -- items ---------------------------------------------------------------------------

    def item(self, i: int) -> str:
        step = self.steps[i]
        tool = self.env.tools[step.tool]
        verb = verb_and_noun(tool.name)[0]
        kind = family(tool.name, tool.kind)
        entity = self.names.entity(i)
        semantic = {p.name: p.semantic for p in tool.params}
        ref = {p.name: p.ref for p in tool.params}
        self.words.subject = None
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
                source = self.words.origin(step.sources[subject])
                role = split_field(last_field(source.path), source.semantic)[0]
                if source.semantic == "CompanyName" and source.step is not None and \
                        not self.names.company(source.step):
                    role = role or "company"
                who = self.words.value(step.sources[subject], step.arguments[subject], subject,
                                 semantic.get(subject), "who")
                self.words.subject = (source.step, pick_key(source.selection), role)
                rest.remove(subject)
                head = f"add {who} as {article(entity)} {entity}{self.names.where(i)}"
            else:
                named = next((n for n in rest if step.sources[n].kind == "user"
                              and n in ("name", "title", "subject", "display_name", "legal_name",
                                       "full_name", "company_name")), None)
                called = ""
                if named is not None:
                    rest.remove(named)
                    said = self.words.value(step.sources[named], step.arguments[named], named,
                                            None)
                    called = f" called {said}"
                on = ""
                if target is not None:
                    on = " for " + self.words.value(step.sources[target], step.arguments[target],
                                              target, None)
                make = verb if verb in KEPT else "create"
                head = f"{make} {article(entity)} {entity}{called}{on}{self.names.where(i)}"
        elif kind in ("update", "delete") and target is not None:
            what = self.words.value(step.sources[target], step.arguments[target], target, None)
            self.words.subject = ("target",)
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
                what = self.words.value(step.sources[target], step.arguments[target], target, None)
                head = f"reply to {what}"
            else:
                head = f"send {article(entity)} {entity}{self.names.where(i)}"
                if to is not None:
                    rest.remove(to)
                    head += f" to {self._arg(step, to, semantic)}"
        elif kind in ("update", "delete"):
            head = f"{'update' if kind == 'update' else 'delete'} the {entity}{self.names.where(i)}"
            setting = kind == "update"
        elif target is not None:  # done to a record found: "complete the task assigned to ..."
            what = self.words.value(step.sources[target], step.arguments[target], target, None)
            self.words.subject = ("target",)
            head, kind = f"{verb} {what}", "other"
        else:
            place, does = self.names.where(i), action(tool.description, tool.name)
            # "use Twilio Numbers to check if ...": reads as a request in a list and in prose.
            head = (f"use {place.removeprefix(' in ')} to {does}" if place.startswith(" in ")
                    else does + place)
            kind = "other"
        fields = self._fields(step, rest, semantic, ref, setting=setting)
        if kind == "other" and fields.startswith(", with "):
            fields = " for " + fields.removeprefix(", with ")
        text = head + fields
        domain = self.env.services[self.names.service_of(i)].domain
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
        return self.words.value(step.sources[name], step.arguments[name], name, semantic.get(name))

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
            self.words.setting = label if setting else None
            value = self._arg(step, name, semantic)
            self.words.setting = None
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
        owner = self.names.record(condition.source, path=condition.path)
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
            self.words.grouped = i in copies.values()
            self.names.lead_ins = []
            out.append(self._led(self.item(i)) + (" — unless there already is one: then leave it as it "
                                       "is and don't add a second" if i in self.unless else ""))
            self.words.grouped = False
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
        self.names.lead_ins = []
        if role:
            said = f"tell me the {own} of {self.names.role(last, answer.selection, path, role)}."
        else:
            said = f"tell me the {own} of {self.names.record(last, answer.selection, path=path)}."
        return self._led(said, ", and ")

    def _led(self, text: str, then: str = "; then ") -> str:
        """``text`` after the reads the names looked up on their own ("find the deal ...;
        then add ..."): a description goes at most ``CHAIN`` records deep."""
        leads, self.names.lead_ins = self.names.lead_ins, []
        return f"find {' and '.join(leads)}{then}{text}" if leads else text
