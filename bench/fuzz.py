"""Hostile tool calls through ``Environment.call`` and through the real MCP server over HTTP.

Run from the repository root with the project's virtualenv::

    .venv/bin/python bench/fuzz.py                 # table
    .venv/bin/python bench/fuzz.py --json          # exactly one JSON object on stdout
    .venv/bin/python bench/fuzz.py --calls 20000 --mcp-calls 2000 --seed 3

Every call is drawn (seeded) from the families a model or a client can send: arguments nested
20 to 5,000 levels deep, integers past 64 bits, NaN and infinities (as numbers and as text),
lists past the length limit, long strings and keys inside ``dict``/``list[Any]`` parameters,
SQL injection text, wrong types, unknown parameters and tools, non-object arguments, and
plain valid calls with one hostile field. Environment calls run on one world of each catalog
service; MCP calls are raw JSON-RPC over streamable HTTP on loopback to ``EpisodeServer``
(``serve mcp``), so the bytes reach the server as written (``NaN``, ``1e999``, 5,000 brackets).

Checked for every call: no exception, no 500 (no tool failure recorded, no HTTP 5xx), and on
every failed call the state is byte-identical to before it. Printed: counts by error code.
A measurement, not a test: the exit code is 1 only when a check fails.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import sys
import threading
import time
from collections import Counter
from typing import Any

from compoworld.catalog import load_services
from compoworld.service import Environment, Tool

INJECTION = ["'; DROP TABLE x; --", "\" OR 1=1 --", "%", "_", "\\", "\x00", "Robert'); --"]


def _nest(depth: int, as_dict: bool) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"k": value} if as_dict else [value]
    return value


def _hostile_value(rng: random.Random) -> Any:
    kind = rng.randrange(10)
    if kind == 0:
        return _nest(rng.choice([20, 31, 33, 64, 253, 1_000, 5_000]), rng.random() < 0.5)
    if kind == 1:
        return rng.choice([2 ** 63, -(2 ** 63) - 1, 10 ** 30, 2 ** 200, "9223372036854775808"])
    if kind == 2:
        return rng.choice([float("nan"), float("inf"), float("-inf"), "NaN", "-Infinity", "1e999"])
    if kind == 3:
        return [f"p{i}@example.com" for i in range(rng.choice([1_001, 5_000, 50_000]))]
    if kind == 4:
        return rng.choice([{"note": "a" * 20_001}, ["b" * 20_001], {"k" * 5_000: 1},
                           [{"deep": ["c" * 25_000]}]])
    if kind == 5:
        return rng.choice(INJECTION)
    if kind == 6:
        return rng.choice([None, True, [], {}, 3.5, -1, 0, "", [None], {"": None}])
    if kind == 7:
        return "z" * rng.choice([20_000, 20_001, 100_000])
    if kind == 8:
        return [rng.choice(INJECTION) for _ in range(rng.randrange(1, 8))]
    return rng.randrange(-(2 ** 70), 2 ** 70)


def hostile_call(rng: random.Random, tools: dict[str, Tool]) -> tuple[str, Any]:
    """One hostile call: (qualified tool name, arguments)."""
    names = sorted(tools)
    name = rng.choice(names)
    params = [p.name for p in tools[name].params]
    roll = rng.random()
    if roll < 0.03:
        return name + "x", {}
    if roll < 0.06:
        return name, rng.choice([[1, 2], "text", 7, None, _nest(2_000, False)])
    args: dict[str, Any] = {}
    for param in rng.sample(params, k=min(len(params), rng.randrange(0, 3))):
        args[param] = rng.choice([*INJECTION, "x", 1, 2.5, True])
    key = rng.choice(params) if params and rng.random() < 0.9 else f"unknown_{rng.randrange(9)}"
    args[key] = _hostile_value(rng)
    return name, args


def fuzz_environment(calls: int, seed: int) -> dict[str, Any]:
    """``calls`` hostile calls through ``Environment.call``, one world per service."""
    world = Environment(load_services(), seed=0)
    envs = {name: world.restrict([name]) for name in world.services}
    rng = random.Random(seed)
    codes: Counter[str] = Counter()
    exceptions: list[str] = []
    changed: list[str] = []
    failures = 0
    started = time.perf_counter()
    for number in range(calls):
        name, args = hostile_call(rng, world.tools)
        service = name.split("__", 1)[0]
        env = envs[service]
        before = env.snapshot()
        try:
            envelope = env.call(name, args)
        except BaseException as error:  # what the bench counts
            exceptions.append(f"{name}: {type(error).__name__}: {str(error)[:200]}")
            continue
        code = "ok" if envelope["success"] else str(envelope["error"]["code"])
        codes[code] += 1
        if not envelope["success"] and env.snapshot() != before:
            changed.append(name)
        failures += len(env.failures)
        if env.failures:
            env.failures.clear()
        if number % 500 == 499:
            for each in envs.values():
                each.reset()
    return {"calls": calls, "seconds": round(time.perf_counter() - started, 2),
            "by_code": dict(sorted(codes.items())), "exceptions": len(exceptions),
            "exception_samples": exceptions[:5], "tool_failures_500": failures,
            "state_changed_on_failure": len(changed), "changed_samples": changed[:5]}


class _Mcp:
    """A raw streamable-HTTP MCP client session on loopback (bytes sent as written)."""

    def __init__(self, port: int) -> None:
        self.port, self.session, self.next_id = port, None, 0

    def post(self, body: bytes) -> tuple[int, list[Any]]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"content-type": "application/json",
                   "accept": "application/json, text/event-stream",
                   "mcp-protocol-version": "2025-06-18"}
        if self.session:
            headers["mcp-session-id"] = self.session
        connection.request("POST", "/mcp", body=body, headers=headers)
        response = connection.getresponse()
        self.session = response.getheader("mcp-session-id") or self.session
        text = response.read().decode(errors="replace")
        connection.close()
        messages = []
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                messages.append(json.loads(line[5:]))
        if not messages and text.strip().startswith("{"):
            messages.append(json.loads(text))
        return response.status, messages

    def request(self, method: str, params_json: str) -> tuple[int, list[Any]]:
        self.next_id += 1
        return self.post(f'{{"jsonrpc": "2.0", "id": {self.next_id}, "method": "{method}", '
                         f'"params": {params_json}}}'.encode())


def _raw(value: Any) -> str:
    """JSON text of ``value`` as a hostile client writes it (NaN, Infinity, huge integers)."""
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, list):
        if len(value) > 50 and all(isinstance(v, str) for v in value):
            return json.dumps(value)
        return "[" + ",".join(_raw_deep(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_raw_deep(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def _raw_deep(value: Any) -> str:
    """Like :func:`_raw`, without recursion (for thousands of levels)."""
    opened: list[str] = []
    closed: list[str] = []
    while isinstance(value, (list, dict)) and len(value) == 1:
        if isinstance(value, list):
            opened.append("[")
            closed.append("]")
            value = value[0]
        else:
            ((key, value),) = value.items()
            opened.append("{" + json.dumps(key) + ":")
            closed.append("}")
    return "".join(opened) + _raw(value) + "".join(reversed(closed))


def fuzz_mcp(calls: int, seed: int) -> dict[str, Any]:
    """``calls`` hostile calls as raw JSON-RPC to the MCP server of one task, over HTTP."""
    import uvicorn

    from compoworld.rollout._mcp import EpisodeServer
    from compoworld.tasks import generate_tasks

    task = next(generate_tasks(1, seed=seed))
    served = EpisodeServer(task)
    env = served.world.env
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(served.http_app("127.0.0.1"), log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    client = _Mcp(sock.getsockname()[1])
    status, _ = client.request("initialize", '{"protocolVersion": "2025-06-18", "capabilities": '
                                             '{}, "clientInfo": {"name": "fuzz", "version": "1"}}')
    assert status == 200, status
    client.post(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    rng = random.Random(seed)
    codes: Counter[str] = Counter()
    http_status: Counter[int] = Counter()
    changed, exceptions = 0, 0
    started = time.perf_counter()
    try:
        for _ in range(calls):
            name, args = hostile_call(rng, env.tools)
            arguments = _raw_deep(args) if isinstance(args, (list, dict)) else _raw(args)
            before = env.snapshot()
            try:
                status, messages = client.request(
                    "tools/call", f'{{"name": {json.dumps(name)}, "arguments": {arguments}}}')
            except Exception:  # a reset connection is what the bench counts
                exceptions += 1
                continue
            http_status[status] += 1
            reply = messages[-1] if messages else {}
            if "error" in reply:
                code = f"jsonrpc {reply['error'].get('code')}"
            elif reply.get("result", {}).get("isError"):
                text = reply["result"]["content"][0]["text"]
                try:
                    code = str(json.loads(text)["error"]["code"])
                except (ValueError, KeyError, TypeError):
                    code = "tool error (not an envelope)"
            elif "result" in reply:
                code = "ok"
            else:
                code = f"http {status} (no JSON-RPC reply)"
            codes[code] += 1
            if code != "ok" and env.snapshot() != before:
                changed += 1
    finally:
        server.should_exit = True
        thread.join(10)
    return {"calls": calls, "seconds": round(time.perf_counter() - started, 2),
            "by_code": dict(sorted(codes.items())),
            "http_status": {str(k): v for k, v in sorted(http_status.items())},
            "exceptions": exceptions, "tool_failures_500": len(env.failures),
            "state_changed_on_failure": changed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CompoWorld hostile-call fuzz run.")
    parser.add_argument("--calls", type=int, default=10_000, help="Environment.call calls")
    parser.add_argument("--mcp-calls", type=int, default=1_000, help="calls over MCP (HTTP)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1_000))
    report: dict[str, Any] = {"seed": args.seed, "load_average": [round(x, 2) for x in
                                                                  os.getloadavg()]}
    report["environment"] = fuzz_environment(args.calls, args.seed)
    report["mcp"] = fuzz_mcp(args.mcp_calls, args.seed)
    bad = [f"{part}: {what}" for part in ("environment", "mcp")
           for what in ("exceptions", "tool_failures_500", "state_changed_on_failure")
           if report[part][what]]
    bad += [f"mcp: HTTP {s}" for s in report["mcp"]["http_status"] if s.startswith("5")]
    report["passed"] = not bad
    report["problems"] = bad
    if args.json:
        print(json.dumps(report))
    else:
        for part in ("environment", "mcp"):
            block = report[part]
            print(f"{part}: {block['calls']:,} hostile calls in {block['seconds']} s")
            for code, count in block["by_code"].items():
                print(f"  {code:<32}{count:>8,}")
            if part == "mcp":
                print(f"  HTTP status: {block['http_status']}")
            print(f"  exceptions {block['exceptions']} · 500s {block['tool_failures_500']} · "
                  f"state changed on a failed call {block['state_changed_on_failure']}")
        print(f"load average {report['load_average']}; "
              + ("all checks passed" if not bad else "FAILED: " + "; ".join(bad)))
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
