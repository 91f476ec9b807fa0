"""The LLM simulator on the real bundled model: schema-valid answers always, cached per call,
what it invents written back to state."""

import pytest

from compoworld.catalog import load_service
from compoworld.models import LocalClient
from compoworld.service import Environment
from compoworld.simulate import LLMSimulator, SimulationCache, simulated

SIMULATED = ["create_group", "delete_contact"]  # small answers: the model gets a fair chance


def world():
    return Environment([simulated(load_service("contacts"), SIMULATED)], seed=0)


@pytest.mark.slow
def test_real_model_answers_are_schema_valid_consistent_and_cached(local_model, tmp_path):
    env = world()
    first_id = env.call("contacts__list_contacts", {"limit": 1})["data"]["items"][0]["id"]
    simulator = LLMSimulator(LocalClient(*local_model), env.pool, SimulationCache(tmp_path / "a.sqlite"),
                             max_repairs=0, max_tokens=48, timeout=180)
    env.simulator = simulator
    calls = [("contacts__create_group", {"name": "Hiking club"}),
             ("contacts__delete_contact", {"contact_id": first_id})]
    answers = []
    for name, args in calls:
        envelope = env.call(name, args)
        assert envelope["success"], envelope
        env.tools[name].output.validate_python(envelope["data"])
        answers.append(envelope["data"])
    assert answers[1]["id"] == first_id
    stats = simulator.stats
    assert stats.simulated_calls == len(calls) and env.failures == []
    assert stats.fallbacks <= stats.llm_failures <= len(calls)  # every failure accounted for
    # the invented group is in state: the implemented read agrees with the simulated write
    groups = env.call("contacts__list_groups", {})["data"]
    assert answers[0]["id"] in {g["id"] for g in groups}

    # another rollout of the group replays the calls: same answers, no model call
    hits = stats.cache_hits
    replay = env.fork()
    assert [replay.call(name, args)["data"] for name, args in calls] == answers
    assert stats.cache_hits == hits + len(calls)
    simulator.close()

    # a rerun on the same disk cache answers identically, without the model
    again = world()
    again.simulator = LLMSimulator(LocalClient(*local_model), again.pool,
                                   SimulationCache(tmp_path / "a.sqlite"))
    assert [again.call(name, args)["data"] for name, args in calls] == answers
    assert again.simulator.stats.cache_hits == len(calls)
