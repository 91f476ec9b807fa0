"""Model faults and doubled files at the command line (issue 18, defects 4 and 5): a run where
every episode failed exits non-zero and says what the endpoint answered, ``--timeout`` bounds
a reply, and ``score`` counts each (task, rollout) pair once."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.rollout import Trajectory
from compoworld.tasks import Task

runner = CliRunner()


def _tasks_file(tmp_path: Path, tasks: list[Task]) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(b"".join(t.model_dump_json().encode() + b"\n" for t in tasks))
    return path


class _Endpoint(BaseHTTPRequestHandler):
    """A chat endpoint that answers 200 with a body that is not a chat completion, or
    sleeps past any timeout (``/slow/v1``)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path.startswith("/slow"):
            time.sleep(3)
        body = b'"this is not a chat completion"'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_run_where_every_episode_failed_exits_1_and_says_what_the_endpoint_sent(
        tmp_path: Path, direct_tasks: list[Task], endpoint: str) -> None:
    out = tmp_path / "rollouts.jsonl"
    result = runner.invoke(app, [
        "rollout", "--tasks", str(_tasks_file(tmp_path, direct_tasks[:2])), "--agent", "openai",
        "--model", "m", "--base-url", f"http://user:hunter2@127.0.0.1:{endpoint.rsplit(':', 1)[1]}/v1",
        "--out", str(out)])
    said = " ".join(result.output.split())
    assert result.exit_code == 1, result.output
    assert "every episode of this run failed" in said
    assert "this is not a chat completion" in said
    lines = [Trajectory.model_validate_json(line) for line in out.read_bytes().splitlines()]
    assert [t.finish_reason for t in lines] == ["model_error", "model_error"]
    assert all("not a chat completion" in (t.error or "") for t in lines)
    assert b"hunter2" not in out.read_bytes()  # credentials in --base-url are never recorded


def test_timeout_bounds_one_reply(tmp_path: Path, direct_tasks: list[Task],
                                  endpoint: str) -> None:
    out = tmp_path / "rollouts.jsonl"
    started = time.monotonic()
    result = runner.invoke(app, [
        "rollout", "--tasks", str(_tasks_file(tmp_path, direct_tasks[:1])), "--agent", "openai",
        "--model", "m", "--base-url", f"{endpoint}/slow/v1", "--timeout", "0.5",
        "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert time.monotonic() - started < 3
    (line,) = out.read_bytes().splitlines()
    assert "within 0.5 s" in (Trajectory.model_validate_json(line).error or "")


def test_timeout_must_be_positive(tmp_path: Path, direct_tasks: list[Task]) -> None:
    result = runner.invoke(app, ["rollout", "--tasks", str(_tasks_file(tmp_path, direct_tasks)),
                                 "--timeout", "0", "--out", str(tmp_path / "o.jsonl")])
    assert "--timeout must be a positive number" in str(result.exception)


def test_score_counts_each_pair_once(tmp_path: Path, direct_tasks: list[Task]) -> None:
    tasks_file = _tasks_file(tmp_path, direct_tasks[:2])
    out = tmp_path / "rollouts.jsonl"
    assert runner.invoke(app, ["rollout", "--tasks", str(tasks_file), "--out", str(out),
                               "--group", "2"]).exit_code == 0
    doubled = tmp_path / "doubled.jsonl"
    doubled.write_bytes(out.read_bytes() * 2)  # what two concurrent runs used to leave
    once = runner.invoke(app, ["score", str(out), "--tasks", str(tasks_file), "--json",
                               "--out", str(tmp_path / "a.jsonl")])
    twice = runner.invoke(app, ["score", str(doubled), "--tasks", str(tasks_file), "--json",
                                "--out", str(tmp_path / "b.jsonl")])
    assert once.exit_code == twice.exit_code == 0, twice.output
    first = orjson.loads(once.stdout.strip().splitlines()[-1])
    second = orjson.loads(twice.stdout.strip().splitlines()[-1])
    assert second["trajectories"] == first["trajectories"] == 4
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()



def test_credentials_in_the_base_url_never_reach_a_trajectory(
        tmp_path: Path, direct_tasks: list[Task]) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "rollouts.jsonl"
    result = runner.invoke(app, [
        "rollout", "--tasks", str(_tasks_file(tmp_path, direct_tasks[:1])), "--agent", "openai",
        "--model", "m", "--base-url", f"http://me:hunter2@127.0.0.1:{port}/v1?api_key=s3cr3t",
        "--timeout", "20", "--out", str(out)])
    assert result.exit_code == 1, result.output
    (line,) = out.read_bytes().splitlines()
    error = Trajectory.model_validate_json(line).error or ""
    assert "failed after" in error and "me:***@127.0.0.1" in error
    assert b"hunter2" not in out.read_bytes() and b"s3cr3t" not in out.read_bytes()
    assert "hunter2" not in result.output
