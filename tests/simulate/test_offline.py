import random
import subprocess
import sys
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from compoworld.catalog import load_service, load_services
from compoworld.service import Db, Environment, Service, SimulatorStats, sample_arguments
from compoworld.simulate import OfflineSimulator, SimulationCache, simulated


def simulated_world(names=None, seed=0, cache=None, tools=None):
    services = [simulated(s, tools) for s in load_services(names)]
    env = Environment(services, seed=seed)
    env.simulator = OfflineSimulator(env.pool, cache)
    return env


def sampled_calls(env, per_tool=5, seed=0):
    rng = random.Random(seed)
    return [(name, sample_arguments(tool, env, name.split("__")[0], rng))
            for name, tool in env.tools.items() for _ in range(per_tool)]


def test_every_catalog_tool_simulated_gives_schema_valid_answers():
    env = simulated_world()
    calls = sampled_calls(env)
    for name, args in calls:
        envelope = env.call(name, args)
        assert envelope["success"], (name, args, envelope)
        output = env.tools[name].output
        assert output is not None
        output.validate_python(envelope["data"])
    assert env.failures == []
    assert env.simulator.stats.simulated_calls == len(calls)


def test_same_seed_same_answers_and_state_without_a_shared_cache():
    a, b = simulated_world(seed=3), simulated_world(seed=3)
    calls = sampled_calls(a, per_tool=2)
    assert [a.call(n, x) for n, x in calls] == [b.call(n, x) for n, x in calls]
    assert a.digest() == b.digest()


def test_the_seed_changes_what_is_invented():
    one = simulated_world(["crm"], seed=1).call("crm__list_leads", {})
    two = simulated_world(["crm"], seed=2).call("crm__list_leads", {})
    assert one["success"] and two["success"] and one["data"] != two["data"]


def test_a_group_of_rollouts_sees_one_world():
    env = simulated_world(["contacts", "mail"])
    calls = sampled_calls(env, per_tool=3)
    stats = env.simulator.stats
    first = env.fork()
    answers = [[first.call(n, x) for n, x in calls]]
    after_first = stats.cache_hits
    for _ in range(7):
        rollout = env.fork()
        answers.append([rollout.call(n, x) for n, x in calls])
    assert all(a == answers[0] for a in answers)
    assert stats.cache_hits - after_first == 7 * len(calls)  # every later rollout: all hits


def test_answers_agree_with_state_and_inventions_are_written_back():
    env = simulated_world(["contacts"], tools=["get_contact"])
    stored = env.db("contacts").select("contact", limit=1)[0]
    assert env.call("contacts__get_contact", {"contact_id": stored["id"]})["data"] == stored
    invented = env.call("contacts__get_contact", {"contact_id": "ct_00c0ffee"})["data"]
    assert invented["id"] == "ct_00c0ffee"
    # The implemented tools now see the invented contact.
    found = env.call("contacts__find_contact_by_email", {"email": invented["email"]})
    assert found["success"] and found["data"]["id"] == "ct_00c0ffee"
    assert env.simulator.stats.written_back == 1


def test_writes_make_new_records_with_the_given_values():
    env = simulated_world(["contacts"], tools=["create_group"])
    group = env.call("contacts__create_group", {"name": "Launch", "description": "x"})["data"]
    assert group["name"] == "Launch" and env.db("contacts").get("group", group["id"])


def test_bad_arguments_never_reach_the_simulator():
    env = simulated_world(["contacts"])
    assert env.call("contacts__get_contact", {"contact_id": 7})["error"]["code"] == 400
    assert env.simulator.stats.simulated_calls == 0


def test_the_cache_persists_on_disk(tmp_path):
    path = tmp_path / "sim.sqlite"
    first = simulated_world(["payments"], cache=SimulationCache(path))
    calls = sampled_calls(first, per_tool=1)
    answers = [first.call(n, x) for n, x in calls]
    second = simulated_world(["payments"], cache=SimulationCache(path))
    assert [second.call(n, x) for n, x in calls] == answers
    assert second.simulator.stats.cache_hits == len(calls)


class _Broken:
    stats = SimulatorStats()

    def simulate(self, call):
        call.db.insert("group", name="written before failing")
        return {"not": "a contact"}


def test_an_answer_that_breaks_the_schema_is_an_environment_error_and_leaves_no_trace():
    env = Environment([simulated(load_service("contacts"))], simulator=_Broken())
    before = env.snapshot()
    envelope = env.call("contacts__get_contact", {"contact_id": "ct_x"})
    assert envelope["error"]["code"] == 500
    assert env.snapshot() == before
    assert env.failures and env.failures[0].tool == "contacts__get_contact"


def test_without_a_simulator_the_offline_one_answers_by_default():
    env, other = (Environment([simulated(load_service("contacts"))]) for _ in range(2))
    first = env.call("contacts__list_groups", {})
    assert first["success"] and isinstance(env.simulator, OfflineSimulator)
    assert other.call("contacts__list_groups", {}) == first  # same seed, same answer


@pytest.mark.parametrize("name", ["contacts", "helpdesk"])
def test_simulated_copies_keep_the_service_contract(name):
    original, copy = load_service(name), simulated(load_service(name))
    assert copy.name == original.name and list(copy.tools) == list(original.tools)
    assert all(t.simulated for t in copy.tools.values())
    assert not any(t.simulated for t in original.tools.values())


class Line(BaseModel):
    sku: str
    quantity: int


class Receipt(BaseModel):
    id: str
    lines: list[Line]
    notes: list[str]


def shop() -> Service:
    service = Service("shop", domain="commerce", description="A shop's receipts.")

    @service.read(returns=list[Receipt])
    def list_receipts(db: Db) -> list[dict[str, Any]]:
        """List the receipts."""
        return []

    @service.read(returns=Receipt)
    def get_receipt(db: Db, receipt_id: str) -> dict[str, Any]:
        """One receipt.

        Args:
            receipt_id: The receipt's id.
        """
        return {}

    return simulated(service)


def test_lists_inside_records_hold_at_most_two_items_result_lists_up_to_four():
    nested, top = [], []
    for seed in range(12):
        env = Environment([shop()], seed=seed)
        receipts = env.call("shop__list_receipts", {})["data"]
        one = env.call("shop__get_receipt", {"receipt_id": "r1"})["data"]
        top.append(len(receipts))
        nested += [len(r[k]) for r in [*receipts, one] for k in ("lines", "notes")]
    assert min(top) >= 1 and max(top) <= 4 and len(set(top)) > 1
    assert max(nested) <= 2 and {0, 1, 2} <= set(nested)


_DIGEST = """
import hashlib, random, sys, orjson
from compoworld.catalog import load_services
from compoworld.service import Environment, sample_arguments
from compoworld.simulate import OfflineSimulator, simulated
env = Environment([simulated(s) for s in load_services()], seed=5)
env.simulator = OfflineSimulator(env.pool)
rng = random.Random(5)
answers = [env.call(n, sample_arguments(t, env, n.split("__")[0], rng)) for n, t in env.tools.items()]
print(hashlib.blake2b(orjson.dumps(answers)).hexdigest())
"""


@pytest.mark.slow
def test_same_seed_same_bytes_in_another_process():
    runs = [subprocess.run([sys.executable, "-c", _DIGEST], capture_output=True, text=True,
                           check=True, timeout=600).stdout for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0].strip()) == 128


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


class Pet(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]
    point: tuple[int, float]


def test_discriminated_unions_and_tuples_get_valid_answers():
    service = Service("zoo", domain="leisure", description="Pets.")

    @service.read(returns=Pet)
    def get_pet(db: Db) -> dict[str, Any]:
        """A pet."""
        return {}

    kinds = set()
    for seed in range(8):
        env = Environment([simulated(service)], seed=seed)
        envelope = env.call("zoo__get_pet", {})
        assert envelope["success"] and env.failures == [], envelope
        kinds.add(envelope["data"]["pet"]["kind"])
        assert len(envelope["data"]["point"]) == 2
    assert kinds == {"cat", "dog"}


def test_listed_records_that_exist_are_the_stored_ones_and_new_ones_are_written_back():
    env = simulated_world(["contacts"], tools=["list_contacts"])
    before = {c["id"] for c in env.db("contacts").select("contact")}
    seen_old = seen_new = 0
    for offset in range(8):
        for item in env.call("contacts__list_contacts", {"offset": offset})["data"]["items"]:
            stored = env.db("contacts").get("contact", item["id"])  # new ones were written back
            assert {k: item[k] for k in stored if k in item} == {k: stored[k] for k in item if k in stored}
            seen_old += item["id"] in before
            seen_new += item["id"] not in before
    assert seen_old and seen_new
