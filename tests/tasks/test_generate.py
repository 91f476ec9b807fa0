import json

import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.tasks import GenerationStats, Task, generate_tasks, score
from compoworld.world import compose


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(generate_tasks(6, seed=0))


def test_tasks_are_verified_cross_service_walks(tasks):
    assert len(tasks) == 6
    for task in tasks:
        assert all(task.verification.values()), task.verification
        assert len(task.involved) >= 2 and len(task.plan) >= 2
        assert "sequential-dependency" in task.labels.capabilities
        assert any(c.kind in ("state", "answer") for c in task.rubric)
        assert not set(task.involved) & set(task.distractors)
        # Every step after the walk's first uses something an earlier step found (a rule's
        # email, read first, comes before the walk's first step).
        first = 2 if task.scenario and task.scenario.rule else 1
        for step in task.plan[first:]:
            assert any(s.kind != "user" for s in step.sources.values())


def test_generation_is_deterministic(tasks):
    again = list(generate_tasks(6, seed=0))
    assert [t.model_dump_json() for t in again] == [t.model_dump_json() for t in tasks]
    other = list(generate_tasks(2, seed=1))
    assert other[0].model_dump_json() != tasks[0].model_dump_json()


def test_the_reference_plan_scores_full_and_doing_nothing_does_not(tasks):
    for task in tasks:
        world = compose(task.involved, distractors=len(task.distractors), seed=task.seed)
        initial = world.env
        idle = score(task.rubric, initial, world.fork().env, "", [])
        assert not all(r.passed for r in idle)
        env = world.fork().env
        for step in task.plan:
            assert env.call(step.tool, step.arguments)["success"]
        answer = " ".join(str(v) for c in task.rubric if c.kind == "answer" for v in c.values)
        results = score(task.rubric, initial, env, answer, [s.tool for s in task.plan])
        assert all(r.passed for r in results), [r for r in results if not r.passed]


def test_instructions_state_what_the_user_knows_and_hide_what_must_be_found(tasks):
    for task in tasks:
        text = task.instruction.casefold()
        for step in task.plan:
            for name, source in step.sources.items():
                value = step.arguments[name]
                values = value if isinstance(value, list) else [value]
                if source.kind == "user":
                    assert all(str(v).casefold() in text for v in values)
        ids = [v for step in task.plan for n, s in step.sources.items() if s.kind == "step"
               for v in (step.arguments[n] if isinstance(step.arguments[n], list)
                         else [step.arguments[n]]) if isinstance(v, str) and "_" in v]
        assert all(i.casefold() not in text for i in ids)


def test_rejections_are_counted_per_gate():
    stats = GenerationStats()
    list(generate_tasks(3, seed=2, stats=stats))
    assert stats.kept == 3 and stats.attempts >= 3
    assert stats.attempts == stats.kept + sum(stats.rejected.values())


def test_cli_generate_resumes_without_loss_or_duplicates(tmp_path):
    runner = CliRunner()
    whole, parts = tmp_path / "whole.jsonl", tmp_path / "parts.jsonl"
    assert runner.invoke(app, ["generate", "--tasks", "4", "--seed", "3", "--out", str(whole)]
                         ).exit_code == 0
    runner.invoke(app, ["generate", "--tasks", "2", "--seed", "3", "--out", str(parts)])
    with parts.open("ab") as f:  # an interrupted run leaves half a line
        f.write(whole.read_bytes().splitlines()[2][:50])
    result = runner.invoke(app, ["generate", "--tasks", "4", "--seed", "3", "--out", str(parts)])
    assert result.exit_code == 0, result.output
    assert parts.read_bytes() == whole.read_bytes()
    ids = [json.loads(line)["id"] for line in whole.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 4
    shown = runner.invoke(app, ["tasks", "show", ids[0], "--tasks", str(whole)])
    assert shown.exit_code == 0 and "Instruction" in shown.stdout
    assert "[state]" in shown.stdout or "[answer]" in shown.stdout
    wrong = runner.invoke(app, ["tasks", "show", "t3-9", "--tasks", str(whole)])
    assert wrong.exit_code != 0


def test_workers_do_not_change_the_output(tasks):
    parallel = list(generate_tasks(6, seed=0, workers=2))
    assert [t.model_dump_json() for t in parallel] == [t.model_dump_json() for t in tasks]


def test_generation_over_a_subset_of_services_stays_inside_it():
    from compoworld.catalog import load_service
    from compoworld.errors import NotFound, UserError
    from compoworld.tasks import GenerationSettings, select_services

    chosen = select_services(["contacts", "mail"], ["finance"])
    assert {"contacts", "mail"} <= set(chosen)
    assert {load_service(n).domain for n in chosen if n not in ("contacts", "mail")} == {
        "finance"}
    with pytest.raises(UserError, match="no service has domain 'nope'"):
        select_services(None, ["nope"])
    with pytest.raises(NotFound):
        select_services(["contact"], None)
    settings = GenerationSettings(services=chosen, distractors=1)
    tasks = list(generate_tasks(3, seed=1, settings=settings))
    assert tasks and all(set(t.involved) | set(t.distractors) <= set(chosen) for t in tasks)


def test_cli_generate_over_domains(tmp_path):
    out = tmp_path / "tasks.jsonl"
    result = CliRunner().invoke(app, ["generate", "--tasks", "2", "--seed", "3", "--domains",
                                      "people,communication", "--distractors", "1",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    from compoworld.catalog import load_service

    tasks = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(tasks) == 2
    assert {load_service(s).domain for t in tasks for s in t["involved"] + t["distractors"]} <= {
        "people", "communication"}
    bad = CliRunner().invoke(app, ["generate", "--tasks", "1", "--domains", "nope",
                                   "--out", str(tmp_path / "x.jsonl")])
    assert bad.exit_code != 0 and "no service has domain 'nope'" in str(bad.exception)


def test_worlds_vary_across_a_run_and_each_task_rebuilds_its_own():
    from compoworld.tasks import WORLD_BATCH, build_world, verify_task, world_seed
    from compoworld.types import Pool

    first = list(generate_tasks(2, seed=0))  # attempts of the first batch: one world
    second = list(generate_tasks(2, seed=0, start_attempt=WORLD_BATCH))  # the next batch's
    tasks = first + second
    assert all(t.provenance["run_seed"] == 0 for t in tasks)
    assert [t.seed for t in tasks] == [world_seed(0, t.provenance["attempt"]) for t in tasks]
    assert all(t.provenance["attempt"] < WORLD_BATCH for t in first)
    assert first[0].seed == first[1].seed not in {t.seed for t in second}
    worlds = {first[0].seed, second[0].seed}
    # Two worlds, two populations: nobody is in both.
    emails = [{p.email for p in Pool(w).people} for w in worlds]
    assert not emails[0] & emails[1]
    for task in tasks:  # each task's world is rebuilt from the task alone, gates and all
        assert build_world(task).env.pool.user == Pool(task.seed).user
        assert all(verify_task(task).values()), task.id


def test_resume_takes_old_task_files_whose_seed_is_the_runs(tmp_path):
    runner = CliRunner()
    out = tmp_path / "tasks.jsonl"
    assert runner.invoke(app, ["generate", "--tasks", "1", "--seed", "3", "--out", str(out)]
                         ).exit_code == 0
    record = json.loads(out.read_text())
    assert record["provenance"]["run_seed"] == 3 and record["seed"] != 3
    del record["provenance"]["run_seed"]  # as written before worlds varied: seed was the run's
    record["seed"] = 3
    out.write_text(json.dumps(record) + "\n")
    assert runner.invoke(app, ["generate", "--tasks", "1", "--seed", "3", "--out", str(out)]
                         ).exit_code == 0
    other = runner.invoke(app, ["generate", "--tasks", "2", "--seed", "4", "--out", str(out)])
    assert other.exit_code != 0 and "another seed" in str(other.exception)


def test_the_scratch_environment_mounts_only_what_the_gates_replay():
    from compoworld.tasks._context import context

    ctx = context(12345)
    ctx.mount("contacts")
    ctx.mount("crm")
    assert sorted(ctx.initial.services) == sorted(ctx.work.services) == ["contacts", "crm"]
    assert not ctx.scratch.services
    scratch = ctx.fresh_scratch(["crm", "mail"])
    assert sorted(scratch.services) == ["crm", "mail"]
    assert "mail" in ctx.initial.services  # mounted for the gates: in every environment
    initial = ctx.initial.rows()
    assert scratch.rows() == {table: initial[table] for table in scratch.rows()}
