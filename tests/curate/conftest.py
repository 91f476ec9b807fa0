"""Tasks for the curation tests, and the bundled model served on loopback (slow tests)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from compoworld.tasks import GenerationSettings, Task, generate_tasks


@pytest.fixture(scope="session")
def tasks() -> list[Task]:
    return [*generate_tasks(4, seed=3),
            *generate_tasks(2, seed=4, settings=GenerationSettings(interface="gateway"))]


@pytest.fixture(scope="session")
def gateway_tasks() -> list[Task]:
    return list(generate_tasks(3, seed=8, settings=GenerationSettings(interface="gateway")))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def served_model() -> Iterator[str]:
    """``compoworld serve model`` (the bundled SmolLM2) on a free loopback port; its base URL."""
    pytest.importorskip("openai")
    port = _free_port()
    command = [str(Path(sys.executable).parent / "compoworld"), "serve", "model", "--port",
               str(port), "--max-tokens", "48", "--timeout", "600", "--log-level", "warning"]
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false",
           "PYTHONPATH": os.pathsep.join(sys.path)}  # this checkout's package, not another's
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
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
