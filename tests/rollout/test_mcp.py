"""The MCP server of an episode, with the real MCP client (``mcp.Client``): in process and
over stdio with a spawned ``compoworld serve mcp``."""

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from compoworld.rollout import build_world
from compoworld.tasks import Task, score

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters

from compoworld.rollout._mcp import EpisodeServer

NEW_CONTACT = {"first_name": "Ada", "last_name": "Lovelace", "email": "ada@analytical.example"}


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def _state_change_and_errors(client: Client) -> None:
    """A write shows in a later read; refusals are tool errors carrying the envelope."""
    missing = await client.call_tool("contacts__find_contact_by_email",
                                     {"email": NEW_CONTACT["email"]})
    assert missing.is_error and json.loads(_text(missing))["error"]["code"] == 404
    created = await client.call_tool("contacts__create_contact", NEW_CONTACT)
    assert not created.is_error, _text(created)
    found = await client.call_tool("contacts__find_contact_by_email",
                                   {"email": NEW_CONTACT["email"]})
    assert not found.is_error and json.loads(_text(found))["id"] == json.loads(_text(created))["id"]
    assert found.structured_content is not None and found.structured_content["last_name"] == "Lovelace"
    again = await client.call_tool("contacts__create_contact", NEW_CONTACT)
    assert again.is_error and json.loads(_text(again))["error"]["code"] in (409, 422)
    bad = await client.call_tool("contacts__create_contact", {"first_name": 3})
    assert bad.is_error and json.loads(_text(bad))["error"]["code"] == 400
    unknown = await client.call_tool("contacts__fly_away", {})
    assert unknown.is_error and "did you mean" in _text(unknown)


def _with_contacts(tasks: list[Task]) -> Task:
    return next(t for t in tasks if t.interface == "direct" and "contacts" in t.involved)


def test_in_process_client_runs_the_plan_and_sees_errors(tasks: list[Task]) -> None:
    task = _with_contacts(tasks)
    served = EpisodeServer(task)

    async def scenario() -> None:
        async with Client(served.server) as client:
            listed = await client.list_tools()
            names = {t.name for t in listed.tools}
            assert {s.tool for s in task.plan} <= names
            assert all(t.input_schema.get("type") == "object" for t in listed.tools)
            for step in task.plan:  # the reference plan, call by call, through MCP
                result = await client.call_tool(step.tool, step.arguments)
                assert not result.is_error, _text(result)
                assert json.loads(_text(result)) == step.output

    asyncio.run(scenario())
    answer = " ".join(str(v) for c in task.rubric if c.kind == "answer" for v in c.values)
    results = score(task.rubric, build_world(task).env, served.world.env, answer,
                    [s.tool for s in task.plan])
    assert all(r.passed for r in results)
    assert [c.name for c in served.calls] == [s.tool for s in task.plan]

    other = EpisodeServer(task)

    async def errors() -> None:
        async with Client(other.server) as client:
            await _state_change_and_errors(client)

    asyncio.run(errors())
    assert [c.error_source for c in other.calls].count("agent") == 4


def test_gateway_server_offers_the_meta_tools(gateway_tasks: list[Task]) -> None:
    task = gateway_tasks[0]
    served = EpisodeServer(task)

    async def scenario() -> None:
        async with Client(served.server) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == ["list_services", "list_tools",
                                                      "describe_tool", "call_tool"]
            services = await client.call_tool("list_services", {})
            assert {s["name"] for s in json.loads(_text(services))} >= set(task.involved)
            step = task.plan[0]
            result = await client.call_tool("call_tool", {"tool_name": step.tool,
                                                          "arguments": step.arguments})
            assert json.loads(_text(result)) == step.output
            direct = await client.call_tool(step.tool, step.arguments)
            assert direct.is_error and "call_tool" in _text(direct)

    asyncio.run(scenario())


@pytest.mark.slow
def test_stdio_server_spawned_by_the_cli(tmp_path: Path, tasks: list[Task]) -> None:
    task = _with_contacts(tasks)
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_bytes(b"".join(t.model_dump_json().encode() + b"\n" for t in tasks))
    params = StdioServerParameters(
        command=str(Path(sys.executable).parent / "compoworld"),
        args=["serve", "mcp", "--task", task.id, "--tasks", str(tasks_file)])

    async def scenario() -> None:
        async with Client(params) as client:
            assert task.instruction in (client.instructions or "")
            listed = await client.list_tools()
            assert {s.tool for s in task.plan} <= {t.name for t in listed.tools}
            await _state_change_and_errors(client)

    asyncio.run(scenario())


@pytest.mark.slow
def test_http_server_spawned_by_the_cli_binds_loopback(tmp_path: Path, tasks: list[Task]) -> None:
    import socket
    import subprocess
    import time

    task = _with_contacts(tasks)
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_bytes(b"".join(t.model_dump_json().encode() + b"\n" for t in tasks))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "compoworld"), "serve", "mcp", "--task", task.id,
         "--tasks", str(tasks_file), "--transport", "http", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)

        async def scenario() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                listed = await client.list_tools()
                assert {s.tool for s in task.plan} <= {t.name for t in listed.tools}
                await _state_change_and_errors(client)

        asyncio.run(scenario())
    finally:
        process.terminate()
        process.wait(timeout=30)
