"""Model agents: a dead endpoint never crashes a run; the OpenAI agent against a real
OpenAI-compatible server on loopback serving the bundled model (slow)."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from compoworld.errors import UserError
from compoworld.rollout import AgentSpec, ChatAgent, OracleAgent, Trajectory, make_agent, rollout
from compoworld.tasks import Task


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_make_agent_by_name() -> None:
    pytest.importorskip("openai")
    assert isinstance(make_agent("oracle"), OracleAgent)
    agent = make_agent("openai", model="m", base_url="http://127.0.0.1:9/v1")
    assert isinstance(agent, ChatAgent) and (agent.name, agent.model) == ("openai", "m")
    assert AgentSpec("openai", model="m", base_url="http://127.0.0.1:9/v1").build().model == "m"
    with pytest.raises(UserError, match="unknown agent 'gpt'"):
        make_agent("gpt")


def test_a_closed_port_ends_each_episode_as_model_error(tmp_path: Path, tasks: list[Task]) -> None:
    pytest.importorskip("openai")
    from compoworld.models import OpenAIClient

    client = OpenAIClient(f"http://127.0.0.1:{_free_port()}/v1", "nobody", retries=0,
                          timeout=5.0)
    out = tmp_path / "dead.jsonl"
    stats = rollout(tasks[:2], ChatAgent(client, "openai"), group=2, out=out, concurrency=4)
    assert (stats.done, stats.model_errors) == (4, 4)
    rows = [Trajectory.model_validate_json(line) for line in out.read_bytes().splitlines()]
    assert all(r.finish_reason == "model_error" and "failed after 1 attempts" in (r.error or "")
               for r in rows)


@pytest.fixture(scope="module")
def served_model() -> Iterator[str]:
    """``compoworld serve model`` on a free loopback port; yields its base URL."""
    pytest.importorskip("openai")
    port = _free_port()
    command = [str(Path(sys.executable).parent / "compoworld"), "serve", "model", "--port",
               str(port), "--max-tokens", "32", "--timeout", "600", "--log-level", "warning"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, "TOKENIZERS_PARALLELISM": "false"})
    try:
        deadline = time.monotonic() + 600  # loading takes ~20 s alone, minutes on a busy CPU
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the model server exited: {process.stderr.read()!r}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the model server did not come up in 600 s")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.slow
def test_openai_agent_against_the_served_bundled_model(served_model: str, tmp_path: Path,
                                                       gateway_tasks: list[Task]) -> None:
    """A gateway task (four tools: the prompt fits the small model's context), one short
    episode: whatever the model says, the run records it as a well-formed trajectory."""
    agent = make_agent("openai", model="smollm2", base_url=served_model, max_tokens=32,
                       temperature=0.7, timeout=600)
    out = tmp_path / "model.jsonl"
    stats = rollout(gateway_tasks[:1], agent, group=1, out=out, max_steps=2)
    assert stats.done == 1 and stats.model_errors == 0
    for row in (Trajectory.model_validate_json(line) for line in out.read_bytes().splitlines()):
        assert (row.agent, row.model) == ("openai", "smollm2")
        assert row.finish_reason in ("stop", "max_steps")
        assert row.usage["completion_tokens"] > 0 and row.timings.model_s > 0
        assistant = [m for m in row.messages if m["role"] == "assistant"]
        assert len(assistant) == row.n_steps >= 1
        called = sum(len(m.get("tool_calls") or []) for m in assistant)
        assert called == len(row.calls)
        tool_messages = [m for m in row.messages if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_messages] == [c.call_id for c in row.calls]
