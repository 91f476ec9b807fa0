"""Environments assembled from seeded images, and services mounted during an episode."""

import pytest

from compoworld.catalog import load_service
from compoworld.service import Environment

NAMES = ("contacts", "crm", "mail")


@pytest.fixture(scope="module")
def services():
    return [load_service(n) for n in NAMES]


@pytest.fixture(scope="module")
def images(services):
    return {s.name: Environment([s], seed=3).image() for s in services}


def test_assembled_state_is_the_seeded_state(services, images):
    built = Environment(services, seed=3)
    made = Environment.assemble(services, images, seed=3)
    assert made.rows() == built.rows()
    assert [made.db(n).digest() for n in NAMES] == [built.db(n).digest() for n in NAMES]
    # Sequences came along: the next record created gets the same id on both.
    args = {"first_name": "Ada", "last_name": "Byron", "email": "ada@example.org"}
    assert made.call("contacts__create_contact", args) == built.call("contacts__create_contact",
                                                                     args)


def test_a_missing_image_is_a_clear_error(services, images):
    with pytest.raises(Exception, match="no seeded image given for 'mail'"):
        Environment.assemble(services, {"contacts": images["contacts"], "crm": images["crm"]},
                             seed=3)


def test_mounting_mid_episode_keeps_the_episode(services, images):
    contacts, crm, mail = services
    full = Environment(services, seed=3)
    env = Environment([contacts], seed=3)
    made = env.call("contacts__create_contact",
                    {"first_name": "Ada", "last_name": "Byron", "email": "ada@example.org"})
    assert made["success"]
    env.mount(crm, images["crm"])
    env.mount(mail, images["mail"])
    env.mount(mail, images["mail"])  # again: nothing happens
    assert env.db("contacts").find("contact", id=made["data"]["id"]) is not None
    assert env.call("crm__list_accounts", {"limit": 1})["success"]
    assert len(env.changes() or []) == 1
    assert env.fork().rows() == full.rows()  # a fork starts every mounted service at initial
    env.reset()
    assert env.rows() == full.rows()
    assert sorted(env.services) == sorted(NAMES)


def test_mount_then_snapshot_then_reset(services, images):
    contacts, crm, _ = services
    env = Environment([contacts], seed=3)
    env.mount(crm, images["crm"])
    env.call("crm__list_accounts", {"limit": 1})
    env.snapshot()  # commits the episode, mount included
    env.reset()
    assert env.rows() == Environment([contacts, crm], seed=3).rows()
