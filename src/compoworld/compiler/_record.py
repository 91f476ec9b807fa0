"""One service of a catalog build, end to end, in a worker process: read, compile, verify, write.

:func:`compile_one` never raises for a bad spec: it returns a record with ``status`` ``"ok"``,
``"excluded"`` (compiled and verified, but below the implementability gate) or ``"failed"``
(with the error), so one bad spec never stops a build.
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

from compoworld.compiler._fetch import read_json
from compoworld.compiler._fidelity import apply_fidelity
from compoworld.compiler._select import Selected, trim_operations
from compoworld.compiler._semantic import IDENTIFYING_TYPES
from compoworld.errors import UserError
from compoworld.service import ServiceSpec

__all__ = ["IDENTIFYING_TYPES", "compile_one", "linked", "spec_summary"]

_PLAIN = {"string", "integer", "number", "boolean", "array", "object", "Ref"}


def linked(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records (with ``linking_types``) sharing an identifying type with another of them."""
    holders = Counter(t for r in records for t in r["linking_types"])
    return [r for r in records if any(holders[t] > 1 for t in r["linking_types"])]


def spec_summary(spec: ServiceSpec) -> dict[str, Any]:
    """Counts the stats need, so they never reread the specs: fields, semantic fields, types."""
    fields = [f for e in spec.entities for f in e.fields]
    types = {f.type for f in fields} | {f.items for f in fields if f.items}
    types |= {p.type for t in spec.tools for p in t.params if p.type}
    semantic = sorted(t for t in types if t and t not in _PLAIN)
    return {
        "entities": len(spec.entities),
        "fields": len(fields),
        "semantic_fields": sum(f.type not in _PLAIN for f in fields),
        "types": semantic,
        "linking_types": sorted(set(semantic) & IDENTIFYING_TYPES),
    }


def _compile(compiler: Any, kind: str, doc: Any, selected: Selected, max_tools: int) -> Any:
    common = {"name": selected.name, "domain": selected.domain,
              "provenance": selected.provenance}
    if kind == "openapi":
        return compiler.compile_openapi(trim_operations(doc, max_tools), max_tools=max_tools,
                                        **common)
    if kind == "mcp":
        return compiler.compile_mcp(doc, **common)
    if kind == "openai":
        functions = doc.get("functions", []) if isinstance(doc, dict) else doc
        return compiler.compile_openai_functions(functions, **common)
    raise UserError(f"{selected.path!r} is neither an OpenAPI document, an MCP tools/list "
                    "result nor OpenAI function definitions")


def _write_spec(spec: ServiceSpec, path: Path) -> None:
    staging = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    staging.write_text(spec.model_dump_json(indent=2, exclude_defaults=True) + "\n")
    os.replace(staging, path)


def compile_one(selected: dict[str, Any], path: str, out_dir: str, seed: int, max_tools: int,
                min_implemented: float, compiler: str = "compoworld.compiler",
                fidelity: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Compile and verify one selected spec; write its spec file if it is kept; return its record.

    Args:
        selected: A :class:`~compoworld.compiler._select.Selected`, as JSON.
        path: The spec file.
        out_dir: The catalog directory (the spec goes to ``services/<name>.json``).
        seed: Seed of the verification world.
        max_tools: Operations kept per service.
        min_implemented: The implementability gate (verified implemented share).
        compiler: The module providing ``compile_openapi``, ``compile_mcp``,
            ``compile_openai_functions`` and ``verify_spec`` (imported in the worker).
        fidelity: This service's measurements against its real implementation (tool →
            measurement, :func:`~compoworld.compiler._fidelity.read_fidelity`): a tool
            measured unfaithful is simulated with the measurement as its reason
            (:func:`~compoworld.compiler.apply_fidelity`, before the implementability gate),
            and the record keeps every measured tool's agreement as ``fidelity``.
    """
    backend = importlib.import_module(compiler)
    # Entity models named after real schemas ("schema", "entity_name"...) shadow pydantic
    # attributes; harmless, but thousands of them would bury the progress bar.
    warnings.filterwarnings("ignore", message="Field name .* shadows an attribute",
                            category=UserWarning)
    chosen = Selected.model_validate(selected)
    record: dict[str, Any] = {
        "name": chosen.name, "domain": chosen.domain, "title": chosen.title, "kind": chosen.kind,
        "source_path": chosen.path, "provenance": chosen.provenance.model_dump(mode="json"),
        "license": chosen.provenance.license, "status": "failed", "error": None,
    }
    try:
        result = _compile(backend, chosen.kind, read_json(Path(path), chosen.path), chosen, max_tools)
        verified = backend.verify_spec(result.spec, seed=seed)
    except Exception as error:  # one bad spec is a failed record, never a stopped build
        message = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
        record["error"] = message[:2000]
        return record
    spec = verified.spec
    if fidelity:
        spec, figures = apply_fidelity(spec, fidelity)
        record["fidelity"] = dict(sorted(figures.items()))
    tools = len(spec.tools)
    simulated = {t.name: t.simulated_reason or "simulated" for t in spec.tools if t.simulated}
    share = (tools - len(simulated)) / tools if tools else 0.0
    record.update({
        "tools": tools, "implemented": tools - len(simulated),
        "simulated": dict(sorted(simulated.items())), "share": round(share, 4),
        "warnings": len(result.warnings), **spec_summary(spec),
    })
    if tools == 0 or share < min_implemented:
        record.update(status="excluded",
                      error=f"implemented share {share:.0%} < {min_implemented:.0%}")
        return record
    _write_spec(spec, Path(out_dir) / "services" / f"{chosen.name}.json")
    record["status"] = "ok"
    return record
