"""Choosing the world model of a run: ``WorldModelSpec``, its environment variables, and
``compoworld rollout --simulator llm`` on the bundled model."""

import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.errors import UserError
from compoworld.rollout import Trajectory, build_world
from compoworld.rollout._world import ENV_SIMULATOR, WorldModelSpec
from compoworld.service import sample_arguments
from compoworld.simulate import LLMSimulator, OfflineSimulator
from compoworld.tasks import Step, Task, generate_tasks

runner = CliRunner()
VARIABLES = [ENV_SIMULATOR] + [f"{ENV_SIMULATOR}_{f}" for f in
                               ("MODEL", "BASE_URL", "API_KEY", "MAX_TOKENS", "TIMEOUT", "REPAIRS")]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No world-model variables; whatever a test (or the CLI) sets is undone afterwards."""
    for name in VARIABLES:
        monkeypatch.setenv(name, "")  # recorded, so teardown restores the original
        monkeypatch.delenv(name)
    return monkeypatch


@pytest.fixture(scope="module")
def task() -> Task:
    return next(generate_tasks(1, seed=0))


def test_the_spec_round_trips_through_the_environment(clean_env: pytest.MonkeyPatch) -> None:
    spec = WorldModelSpec("llm", model="m", base_url="http://127.0.0.1:9/v1", max_tokens=64,
                          timeout=5.5, repairs=0)
    assert WorldModelSpec.from_env(spec.env()) == spec
    assert WorldModelSpec.from_env() == WorldModelSpec()  # nothing set: offline
    spec.export()
    assert WorldModelSpec.from_env() == spec
    WorldModelSpec().export()  # the other variables are cleared, not left behind
    assert WorldModelSpec.from_env() == WorldModelSpec()


@pytest.mark.parametrize(("values", "message"), [
    ({ENV_SIMULATOR: "gpt"}, "--simulator must be one of"),
    ({ENV_SIMULATOR: "llm", f"{ENV_SIMULATOR}_MAX_TOKENS": "many"}, "must be a number"),
    ({ENV_SIMULATOR: "llm", f"{ENV_SIMULATOR}_REPAIRS": "-1"}, "--simulator-repairs >= 0"),
])
def test_bad_settings_say_what_to_change(values: dict[str, str], message: str) -> None:
    with pytest.raises(UserError, match=message):
        WorldModelSpec.from_env(values)


def test_an_llm_world_model_needs_a_model(clean_env: pytest.MonkeyPatch) -> None:
    for name in ("COMPOWORLD_BASE_URL", "COMPOWORLD_MODEL"):
        clean_env.delenv(name, raising=False)
    with pytest.raises(UserError, match="--simulator-model local"):
        WorldModelSpec("llm").client()
    result = runner.invoke(app, ["rollout", "--simulator", "llm", "--tasks", "/no/tasks.jsonl"])
    assert result.exit_code != 0 and "needs a model" in " ".join(str(result.exception).split())


def test_worlds_get_the_configured_world_model(clean_env: pytest.MonkeyPatch, task: Task) -> None:
    assert isinstance(build_world(task).env.simulator, OfflineSimulator)
    clean_env.setenv(ENV_SIMULATOR, "llm")
    clean_env.setenv(f"{ENV_SIMULATOR}_MODEL", "some-model")
    clean_env.setenv(f"{ENV_SIMULATOR}_BASE_URL", "http://127.0.0.1:9/v1")
    first, second = build_world(task), build_world(task)
    assert isinstance(first.env.simulator, LLMSimulator)
    assert first.env.simulator.client.model == "some-model"
    assert second.env.simulator is first.env.simulator  # one per pool: one cache for the run
    assert first.fork().env.simulator is first.env.simulator


def _with_simulated_step() -> tuple[Task, str]:
    """A task with one more step: a call of a simulated tool of its world (the generator
    plans only verified tools, so the oracle would never ask the world model otherwise)."""
    for task in generate_tasks(10, seed=0):
        env = build_world(task).env
        simulated = [(n, t) for n, t in env.tools.items() if t.simulated and t.output_schema]
        if simulated:
            break
    else:
        pytest.skip("no generated task's world has a simulated tool")
    name, tool = min(simulated, key=lambda item: (len(str(item[1].output_schema)), item[0]))
    arguments = sample_arguments(tool, env, name.split("__")[0], random.Random(0))
    step = Step(tool=name, arguments=arguments, sources={}, output=None)
    return task.model_copy(update={"plan": [*task.plan, step]}), name


@pytest.mark.slow
def test_rollout_cli_answers_simulated_tools_with_the_bundled_model(
        local_model: object, clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    extended, tool = _with_simulated_step()
    tasks_file, out = tmp_path / "tasks.jsonl", tmp_path / "rollouts.jsonl"
    tasks_file.write_text(extended.model_dump_json() + "\n")
    result = runner.invoke(app, [
        "rollout", "--tasks", str(tasks_file), "--out", str(out), "--agent", "oracle",
        "--no-timings", "--simulator", "llm", "--simulator-model", "local",
        "--simulator-max-tokens", "48", "--simulator-repairs", "0", "--simulator-timeout", "900"])
    assert result.exit_code == 0, result.output
    (trajectory,) = [Trajectory.model_validate_json(line) for line in out.read_text().splitlines()]
    calls = [c for c in trajectory.calls if c.name == tool]
    assert calls and all(c.success for c in calls), trajectory.calls  # schema-valid, or a 500
    simulator = WorldModelSpec.from_env().build(build_world(extended).env.pool)
    assert isinstance(simulator, LLMSimulator) and simulator.client.model == "smollm2"
    stats = simulator.stats
    assert stats.simulated_calls == len(calls)
    # the model was asked: its answer was used, or its failure is counted before a fallback
    assert stats.fallbacks <= stats.llm_failures <= stats.simulated_calls
