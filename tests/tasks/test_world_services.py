"""A world walks a share of a large catalog: its services drawn with its seed, every step of
its walks among them, and the embedded catalog walked whole."""

import random
from collections import Counter

from faker import Faker

from compoworld.catalog import service_names
from compoworld.service import SEPARATOR
from compoworld.tasks import _context
from compoworld.tasks._context import WORLD_SERVICES, world_context, world_services
from compoworld.tasks._walk import walk
from compoworld.types import derive_seed


def test_a_large_catalog_is_drawn_a_share_per_world_and_whole_over_worlds():
    names = tuple(f"svc{i:03d}" for i in range(3 * WORLD_SERVICES))
    drawn = [world_services(seed, names) for seed in range(60)]
    assert all(d is not None and len(d) == WORLD_SERVICES and list(d) == sorted(d)
               and set(d) <= set(names) for d in drawn)
    assert world_services(7, names) == drawn[7]  # the world's seed alone decides
    assert len({d for d in drawn}) == 60
    counts = Counter(n for d in drawn for n in d or ())
    assert set(counts) == set(names)  # over worlds, every service is some world's
    expected = 60 * WORLD_SERVICES / len(names)
    assert min(counts.values()) > 0.4 * expected and max(counts.values()) < 1.8 * expected


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
