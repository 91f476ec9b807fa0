"""A world walks a share of a large catalog: a linked neighbourhood drawn with its seed, every
step of its walks among its services, and the embedded catalog walked whole."""

import random
from collections import Counter

from faker import Faker

from compoworld.catalog import load_services, service_names
from compoworld.graph import build_graph
from compoworld.service import SEPARATOR
from compoworld.tasks import _context
from compoworld.tasks._context import LINK_TYPES, WORLD_SERVICES, world_context, world_services
from compoworld.tasks._neighbourhood import neighbourhood, service_links
from compoworld.tasks._walk import walk
from compoworld.types import derive_seed

# Two components: a hub joined to a ring of twelve services, and a pair.
_LINKS = {"hub": {f"s{i:02d}": 2 for i in range(12)},
          **{f"s{i:02d}": {"hub": 2, f"s{(i + 1) % 12:02d}": 1, f"s{(i - 1) % 12:02d}": 1}
             for i in range(12)},
          "p": {"q": 1}, "q": {"p": 1}}


def test_a_neighbourhood_grows_along_links_from_its_centre():
    for seed in range(40):
        drawn = neighbourhood(_LINKS, 6, random.Random(seed))
        assert len(drawn) == 6 and drawn == sorted(drawn) and set(drawn) <= set(_LINKS)
        joined = [n for n in drawn if any(o in drawn for o in _LINKS[n])]
        assert len(joined) == 6  # one component: each drawn service links to another drawn
    assert neighbourhood(_LINKS, 6, random.Random(3)) == neighbourhood(_LINKS, 6, random.Random(3))
    # A component used up, the next centre is drawn among the rest: all of it, at the end.
    assert neighbourhood(_LINKS, len(_LINKS), random.Random(0)) == sorted(_LINKS)
    counts = Counter(n for seed in range(400) for n in neighbourhood(_LINKS, 6, random.Random(seed)))
    assert counts["hub"] > max(counts[f"s{i:02d}"] for i in range(12))  # linked to the most
    assert counts["p"] > 0 and counts["q"] > 0  # a small component is some world's centre


def test_service_links_join_a_maker_and_a_taker_of_a_link_type():
    services = load_services(["contacts", "mail", "calendar", "crm"])
    links = service_links(build_graph(services), LINK_TYPES)
    assert set(links) <= {"contacts", "mail", "calendar", "crm"}
    assert all(links[b][a] == count for a, joined in links.items() for b, count in joined.items())
    assert links["contacts"]["mail"] >= 1  # a contact's email is what a message is sent to
    assert not service_links(build_graph(services), frozenset())


def test_a_large_catalog_is_drawn_as_linked_neighbourhoods_and_whole_over_worlds(monkeypatch):
    monkeypatch.setattr(_context, "WORLD_SERVICES", 16)
    names = tuple(service_names())
    links = service_links(_context.context(0).graph, LINK_TYPES)
    drawn = [world_services(seed) for seed in range(40)]
    assert all(d is not None and len(d) == 16 and list(d) == sorted(d) and set(d) <= set(links)
               for d in drawn)  # never a service no task can cross into or out of
    assert world_services(7) == drawn[7] == world_services(7, names)  # the seed alone decides
    assert len(set(drawn)) == 40
    for world in drawn:
        assert world is not None
        assert sum(any(o in world for o in links[n]) for n in world) >= 15  # grown along links
    assert set(Counter(n for d in drawn for n in d or ())) == set(links)  # every one, over worlds


def test_the_embedded_catalog_is_one_world():
    assert len(service_names()) <= WORLD_SERVICES
    assert world_services(3) is None
    assert world_context(3) is _context.context(3)


def test_walks_of_a_world_stay_among_its_services(monkeypatch):
    monkeypatch.setattr(_context, "WORLD_SERVICES", 24)
    seed = 5
    own = world_services(seed)
    assert own is not None and len(own) == 24
    ctx = world_context(seed)
    assert {n.service for n in ctx.graph.nodes.values()} <= set(own)
    fake = Faker("en_US")
    walked = 0
    for attempt in range(40):
        rng = random.Random(derive_seed(seed, "task", attempt))
        fake.seed_instance(attempt)
        ctx.fresh_work()
        found = walk(ctx, rng, fake, 3)
        if found is not None:
            walked += 1
            assert {s.tool.split(SEPARATOR, 1)[0] for s in found.steps} <= set(own)
    assert walked > 0
