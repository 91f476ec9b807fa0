"""The LLM simulator's gate: what a model says never reaches the agent unless it fits the schema.

The model here is scripted (it stands in for the model, not for the stage under test: the
extraction, validation, repair loop, fallback, cache and write-back are all real).
"""

import asyncio
import json
import threading

import pytest

from compoworld.catalog import load_service
from compoworld.models import AssistantMessage, ModelError
from compoworld.service import Environment
from compoworld.simulate import LLMSimulator, OfflineSimulator, SimulationCache, simulated


class ScriptedModel:
    """Replies with the given texts in turn (the last one repeats); records the prompts."""

    model = "scripted"

    def __init__(self, *texts, finish="stop", delay=0.0, error=None):
        self.texts, self.finish, self.delay, self.error = list(texts), finish, delay, error
        self.prompts = []

    async def chat(self, messages, tools=None, *, temperature=None, max_tokens=None, seed=None):
        self.prompts.append(messages)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.error is not None:
            raise self.error
        text = self.texts[min(len(self.prompts) - 1, len(self.texts) - 1)]
        return AssistantMessage(content=text, finish_reason=self.finish)


def world(model, **options):
    env = Environment([simulated(load_service("contacts"))], seed=0)
    env.simulator = LLMSimulator(model, env.pool, **options)
    return env


def contact_answer(env, **changes):
    """A valid get_contact answer, written the way a model would (as JSON text)."""
    offline = OfflineSimulator(env.pool)
    probe = Environment([simulated(load_service("contacts"))], seed=1, simulator=offline)
    data = probe.call("contacts__get_contact", {"contact_id": "c-x"})["data"]
    return {**data, **changes}


def test_a_valid_answer_passes_and_is_cached():
    env = world(ScriptedModel("placeholder"))
    answer = contact_answer(env, name="Zed Quill")
    env.simulator.client.texts = [f"```json\n{json.dumps(answer)}\n```"]
    first = env.call("contacts__get_contact", {"contact_id": "c-77"})
    again = env.fork().call("contacts__get_contact", {"contact_id": "c-77"})
    assert first["success"] and first["data"]["name"] == "Zed Quill"
    assert first["data"]["id"] == "c-77"  # the record asked for, whatever the model said
    assert again == first
    stats = env.simulator.stats
    assert (stats.simulated_calls, stats.cache_hits, stats.fallbacks) == (2, 1, 0)
    assert len(env.simulator.client.prompts) == 1


@pytest.mark.parametrize("bad", ["Sorry, I cannot do that.", '{"id": "c-1", "name": 42}', "[1, 2, 3]"])
def test_bad_answers_are_repaired_then_fall_back(bad):
    model = ScriptedModel(bad)
    env = world(model, max_repairs=2)
    envelope = env.call("contacts__get_contact", {"contact_id": "c-9"})
    assert envelope["success"]
    env.tools["contacts__get_contact"].output.validate_python(envelope["data"])
    stats = env.simulator.stats
    assert len(model.prompts) == 3 and stats.fallbacks == 1 and stats.llm_failures == 1
    repair = model.prompts[1][-1]["content"]
    assert repair.startswith("That answer cannot be used")
    assert model.prompts[1][-2] == {"role": "assistant", "content": bad}


def test_a_schema_error_is_fed_back_and_the_repaired_answer_is_used():
    env = world(ScriptedModel("placeholder"))
    good = contact_answer(env, name="Una Fixed")
    broken = {k: v for k, v in good.items() if k != "email"}
    model = env.simulator.client
    model.texts = [json.dumps(broken), json.dumps(good)]
    envelope = env.call("contacts__get_contact", {"contact_id": "c-5"})
    assert envelope["data"]["name"] == "Una Fixed"
    assert "email" in model.prompts[1][-1]["content"]  # the validation error names the field
    assert env.simulator.stats.schema_repairs == 1 and env.simulator.stats.fallbacks == 0


def test_a_truncated_answer_is_closed_or_refused():
    env = world(ScriptedModel("placeholder"), max_repairs=0)
    good = json.dumps(contact_answer(env))
    env.simulator.client.texts = [good[: len(good) // 2]]
    env.simulator.client.finish = "length"
    envelope = env.call("contacts__get_contact", {"contact_id": "c-6"})
    assert envelope["success"]
    env.tools["contacts__get_contact"].output.validate_python(envelope["data"])
    stats = env.simulator.stats
    assert stats.schema_repairs + stats.fallbacks == 1  # closed and valid, or replaced


def test_endpoint_down_falls_back_or_raises_per_setting():
    down = ScriptedModel(error=ModelError("connection refused"))
    env = world(down)
    assert env.call("contacts__get_contact", {"contact_id": "c-1"})["success"]
    assert env.simulator.stats.llm_failures == 1 and env.simulator.stats.fallbacks == 1

    env = world(ScriptedModel(error=ModelError("connection refused")), on_error="raise")
    envelope = env.call("contacts__get_contact", {"contact_id": "c-1"})
    assert not envelope["success"] and envelope["error"]["code"] == 500
    assert "connection refused" in env.failures[0].error


def test_a_slow_model_times_out_instead_of_hanging():
    env = world(ScriptedModel("{}", delay=30), timeout=0.3, on_error="raise")
    envelope = env.call("contacts__get_contact", {"contact_id": "c-1"})
    assert not envelope["success"] and "within 0.3s" in env.failures[0].error


def test_works_from_a_thread_running_an_event_loop():
    env = world(ScriptedModel("not json"), max_repairs=0)

    async def agent_loop():
        return env.call("contacts__get_contact", {"contact_id": "c-3"})

    assert asyncio.run(agent_loop())["success"]


def test_rollouts_asking_at_once_share_one_answer():
    model = ScriptedModel("placeholder", delay=0.05)
    cache = SimulationCache()
    env = world(model, cache=cache)
    model.texts = [json.dumps(contact_answer(env))]
    results = []

    def rollout():
        results.append(env.fork().call("contacts__get_contact", {"contact_id": "c-4"}))

    threads = [threading.Thread(target=rollout) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(results) == 8 and all(r == results[0] for r in results)
    assert len(model.prompts) == 1 and env.simulator.stats.cache_hits == 7
