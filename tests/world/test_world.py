import pytest

from compoworld.errors import NotFound, UserError
from compoworld.service import openai_tools
from compoworld.world import GATEWAY_TOOLS, compose


def test_compose_mounts_involved_plus_distractors_in_name_order():
    world = compose(["payments", "mail"], distractors=2, seed=3)
    assert world.involved == ("payments", "mail")
    assert len(world.distractors) == 2 and not set(world.distractors) & {"payments", "mail"}
    assert world.services == tuple(sorted({"payments", "mail", *world.distractors}))


def test_distractor_choice_is_seeded():
    picks = {compose(["contacts"], distractors=3, seed=s).distractors for s in range(8)}
    assert compose(["contacts"], distractors=3, seed=5).distractors == \
        compose(["contacts"], distractors=3, seed=5).distractors
    assert len(picks) > 1


def test_same_seed_same_state_and_worlds_are_independent():
    a, b = compose(["contacts", "crm"], seed=2), compose(["contacts", "crm"], seed=2)
    assert a.env.snapshot() == b.env.snapshot()
    a.call("contacts__create_group", {"name": "Only in a"})
    assert a.env.digest() != b.env.digest()
    assert compose(["contacts", "crm"], seed=2).env.digest() == b.env.digest()


def test_bad_compositions_are_user_errors():
    with pytest.raises(UserError, match="distractors asked for"):
        compose(["contacts"], distractors=50)
    with pytest.raises(NotFound, match="did you mean 'contacts'"):
        compose(["contact"])
    with pytest.raises(UserError, match="interface"):
        compose(["contacts"], interface="magic")  # type: ignore[arg-type]


def test_direct_interface_offers_every_tool_by_qualified_name():
    world = compose(["contacts", "mail"], seed=0)
    names = [t["function"]["name"] for t in world.tools()]
    assert names == list(world.env.tools)
    assert all("__" in n for n in names)


def test_gateway_interface_offers_four_meta_tools():
    world = compose(["contacts", "mail"], distractors=1, seed=0, interface="gateway")
    assert [t["function"]["name"] for t in world.tools()] == list(GATEWAY_TOOLS)
    services = world.call("list_services")["data"]
    assert [s["name"] for s in services] == list(world.services)
    tools = world.call("list_tools", {"service": "mail"})["data"]
    assert {t["name"] for t in tools} == {n for n in world.env.tools if n.startswith("mail__")}
    assert all("parameters" not in t for t in tools)
    described = world.call("describe_tool", {"tool_name": "mail__send_message"})["data"]
    assert described == openai_tools({"mail__send_message": world.env.tools["mail__send_message"]}
                                     )[0]["function"]


def test_gateway_errors_tell_the_agent_what_is_mounted():
    world = compose(["contacts", "mail"], seed=0, interface="gateway")
    missing = world.call("list_tools", {"service": "mial"})["error"]
    assert missing["code"] == 404 and "did you mean 'mail'" in missing["message"]
    assert "mounted: contacts, mail" in missing["message"]
    direct = world.call("mail__send_message", {})["error"]
    assert direct["code"] == 404 and "call_tool(tool_name='mail__send_message'" in direct["message"]
    assert world.call("describe_tool", {})["error"]["code"] == 400
    bad = world.call("call_tool", {"tool_name": "mail__send_message", "arguments": {"to": 5}})
    assert bad["error"]["code"] == 400 and "'to'" in bad["error"]["message"]


def test_direct_and_gateway_have_identical_semantics():
    calls = [
        ("contacts__create_group", {"name": "Launch team"}),
        ("contacts__create_group", {"name": "Launch team"}),  # 409 in both
        ("contacts__list_groups", {}),
        ("contacts__get_contact", {"contact_id": "nope"}),
    ]
    direct = compose(["contacts"], seed=4)
    gateway = compose(["contacts"], seed=4, interface="gateway")
    for name, args in calls:
        via_direct = direct.call(name, args)
        via_gateway = gateway.call("call_tool", {"tool_name": name, "arguments": args})
        assert via_direct == via_gateway
    assert direct.env.digest() == gateway.env.digest()


def test_fork_and_reset():
    world = compose(["contacts"], seed=1)
    initial = world.env.digest()
    fork = world.fork()
    fork.call("contacts__create_group", {"name": "Forked"})
    assert world.env.digest() == initial != fork.env.digest()
    fork.reset()
    assert fork.env.digest() == initial


def test_compose_attaches_one_world_model_shared_by_forks():
    from compoworld.simulate import OfflineSimulator

    simulator = OfflineSimulator(compose(["helpdesk"]).env.pool)
    world = compose(["helpdesk"], seed=0, simulator=simulator)
    assert world.env.simulator is simulator
    assert world.fork().env.simulator is simulator  # a rollout group sees one world
    assert compose(["helpdesk"], seed=0).env.simulator is None
