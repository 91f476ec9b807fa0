"""Seeded images on disk: content-addressed, reused, and what worlds are assembled from."""

from datetime import date

import pytest

from compoworld.catalog import load_service
from compoworld.service import Environment
from compoworld.world import compose, image_dir, service_image
from compoworld.world._images import image_key

TODAY = date(2026, 3, 2)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPOWORLD_CACHE", str(tmp_path))
    service_image.cache_clear()
    yield tmp_path / "images"
    service_image.cache_clear()


def test_an_image_is_made_once_and_read_back(cache):
    image = service_image("contacts", 5, TODAY)
    (path,) = cache.glob("contacts-*.sqlite")
    assert path.read_bytes() == image and image_dir() == cache
    service_image.cache_clear()
    path.write_bytes(image + b"")  # the same file, read again rather than reseeded
    mtime = path.stat().st_mtime_ns
    assert service_image("contacts", 5, TODAY) == image
    assert path.stat().st_mtime_ns == mtime
    built = Environment([load_service("contacts")], seed=5, today=TODAY)
    assert Environment.assemble([load_service("contacts")], {"contacts": image}, seed=5,
                                today=TODAY).rows() == built.rows()


def test_the_key_names_seed_date_and_service(cache):
    keys = {image_key("contacts", 5, TODAY), image_key("contacts", 6, TODAY),
            image_key("contacts", 5, date(2026, 3, 3)), image_key("crm", 5, TODAY)}
    assert len(keys) == 4 and None not in keys


def test_a_world_is_assembled_from_its_services_images(cache):
    world = compose(["contacts", "crm"], distractors=1, seed=11)
    names = sorted(world.services)
    assert {p.name.split("-")[0] for p in cache.glob("*.sqlite")} == set(names)
    fresh = Environment([load_service(n) for n in names], seed=11)
    assert world.env.rows() == fresh.rows()
