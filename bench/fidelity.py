"""Differential fidelity: the same call sequences against a real MCP server and against the
service compiled from its ``tools/list``, from the same (empty) starting state.

For every tool the compiler implemented, ``--rounds`` calls are drawn from the compiled
environment's own state (``sample_arguments``: ids and keys of records earlier calls made)
and sent, in one sequence, to both sides; a path-like argument is placed under the server's
temporary root on both. Per tool it reports:

* ``agreement``: the share of calls where both succeeded or both refused;
* ``shape``: of the calls both answered with a JSON object, the share whose keys overlap;
* ``verdict``: ``faithful`` when agreement ≥ ``--min-agreement``, else ``unfaithful`` —
  such a tool should be simulated, with the measurement as its reason
  (:func:`compoworld.compiler.apply_fidelity`; ``--out FILE`` writes the measurements it
  reads).

Later reads see earlier writes on both sides, since one sequence runs per server.

    python bench/fidelity.py --servers DIR [--only filesystem taskmanager] [--json] \
        [--out tests/compiler/fidelity_mcp.json]

``DIR`` holds the servers as ``bench/mcp_corpus.py`` installs them.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from compoworld.compiler import compile_mcp, verify_spec
from compoworld.compiler._rules import identifier
from compoworld.service import Environment, Provenance, build_service, sample_arguments
from mcp_corpus import SERVERS

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "compiler" / "mcp_corpus"
DEFAULT = ("filesystem", "memory", "taskmanager", "git", "time", "everything")
_PATHS = {"path", "file_path", "directory", "dir", "source", "destination", "repo_path"}


def _json_of(result: Any) -> tuple[bool, Any]:
    """(success, the JSON object answered or None) of an MCP call result."""
    ok = not bool(getattr(result, "isError", False) or getattr(result, "is_error", False))
    structured = getattr(result, "structuredContent", None) or getattr(
        result, "structured_content", None)
    if isinstance(structured, dict):
        return ok, structured
    for block in getattr(result, "content", None) or []:
        text = getattr(block, "text", None)
        if text:
            try:
                value = json.loads(text)
            except ValueError:
                return ok and not text.lower().startswith("error"), None
            return ok, value if isinstance(value, dict) else None
    return ok, None


async def _measure(name: str, command: list[str], env: dict[str, str], root: str,
                   rounds: int, seed: int) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import get_default_environment, stdio_client

    doc = json.loads((CORPUS / f"{name}.json").read_text())
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
    rows: dict[str, dict[str, Any]] = {
        t.name: {"source": t.source, "calls": 0, "agree": 0, "both_ok": 0, "shaped": 0,
                 "overlap": 0}
        for t in tools}
    params = StdioServerParameters(command=command[0], args=command[1:],
                                   env={**get_default_environment(), **env})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for _ in range(rounds):
            for spec in tools:
                tool = service.tools[spec.name]
                args = sample_arguments(tool, mine, service.name, rng)
                args = {k: (f"{root}/{v}" if k in _PATHS and isinstance(v, str) else v)
                        for k, v in args.items()}
                real_args = {wire[spec.source or ""].get(k, k): v for k, v in args.items()}
                ours = mine.call(f"{service.name}__{spec.name}", args)
                try:
                    result = await session.call_tool(spec.source or spec.name, real_args)
                    real_ok, real_json = _json_of(result)
                except Exception:  # a protocol-level refusal
                    real_ok, real_json = False, None
                row = rows[spec.name]
                row["calls"] += 1
                row["agree"] += real_ok == bool(ours["success"])
                row["both_ok"] += real_ok and bool(ours["success"])
                data = ours.get("data")
                if real_ok and ours["success"] and isinstance(real_json, dict) and isinstance(
                        data, dict):
                    row["shaped"] += 1
                    row["overlap"] += bool(set(real_json) & set(data))
    for row in rows.values():
        row["agreement"] = row["agree"] / max(row["calls"], 1)
        row["shape"] = row["overlap"] / row["shaped"] if row["shaped"] else None
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
    parser.add_argument("--out", type=Path, help="write {server: {tool: measurement}}")
    args = parser.parse_args(argv)
    configs = {s[0]: s for s in SERVERS}
    report: list[dict[str, Any]] = []
    for name in args.only:
        _, _, kind, binary, extra, env = configs[name]
        with tempfile.TemporaryDirectory() as tmp:
            if name == "git":
                subprocess.run(["git", "init", "-q", tmp], check=True)
            exe = (args.servers / "npm" / "node_modules" / ".bin" / binary if kind == "npm"
                   else args.servers / "pyvenv" / "bin" / binary)
            command = [str(exe), *[a.replace("{tmp}", tmp) for a in extra]]
            try:
                measured = anyio.run(_measure, name, command, env, tmp, args.rounds, args.seed)
            except Exception as error:
                report.append({"server": name, "error": f"{type(error).__name__}: {error}"})
                continue
        for row in measured["per_tool"].values():
            row["verdict"] = ("faithful" if row["agreement"] >= args.min_agreement
                              else "unfaithful")
        report.append(measured)
    rows = [r for m in report for r in m.get("per_tool", {}).values()]
    agreements = [r["agreement"] for r in rows]
    summary = {
        "servers": len([m for m in report if "per_tool" in m]),
        "tools_measured": len(rows),
        "agreement_min": min(agreements) if agreements else None,
        "agreement_median": statistics.median(agreements) if agreements else None,
        "moved_to_simulated": sum(r["verdict"] == "unfaithful" for r in rows),
        "min_agreement": args.min_agreement, "rounds": args.rounds,
    }
    if args.out:
        measured = {m["server"]: {t: {k: r[k] for k in ("source", "calls", "agree", "both_ok",
                                                        "agreement", "shape", "verdict")}
                                  for t, r in sorted(m["per_tool"].items())}
                    for m in report if "per_tool" in m}
        args.out.write_text(json.dumps({"summary": summary, "servers": measured}, indent=1,
                                       sort_keys=True) + "\n")
    if args.json:
        print(json.dumps({"summary": summary, "servers": report}, indent=1))
        return 0
    for m in report:
        if "error" in m:
            print(f"{m['server']}: not measured ({m['error'][:200]})")
            continue
        print(f"{m['server']}: {m['implemented']} of {m['tools']} tools implemented")
        for tool, r in m["per_tool"].items():
            shape = "n/a" if r["shape"] is None else f"{r['shape']:.0%}"
            print(f"  {tool:40s} agreement {r['agreement']:.0%} (both succeeded "
                  f"{r['both_ok']}/{r['calls']}) shape {shape} {r['verdict']}")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
