"""Differential fidelity: the same call sequences against a real MCP server and against the
service compiled from its ``tools/list``, from the same (empty) starting state.

For every tool the compiler implemented, ``--rounds`` calls are drawn from the compiled
environment's own state (``sample_arguments``: ids and keys of records earlier calls made)
and sent, in one sequence, to both sides; a path-like argument is placed under the server's
temporary root on both. Per tool it reports:

* ``informative``: the calls at least one side answered; a call both sides refused says
  nothing about the tool (an id neither side holds, an argument both reject) and is counted
  apart as ``both_refused``, never as agreement;
* ``agreement``: of the informative calls, the share both sides answered (``None`` when no
  call was informative);
* ``shape``: of the calls both answered with a JSON object, the share whose keys overlap;
* ``verdict``: ``faithful`` when agreement ≥ ``--min-agreement``, ``unfaithful`` below it —
  such a tool should be simulated, with the measurement as its reason
  (:func:`compoworld.compiler.apply_fidelity`; ``--out FILE`` writes the measurements it
  reads) — and ``unmeasured`` when no call was informative (neither faithful nor moved).

A real server answering an error as plain text without ``isError`` (``"Task not found"``,
``"Error: ..."``) is read as refusing. ``--trace`` prints every call's two outcomes.

Later reads see earlier writes on both sides, since one sequence runs per server.

    python bench/fidelity.py --servers DIR [--only filesystem taskmanager] [--json] \
        [--out tests/compiler/fidelity_mcp.json]

``DIR`` holds the servers as ``bench/mcp_corpus.py`` installs them.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _agreement import (
    count,
    finish,
    new_row,
    print_rows,
    read_answer,
    refuses,
    summarize,
    write_measurements,
)
from compoworld.compiler import compile_mcp, verify_spec
from compoworld.compiler._rules import identifier
from compoworld.service import Environment, Provenance, build_service, sample_arguments
from mcp_corpus import SERVERS

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "compiler" / "mcp_corpus"
DEFAULT = ("filesystem", "memory", "taskmanager", "git", "time", "everything")
_PATHS = {"path", "file_path", "directory", "dir", "source", "destination"}
_ROOTS = {"repo_path", "repository", "root"}  # the server's root itself (git's repository)


def _json_of(result: Any) -> tuple[bool, Any, str]:
    """(success, the JSON object answered or None, the first text line) of an MCP result
    (a plain-text or JSON refusal is a refusal even without ``isError``: :func:`read_answer`)."""
    ok = not bool(getattr(result, "isError", False) or getattr(result, "is_error", False))
    structured = getattr(result, "structuredContent", None) or getattr(
        result, "structured_content", None)
    text = next((b.text for b in getattr(result, "content", None) or []
                 if getattr(b, "text", None)), "")
    line = " ".join(text.split())[:160]
    if not text and isinstance(structured, dict):
        return ok and not refuses(structured), structured, line
    answered, value = read_answer(text, ok)
    return answered, value, line


async def measure(name: str, doc: dict[str, Any], command: list[str], env: dict[str, str],
                  root: str, rounds: int, seed: int, trace: bool = False,
                  least: float = 0.8) -> dict[str, Any]:
    """Run ``rounds`` sequences of calls to every implemented tool of the service compiled
    from ``doc`` (a ``tools/list`` result) against the server ``command`` starts and against
    the compiled service, both from an empty state; the per-tool counts (see the module)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import get_default_environment, stdio_client

    compiled = verify_spec(compile_mcp(doc, name=name, domain="developer",
                                       provenance=Provenance(source=f"{name}.json")).spec).spec
    empty = compiled.model_copy(update={"entities": [
        e.model_copy(update={"seed_count": 0}) for e in compiled.entities]})
    service = build_service(empty)
    mine = Environment([service], seed=seed)
    wire = {t["name"]: {identifier(k, "p"): k for k in (t.get("inputSchema") or {}).get(
        "properties") or {}} for t in doc["tools"]}
    rng = random.Random(seed)
    tools = [t for t in compiled.tools if not t.simulated]
    rows = {t.name: new_row(t.source) for t in tools}
    # HOME is the temporary root too: servers keeping state under it (taskmanager's
    # ~/Documents/tasks.json) start empty on every run, as the compiled side does
    params = StdioServerParameters(command=command[0], args=command[1:],
                                   env={**get_default_environment(), "HOME": root, **env})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for _ in range(rounds):
            for spec in tools:
                tool = service.tools[spec.name]
                args = sample_arguments(tool, mine, service.name, rng)
                args = {k: (root if k in _ROOTS else f"{root}/{v}"
                            if k in _PATHS and isinstance(v, str) else v)
                        for k, v in args.items()}
                real_args = {wire[spec.source or ""].get(k, k): v for k, v in args.items()}
                ours = mine.call(f"{service.name}__{spec.name}", args)
                try:
                    result = await session.call_tool(spec.source or spec.name, real_args)
                    real_ok, real_json, line = _json_of(result)
                except Exception as error:  # a protocol-level refusal
                    real_ok, real_json, line = False, None, f"{type(error).__name__}: {error}"
                our_ok = bool(ours["success"])
                count(rows[spec.name], our_ok, real_ok, ours.get("data"), real_json)
                if trace:
                    print(f"  {spec.name} {json.dumps(real_args)[:120]}\n"
                          f"    ours {'ok' if our_ok else ours.get('error', '')!s:.100}\n"
                          f"    real {'ok' if real_ok else 'refused'}: {line:.100}")
    finish(rows, least)
    return {"server": name, "tools": len(compiled.tools), "implemented": len(tools),
            "per_tool": rows}


def main(argv: list[str] | None = None) -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=list(DEFAULT))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-agreement", type=float, default=0.8)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--trace", action="store_true", help="print every call's outcomes")
    parser.add_argument("--out", type=Path, help="write {server: {tool: measurement}}")
    args = parser.parse_args(argv)
    configs = {s[0]: s for s in SERVERS}
    report: list[dict[str, Any]] = []
    for name in args.only:
        _, _, kind, binary, extra, env = configs[name]
        with tempfile.TemporaryDirectory() as tmp:
            if name == "git":  # a repository as a user has one: one commit on its branch
                subprocess.run(["git", "init", "-q", tmp], check=True)
                subprocess.run(["git", "-C", tmp, "-c", "user.name=bench", "-c",
                                "user.email=bench@example.com", "commit", "-q",
                                "--allow-empty", "-m", "init"], check=True)
            exe = (args.servers / "npm" / "node_modules" / ".bin" / binary if kind == "npm"
                   else args.servers / "pyvenv" / "bin" / binary)
            command = [str(exe), *[a.replace("{tmp}", tmp) for a in extra]]
            try:
                doc = json.loads((CORPUS / f"{name}.json").read_text())
                measured = anyio.run(measure, name, doc, command, env, tmp, args.rounds,
                                     args.seed, args.trace, args.min_agreement)
            except Exception as error:
                report.append({"server": name, "error": f"{type(error).__name__}: {error}"})
                continue
        report.append(measured)
    summary = {"servers": len([m for m in report if "per_tool" in m]),
               **summarize([r for m in report for r in m.get("per_tool", {}).values()]),
               "min_agreement": args.min_agreement, "rounds": args.rounds}
    if args.out:
        write_measurements(args.out, summary, {m["server"]: m["per_tool"] for m in report
                                               if "per_tool" in m})
    if args.json:
        print(json.dumps({"summary": summary, "servers": report}, indent=1))
        return 0
    for m in report:
        if "error" in m:
            print(f"{m['server']}: not measured ({m['error'][:200]})")
            continue
        print(f"{m['server']}: {m['implemented']} of {m['tools']} tools implemented")
        print_rows(m["per_tool"])
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
