"""Harvest the MCP development corpus: ``tools/list`` of MCP servers that start offline.

Each entry names the npm / PyPI package, how to start it (dummy credentials where a server
insists on one: only their names reach the file) and is written with its provenance
(package, version, license read from the installed package). Servers are installed outside
the repository:

    npm install --prefix DIR/npm <packages>          # the npm ones
    python -m venv DIR/py && DIR/py/bin/pip install mcp-server-time mcp-server-git \\
        mcp-server-fetch mcp-server-sqlite

    python bench/mcp_corpus.py --servers DIR --out tests/compiler/mcp_corpus [--json]

Only permissive licenses (MIT, Apache-2.0, BSD, ISC) are written; the others are reported.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from compoworld.compiler import harvest_mcp
from compoworld.compiler._harvest import write_harvest

PERMISSIVE = ("MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "0BSD")
D = "dummy"

# (file name, package, kind, bin or module, extra args, env)
SERVERS: list[tuple[str, str, str, str, list[str], dict[str, str]]] = [
    ("memory", "@modelcontextprotocol/server-memory", "npm", "mcp-server-memory", [], {}),
    ("filesystem", "@modelcontextprotocol/server-filesystem", "npm", "mcp-server-filesystem",
     ["{tmp}"], {}),
    ("everything", "@modelcontextprotocol/server-everything", "npm", "mcp-server-everything",
     [], {}),
    ("sequential_thinking", "@modelcontextprotocol/server-sequential-thinking", "npm",
     "mcp-server-sequential-thinking", [], {}),
    ("github", "@modelcontextprotocol/server-github", "npm", "mcp-server-github", [],
     {"GITHUB_PERSONAL_ACCESS_TOKEN": D}),
    ("gitlab", "@modelcontextprotocol/server-gitlab", "npm", "mcp-server-gitlab", [],
     {"GITLAB_PERSONAL_ACCESS_TOKEN": D}),
    ("slack", "@modelcontextprotocol/server-slack", "npm", "mcp-server-slack", [],
     {"SLACK_BOT_TOKEN": D, "SLACK_TEAM_ID": D}),
    ("google_maps", "@modelcontextprotocol/server-google-maps", "npm", "mcp-server-google-maps",
     [], {"GOOGLE_MAPS_API_KEY": D}),
    ("brave_search", "@modelcontextprotocol/server-brave-search", "npm",
     "mcp-server-brave-search", [], {"BRAVE_API_KEY": D}),
    ("postgres", "@modelcontextprotocol/server-postgres", "npm", "mcp-server-postgres",
     ["postgresql://localhost/none"], {}),
    ("aws_kb_retrieval", "@modelcontextprotocol/server-aws-kb-retrieval", "npm",
     "mcp-server-aws-kb-retrieval", [], {"AWS_ACCESS_KEY_ID": D, "AWS_SECRET_ACCESS_KEY": D,
                                         "AWS_REGION": "us-east-1"}),
    ("everart", "@modelcontextprotocol/server-everart", "npm", "mcp-server-everart", [],
     {"EVERART_API_KEY": D}),
    ("redis", "@modelcontextprotocol/server-redis", "npm", "mcp-server-redis",
     ["redis://localhost:1"], {}),
    ("notion", "@notionhq/notion-mcp-server", "npm", "notion-mcp-server", [],
     {"NOTION_TOKEN": D}),
    ("hubspot", "@hubspot/mcp-server", "npm", "mcp-hubspot", [], {"PRIVATE_APP_ACCESS_TOKEN": D}),
    ("tavily", "tavily-mcp", "npm", "tavily-mcp", [], {"TAVILY_API_KEY": D}),
    ("firecrawl", "firecrawl-mcp", "npm", "firecrawl-mcp", [], {"FIRECRAWL_API_KEY": D}),
    ("stripe", "@stripe/mcp", "npm", "mcp", ["--tools=all", "--api-key=sk_test_dummy"], {}),
    ("exa", "exa-mcp-server", "npm", "exa-mcp-server", [], {"EXA_API_KEY": D}),
    ("playwright", "@playwright/mcp", "npm", "playwright-mcp", [], {}),
    ("airtable", "airtable-mcp-server", "npm", "airtable-mcp-server", [],
     {"AIRTABLE_API_KEY": D}),
    ("taskmanager", "@kazuph/mcp-taskmanager", "npm", "mcp-taskmanager", [], {}),
    ("desktop_commander", "@wonderwhy-er/desktop-commander", "npm", "desktop-commander", [], {}),
    ("kubernetes", "mcp-server-kubernetes", "npm", "mcp-server-kubernetes", [], {}),
    ("supabase", "@supabase/mcp-server-supabase", "npm", "mcp-server-supabase",
     ["--access-token=dummy"], {}),
    ("context7", "@upstash/context7-mcp", "npm", "context7-mcp", [], {}),
    ("mysql", "@benborla29/mcp-server-mysql", "npm", "mcp-server-mysql", [],
     {"MYSQL_HOST": "127.0.0.1", "MYSQL_PORT": "1", "MYSQL_USER": D, "MYSQL_PASS": D}),
    ("heroku", "@heroku/mcp-server", "npm", "heroku-mcp-server", [], {"HEROKU_API_KEY": D}),
    ("twilio", "@twilio-alpha/mcp", "npm", "twilio-mcp-server",
     ["ACdummy00000000000000000000000000/SKdummy:dummy"], {}),
    ("circleci", "@circleci/mcp-server-circleci", "npm", "mcp-server-circleci", [],
     {"CIRCLECI_TOKEN": D}),
    ("pinecone", "@pinecone-database/mcp", "npm", "pinecone-mcp", [], {"PINECONE_API_KEY": D}),
    ("neon", "@neondatabase/mcp-server-neon", "npm", "mcp-server-neon", ["start", "dummy"], {}),
    ("gitlab_zereight", "@zereight/mcp-gitlab", "npm", "zereight-mcp-gitlab", [],
     {"GITLAB_PERSONAL_ACCESS_TOKEN": D}),
    ("code_runner", "mcp-server-code-runner", "npm", "mcp-server-code-runner", [], {}),
    ("lara", "@translated/lara-mcp", "npm", "lara-mcp", [],
     {"LARA_ACCESS_KEY_ID": D, "LARA_ACCESS_KEY_SECRET": D}),
    ("elasticsearch", "@elastic/mcp-server-elasticsearch", "npm", "mcp-server-elasticsearch",
     [], {"ES_URL": "http://localhost:1", "ES_API_KEY": D}),
    ("mongodb", "@mongodb-js/mongodb-mcp-server", "npm", "mongodb-mcp-server", [], {}),
    ("time", "mcp-server-time", "pypi", "mcp-server-time", [], {}),
    ("git", "mcp-server-git", "pypi", "mcp-server-git", ["--repository", "{tmp}"], {}),
    ("fetch", "mcp-server-fetch", "pypi", "mcp-server-fetch", [], {}),
    ("sqlite", "mcp-server-sqlite", "pypi", "mcp-server-sqlite", ["--db-path", "{tmp}/x.db"],
     {}),
]


def _package_info(servers: Path, package: str, kind: str) -> tuple[str, str]:
    if kind == "npm":
        meta = json.loads((servers / "npm" / "node_modules" / package / "package.json")
                          .read_text())
        lic = meta.get("license")
        if isinstance(lic, dict):
            lic = lic.get("type")
        lic = str(lic or "")
        if lic.startswith("SEE LICENSE IN"):  # read the named file's first line
            text = (servers / "npm" / "node_modules" / package / lic.split()[-1])
            first = text.read_text().strip().splitlines()[0] if text.exists() else ""
            lic = "MIT" if first.strip().upper().startswith("MIT") else lic
            if not text.exists() and package.startswith("@modelcontextprotocol/"):
                lic = "MIT"  # names a LICENSE it does not ship: the servers repository's
        return str(meta.get("version")), lic
    py = servers / "pyvenv" / "lib"
    for dist in py.glob(f"python*/site-packages/{package.replace('-', '_')}-*.dist-info"):
        meta = (dist / "METADATA").read_text()
        version = next(line.split(": ", 1)[1] for line in meta.splitlines()
                       if line.startswith("Version: "))
        lic = next((line.split(": ", 1)[1] for line in meta.splitlines()
                    if line.startswith(("License-Expression: ", "License: "))), "")
        if not lic and "License :: OSI Approved :: MIT" in meta:
            lic = "MIT"
        return version, lic
    return "", ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for name, package, kind, binary, extra, env in SERVERS:
        if args.only and name not in args.only:
            continue
        version, lic = _package_info(args.servers, package, kind)
        row: dict[str, Any] = {"file": f"{name}.json", "package": f"{kind}:{package}",
                               "version": version, "license": lic}
        with tempfile.TemporaryDirectory() as tmp:
            if name == "git":
                import subprocess
                subprocess.run(["git", "init", "-q", tmp], check=True)
            exe = (args.servers / "npm" / "node_modules" / ".bin" / binary if kind == "npm"
                   else args.servers / "pyvenv" / "bin" / binary)
            command = [str(exe), *[a.replace("{tmp}", tmp) for a in extra]]
            started = time.perf_counter()
            try:
                spec = harvest_mcp(command, env or None, timeout=args.timeout)
            except Exception as error:  # a server that needs the network: reported, skipped
                row["error"] = str(error).splitlines()[0][:300]
                rows.append(row)
                print(f"{name}: FAILED {row['error']}", file=sys.stderr)
                continue
        row["tools"] = len(spec["tools"])
        row["seconds"] = round(time.perf_counter() - started, 1)
        if lic not in PERMISSIVE:
            row["skipped"] = f"license {lic!r} is not permissive"
        else:
            spec["name"] = name
            spec["harvest"]["command"] = [binary, *extra]  # portable: no local paths
            spec["provenance"] = {"source": f"{kind}:{package}", "version": version,
                                  "license": lic}
            write_harvest(spec, args.out / f"{name}.json")
        rows.append(row)
        print(f"{name}: {row.get('tools')} tools {row.get('skipped', '')}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
