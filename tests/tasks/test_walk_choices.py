"""Walks drawn against overuse: aims spread over services and tools, distances found through
the index, pieces of work undone cleanly, lengths counted in the steps a plan keeps, purposes
refused where the plan does not do what they say."""

import random
from collections import Counter

from faker import Faker

from compoworld.tasks._choices import draw_target, reachable, toward
from compoworld.tasks._context import context, linked
from compoworld.tasks._generate import _prune
from compoworld.tasks._model import ArgSource, Step
from compoworld.tasks._motifs import MOTIFS
from compoworld.tasks._purpose import PURPOSES, holds, purpose_sentence
from compoworld.tasks._walk import _kept, _truncate, walk
from compoworld.tasks._walk_outcomes import OUTCOMES
from compoworld.types import derive_seed


def _walks(ctx, length: int, count: int, seed: int = 11):
    fake = Faker("en_US")
    for attempt in range(count):
        rng = random.Random(derive_seed(seed, "task", attempt))
        fake.seed_instance(attempt)
        ctx.fresh_work()
        walked = walk(ctx, rng, fake, length)
        if walked is not None:
            yield walked


def test_aims_are_drawn_evenly_over_services_then_tools():
    ctx = context(0)
    services = reachable(ctx)
    assert len(services) >= 10
    draws = Counter(ctx.graph.nodes[draw_target(ctx, random.Random(i))].service
                    for i in range(6000))
    assert set(draws) == set(services)  # every reachable service is some walk's aim
    expected = 6000 / len(services)
    assert max(draws.values()) < 1.6 * expected and min(draws.values()) > 0.5 * expected
    # the same randomness, the same aim (weights from the attempt alone)
    assert draw_target(ctx, random.Random(5)) == draw_target(ctx, random.Random(5))


def test_reachable_tools_are_those_a_walk_can_link_to_from_a_start():
    ctx = context(0)
    found = {t for tools in reachable(ctx).values() for t in tools}
    assert set(ctx.starts) <= found
    closure = set(ctx.starts)
    frontier = list(closure)
    while frontier:  # the pairwise closure, for comparison with the by-key one
        for target in linked(ctx.graph, frontier.pop()):
            if target not in closure:
                closure.add(target)
                frontier.append(target)
    assert found == closure


def test_distances_to_an_aim_follow_links_backwards():
    ctx = context(0)
    target = "mail__send_message"
    near = toward(ctx, target)
    assert near[target] == 0
    ones = [n for n, d in near.items() if d == 1]
    assert ones and all(target in set(linked(ctx.graph, n)) for n in ones)
    twos = [n for n, d in near.items() if d == 2]
    assert all(n in ctx.starts for n in twos)
    assert all(any(o in set(linked(ctx.graph, n)) for o in ones) for n in twos)


def test_walks_reach_their_aim_more_often_than_without_one():
    ctx = context(0)
    walks = list(_walks(ctx, 5, 40))
    hit = sum(w.target in {s.tool for s in w.steps} for w in walks)
    # Without steering, a walk takes a given tool of the ~330 it can reach rarely.
    assert hit >= len(walks) // 5, (hit, len(walks))


def test_a_walk_counts_its_length_in_steps_its_plan_keeps():
    ctx = context(0)
    walks = list(_walks(ctx, 6, 16))
    kept = [_kept(ctx, w) for w in walks]
    for walked, count in zip(walks, kept, strict=True):
        pruned = len(_prune(walked.steps, ctx.work))
        if ctx.work.tools[walked.steps[-1].tool].kind == "write":
            assert count == pruned  # what the plan keeps, exactly
        else:
            assert count <= pruned  # the plan keeps a last read too (something to tell)
    # Most walks of length 6 keep 6 steps or more (a read nothing used is no step of the
    # length): the rest stopped where no step fitted their motif.
    assert sum(k >= 6 for k in kept) * 2 >= len(walks), kept


def test_undoing_a_piece_of_work_forgets_what_it_found_and_changed():
    ctx = context(0)
    walked = next(w for w in _walks(ctx, 6, 30) if len(w.steps) >= 4)
    keep = 2
    dropped = {id(k) for k in walked.known if k.step >= keep}
    _truncate(ctx, walked, keep)
    assert len(walked.steps) == len(walked.stages) == len(walked.changes) == keep
    assert not walked.broken
    assert all(id(k) not in dropped for ks in walked.by_key.values() for k in ks)
    journal = ctx.work.changes() or []
    assert len(journal) == sum(len(c) for c in walked.changes)  # only the kept steps' changes


def test_a_purpose_is_said_only_where_the_plan_does_what_it_claims():
    ctx = context(0)
    walked = next(w for w in _walks(ctx, 5, 40)
                  if any(holds("reaches-person", w.steps, ctx.work) for _ in [0]))
    env = ctx.work
    assert holds("reaches-person", walked.steps, env)
    reads = [s for s in walked.steps if env.tools[s.tool].kind == "read"]
    assert not holds("reaches-person", reads, env)  # no write: nobody is reached
    assert not holds("several", reads, env)
    walked.motif = MOTIFS["notify-affected"]
    sentence = purpose_sentence(walked, reads, env)
    assert sentence is None  # every notify-affected sentence claims someone is reached
    sentence = purpose_sentence(walked, walked.steps, env)
    assert sentence in {p.text for p in PURPOSES["notify-affected"]}


def _step(tool: str, **sources: ArgSource) -> Step:
    return Step(tool=tool, arguments={}, sources=sources, output=None)


def test_each_claim_is_read_off_the_plans_tools():
    ctx = context(0)
    for service in ("payments", "crm", "mail", "contacts", "helpdesk"):
        ctx.mount(service)
    env = ctx.work
    found = ArgSource(kind="step", step=0, path="items.0.email", semantic="Email")
    invoices, deals = _step("payments__list_invoices"), _step("crm__list_deals")
    assert holds("money-found", [invoices], env)
    assert not holds("money-in-two", [invoices], env)  # one system's figures: nothing compared
    assert holds("money-in-two", [invoices, deals], env)
    messages = _step("mail__list_messages")
    assert holds("message-found", [messages], env) and not holds("message-found", [deals], env)
    send = _step("mail__send_message", to=found)
    assert holds("reaches-person", [messages, send], env)
    stated = _step("mail__send_message", to=ArgSource(kind="user", semantic="Email"))
    assert not holds("reaches-person", [messages, stated], env)  # nobody found is reached
    assert holds("person-record", [messages, _step("contacts__create_contact", email=found)],
                 env)
    assert holds("removes", [_step("contacts__delete_contact")], env)
    assert not holds("removes", [_step("contacts__update_contact")], env)
    assert holds("writes-elsewhere", [messages, _step("contacts__update_contact")], env)
    assert not holds("writes-elsewhere", [messages, stated], env)
    owner = ArgSource(kind="step", step=0, path="items.0.assignee_email", semantic="Email")
    assert holds("to-owner", [_step("helpdesk__list_tickets"),
                              _step("mail__send_message", to=owner)], env)
    assert not holds("to-owner", [messages, send], env)


def test_tracing_a_walk_changes_none_of_its_draws():
    ctx = context(0)
    fake = Faker("en_US")
    kept = 0
    for attempt in range(40):
        runs = []
        for trace in (None, []):
            rng = random.Random(derive_seed(3, "task", attempt))
            fake.seed_instance(attempt)
            ctx.fresh_work()
            walked = walk(ctx, rng, fake, 4, trace=trace)
            steps = None if walked is None else [(s.tool, s.arguments) for s in walked.steps]
            runs.append((steps, rng.random(), fake.pyint()))
            if trace is not None:
                assert trace and {o for _, o in trace} <= set(OUTCOMES)
                if walked is not None:  # the last start considered is the kept walk's
                    kept += 1
                    assert trace[-1] == (walked.steps[0].tool, "kept")
                else:
                    assert all(o != "kept" for _, o in trace)
        assert runs[0] == runs[1]  # the same walk, and the randomness left where it was
    assert kept >= 20
