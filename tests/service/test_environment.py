import sqlite3

import pytest

from compoworld.catalog import load_service
from compoworld.errors import UserError
from compoworld.service import Environment


def owner_id(env: Environment) -> str:
    return env.db("toy").select("owner", limit=1)[0]["id"]


def test_tables_live_in_a_namespace_per_service(toy):
    env = Environment([toy, load_service("contacts")])
    tables = {name for (name,) in env._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"toy__owner", "toy__entry", "contacts__contact"} <= tables


def test_foreign_keys_are_enforced_even_after_restore(toy):
    env = Environment([toy])
    env.reset()
    with pytest.raises(sqlite3.IntegrityError):
        env._conn.execute("INSERT INTO toy__entry(id, owner_id, amount, memo) VALUES ('x','nope',1,'')")
    fork = env.fork()
    with pytest.raises(sqlite3.IntegrityError):
        fork._conn.execute("INSERT INTO toy__entry(id, owner_id, amount, memo) VALUES ('x','nope',1,'')")


def test_success_envelope_and_state_change(toy):
    env = Environment([toy])
    before = env.digest()
    result = env.call("toy__add_entry", {"owner_id": owner_id(env), "amount": 12.5})
    assert result["success"] is True
    assert result["data"]["amount"] == 12.5 and result["data"]["id"].startswith("en_")
    assert env.digest() != before


def test_refused_call_rolls_back_what_it_wrote(toy):
    env = Environment([toy])
    before = env.snapshot()
    result = env.call("toy__add_entry", {"owner_id": owner_id(env), "amount": 5000})
    assert result == {"success": False,
                      "error": {"code": 422, "message": "amounts over 1000 need approval"}}
    assert env.snapshot() == before
    assert env.failures == []


def test_a_crashing_tool_is_a_500_recorded_as_environment_error(toy):
    env = Environment([toy])
    before = env.snapshot()
    result = env.call("toy__crash", {"owner_id": owner_id(env)})
    assert result["error"]["code"] == 500
    assert env.snapshot() == before
    assert len(env.failures) == 1 and "ZeroDivisionError" in env.failures[0].error
    assert env.failures[0].tool == "toy__crash"


def test_a_read_tool_that_writes_is_caught_and_undone(toy):
    env = Environment([toy])
    before = env.snapshot()
    result = env.call("toy__sneaky_read", {"owner_id": owner_id(env)})
    assert result["error"]["code"] == 500
    assert env.snapshot() == before


def test_bad_arguments_are_400_naming_the_field(toy):
    env = Environment([toy])
    result = env.call("toy__add_entry", {"owner_id": owner_id(env), "amount": "lots"})
    assert result["error"]["code"] == 400 and "'amount'" in result["error"]["message"]
    result = env.call("toy__add_entry", {"amount": 3})
    assert result["error"]["code"] == 400
    assert "missing required argument 'owner_id'" in result["error"]["message"]
    result = env.call("toy__get_owner", {"owner_id": owner_id(env), "extra": 1})
    assert "unexpected argument 'extra'" in result["error"]["message"]
    assert env.call("toy__get_owner", "not a dict")["error"]["code"] == 400


def test_unknown_tool_is_404_with_closest_names(toy):
    env = Environment([toy])
    result = env.call("toy__get_ownr", {})
    assert result["error"]["code"] == 404
    assert "did you mean 'toy__get_owner'" in result["error"]["message"]


def test_unknown_reference_is_404_and_duplicate_unique_is_409(toy):
    env = Environment([toy])
    result = env.call("toy__add_entry", {"owner_id": "ow_missing", "amount": 1})
    assert result["error"]["code"] == 404 and "ow_missing" in result["error"]["message"]
    db = env.db("toy")
    taken = db.select("owner", limit=1)[0]["email"]
    env._conn.execute("SAVEPOINT t")
    with pytest.raises(Exception, match="already has email"):
        db.insert("owner", name="Someone Else", email=taken)
    env._conn.execute("ROLLBACK TO t")


def test_reset_fork_snapshot_restore(toy):
    env = Environment([toy], seed=5)
    initial = env.digest()
    env.call("toy__add_entry", {"owner_id": owner_id(env), "amount": 1})
    changed = env.snapshot()
    fork = env.fork()
    assert fork.digest() == initial
    fork.call("toy__add_entry", {"owner_id": owner_id(fork), "amount": 2})
    assert env.snapshot() == changed  # forks are independent
    env.reset()
    assert env.digest() == initial
    env.restore(changed)
    assert env.snapshot() == changed


def test_same_seed_same_bytes_different_seed_different_state(toy):
    contacts = load_service("contacts")
    assert Environment([toy, contacts], seed=1).snapshot() == Environment([toy, contacts], seed=1).snapshot()
    assert Environment([toy, contacts], seed=1).digest() != Environment([toy, contacts], seed=2).digest()


def test_a_service_seeds_the_same_whatever_else_is_mounted(toy):
    alone = Environment([load_service("contacts")], seed=3).db("contacts").select("contact")
    together = Environment([toy, load_service("contacts")], seed=3).db("contacts").select("contact")
    assert alone == together


def test_mounting_a_service_twice_is_a_user_error(toy):
    with pytest.raises(UserError, match="mounted twice"):
        Environment([toy, toy])


def test_ids_are_deterministic_and_never_reused(toy):
    a, b = Environment([toy]), Environment([toy])
    oid = owner_id(a)
    first = a.call("toy__add_entry", {"owner_id": oid, "amount": 1})["data"]["id"]
    assert b.call("toy__add_entry", {"owner_id": oid, "amount": 1})["data"]["id"] == first
    a._conn.execute("DELETE FROM toy__entry WHERE id = ?", (first,))
    assert a.call("toy__add_entry", {"owner_id": oid, "amount": 1})["data"]["id"] != first


def test_a_simulated_tool_is_validated_first_then_answered_by_the_default_offline_model():
    from compoworld.service import ServiceSpec, build_service

    spec = ServiceSpec.model_validate({
        "name": "weather", "domain": "test", "description": "Forecasts.",
        "entities": [{"name": "forecast", "fields": [{"name": "city", "type": "City"}]}],
        "tools": [{"name": "get_forecast", "description": "A forecast.", "op": "get",
                   "entity": "forecast", "simulated": True,
                   "params": [{"name": "forecast_id", "role": "id"}]}],
    })
    env = Environment([build_service(spec)])
    assert env.call("weather__get_forecast", {})["error"]["code"] == 400
    assert env.simulator is None and env.failures == []  # bad arguments never reach it
    result = env.call("weather__get_forecast", {"forecast_id": "fo_1"})
    assert result["success"] and result["data"]["id"] == "fo_1"
    assert type(env.simulator).__name__ == "OfflineSimulator" and env.failures == []
    assert env.call("weather__get_forecast", {"forecast_id": "fo_1"}) == result


def test_unknown_ids_say_what_exists(toy):
    env = Environment([toy])
    real = owner_id(env)
    typo = real[:-1] + ("0" if real[-1] != "0" else "1")
    message = env.call("toy__get_owner", {"owner_id": typo})["error"]["message"]
    assert f"did you mean {real!r}" in message
    message = env.call("toy__get_owner", {"owner_id": "42"})["error"]["message"]
    assert "5 owner records exist, ids like 'ow_" in message


def test_reset_returns_to_the_initial_state_whatever_happened_in_the_episode(toy):
    env = Environment([toy], seed=2)
    initial = env.snapshot()
    oid = owner_id(env)
    env.call("toy__add_entry", {"owner_id": oid, "amount": 1})
    env.reset()  # a rollback of the episode
    assert env.snapshot() == initial
    env.call("toy__add_entry", {"owner_id": oid, "amount": 2})
    middle = env.snapshot()  # commits the episode so far
    env.call("toy__add_entry", {"owner_id": oid, "amount": 3})
    env.reset()  # the committed part is undone too
    assert env.snapshot() == initial
    env.restore(middle)
    assert env.snapshot() == middle
    env.call("toy__add_entry", {"owner_id": oid, "amount": 4})
    env.reset()
    assert env.snapshot() == initial
    for _ in range(200):  # writes right after resets (this once crashed, see docs/runtime.md)
        assert env.call("toy__add_entry", {"owner_id": oid, "amount": 5})["success"]
        env.reset()
    assert env.snapshot() == initial


def test_restrict_gives_the_state_a_fresh_build_would_have(toy):
    from compoworld.errors import NotFound

    contacts = load_service("contacts")
    both = Environment([toy, contacts], seed=4)
    cut = both.restrict(["contacts"])
    fresh = Environment([contacts], seed=4)
    assert cut.rows() == fresh.rows() and list(cut.tools) == list(fresh.tools)
    assert cut.db("contacts").digest() == fresh.db("contacts").digest()
    assert cut.call("toy__get_owner", {"owner_id": "x"})["error"]["code"] == 404
    with pytest.raises(NotFound):
        both.restrict(["contact"])
    cut.call("contacts__create_group", {"name": "Only in the cut"})
    cut.reset()
    assert cut.rows() == fresh.rows()


def test_the_journal_records_every_change_and_forgets_failed_calls(toy):
    env = Environment([toy], seed=1)
    oid = owner_id(env)
    assert env.changes() == []
    added = env.call("toy__add_entry", {"owner_id": oid, "amount": 7})["data"]
    refused = env.call("toy__add_entry", {"owner_id": oid, "amount": 5000})  # writes, then 422
    assert refused["error"]["code"] == 422
    changes = env.changes()
    assert changes is not None and len(changes) == 1
    assert (changes[0].table, changes[0].record_id) == ("toy__entry", added["id"])
    assert changes[0].before is None and changes[0].after == added
    env.reset()
    assert env.changes() == []
    env.restore(env.snapshot())
    assert env.changes() is None  # after a restore, what changed is unknown


def _state(env: Environment) -> tuple[object, ...]:
    """The state without committing the episode (snapshot() would end the call savepoint)."""
    return env.rows(), env.db("toy").digest(), env.changes()


def test_a_failed_call_after_reads_writes_and_direct_writes_undoes_only_itself(toy):
    # Calls share one savepoint while nothing is written (see Environment._open_call): every
    # failure must still roll back exactly what the failed call did, whatever ran before it.
    env = Environment([toy])
    oid = owner_id(env)
    for _ in range(3):
        assert env.call("toy__get_owner", {"owner_id": oid})["success"]
    before = _state(env)
    assert env.call("toy__sneaky_read", {"owner_id": oid})["error"]["code"] == 500
    assert env.call("toy__crash", {"owner_id": oid})["error"]["code"] == 500
    assert _state(env) == before
    assert env.call("toy__add_entry", {"owner_id": oid, "amount": 7})["success"]
    env.db("toy").update("owner", oid, name="Direct Write")  # a grader or scenario writing
    after_writes = _state(env)
    assert env.call("toy__add_entry", {"owner_id": oid, "amount": 5000})["error"]["code"] == 422
    assert env.call("toy__get_owner", {"owner_id": "nope"})["error"]["code"] == 404
    assert env.call("toy__sneaky_read", {"owner_id": oid})["error"]["code"] == 500
    assert _state(env) == after_writes
    assert env.call("toy__get_owner", {"owner_id": oid})["data"]["name"] == "Direct Write"
    changes = env.changes()
    assert changes is not None and [c.table for c in changes] == ["toy__entry", "toy__owner"]


def test_reset_and_snapshot_end_the_shared_call_savepoint(toy):
    env = Environment([toy])
    oid = owner_id(env)
    initial = env.snapshot()
    env.reset()
    assert env.call("toy__get_owner", {"owner_id": oid})["success"]
    env.reset()  # ROLLBACK TO episode ends the call savepoint: the next call opens a new one
    assert env.call("toy__sneaky_read", {"owner_id": oid})["error"]["code"] == 500
    assert env.call("toy__add_entry", {"owner_id": oid, "amount": 3})["success"]
    written = env.snapshot()  # commits the episode, and the call savepoint with it
    assert env.call("toy__crash", {"owner_id": oid})["error"]["code"] == 500
    assert env.snapshot() == written != initial
    env.reset()
    assert env.snapshot() == initial


def test_reset_recovers_when_sqlite_ended_the_episode_itself() -> None:
    """SQLite rolls a transaction back by itself on some errors (out of memory, a full disk):
    reset then starts again from the initial image instead of failing on its own rollback."""
    from compoworld.catalog import load_service, load_services
    from compoworld.service import Environment

    env = Environment(load_services(["contacts"]), seed=0)
    before = env.digest()
    env.reset()
    contact = env.db("contacts").select("contact", limit=1)[0]
    assert env.call("contacts__set_favorite", {"contact_id": contact["id"],
                                               "favorite": not contact["favorite"]})["success"]
    env._conn.execute("ROLLBACK")  # what SQLite does on SQLITE_NOMEM or SQLITE_FULL
    env.reset()
    assert env.digest() == before
    env.mount(load_service("crm"), Environment(load_services(["crm"]), seed=0).image())
    env._conn.execute("ROLLBACK")
    env.reset()  # with a service mounted during the episode, too
    assert "crm" in env.services and env.db("crm").select("deal", limit=1)


def test_a_service_mounted_before_anything_is_done_is_initial_at_once() -> None:
    contacts, mail = load_service("contacts"), load_service("mail")
    image = Environment([mail], seed=0).image()
    both = Environment([contacts, mail], seed=0)
    ada = {"first_name": "Ada", "last_name": "Byron", "email": "ada@example.com"}
    at_once = Environment([contacts], seed=0)
    at_once.mount(mail, image)  # nothing done yet: into the initial state, no reset to settle
    assert not at_once._pending and at_once.rows() == both.rows()
    during = Environment([contacts], seed=0)
    assert during.call("contacts__create_contact", ada)["success"]
    during.mount(mail, image)  # mid-episode: the episode's work stays, a reset settles it
    assert during._pending and len(during.rows()["contacts__contact"]) == len(
        both.rows()["contacts__contact"]) + 1
    for env in (at_once, during):
        assert env.call("contacts__create_contact", {**ada, "email": "bob@example.com"})["success"]
        assert env.call("mail__list_messages", {})["success"]
        env.reset()
        assert env.rows() == both.rows() and env.fork().rows() == both.rows()
        assert env.image() == env.fork().image()
