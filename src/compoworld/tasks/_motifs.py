"""Workflow motifs: what people do across services, the shape a walk must take.

A random walk over the dependency graph can join any tool to any other that takes a value it
found; most such chains are nothing anyone would ask for. A *motif* is a piece of real work —
"follow up a bill with the person it is for", "notify everyone on a list", "sync a won deal
into billing" — written as a short sequence of :class:`Stage` s. A stage says what kind of
step comes next in terms every service shares, hand-written or compiled:

* its **kind** and **operation**: a read that *lists* or *gets*, a write that *creates*,
  *updates* or *deletes* (:func:`operation`: from the tool's name, ``verb_noun`` by the house
  style and the compiler alike, and the shape of its answer; a write's journal confirms it);
* the **semantic types** it finds (a read whose answer holds ``Money`` and ``Date``: a bill,
  an invoice, a payment) or takes from an earlier step (a write given an ``Email`` found
  before: a message, an invitation, an account for that person);
* the **role** of what it takes, from the field the value was found in (an ``owner`` or
  ``assignee``: the person responsible; see ``tasks._fill._role``);
* whether it must be in a **service its piece of work has not touched yet** (the work
  crosses over).

A stage repeats (``repeat=(low, high)``; ``low == 0`` makes it optional) and a write stage may
be done **for each** item of a list found earlier (``each``: a fan-out). Never a service's
name: a motif applies to any catalog whose tools have the shape.

The walk (:func:`compoworld.tasks._walk.walk`) draws one motif per attempt among those whose
fewest steps fit in the length drawn (:func:`draw_motif`), and takes only steps that fit its
next stage: a step that fits no stage is not taken. The task records the motif
(``Task.provenance["motif"]``) and the instruction states its purpose (:attr:`Motif.purposes`,
one sentence drawn per task). A walk that has done its motif short of its length goes on with
more pieces of work in turn: ``Motif.then`` (:func:`continued`).

Example:
    >>> motif = MOTIFS["notify-affected"]
    >>> [s.kind for s in motif.stages]
    ['read', 'read', 'write']
    >>> motif.lengths
    (2, 8)
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from compoworld.errors import UserError
from compoworld.graph import Node
from compoworld.tasks._diff import Net, kind_of

Operation = Literal["list", "get", "create", "update", "delete"]
"""What a step does: a read lists records or gets one; a write creates, updates or deletes."""

MotifName = Literal["follow-up-bill", "onboard-person", "mail-and-calendar", "sync-won-deal",
                    "triage-to-owners", "reconcile-amounts", "notify-affected",
                    "sync-contact-details", "offboard-person"]
"""The motifs of :data:`MOTIFS` (a task's ``provenance["motif"]``)."""

READS: frozenset[Operation] = frozenset({"list", "get"})
CREATE: frozenset[Operation] = frozenset({"create"})
CHANGE: frozenset[Operation] = frozenset({"update"})
REMOVE: frozenset[Operation] = frozenset({"delete", "update"})  # an archive is an update
PERSON = frozenset({"Email", "Phone", "PersonName"})
PARTY = PERSON | {"CompanyName"}
REACH = frozenset({"Email", "Phone"})
RECORD = frozenset({"id"})
"""A reference to a record an earlier step found (what ``ArgSource.semantic`` says of an id)."""
TALK = frozenset({"communication", "productivity", "support"})
"""Where one reaches a person: a message, a task, a ticket."""
MONEY = frozenset({"finance", "sales", "commerce"})
"""Where amounts owed and earned live."""
PEOPLE = frozenset({"hr", "people", "developer", "productivity", "communication"})
"""Where a person gets a record, an account or an invitation."""
OWNERS = frozenset({"owner", "assignee", "assigned", "agent", "manager", "responsible",
                    "assigned_to", "owner_id", "lead"})
"""Roles (field words) of the person responsible for a record."""
RECIPIENTS = frozenset({"to", "cc", "bcc", "recipient", "recipients", "attendee", "attendees",
                        "invitee", "invitees", "participant", "participants", "guest", "guests",
                        "assignee", "assignees", "assigned", "mention", "mentions", "member",
                        "members"})
"""Roles (field words) of whom a write reaches: a message's recipients, an event's attendees,
whoever a task or a ticket is assigned to, a comment's mentions, a project's members."""


@dataclass(frozen=True)
class Stage:
    """One kind of step a motif takes (see the module's docstring).

    Attributes:
        kind: ``"read"`` or ``"write"``.
        ops: The operations that fit.
        finds: Types a read's answer must all hold (a bill: ``Money`` and ``Date``).
        takes: Types one of which the step must be given from an earlier step (``"id"``: a
            reference to a record found earlier; empty: any found value — every step after
            the first takes one).
        roles: Roles (words of the field it was found in) the taken value must have (empty:
            any).
        new_service: The step is in a service its piece of work has not touched yet (a
            later piece of a chain, :attr:`Motif.then`, may go on where an earlier one was).
        repeat: How many steps in a row this stage takes (low 0: optional).
        each: A write done for each item of a list found earlier (a fan-out, where the plan
            allows it).
        domains: The catalog domains (``Service.domain``: "communication", "finance", ...)
            its service may have (empty: any) — what kind of system it is, never which one.
    """

    kind: Literal["read", "write"]
    ops: frozenset[Operation]
    finds: frozenset[str] = frozenset()
    takes: frozenset[str] = frozenset()
    roles: frozenset[str] = frozenset()
    new_service: bool = False
    repeat: tuple[int, int] = (1, 1)
    each: bool = False
    domains: frozenset[str] = frozenset()

    def admits(self, node: Node, op: Operation, domain: str) -> bool:
        """Whether a tool can fit this stage, before any call: its kind, operation, types and
        its service's ``domain``."""
        if node.kind != self.kind or op not in self.ops:
            return False
        if self.domains and domain not in self.domains:
            return False
        outputs, inputs = _types(node)
        if self.finds and not self.finds <= outputs:
            return False
        return not self.takes or bool(self.takes & inputs)

    def fits(self, taken: list[tuple[str, str]]) -> bool:
        """Whether a filled step fits: ``taken`` holds (semantic type, role) of each value it
        was given from an earlier step."""
        return any((not self.takes or semantic in self.takes)
                   and (not self.roles or role in self.roles or any(
                       word in self.roles for word in role.split("_")))
                   for semantic, role in taken) if (self.takes or self.roles) else True


_TYPES: dict[str, tuple[Node, frozenset[str], frozenset[str]]] = {}


def _types(node: Node) -> tuple[frozenset[str], frozenset[str]]:
    """The semantic types a tool returns and takes (computed once per tool)."""
    found = _TYPES.get(node.name)
    if found is None or found[0] is not node:
        found = _TYPES[node.name] = (
            node, frozenset(k[1] for k in node.outputs if k[0] == "type"),
            frozenset(k[1] if k[0] == "type" else "id" for k in node.inputs.values()
                      if k is not None))
    return found[1], found[2]


@dataclass(frozen=True)
class Motif:
    """A piece of work across services: its stages, in order, and why someone does it.

    Attributes:
        name: Its name (:data:`MotifName`).
        summary: One line for the docs and the viewer.
        stages: The steps it takes, in order.
        purposes: Sentences the user may open with (one drawn per task): they say why, and
            claim nothing the plan does not show.
    """

    name: MotifName
    summary: str
    stages: tuple[Stage, ...]
    purposes: tuple[str, ...]
    then: Motif | None = None
    """A second piece of work on what this one found (:func:`draw_motif` for long walks):
    its stages follow this one's."""

    @property
    def names(self) -> list[MotifName]:
        """The motifs followed, in order (what a task records)."""
        return [self.name, *(self.then.names if self.then is not None else [])]

    @property
    def all_stages(self) -> tuple[Stage, ...]:
        """This motif's stages, then those of :attr:`then`."""
        return self.stages + (self.then.all_stages if self.then is not None else ())

    @property
    def lengths(self) -> tuple[int, int]:
        """The fewest and most steps a walk of this motif takes (before fan-outs)."""
        return (sum(s.repeat[0] for s in self.all_stages),
                sum(s.repeat[1] for s in self.all_stages))

    def purpose(self, rng: random.Random) -> str:
        return rng.choice(self.purposes)


def _read(finds: frozenset[str] = frozenset(), ops: frozenset[Operation] = READS,
          **kw: Any) -> Stage:
    return Stage("read", ops, finds=finds, **kw)


def _write(ops: frozenset[Operation], **kw: Any) -> Stage:
    return Stage("write", ops, **kw)


_MOTIFS = (
    Motif("follow-up-bill", "Find a bill (an amount and a date), look up who it is for, and "
          "follow it up with them in another service.",
          (_read(frozenset({"Money", "Date"}), repeat=(1, 2)),
           _read(PERSON, takes=PARTY, repeat=(0, 2)),
           _write(CREATE, takes=PARTY, new_service=True, repeat=(1, 3), each=True,
                  domains=TALK),
           _write(CHANGE, takes=RECORD, repeat=(0, 2), domains=MONEY)),
          ("One of our bills needs following up, so I want to get in touch with whoever it's "
           "for.", "I'm chasing up a payment and want to make sure the right person hears "
           "from us.", "There's an amount outstanding that I need to follow up on.")),
    Motif("onboard-person", "Take a person found in one service (a hire, a new contact) and "
          "give them a record, an account or an invitation in others.",
          (_read(frozenset({"PersonName", "Email"}), repeat=(1, 2)),
           _write(CREATE, takes=PERSON, new_service=True, repeat=(1, 3), domains=PEOPLE),
           _read(repeat=(0, 2)),
           _write(CREATE | CHANGE, takes=PERSON, repeat=(0, 3), each=True,
                  domains=PEOPLE | TALK)),
          ("Someone new is joining us, and I want them set up everywhere they need to be.",
           "I'm onboarding someone and need their details carried over.",
           "We've got a new person to bring on board, so their records need setting up.")),
    Motif("mail-and-calendar", "From a message or an event (an email address and a time), "
          "write back, book or invite in another service.",
          (_read(frozenset({"Email", "DateTime"}), repeat=(1, 2)),
           _read(takes=PERSON, repeat=(0, 2)),
           _write(CREATE | CHANGE, takes=PERSON, new_service=True, repeat=(1, 3), each=True,
                  domains=TALK),
           _write(CREATE, takes=PERSON, repeat=(0, 2), domains=TALK)),
          ("I need to sort out some scheduling and get back to the people involved.",
           "Something came up in my inbox and calendar that I need to act on.",
           "I'm lining up a meeting and the replies that go with it.")),
    Motif("sync-won-deal", "A deal or order (a company and an amount) moves into billing or "
          "accounts: create what it needs there, then update what follows.",
          (_read(frozenset({"CompanyName", "Money"}), repeat=(1, 2), domains=MONEY),
           _read(takes=PARTY, repeat=(0, 2)),
           _write(CREATE, takes=PARTY, new_service=True, repeat=(1, 2), each=True,
                  domains=MONEY | {"support"}),
           _write(CREATE | CHANGE, takes=PARTY | RECORD, repeat=(0, 3),
                  domains=MONEY | {"support"})),
          ("We've closed a deal and I want it carried through to the rest of our systems.",
           "A sale has come through, so the billing side needs to catch up.",
           "I'm making sure a won deal is set up properly everywhere.")),
    Motif("triage-to-owners", "Go through a list of records and route them to the people "
          "responsible (owners, assignees): assign, then tell them.",
          (_read(frozenset({"Email"}), ops=frozenset({"list"}), repeat=(1, 2)),
           _read(takes=PERSON, roles=OWNERS, repeat=(0, 2)),
           _write(CHANGE | CREATE, takes=PERSON, roles=OWNERS, repeat=(1, 3), each=True),
           _write(CREATE, takes=REACH, new_service=True, repeat=(0, 3), each=True,
                  domains=TALK)),
          ("I'm triaging what's come in and want each item with the person who owns it.",
           "Things are piling up, so I want them routed to the right owners.",
           "I'm going through the queue and handing things to whoever is responsible.")),
    Motif("reconcile-amounts", "Check amounts in one service (payments, invoices, deals) "
          "against the same customer's records in another, and record what follows.",
          (_read(frozenset({"Money"}), repeat=(1, 2), domains=MONEY),
           _read(takes=PARTY, new_service=True, repeat=(1, 2), domains=MONEY | {"support"}),
           _read(repeat=(0, 2)),
           _write(CREATE | CHANGE, takes=PARTY | RECORD, repeat=(1, 3), each=True,
                  domains=MONEY | {"support"})),
          ("I'm reconciling our numbers between two systems.",
           "The amounts in our records need checking against each other, and updating.",
           "I'm doing a reconciliation pass before the end of the period.")),
    Motif("notify-affected", "Something changed: find everyone it affects and tell each of "
          "them in another service.",
          (_read(repeat=(1, 3)),
           _read(REACH, takes=PARTY, repeat=(0, 2)),
           _write(CREATE, takes=REACH, new_service=True, repeat=(1, 3), each=True,
                  domains=TALK)),
          ("Something has changed, and everyone it affects needs to hear about it.",
           "I need to let the people involved know about an update.",
           "A change has gone through, so I'm getting word out to those affected.")),
    Motif("sync-contact-details", "A person's or company's details in one service are the "
          "reference: bring another service's record in line, then log it.",
          (_read(PARTY, repeat=(1, 3)),
           _write(CHANGE | CREATE, takes=PARTY, new_service=True, repeat=(1, 3), each=True),
           _read(takes=PARTY, repeat=(0, 2)),
           _write(CHANGE | CREATE, takes=PARTY, repeat=(0, 3))),
          ("Our records have drifted apart, so I'm bringing them back in line.",
           "I'm cleaning up our contact records across the tools we use.",
           "Some details need carrying over so everything matches.")),
    Motif("offboard-person", "Someone leaves or a relationship ends: find their records and "
          "close, archive or remove them, telling whoever needs to know.",
          (_read(frozenset({"Email"}), repeat=(1, 2)),
           _read(takes=PERSON, new_service=True, repeat=(1, 2)),
           _write(REMOVE, takes=PARTY | RECORD, repeat=(1, 3), each=True),
           _read(takes=PARTY, repeat=(0, 2)),
           _write(REMOVE, takes=PARTY | RECORD, repeat=(0, 2)),
           _write(CREATE, takes=REACH, repeat=(0, 1), domains=TALK)),
          ("Someone is leaving us, so their records need closing out.",
           "A relationship has ended and I want things wrapped up properly.",
           "I'm tidying up after someone who's moved on.")),
)

MOTIFS: dict[str, Motif] = {m.name: m for m in _MOTIFS}
"""Every motif, by name."""


def motif(name: str) -> Motif:
    """The motif called ``name``.

    Raises:
        UserError: No motif has that name (the message lists them).
    """
    try:
        return MOTIFS[name]
    except KeyError:
        raise UserError(f"no motif {name!r} (motifs: {', '.join(MOTIFS)})") from None




def draw_motif(rng: random.Random, length: int,
               fits: Callable[[Stage], bool] | None = None) -> Motif:
    """The first motif a walk of ``length`` steps follows: uniform among those that need no
    more steps than that (one whose most steps fall short of ``length`` is followed by more
    pieces of work, :func:`continued`; drawing only motifs whose most steps reach a long
    length would give nearly every long walk the one loosest motif). With ``fits``, only motifs
    with a stage it accepts are drawn where there are any (a walk aiming at a tool follows a
    motif that tool has a place in)."""
    drawn = [m for m in _MOTIFS if m.lengths[0] <= length] or list(_MOTIFS)
    if fits is not None:
        drawn = [m for m in drawn if any(map(fits, m.stages))] or drawn
    return rng.choice(drawn)


MAX_PIECES = 3
"""The most motifs one walk follows in turn (:func:`continued`)."""


def continued(motif: Motif, rng: random.Random,
              opens: Callable[[Stage], bool], tried: frozenset[str] = frozenset()
              ) -> Motif | None:
    """``motif`` with one more piece of work after its last: drawn uniformly among the motifs
    other than the last one followed (and than those ``tried`` here before) whose first stage
    ``opens`` accepts (a step the walk can take now fits it). How a walk that finished its
    pieces before its length goes on, on what it found, instead of stopping short. None past
    :data:`MAX_PIECES` or where none opens."""
    names = motif.names
    if len(names) >= MAX_PIECES:
        return None
    options = [m for m in _MOTIFS if m.name != names[-1] and m.name not in tried
               and opens(m.stages[0])]
    return _appended(motif, rng.choice(options)) if options else None


def without_last(motif: Motif) -> Motif:
    """``motif``'s chain of pieces without its last one (the first piece stays).

    Example:
        >>> long = _appended(MOTIFS["notify-affected"], MOTIFS["offboard-person"])
        >>> without_last(long).names
        ['notify-affected']
    """
    if motif.then is None:
        return motif
    if motif.then.then is None:
        return dataclasses.replace(motif, then=None)
    return dataclasses.replace(motif, then=without_last(motif.then))


def _appended(motif: Motif, extra: Motif) -> Motif:
    then = extra if motif.then is None else _appended(motif.then, extra)
    return dataclasses.replace(motif, then=then)


_CREATE_VERBS = frozenset({"create", "add", "insert", "send", "book", "invite", "log", "record",
                           "reply", "forward", "post", "provision", "batch", "run", "report",
                           "schedule", "new", "upload", "submit", "issue", "register", "import"})
_DELETE_VERBS = frozenset({"delete", "delet", "remove", "void", "clear", "destroy", "purge"})


def operation(name: str, kind: str, lists: bool) -> Operation:
    """What tool ``name`` (``service__verb_noun``) of ``kind`` does, from its verb and, for a
    read, whether its answer is a list of records (``lists``): list/get, create/update/delete.

    Example:
        >>> operation("mail__send_email", "write", False), operation("crm__get_deal", "read", False)
        ('create', 'get')
    """
    verb = name.split("__", 1)[-1].split("_", 1)[0]
    if kind == "read":
        return "list" if lists or verb in ("list", "search", "find") else "get"
    if verb in _DELETE_VERBS:
        return "delete"
    return "create" if verb in _CREATE_VERBS else "update"


def tool_operation(node: Node) -> Operation:
    """:func:`operation` of a graph node."""
    return operation(node.name, node.kind, node.lists)


def journal_operations(net: Net) -> set[Operation]:
    """What a write's net changes did (:func:`compoworld.tasks._diff.net_changes`): records
    created, updated, deleted."""
    return {kind_of(before, after) for before, after in net.values()}
