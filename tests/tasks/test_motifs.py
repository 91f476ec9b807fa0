"""Workflow motifs: every walk has one, every step fits its stages, on hand-written and compiled
services alike; tool choices are weighted against hubs, deterministically."""

import random
from collections import Counter

import pytest
from faker import Faker

from compoworld.catalog import load_service, service_names
from compoworld.curate import motif_of
from compoworld.errors import UserError
from compoworld.service import SEPARATOR
from compoworld.tasks import generate_tasks
from compoworld.tasks._choices import feeders, spread
from compoworld.tasks._context import context
from compoworld.tasks._diff import net_changes
from compoworld.tasks._motifs import (
    MAX_PIECES,
    MOTIFS,
    Motif,
    continued,
    draw_motif,
    journal_operations,
    motif,
    tool_operation,
    without_last,
)
from compoworld.tasks._purpose import PURPOSES, holds
from compoworld.tasks._walk import Walk, _kept, path_role, walk
from compoworld.tasks._walk_outcomes import OUTCOMES, STOPS
from compoworld.types import derive_seed

HAND_WRITTEN = {"calendar", "contacts", "crm", "helpdesk", "mail", "payments", "tasks"}


def _walk_of(ctx, chosen: Motif, tries: int = 40, length: int = 5) -> Walk | None:
    fake = Faker("en_US")
    for attempt in range(tries):
        rng = random.Random(derive_seed(3, chosen.name, attempt))
        fake.seed_instance(attempt)
        ctx.fresh_work()
        walked = walk(ctx, rng, fake, length, motif=chosen)
        if walked is not None:
            return walked
    return None


def _assert_follows(ctx, walked: Walk) -> None:
    """Every step fits the stage the walk says it took, in order, within the stage's counts,
    and the first motif's required stages are all done."""
    assert walked.motif is not None
    stages = walked.motif.all_stages
    assert walked.stages == sorted(walked.stages) and len(walked.stages) == len(walked.steps)
    for index, (step, at) in enumerate(zip(walked.steps, walked.stages, strict=True)):
        stage = stages[at]
        service = step.tool.split(SEPARATOR, 1)[0]
        node = ctx.graph.nodes[step.tool]
        op = tool_operation(node)
        assert stage.admits(node, op, ctx.work.services[service].domain), (step.tool, stage)
        if stage.kind == "write":
            assert journal_operations(net_changes(walked.changes[index])) & stage.ops
        if stage.new_service:  # one the piece of work this step is in has not touched
            begins = max(p for p in (0, *walked.piece_starts) if p <= index)
            assert service not in walked.services[begins:index], step.tool
        taken = [(s.semantic, path_role(s.path or "")) for s in step.sources.values()
                 if s.kind == "step"]
        assert stage.fits(taken), (step.tool, taken, stage)
        if index:  # every step after the first uses an earlier answer
            assert any(s.kind != "user" for s in step.sources.values()), step.tool
    for at, stage in enumerate(stages):
        count = walked.stages.count(at)
        assert count <= stage.repeat[1]
    first = len(walked.motif.stages)
    for at, stage in enumerate(stages[:first]):
        if at < walked.stages[-1]:
            assert walked.stages.count(at) >= stage.repeat[0], (walked.motif.name, at)
    assert walked.complete() and walked.followed()[0] == walked.motif.name


_NO_OPENING = pytest.mark.xfail(strict=True, reason=(
    "sync-won-deal opens on a read of a company and an amount: on the embedded catalog only "
    "compiled list tools asked with no filter, which answer with one record a request cannot "
    "single out ('the lead in the Apideck lead system': refused since the clarity rules)"))


@pytest.mark.parametrize("name", [pytest.param(n, marks=_NO_OPENING) if n == "sync-won-deal"
                                  else n for n in sorted(MOTIFS)])
def test_each_motif_gives_walks_with_its_structure(name):
    ctx = context(0)
    walked = _walk_of(ctx, MOTIFS[name])
    assert walked is not None, f"no walk of {name!r} in 40 attempts"
    _assert_follows(ctx, walked)
    assert len(set(walked.services)) >= 2


def test_a_motif_is_realised_on_compiled_services_alone():
    compiled = tuple(sorted(set(service_names()) - HAND_WRITTEN))
    ctx = context(0, compiled)
    realised = []
    for name in ("notify-affected", "sync-contact-details", "onboard-person"):
        walked = _walk_of(ctx, MOTIFS[name], tries=30)
        if walked is not None:
            _assert_follows(ctx, walked)
            assert {s.tool.split(SEPARATOR, 1)[0] for s in walked.steps} <= set(compiled)
            realised.append(name)
    assert realised, "no motif realised on the compiled services"


def test_a_step_that_fits_no_stage_is_not_taken():
    ctx = context(0)
    notify = MOTIFS["notify-affected"]
    tell = notify.stages[2]  # a create in a communication, productivity or support service
    graph = ctx.graph
    send = graph.nodes["mail__send_message"]
    bill = graph.nodes["payments__create_customer"]
    assert tell.admits(send, "create", "communication")
    assert not tell.admits(bill, "create", load_service("payments").domain)
    assert not tell.admits(send, "update", "communication")  # the operation counts too
    # Walks never take a step of a stage they are not at.
    walked = _walk_of(ctx, notify)
    assert walked is not None
    for step, at in zip(walked.steps, walked.stages, strict=True):
        if graph.nodes[step.tool].kind == "write":  # a write stage: this motif's, or a
            assert walked.motif.all_stages[at].kind == "write"  # later piece's
            assert at == 2 or at >= len(notify.stages)


def test_operations_come_from_the_tool_and_the_journal():
    ctx = context(0)
    cases = {"mail__send_message": "create", "contacts__delete_contact": "delete",
             "contacts__update_contact": "update", "contacts__list_contacts": "list",
             "contacts__get_contact": "get"}
    for name, expected in cases.items():
        ctx.mount(name.split(SEPARATOR, 1)[0])
        node = ctx.graph.nodes[name]
        assert tool_operation(node) == expected, name
    assert journal_operations({("t", "1"): (None, {"id": "1"})}) == {"create"}
    assert journal_operations({("t", "1"): ({"id": "1"}, None)}) == {"delete"}
    assert journal_operations({("t", "1"): ({"a": 1}, {"a": 2})}) == {"update"}


def test_long_walks_go_on_with_more_pieces_of_work():
    for length in range(2, 8):
        chosen = draw_motif(random.Random(length), length)
        assert chosen.then is None and chosen.lengths[0] <= length <= chosen.lengths[1]
    first = MOTIFS["notify-affected"]
    more = continued(first, random.Random(0), lambda stage: True)
    assert more is not None and more.names[0] == first.name and more.names[1] != first.name
    assert more.all_stages[:len(first.stages)] == first.stages
    assert without_last(more).names == [first.name]
    assert continued(first, random.Random(0), lambda stage: False) is None  # nothing opens
    third = continued(more, random.Random(1), lambda stage: True)
    assert third is not None and len(third.names) == MAX_PIECES
    assert continued(third, random.Random(2), lambda stage: True) is None
    ctx = context(0)
    walks = [w for w in (_walk_of(ctx, draw_motif(random.Random(i), 10), tries=10, length=10)
                         for i in range(4)) if w is not None]
    assert walks
    for walked in walks:
        _assert_follows(ctx, walked)
    # Long walks reach past one piece of work: some follow two motifs or more.
    assert any(len(w.followed()) >= 2 for w in walks), [w.followed() for w in walks]


def test_a_long_walk_may_begin_with_any_motif_that_fits_in_its_length():
    # Drawn only among motifs whose most steps reach 12, every walk of 12 would begin with the
    # one loosest motif; any motif can be followed by more pieces of work.
    drawn = Counter(draw_motif(random.Random(i), 12).name for i in range(900))
    assert set(drawn) == {m.name for m in MOTIFS.values() if m.lengths[0] <= 12}
    assert max(drawn.values()) < 2 * 900 / len(drawn)


def test_long_walks_keep_their_length_or_say_why_they_stopped():
    ctx = context(0)
    fake = Faker("en_US")
    walks = []
    for attempt in range(6):
        rng = random.Random(derive_seed(5, "long", attempt))
        fake.seed_instance(attempt)
        ctx.fresh_work()
        walked = walk(ctx, rng, fake, 10)
        if walked is not None:
            _assert_follows(ctx, walked)
            walks.append(walked)
    assert len(walks) >= 3
    for walked in walks:
        why = walked.stopped.rpartition("/")[2]
        assert why in STOPS, walked.stopped
        if why == "length":
            assert _kept(ctx, walked) >= 10
        if walked.stopped.startswith("refused/"):  # candidates there were, each refused
            assert walked.refusals and set(walked.refusals) <= set(OUTCOMES)
    # A later piece of work crosses over from where it began, not only into a service no
    # earlier piece touched: long walks keep their length often (most, over many).
    assert sum(_kept(ctx, w) >= 10 for w in walks) * 3 >= len(walks), [
        (_kept(ctx, w), w.stopped) for w in walks]


def test_an_unknown_motif_is_a_clear_error():
    with pytest.raises(UserError, match="notify-affected"):
        motif("notify-everyone")


def test_tool_choices_are_weighted_against_tools_many_others_feed():
    ctx = context(0)
    fed = feeders(ctx)
    hub = max(fed, key=lambda n: (fed[n], n))
    rare = min((n for n in fed if fed[n] >= 1), key=lambda n: (fed[n], n))
    assert fed[hub] > 5 * fed[rare]
    draws = 4000
    first = sum(spread(ctx, [hub, rare], random.Random(i))[0] == hub for i in range(draws))
    # A weighted shuffle puts the hub first with probability w_hub / (w_hub + w_rare).
    expected = (1 / fed[hub]) / (1 / fed[hub] + 1 / fed[rare])
    assert abs(first / draws - expected) < 0.03
    order = [spread(ctx, sorted(fed)[:30], random.Random(7)) for _ in range(2)]
    assert order[0] == order[1]  # the rng alone decides: the same attempt, the same order


def test_tasks_record_their_motif_and_their_purpose_claims_only_what_the_plan_does():
    tasks = list(generate_tasks(8, seed=2))
    said = 0
    for task in tasks:
        name = task.provenance["motif"]
        assert name in MOTIFS and task.provenance.get("motif_then") in (None, *MOTIFS)
        env = context(task.seed).initial
        for service in task.involved:
            context(task.seed).mount(service)
        for purpose in PURPOSES[name]:
            if purpose.text in task.instruction:
                said += 1
                assert all(holds(c, task.plan, env) for c in purpose.claims), (
                    purpose.text, [s.tool for s in task.plan])
    assert said, "no task opened with its motif's purpose"
    assert motif_of(tasks[0]) == tasks[0].provenance["motif"]  # what split --by motif keys on
