"""``serve model`` as a public endpoint (issue 18, defect 6), over real HTTP on loopback: a
malformed request is an OpenAI-shaped 400 (never a plain-text 500 or a reset connection), a
prompt past the limit is refused before any compute, ``timeout`` bounds a request, and the port
opens before the model loads (``/health`` 503 until it is ready)."""

import json
import json as _json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from compoworld.models import LocalClient
from compoworld.models._server import create_app

pytestmark = pytest.mark.slow  # loads the bundled model


class Response:
    def __init__(self, status_code: int, body: bytes) -> None:
        self.status_code, self.text = status_code, body.decode(errors="replace")

    def json(self) -> Any:
        return json.loads(self.text)


def _send(method: str, url: str, body: bytes | None, timeout: float) -> Response:
    request = urllib.request.Request(url, data=body, method=method,
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return Response(answer.status, answer.read())
    except urllib.error.HTTPError as error:
        return Response(error.code, error.read())


class httpx:  # the few calls these tests make, on the standard library
    @staticmethod
    def post(url: str, *, content: bytes | None = None, json: Any = None,
             headers: Any = None, timeout: float = 30) -> Response:
        body = content if content is not None else _json.dumps(json).encode()
        return _send("POST", url, body, timeout)

    @staticmethod
    def get(url: str, *, timeout: float = 30) -> Response:
        return _send("GET", url, None, timeout)


@contextmanager
def serving(app: Any) -> Iterator[str]:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def url(local_model: Any) -> Iterator[str]:
    model, tokenizer = local_model
    client = LocalClient(model, tokenizer, timeout=30, max_tokens=4, max_prompt_tokens=600)
    with serving(create_app(client, "smollm2")) as url:
        yield url


def deep(depth: int) -> str:
    return '{"role": "user", "content": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize("body", [
    b'{"messages": [{}]}',
    b'{"messages": [{"role": "assistant", "tool_calls": [{"function": 7}]}]}',
    b'{"messages": [{"role": "assistant", "tool_calls": "call it"}]}',
    b'{"messages": [{"role": "user", "content": "hi"}], "temperature": -1}',
    b'{"messages": [{"role": "user", "content": "hi"}], "max_tokens": -5}',
    b'{"messages": [{"role": "user", "content": "hi"}], "seed": 99999999999999999999999}',
    b'{"messages": []}',
    ('{"messages": [' + deep(5_000) + "]}").encode(),
    ('{"messages": [' + deep(500) + "]}").encode(),
    b"not json at all",
    b'["messages"]',
])
def test_malformed_requests_get_the_openai_error_shape(url: str, body: bytes) -> None:
    response = httpx.post(f"{url}/v1/chat/completions", content=body,
                          headers={"content-type": "application/json"}, timeout=30)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["code"] == 400
    assert error["message"] and "\n" not in error["message"]


def test_a_tiny_temperature_decodes_greedily(url: str) -> None:
    request = {"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 3}
    greedy = httpx.post(f"{url}/v1/chat/completions", json=request, timeout=60)
    tiny = httpx.post(f"{url}/v1/chat/completions", json={**request, "temperature": 1e-300},
                      timeout=60)
    assert greedy.status_code == tiny.status_code == 200, tiny.text
    assert tiny.json()["choices"][0]["message"] == greedy.json()["choices"][0]["message"]


def test_a_prompt_past_the_limit_is_a_400_before_any_compute(url: str) -> None:
    started = time.monotonic()
    response = httpx.post(f"{url}/v1/chat/completions", timeout=60, json={
        "messages": [{"role": "user", "content": "word " * 5_000}]})
    assert response.status_code == 400, response.text
    assert "at most 600" in response.json()["error"]["message"]
    assert time.monotonic() - started < 20


def test_a_body_past_the_size_limit_is_a_413(local_model: Any) -> None:
    model, tokenizer = local_model
    app = create_app(LocalClient(model, tokenizer), "smollm2", max_request_bytes=1_000)
    with serving(app) as url:
        response = httpx.post(f"{url}/v1/chat/completions", timeout=30, json={
            "messages": [{"role": "user", "content": "x" * 2_000}]})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == 413


class SlowLoading(LocalClient):
    """The bundled model, whose loading waits until ``go`` is set."""

    def __init__(self, model: Any, tokenizer: Any) -> None:
        super().__init__(model, tokenizer, timeout=1.0, max_tokens=2)
        self.go = threading.Event()

    def load(self) -> tuple[Any, Any]:
        self.go.wait(30)
        return super().load()


def test_health_is_503_while_loading_and_requests_time_out_in_the_openai_shape(
        local_model: Any) -> None:
    client = SlowLoading(*local_model)
    with serving(create_app(client, "smollm2")) as url:
        loading = httpx.get(f"{url}/health", timeout=5)
        assert loading.status_code == 503 and loading.json()["status"] == "loading"
        started = time.monotonic()
        waited = httpx.post(f"{url}/v1/chat/completions", timeout=30, json={
            "messages": [{"role": "user", "content": "hi"}]})
        assert waited.status_code == 504 and waited.json()["error"]["type"] == "timeout"
        assert time.monotonic() - started < 5  # bounded by timeout=1.0
        client.go.set()
        deadline = time.monotonic() + 30
        while httpx.get(f"{url}/health", timeout=5).status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert httpx.get(f"{url}/health", timeout=5).json()["status"] == "ok"
