"""The executed random walk: a reference plan whose every call really ran on the world.

Links (which earlier value may fill a parameter) follow :func:`compoworld.tasks._context.carries`:
within a service any identifying value (a reference, an email, a number...), across services
only the identifying types of ``LINK_TYPES`` (an email, a phone, a person's or company's name,
an address).

Every walk follows a workflow motif (:mod:`compoworld.tasks._motifs`), drawn per attempt: a
step is taken only where it fits the motif's next stage, and steps that can use what a read
found that nothing used yet come first (a read is taken for what it finds; an unused one is
pruned from the plan). Among candidate tools, those many others can feed (a send-an-email
that any address reaches) are drawn less often (:func:`compoworld.tasks._choices.spread`):
weights from the graph alone, so the same seed and attempt give the same walk in any process.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from faker import Faker

from compoworld.catalog import load_service
from compoworld.graph import Key, extract_facts
from compoworld.service import SEPARATOR, Change, trial
from compoworld.tasks._choices import admits, draw_target, spread, toward
from compoworld.tasks._context import Context, linked
from compoworld.tasks._diff import net_changes, undoes
from compoworld.tasks._fill import Known, fill_step, path_role
from compoworld.tasks._model import ArgSource, Selection, Step
from compoworld.tasks._motifs import (
    MAX_PIECES,
    Motif,
    continued,
    draw_motif,
    journal_operations,
    without_last,
)
from compoworld.tasks._removed import copies_removed
from compoworld.tasks._roles import misuses_user, renames_person
from compoworld.tasks._values import selections, singles_out, unfiltered_list, unidentified_record
from compoworld.tasks._write_purpose import purposeful


@dataclass
class Walk:
    """A walk in progress: the steps so far, what they made known, and each step's changes
    (a later step may not undo them)."""

    steps: list[Step] = field(default_factory=list)
    known: list[Known] = field(default_factory=list)
    by_key: dict[Key, list[Known]] = field(default_factory=dict)
    services: list[str] = field(default_factory=list)
    changes: list[list[Change]] = field(default_factory=list)
    picks: list[dict[tuple[str, int], Selection]] = field(default_factory=list)
    broken: bool = False
    motif: Motif | None = None
    stages: list[int] = field(default_factory=list)
    """Per step, the index of the motif's stage it fits."""
    target: str | None = None
    """The tool the walk aims at (:func:`compoworld.tasks._choices.draw_target`)."""
    aim: dict[str, int] = field(default_factory=dict)
    """The target (0) and the tools that feed it (1)."""
    piece_starts: list[int] = field(default_factory=list)
    """Per piece of work after the first, the index of its first step."""
    dropped: set[str] = field(default_factory=set)
    """Motifs of pieces the walk started, could not finish and undid."""
    stopped: str = ""
    """Why the walk took no more steps (a key of ``_walk_outcomes.STOPS``; set by :func:`_extend`)."""
    refusals: dict[str, int] = field(default_factory=dict)
    origins: dict[tuple[int, str], tuple[str, str]] = field(default_factory=dict)
    """Where the value a step found at a path was first found (``tasks._roles.found_in``, which
    reads that step and earlier ones only): kept while the step is."""
    """At the last step the walk could not take: how many candidates each reason refused
    (keys of ``_walk_outcomes.OUTCOMES``)."""

    def stage_count(self) -> tuple[int, int]:
        """The current stage's index and how many steps in a row fit it (-1, 0: none yet)."""
        if not self.stages:
            return -1, 0
        current = self.stages[-1]
        return current, sum(1 for i in self.stages if i == current)

    def options(self) -> list[int]:
        """The stages the next step may fit: the current one while it may repeat, and the
        following ones up to the first the motif requires."""
        if self.motif is None:
            return []
        stages = self.motif.all_stages
        current, count = self.stage_count()
        found = []
        if current >= 0 and count < stages[current].repeat[1]:
            found.append(current)
        if current >= 0 and count < stages[current].repeat[0]:
            return found
        for index in range(current + 1, len(stages)):
            found.append(index)
            if stages[index].repeat[0] > 0:
                break
        return found

    def _done(self, end: int) -> bool:
        """Whether the stages before ``end`` that the walk has reached are all done (the
        current stage's low count reached, none required left before ``end``)."""
        assert self.motif is not None
        current, count = self.stage_count()
        return current < end and count >= self.motif.all_stages[current].repeat[0] and all(
            s.repeat[0] == 0 for s in self.motif.all_stages[current + 1:end])

    def followed(self) -> list[str]:
        """The motifs (of the chain ``Motif.then``) whose required stages the walk has all
        done: what the task records. A second piece left unfinished is not one of them (its
        reads are pruned from the plan; a write it made is a step of its stage)."""
        if self.motif is None or not self.stages:
            return []
        done: list[str] = []
        end = 0
        piece_: Motif | None = self.motif
        while piece_ is not None:
            end += len(piece_.stages)
            if self.stages[-1] >= end or self._done(end):
                done.append(piece_.name)
            piece_ = piece_.then
        return done

    def complete(self) -> bool:
        """Whether the walk has done its first motif's required stages (and so follows a
        motif)."""
        return bool(self.followed())

    def piece_services(self) -> set[str]:
        """The services the current piece of work has touched: a stage's ``new_service`` is
        one this piece has not (a later piece crosses over from where it began, and may go on
        in a service an earlier piece wrote to — else a walk at its most services could take
        up no other piece that crosses over)."""
        return set(self.services[self.piece_starts[-1] if self.piece_starts else 0:])

    @property
    def fans_out(self) -> bool:
        """Whether a step fits a stage the motif does for each item of a list."""
        return self.motif is not None and any(self.motif.all_stages[i].each for i in self.stages)


def walk(ctx: Context, rng: random.Random, fake: Faker, length: int,
         max_services: int = 7, motif: Motif | None = None,
         trace: list[tuple[str, str]] | None = None) -> Walk | None:
    """Walk about ``length`` executed steps over the catalog (on ``ctx.work``, which the
    caller has reset) in the shape of a workflow motif drawn for that length
    (:func:`compoworld.tasks._motifs.draw_motif`), crossing services where it can; None unless
    the walk completes its motif's required stages and spans two services or more.

    The start is a read that fits the motif's first stage, the user can anchor, and from which
    a link leaves its service within two steps, its service drawn first
    (:meth:`Context.draw_starts`: every service with a start is as likely; anchored starts
    first within one); each next step fits the motif's next stage and needs an argument an
    earlier answer holds (those that can use a read's answer nothing used yet first), the
    candidates of different services interleaved (a service with many tools gets no more
    tries than one with few) and weighted against tools many others feed. A failed call, or
    one that would undo what an earlier step did, is not taken: the next candidate is tried
    instead.

    The walk goes past ``length`` while its motif's required stages are not all done, and
    stops short of it when no step fits the motif's next stages. ``motif`` fixes the motif
    (default: drawn with ``rng``). ``trace``, where given, gets what became of each start
    considered, in order (``(tool, outcome)``, ``_walk_outcomes.OUTCOMES``); it changes no draw.
    """
    target = draw_target(ctx, rng)
    if motif is None:
        motif = draw_motif(rng, length, lambda stage: admits(ctx, stage, target, set()))
    first = motif.all_stages[0]
    near = toward(ctx, target)
    tries = 0
    starts = ctx.draw_starts(rng, len(ctx.starts))
    aimed = ctx.graph.nodes[target].service
    # Stable: the aim, then starts that feed it or share its service, then the drawn order
    # (a start two links away is nearly any start on a large catalog: it says nothing).
    starts.sort(key=lambda n: min(near.get(n, 2), 1 if ctx.graph.nodes[n].service == aimed
                                  else 2))
    why: list[str] | None = None if trace is None else []
    for name in starts:
        if not admits(ctx, first, name, set()):
            if trace is not None:
                trace.append((name, "motif"))
            continue
        current = Walk(motif=motif, target=target,
                       aim={n: d for n, d in near.items() if d <= 1})
        if not _try_step(ctx, current, name, rng, fake, need_source=False, stages=[0],
                         why=why):
            if trace is not None and why:
                trace.append((name, why.pop()))
            continue
        _extend(ctx, current, rng, fake, length, max_services)
        if trace is not None:
            trace.append((name, _outcome(current)))
        if (not current.broken and len(set(current.services)) >= 2 and len(current.steps) >= 2
                and current.complete()):
            return current
        tries += 1
        if tries == _RESTARTS:
            break
        ctx.work.reset()  # backtrack to the start: the next start on the initial state
    return None


_RESTARTS = 4
"""Starts a walk tries before it gives up (each after one that could not leave its service)."""

def _outcome(walk_: Walk) -> str:
    """What became of a walk extended from a start (a key of ``_walk_outcomes.OUTCOMES``)."""
    if walk_.broken:
        return "broken"
    if len(walk_.steps) < 2:
        return "alone"
    if len(set(walk_.services)) < 2:
        return "one-service"
    return "kept" if walk_.complete() else "incomplete"


def _extend(ctx: Context, current: Walk, rng: random.Random, fake: Faker, length: int,
            max_services: int) -> None:
    graph = ctx.graph
    assert current.motif is not None
    # Still in one service at the drawn length, or ending on a read nothing used (the plan
    # would prune it): up to two more steps. Past the length while the motif's required
    # stages are not done.
    while not current.broken and len(current.steps) < length + _SPARE and (
            _kept(ctx, current) < length or not current.complete()
            or (len(current.steps) < length + 2 and (
                len(set(current.services)) < 2 or _open_last_read(ctx, current)))):
        options = current.options()
        if not options and not _go_on(ctx, current, rng, length, max_services):
            break  # _go_on said why
        options = current.options()
        used = {s.tool for s in current.steps}
        touched = set(current.services)
        own = current.piece_services()
        fitting: dict[str, list[int]] = {}
        for n in sorted(ctx.next_tools(used)):
            if n in used or not (graph.nodes[n].service in touched
                                 or len(touched) < max_services) or any(
                    key is None or key not in current.by_key for key in ctx.needs[n]):
                continue  # used, past the services allowed, or an id it needs never found
            stages = [i for i in options if admits(ctx, current.motif.all_stages[i], n, own)]
            if stages:
                fitting[n] = stages
        candidates = spread(ctx, sorted(fitting), rng)
        # A read is taken for what it finds: steps that can use an answer nothing used yet come
        # first (else the plan prunes that read). Until the walk leaves its first service,
        # steps that can lead out come first.
        fed = _fed_by_open_reads(ctx, current)
        alone = len(touched) < 2
        rank: dict[str, int] = {}  # a candidate's place among its service's candidates
        ranks = {}
        for n in candidates:
            service = graph.nodes[n].service
            ranks[n] = rank[service] = rank.get(service, -1) + 1
        aim = _aim(current, used)
        candidates.sort(key=lambda n: (aim.get(n, 2), n not in fed,
                                       graph.nodes[n].service in touched,
                                       alone and n not in ctx.leaves, ranks[n]))
        refusals: list[str] = []
        if not any(_try_step(ctx, current, n, rng, fake, need_source=True, stages=fitting[n],
                             why=refusals)
                   for n in candidates[:40]):
            current.refusals = dict(Counter(refusals))
            if not _go_on(ctx, current, rng, length, max_services):
                current.stopped = ("refused/" if candidates else "no-candidate/") + current.stopped
                break
    else:
        current.stopped = ("broken" if current.broken else "spare"
                           if len(current.steps) >= length + _SPARE else "length")


_SPARE = 6
"""Steps a walk may take past its length (reads the plan may prune, steps to leave its first
service): past them it stops whatever its plan holds."""


def _kept(ctx: Context, walk_: Walk) -> int:
    """The steps of the walk its plan keeps (``tasks._generate._prune``): its writes and the
    reads they draw from, directly or not. A walk counts its length in these: a read nothing
    uses is pruned, so it is no step of the task."""
    steps = walk_.steps
    keep = {i for i, s in enumerate(steps) if ctx.graph.nodes[s.tool].kind == "write"}
    for i in range(len(steps) - 1, -1, -1):
        if i in keep:
            keep |= {src.step for src in steps[i].sources.values() if src.step is not None}
    return len(keep)


def _go_on(ctx: Context, walk_: Walk, rng: random.Random, length: int,
           max_services: int) -> bool:
    """Whether a walk short of ``length`` that can take no step of its motif goes on with one
    more piece of work (:func:`compoworld.tasks._motifs.continued`), one whose first stage a
    tool it can take now fits: only once every piece so far is done (a walk never leaves work
    half done for other work)."""
    def stop(reason: str) -> bool:
        walk_.stopped = reason
        return False

    if _kept(ctx, walk_) >= length or walk_.motif is None or not walk_.stages:
        return stop("length")
    if len(walk_.followed()) < len(walk_.motif.names):
        if len(walk_.motif.names) == 1 or len(walk_.dropped) >= _DROPS:
            return stop("unfinished")
        # A later piece it cannot finish: its steps undone, another piece drawn instead.
        walk_.dropped.add(walk_.motif.names[-1])
        _truncate(ctx, walk_, walk_.piece_starts.pop())
        walk_.motif = without_last(walk_.motif)
    used = {s.tool for s in walk_.steps}
    touched = set(walk_.services)
    graph = ctx.graph
    takeable = sorted(n for n in ctx.next_tools(used) if n not in used and (
        graph.nodes[n].service in touched or len(touched) < max_services) and all(
        key is not None and key in walk_.by_key for key in ctx.needs[n]))
    more = continued(walk_.motif, rng,
                     lambda stage: any(admits(ctx, stage, n, set()) for n in takeable),
                     frozenset(walk_.dropped))
    if more is None:
        return stop("max-pieces" if len(walk_.motif.names) >= MAX_PIECES else "no-piece-opens")
    walk_.motif = more
    walk_.piece_starts.append(len(walk_.steps))
    return True


_DROPS = 4
"""Pieces of work a walk may start and undo (:func:`_go_on`) before it stops."""


def _truncate(ctx: Context, walk_: Walk, keep: int) -> None:
    """Undo the walk's steps from ``keep`` on: what they found and changed is forgotten, and
    the work environment is put back to the state after the first ``keep`` steps."""
    del walk_.steps[keep:], walk_.services[keep:], walk_.changes[keep:]
    del walk_.picks[keep:], walk_.stages[keep:]
    walk_.known = [k for k in walk_.known if k.step < keep]
    walk_.origins = {found: origin for found, origin in walk_.origins.items() if found[0] < keep}
    walk_.by_key = {}
    for known in walk_.known:
        walk_.by_key.setdefault(known.fact.key, []).append(known)
    _rewind(ctx, walk_)


def _aim(walk_: Walk, used: set[str]) -> dict[str, int]:
    """Until the walk has taken its target: the target (0) and the tools that feed it (1),
    which its next step tries first (:func:`compoworld.tasks._choices.draw_target`)."""
    if walk_.target is None or walk_.target in used:
        return {}
    return walk_.aim


def _fitting(walk_: Walk, stages: list[int] | None,
             sources: dict[str, ArgSource]) -> int | None:
    """The first of ``stages`` the filled step fits: what it was given from earlier steps has
    the types and roles the stage asks for."""
    if stages is None or walk_.motif is None:
        return None
    taken = [(s.semantic or "", path_role(s.path or "")) for s in sources.values()
             if s.kind == "step" and s.step is not None]
    return next((i for i in stages if walk_.motif.all_stages[i].fits(taken)), None)


def _open_last_read(ctx: Context, walk_: Walk) -> bool:
    """Whether the walk's last step is a read (it found something for a next step to use)."""
    return ctx.graph.nodes[walk_.steps[-1].tool].kind == "read"


def _fed_by_open_reads(ctx: Context, walk_: Walk) -> set[str]:
    """The tools the answer of a read of the walk that no later step used can feed."""
    used = {s.step for step in walk_.steps for s in step.sources.values() if s.step is not None}
    return {t for i, step in enumerate(walk_.steps)
            if i not in used and ctx.graph.nodes[step.tool].kind == "read"
            for t in linked(ctx.graph, step.tool)}


def _rewind(ctx: Context, walk_: Walk) -> None:
    """Put the work environment back to the state after the walk's steps (reset, replay)."""
    env = ctx.work
    env.reset()
    for step in walk_.steps:
        envelope = env.call(step.tool, step.arguments)
        if not envelope["success"] or envelope["data"] != step.output:
            walk_.broken = True
            return


def _try_step(ctx: Context, walk_: Walk, name: str, rng: random.Random, fake: Faker, *,
              need_source: bool, stages: list[int] | None = None,
              why: list[str] | None = None) -> bool:
    """Fill, call and record ``name`` as the walk's next step, if it fits one of the motif's
    ``stages`` (indexes; None: no motif, any step) and changes what it should; else leave the
    work environment as it was and return False (and append to ``why``, where given, the
    reason: a key of ``_walk_outcomes.OUTCOMES``)."""
    def refuse(reason: str) -> bool:
        if why is not None:
            why.append(reason)
        return False

    env = ctx.work
    if any(key is None or key not in walk_.by_key for key in ctx.needs[name]):
        return refuse("needs")  # an id it needs was never found (cheap check before filling)
    service, tool_name = name.split(SEPARATOR, 1)
    # The service is mounted (seeded: the costliest part of a try on a large catalog) only
    # once the step is filled and fits a stage, or where filling reads its records (a value
    # the user states): most candidates of a new service are refused before.
    definition = load_service(service)
    tool = definition.tools[tool_name]
    wanted = frozenset() if stages is None or walk_.motif is None else frozenset().union(
        *(walk_.motif.all_stages[i].takes for i in stages))
    filled = fill_step(ctx, walk_, name, tool, rng, fake, wanted)
    if filled is None:
        return refuse("fill")
    arguments, sources = filled
    if need_source and all(s.kind == "user" for s in sources.values()):
        return refuse("stage")  # every step after the first depends on an earlier answer
    if tool.kind == "write" and (not purposeful(tool, definition.domain, arguments, sources)
                                 or copies_removed(env, walk_.steps, tool, sources)):
        return refuse("purpose")  # nothing the request could say it is for, or a deleted record's
    stage = _fitting(walk_, stages, sources)
    if stages is not None and stage is None:
        return refuse("stage")  # it fits no stage of the motif
    ctx.mount(service)  # the first time a walk calls its service
    with trial(env) as attempt:  # a step refused once called is undone (a savepoint rollback)
        mark = len(env.changes() or ())
        envelope = env.call(name, arguments)
        if not envelope["success"]:
            attempt.keep()  # the failed call rolled back what it did itself
            return refuse("call")
        step = Step(tool=name, arguments=arguments, sources=sources, output=envelope["data"])
        changes = (env.changes() or [])[mark:]
        if tool.kind == "write" and not net_changes(changes):
            if not changes:
                attempt.keep()  # it wrote nothing (else it rewrote records with their values)
            return refuse("no-op")  # a write that changes nothing (an update with no new values)
        if (tool.kind == "write" and stage is not None and walk_.motif is not None
                and not journal_operations(net_changes(changes))
                & walk_.motif.all_stages[stage].ops):
            return refuse("no-op")  # its name said "create" but it updated (or the other way)
        if changes and (misuses_user(changes, env.pool.user)
                        or renames_person(changes, ctx.initial)):
            return refuse("role")  # the user made a customer, or a person renamed after another
        if changes and walk_.changes:
            earlier = [c for step_changes in walk_.changes for c in step_changes]
            if undoes(net_changes(earlier), net_changes(earlier + changes)):
                return refuse("role")  # it undid an earlier step's change: it would not count
        attempt.keep()
    index = len(walk_.steps)
    walk_.steps.append(step)
    walk_.services.append(service)
    if stage is not None:
        walk_.stages.append(stage)
    walk_.changes.append(changes)
    lists: dict[str, dict[int, list[Selection]]] = {}
    chosen: dict[tuple[str, int], Selection | None] = {}  # one selection per item
    unfiltered = unfiltered_list(name, tool, sources)  # its one item too needs a ranking
    nobody = unidentified_record(name, tool, sources)  # "the user info": whose, it cannot say
    for fact in extract_facts(tool.output_schema, envelope["data"], service):
        selection = None
        if (fact.list_size > 1 or unfiltered) and fact.list_path is not None and \
                fact.index is not None:
            item = (fact.list_path, fact.index)
            if item not in chosen:
                if fact.list_path not in lists:
                    lists[fact.list_path] = selections(envelope["data"], fact.list_path)
                options = lists[fact.list_path].get(fact.index)
                chosen[item] = rng.choice(options) if options else None
            selection = chosen[item]
        if not singles_out(fact, selection, envelope["data"], unfiltered, nobody):
            continue  # "the lead in the CRM": which one, the request cannot say
        known = Known(fact, index, service, selection)
        walk_.known.append(known)
        walk_.by_key.setdefault(fact.key, []).append(known)
    walk_.picks.append({item: pick for item, pick in chosen.items() if pick is not None})
    return True
