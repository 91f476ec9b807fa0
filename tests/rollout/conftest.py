"""Tasks generated once per session, in both interfaces (with distinct ids)."""

import pytest

from compoworld.tasks import GenerationSettings, Task, generate_tasks


@pytest.fixture(scope="session")
def direct_tasks() -> list[Task]:
    return list(generate_tasks(8, seed=0))


@pytest.fixture(scope="session")
def gateway_tasks() -> list[Task]:
    return list(generate_tasks(6, seed=1, settings=GenerationSettings(interface="gateway")))


@pytest.fixture(scope="session")
def tasks(direct_tasks: list[Task], gateway_tasks: list[Task]) -> list[Task]:
    return direct_tasks + gateway_tasks
