"""Scenarios: a rule stored in the world that sets a value, an idempotency trap; each planted in
the task's world, each behind a gate that checks it matters; labels read off real structure."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest

from compoworld.catalog import load_services
from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import score_trajectory
from compoworld.service import Environment
from compoworld.tasks import ArgSource, Step, Task, build_world, generate_tasks, verify_task
from compoworld.tasks._instruction import instruction
from compoworld.tasks._labels import capabilities
from compoworld.tasks._rubric import collateral_criterion, state_criteria
from compoworld.tasks._scenario import (
    add_rule,
    add_trap,
    plant,
    run_planted,
    trap_matters,
    which,
)


@pytest.fixture(scope="module")
def rule_tasks() -> dict[str, Task]:
    """The first task of seed 7 with each kind of rule stored in the world."""
    found: dict[str, Task] = {}
    for task in generate_tasks(400, seed=7):
        if task.scenario and task.scenario.rule:
            found.setdefault(task.scenario.rule.kind, task)
        if {"value", "selection"} <= set(found):
            break
    assert {"value", "selection"} <= set(found), f"400 tasks of seed 7 hold only {set(found)}"
    return found


@pytest.mark.parametrize("kind", ["value", "selection"])
def test_a_rule_task_reads_the_email_and_never_states_the_rule(rule_tasks, kind) -> None:
    rule_task = rule_tasks[kind]
    scenario = rule_task.scenario
    assert scenario is not None and scenario.rule is not None
    rule = scenario.rule
    assert rule_task.plan[0].tool == "mail__list_messages"
    source = rule_task.plan[rule.step].sources[rule.param]
    assert source.kind == "rule"
    if kind == "value":
        assert source == ArgSource(kind="rule", step=0)
        assert str(rule.value).casefold() not in rule_task.instruction.casefold()
    else:
        assert rule.selection is not None and source.selection == rule.selection
        assert which(rule.selection) not in rule_task.instruction
    assert rule.subject in rule_task.instruction and rule.author in rule_task.instruction
    world = build_world(rule_task)
    (email,) = [m for m in world.env.db("mail").select("message") if m["subject"] == rule.subject]
    shown = str(rule.value) if kind == "value" else which(rule.selection)
    assert shown in email["body"] and email["sender_name"] == rule.author
    assert world.env.changes() == []  # planted as the world's initial state, not a change
    assert "explore-then-act" in rule_task.labels.capabilities
    verdict = verify_task(rule_task)
    assert verdict["rule_matters"] and all(verdict.values()), verdict
    trajectory = asyncio.run(run_episode(rule_task, OracleAgent(), timings=False))
    assert score_trajectory(rule_task, trajectory).score == 1.0


def test_an_idempotency_trap_leaves_the_create_out_and_the_naive_plan_fails() -> None:
    env = Environment(load_services(["contacts", "crm", "mail"]), seed=0)
    account = env.db("crm").select("account", limit=1)[0]
    calls = [("crm__create_contact", {"account_id": account["id"], "name": "Ada Byron",
                                      "email": "ada.byron@example.com"}),
             ("mail__send_message", {"to": ["ada.byron@example.com"], "subject": "Welcome",
                                     "body": "Welcome aboard."})]
    run = env.fork()
    plan, changes = [], []
    for name, arguments in calls:
        mark = len(run.changes() or ())
        data = run.call(name, arguments)["data"]
        plan.append(Step(tool=name, arguments=arguments, output=data,
                         sources={k: ArgSource(kind="user") for k in arguments}))
        changes.append((run.changes() or [])[mark:])
    made = None
    for seed in range(20):  # the trap picks one of the two creates
        made = add_trap(plan, changes, env, random.Random(seed))
        if made is not None and made[1].step.tool == "mail__send_message":
            break
    assert made is not None
    rest, trap, planted = made
    assert [s.tool for s in rest] == ["crm__create_contact"]
    text = instruction(rest, env, None, traps=[trap])
    assert "unless there already is one" in text and '"Welcome aboard."' in text

    def scratch() -> Environment:
        return plant(env.fork(), [planted])

    ran = run_planted(scratch(), rest)
    assert ran is not None
    rest, rest_changes = ran
    rubric = [*state_criteria(rest, rest_changes, env), collateral_criterion()]
    assert trap_matters(rest, trap, rubric, env, scratch, "Done.")
    sent = [m for m in scratch().db("mail").select("message") if m["subject"] == "Welcome"]
    assert len(sent) == 1  # the message is already there: that is the trap


def test_a_rule_is_only_made_for_a_policy_value_of_a_write() -> None:
    env = Environment(load_services(["crm", "mail", "contacts"]), seed=0)
    arguments = {"name": "Ada Byron", "email": "ada.byron@example.com", "company": "Byron Ltd",
                 "source": "referral", "owner": env.pool.user.name}
    run = env.fork()
    mark = len(run.changes() or ())
    envelope = run.call("crm__create_lead", arguments)
    assert envelope["success"], envelope
    step = Step(tool="crm__create_lead", arguments=arguments, output=envelope["data"],
                sources={k: ArgSource(kind="user") for k in arguments})
    changes = [(run.changes() or [])[mark:]]
    picked = set()
    for seed in range(12):
        made = add_rule([step], changes, env, random.Random(seed))
        assert made is not None
        plan, rule, planted, _ = made
        picked.add(rule.param)
        assert rule.step == 1 and plan[0].tool == "mail__list_messages"
        assert planted.values["folder"] == "inbox" and str(rule.value) in planted.values["body"]
    assert picked <= {"source", "owner"} and "source" in picked  # never the name or the email


def test_labels_name_structures_the_plans_have() -> None:
    tasks = list(generate_tasks(120, seed=7))
    seen = set()
    for task in tasks:
        world = build_world(task)
        labels = set(task.labels.capabilities)
        assert labels == set(capabilities(task.plan, world.env, task.condition, task.scenario))
        sources = [(s, n, src) for s in task.plan for n, src in s.sources.items()]
        if "ranked-selection" in labels:
            assert any(src.selection for _, _, src in sources)
        if "conditional-branching" in labels:
            assert task.condition is not None
        if "temporal-reasoning" in labels:  # a date threshold, or a date said relative
            assert (task.condition is not None and isinstance(task.condition.threshold, str)) or (
                any(src.op == "shift" for s in task.plan for src in s.sources.values()))
        if "referential-integrity" in labels:
            assert any(world.env.tools[s.tool].kind == "write" and src.kind in ("step", "rule")
                       and any(p.name == n and p.ref for p in world.env.tools[s.tool].params)
                       for s, n, src in sources)
        if "explore-then-act" in labels:
            assert task.scenario is not None and task.scenario.rule is not None
        if "idempotency-check" in labels:
            assert task.scenario is not None and task.scenario.traps
            (trap,) = task.scenario.traps
            assert trap.step not in task.plan and trap.table.split("__")[0] in task.involved
        seen |= labels
        world.env.close()
    assert {"sequential-dependency", "cross-env-constraint", "ranked-selection",
            "explore-then-act", "idempotency-check", "referential-integrity",
            "conditional-branching"} <= seen


def test_a_fan_out_does_the_write_for_each_item_and_each_one_counts() -> None:
    task = next((t for t in generate_tasks(300, seed=11) if "fan-out" in t.labels.capabilities),
                None)
    assert task is not None, "300 tasks of seed 11 hold no fan-out"
    each = [(i, s) for i, s in enumerate(task.plan)
            if any(src.each for src in s.sources.values())]
    per_tool = Counter(s.tool for _, s in each)  # one write, or several about the same item
    assert per_tool and min(per_tool.values()) >= 2 and len(set(per_tool.values())) == 1
    paths = {src.path for _, s in each for src in s.sources.values() if src.each}
    assert len(paths) >= len(each)  # one item each
    for index, _ in each:  # every copy has its own expected change
        assert any(c.id.startswith(f"s{index}-") for c in task.rubric if c.kind == "state")
    assert all(verify_task(task).values())
    trajectory = asyncio.run(run_episode(task, OracleAgent(), timings=False))
    assert score_trajectory(task, trajectory).score == 1.0
