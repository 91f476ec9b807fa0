"""DNS-rebinding protection of ``serve mcp`` over HTTP, for every bind (issue 18, defect 7):
over real HTTP on loopback, a Host header that is not loopback, the bound address or an
allowed name is refused (421); binding beyond loopback warns."""

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from compoworld.cli import app
from compoworld.tasks import Task

pytest.importorskip("mcp")

from compoworld.rollout._mcp import EpisodeServer, is_loopback

INITIALIZE = (b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {'
              b'"protocolVersion": "2025-06-18", "capabilities": {}, '
              b'"clientInfo": {"name": "t", "version": "1"}}}')


@contextmanager
def serving(asgi: Any) -> Iterator[int]:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(asgi, log_level="error"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)


def status(port: int, host_header: str, origin: str | None = None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Host": host_header, "content-type": "application/json",
               "accept": "application/json, text/event-stream"}
    if origin:
        headers["Origin"] = origin
    connection.request("POST", "/mcp", body=INITIALIZE, headers=headers)
    code = connection.getresponse().status
    connection.close()
    return code


@pytest.mark.parametrize("bind", ["0.0.0.0", "192.0.2.7", "127.0.0.1"])
def test_a_foreign_host_header_is_refused_whatever_the_bind(tasks: list[Task], bind: str) -> None:
    served = EpisodeServer(tasks[0])
    with serving(served.http_app(bind)) as port:
        assert status(port, "evil.example") == 421
        assert status(port, f"evil.example:{port}") == 421
        assert status(port, f"127.0.0.1:{port}", origin="http://evil.example") == 403
        assert status(port, f"127.0.0.1:{port}") == 200
        assert status(port, f"localhost:{port}") == 200
        if bind == "192.0.2.7":
            assert status(port, f"192.0.2.7:{port}") == 200


def test_the_allow_list_admits_named_hosts(tasks: list[Task]) -> None:
    served = EpisodeServer(tasks[0])
    with serving(served.http_app("0.0.0.0", ["gpu-box.lan", "other.lan:9000"])) as port:
        assert status(port, f"gpu-box.lan:{port}") == 200
        assert status(port, "other.lan:9000") == 200
        assert status(port, f"other.lan:{port}") == 421
        assert status(port, f"127.0.0.1:{port}", origin=f"http://gpu-box.lan:{port}") == 200


def test_loopback_detection() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.4", "example.com"]))


def test_binding_beyond_loopback_warns(tmp_path: Path, tasks: list[Task],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_bytes(b"".join(t.model_dump_json().encode() + b"\n" for t in tasks))
    seen: list[Any] = []
    monkeypatch.setattr(EpisodeServer, "run_http",
                        lambda self, host, port, allowed_hosts=(): seen.append(
                            (host, port, list(allowed_hosts))))
    args = ["serve", "mcp", "--task", tasks[0].id, "--tasks", str(tasks_file),
            "--transport", "http", "--host"]
    wide = CliRunner().invoke(app, [*args, "0.0.0.0", "--allow-host", "gpu-box.lan"])
    assert wide.exit_code == 0, wide.output
    assert "warning: binding '0.0.0.0'" in wide.output and "'gpu-box.lan'" in wide.output
    local = CliRunner().invoke(app, [*args, "127.0.0.1"])
    assert "warning" not in local.output
    assert seen == [("0.0.0.0", 8765, ["gpu-box.lan"]), ("127.0.0.1", 8765, [])]
