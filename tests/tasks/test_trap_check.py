"""An idempotency trap is kept only where a read the agent has shows its record (gate
``trap_checkable``), and that read is what the oracle checks with."""

import orjson
import pytest

from compoworld.tasks import Task, build_world, generate_tasks, verify_task
from compoworld.tasks._trap_check import find_check, trap_check


@pytest.fixture(scope="module")
def trapped() -> list[Task]:
    tasks = [t for t in generate_tasks(60, seed=5) if t.scenario is not None
             and any(trap.kind == "idempotency" for trap in t.scenario.traps)]
    assert tasks, "60 tasks of seed 5 hold no idempotency trap"
    return tasks


def test_every_kept_trap_is_shown_by_a_read_the_agent_has(trapped):
    for task in trapped:
        assert task.verification["trap_checkable"], task.id
        for index, trap in enumerate(task.scenario.traps):
            if trap.kind != "idempotency":
                continue
            check = trap_check(task, index)
            assert check is not None and check.tool.split("__")[0] == trap.table.split("__")[0]
            world = build_world(task)
            tool = world.env.tools[check.tool]
            assert tool.kind == "read" and not tool.simulated
            record = next(p for p in task.scenario.planted
                          if f"{p.service}__{p.entity}" == trap.table)
            assert "id" not in check.arguments or check.arguments["id"] != record.values["id"]
            shown = world.env.call(check.tool, check.arguments)
            assert shown["success"] and str(record.values["id"]) in orjson.dumps(
                shown["data"]).decode()
            world.env.close()
    assert verify_task(trapped[0])["trap_checkable"]


def test_a_trap_whose_record_no_read_shows_is_not_checkable(trapped):
    task = trapped[0]
    trap = next(t for t in task.scenario.traps if t.kind == "idempotency")
    kept = [p for p in task.scenario.planted if f"{p.service}__{p.entity}" != trap.table]
    world = build_world(task.model_copy(update={
        "scenario": task.scenario.model_copy(update={"planted": kept})}))
    try:  # the record is not in this world: no read can show it
        assert find_check(world.env, trap, task.scenario.planted) is None
    finally:
        world.env.close()


def test_the_rubric_says_the_trap_a_duplicate_fails_it(trapped):
    from compoworld.tasks import score

    task = trapped[0]
    (criterion,) = [c for c in task.rubric if c.change == "absent"]
    trap = next(t for t in task.scenario.traps if t.kind == "idempotency")
    assert criterion.table == trap.table and criterion.match
    world = build_world(task)
    for duplicate in (False, True):
        episode = world.fork()
        for step in task.plan:
            assert episode.env.call(step.tool, step.arguments)["success"]
        if duplicate:  # the naive plan: the create the request said to skip if it exists
            assert episode.env.call(trap.step.tool, trap.step.arguments)["success"]
        results = {r.id: r for r in score(task.rubric, world.env, episode.env, "", [])}
        assert results[criterion.id].passed is not duplicate, results[criterion.id].reason
        episode.env.close()
    world.env.close()
