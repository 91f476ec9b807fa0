"""OpenAIClient against a real ``compoworld serve model`` process, and against broken endpoints."""

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from compoworld.errors import UserError
from compoworld.models import AssistantMessage, ModelError, OpenAIClient, client_from_settings

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """``compoworld serve model`` on a free loopback port, ready (model loaded)."""
    pytest.importorskip("transformers")
    port = free_port()
    command = [sys.executable, "-c", "from compoworld.cli import main; main()", "serve", "model",
               "--port", str(port), "--log-level", "warning"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600  # a busy 2-core machine loads slowly
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"serve model exited {process.returncode}: {process.stderr.read()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                    if json.load(response)["status"] == "ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("serve model was not ready within 600s")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.mark.slow
def test_chat_with_tools_over_http(server):
    client = OpenAIClient(f"{server}/v1", "smollm2", timeout=120)

    async def ask():
        messages = [{"role": "system", "content": "Call a tool when one helps."},
                    {"role": "user", "content": "What is the weather in Oslo?"}]
        first = await client.chat(messages, tools=[WEATHER], max_tokens=16)
        again = await client.chat(messages, tools=[WEATHER], max_tokens=16)
        short = await client.chat([{"role": "user", "content": "Count to fifty."}], max_tokens=3)
        return first, again, short

    first, again, short = asyncio.run(ask())
    assert isinstance(first, AssistantMessage) and first == again  # greedy: same request, same reply
    assert first.content or first.tool_calls
    assert first.finish_reason in {"stop", "length", "tool_calls"}
    for call in first.tool_calls:
        assert re.fullmatch(r"call_\d+", call.id) and isinstance(call.name, str)
    assert 0 < first.usage.completion_tokens <= 16 and first.usage.prompt_tokens > 50
    assert short.finish_reason == "length" and short.usage.completion_tokens == 3
    assert client.retried == 0


@pytest.mark.slow
def test_server_routes_and_refusals(server):
    with urllib.request.urlopen(f"{server}/v1/models", timeout=5) as response:
        assert [m["id"] for m in json.load(response)["data"]] == ["smollm2"]
    wrong = OpenAIClient(f"{server}/v1", "gpt-9", retries=3)
    with pytest.raises(ModelError, match="not served here") as caught:
        asyncio.run(wrong.chat([{"role": "user", "content": "hi"}]))
    assert caught.value.transient is False and wrong.retried == 0  # a 404 is not retried
    request = urllib.request.Request(f"{server}/v1/chat/completions", method="POST",
                                     data=json.dumps({"messages": "hi"}).encode(),
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 400 and "messages" in refused.value.read().decode()


def test_endpoint_down_fails_fast_after_counted_retries():
    client = OpenAIClient(f"http://127.0.0.1:{free_port()}/v1", "m", retries=2, backoff=0.01, timeout=2)
    started = time.monotonic()
    with pytest.raises(ModelError, match="after 3 attempts") as caught:
        asyncio.run(client.chat([{"role": "user", "content": "hi"}]))
    assert caught.value.transient and client.retried == 2
    assert time.monotonic() - started < 5


class _Endpoint(BaseHTTPRequestHandler):
    """A broken endpoint: answers with ``status`` after ``delay`` seconds; counts requests."""

    status, delay, hits = 500, 0.0, 0

    def do_POST(self):
        type(self).hits += 1
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        time.sleep(self.delay)
        body = json.dumps({"error": {"message": f"status {self.status}"}}).encode()
        try:
            self.send_response(self.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass  # the client gave up

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    def start(status, delay=0.0):
        handler = type("Handler", (_Endpoint,), {"status": status, "delay": delay, "hits": 0})
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        httpd.daemon_threads = True
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        return f"http://127.0.0.1:{httpd.server_address[1]}/v1", handler

    servers = []
    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("status, retried", [(500, 2), (429, 2), (503, 2), (400, 0), (401, 0)])
def test_only_transport_errors_are_retried(endpoint, status, retried):
    url, handler = endpoint(status)
    client = OpenAIClient(url, "m", retries=2, backoff=0.01)
    with pytest.raises(ModelError) as caught:
        asyncio.run(client.chat([{"role": "user", "content": "hi"}]))
    assert client.retried == retried and handler.hits == retried + 1
    assert caught.value.transient is (retried > 0)


def test_slow_endpoint_times_out(endpoint):
    url, handler = endpoint(200, delay=5)
    client = OpenAIClient(url, "m", retries=1, backoff=0.01, timeout=0.4)
    started = time.monotonic()
    with pytest.raises(ModelError, match="Timeout"):
        asyncio.run(client.chat([{"role": "user", "content": "hi"}]))
    assert time.monotonic() - started < 3 and handler.hits == 2


def test_settings_from_environment(monkeypatch):
    for name in ("COMPOWORLD_BASE_URL", "COMPOWORLD_MODEL", "COMPOWORLD_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert client_from_settings() is None  # nothing configured: the caller runs offline
    with pytest.raises(UserError, match="COMPOWORLD_BASE_URL"):
        OpenAIClient(model="m")
    monkeypatch.setenv("COMPOWORLD_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(UserError, match="COMPOWORLD_MODEL"):
        OpenAIClient()
    monkeypatch.setenv("COMPOWORLD_MODEL", "qwen")
    client = client_from_settings()
    assert isinstance(client, OpenAIClient)
    assert (client.base_url, client.model) == ("http://127.0.0.1:9/v1", "qwen")
    monkeypatch.delenv("COMPOWORLD_BASE_URL")
    with pytest.raises(UserError, match="needs an endpoint"):
        client_from_settings()
    assert client_from_settings(model="local").model == "smollm2"
    assert os.environ["COMPOWORLD_MODEL"] == "qwen"
