"""OpenAPI 3 (and Swagger 2 shaped) documents → one :class:`ServiceSpec`.

Each operation's path is read as a chain of resources (``/customers/{customerId}/orders``: an
``order`` belongs to a ``customer``), its last segment says whether it acts on a collection or
on one item, and a verb in the path or operation id (``/orders/{id}/cancel``, ``createPad``,
``{name}:archive``) says which custom action it is. See :mod:`compoworld.compiler._mapping`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from compoworld.compiler._assemble import Assembler
from compoworld.compiler._mapping import map_operation
from compoworld.compiler._operation import Operation
from compoworld.compiler._result import CompileResult, SpecError, pointer
from compoworld.compiler._rules import identifier, singular
from compoworld.compiler._schema import Resolver, flatten, record_shape
from compoworld.service import Provenance

METHODS = ("get", "post", "put", "patch", "delete")
_PREFIX = re.compile(r"^(v\d+([._]\d+)*([a-z]+\d*)?|api|apis|rest|\d+([.-]\d+)*|latest)$", re.I)
_JSON = re.compile(r"json", re.I)
_FORM = ("application/x-www-form-urlencoded", "multipart/form-data")


@dataclass
class _Body:
    kind: str  # json | form | other
    media: str
    schema: dict[str, Any] = field(default_factory=dict)


def _segments(path: str) -> list[str]:
    target = re.search(r"#(?:X-Amz-Target=[\w.]*?|Action=)([A-Za-z]\w*)$", path)
    if target:  # AWS JSON RPC: one operation per path, named after its action
        return [target.group(1)]
    parts = [p for p in re.split(r"[#?]", path, maxsplit=1)[0].split("/") if p]
    while len(parts) > 1 and _PREFIX.match(parts[0]):
        parts = parts[1:]
    return [re.sub(r"\.(json|xml)$", "", p) for p in parts]


def _singular_name(segment: str) -> bool:
    last = identifier(segment).split("_")[-1]
    return singular(last) == last


def _body(resolver: Resolver, op: dict[str, Any], place: str) -> _Body | None:
    raw = resolver.node(op.get("requestBody"), place + "/requestBody")
    if not isinstance(raw, dict):
        return None
    content = raw.get("content")
    if not isinstance(content, dict) or not content:
        return None
    media = next((m for m in content if _JSON.search(m)), None)
    kind = "json"
    if media is None:
        media = next((m for m in content if m in _FORM), next(iter(content)))
        kind = "form" if media in _FORM else "other"
    entry = content.get(media)
    schema_node = entry.get("schema", {}) if isinstance(entry, dict) else {}
    where = place + "/requestBody/content/" + media.replace("/", "~1")
    return _Body(kind, media, resolver.schema(schema_node, where))


def _response(resolver: Resolver, op: dict[str, Any], place: str) -> tuple[dict[str, Any], str]:
    """(schema, pointer) of the success response with JSON content ({} when none)."""
    responses = op.get("responses")
    if not isinstance(responses, dict):
        return {}, ""
    codes = sorted((str(c) for c in responses if str(c).startswith("2")), key=str) + (
        ["default"] if "default" in responses else [])
    for code in codes:
        where = f"{place}/responses/{code}"
        resp = resolver.node(responses.get(code) if code in responses else responses.get(int(code)),
                             where)
        if not isinstance(resp, dict):
            continue
        content = resp.get("content")
        if isinstance(content, dict):
            media = next((m for m in content if _JSON.search(m) or m == "*/*"), None)
            if media and isinstance(content[media], dict):
                return resolver.schema(content[media].get("schema", {}), where), where
        elif "schema" in resp:  # Swagger 2
            return resolver.schema(resp["schema"], where), where
    return {}, ""


def _parameters(resolver: Resolver, raw: Any, place: str, warnings: list[str]
                ) -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    if raw is None:
        return out
    if not isinstance(raw, list):
        raise SpecError("'parameters' must be a list", source=resolver.source, place=place)
    for i, node in enumerate(raw):
        where = f"{place}/{i}"
        p = resolver.node(node, where)
        if not isinstance(p, dict):
            raise SpecError("a parameter must be an object", source=resolver.source, place=where)
        name, location = p.get("name"), p.get("in")
        if not isinstance(name, str) or not name.strip():
            warnings.append(f"{where}: parameter without a name skipped")
            continue
        schema = resolver.schema(p.get("schema", {k: v for k, v in p.items()
                                                  if k in ("type", "format", "enum", "items")}),
                                 where)
        if p.get("description") and not schema.get("description"):
            schema = {**schema, "description": p["description"]}
        out[(str(location), name)] = {"name": name, "in": location, "schema": schema,
                                      "required": bool(p.get("required")) or location == "path"}
    return out


def compile_openapi(doc: dict[str, Any], *, name: str, domain: str, provenance: Provenance,
                    max_tools: int = 60) -> CompileResult:
    """Compile an OpenAPI 3 document (one API) into a verified-ready :class:`ServiceSpec`.

    Args:
        doc: The parsed OpenAPI JSON document.
        name: Service name (lower snake case).
        domain: Domain of the service (e.g. ``"crm"``).
        provenance: Where the document came from (source, URL, license, version).
        max_tools: Keep at most this many operations, preferring those that map to resource
            operations or principled actions.

    Returns:
        The spec (every tool records its ``rule`` and ``source``) and the compiler's warnings.

    Raises:
        SpecError: The document is malformed; the message names ``provenance.source`` and the
            JSON pointer of the place.

    Example:
        >>> doc = {"openapi": "3.0.0", "info": {"title": "Pets"}, "paths": {"/pets": {"get": {
        ...     "responses": {"200": {"description": "ok"}}}}}}
        >>> r = compile_openapi(doc, name="pets", domain="retail", provenance=Provenance(source="x"))
        >>> [(t.name, t.op, t.rule) for t in r.spec.tools]
        [('list_pets', 'list', 'rest:GET collection → list')]
    """
    source = provenance.source
    if not isinstance(doc, dict):
        raise SpecError("an OpenAPI document must be a JSON object", source=source)
    paths = doc.get("paths")
    if not isinstance(paths, dict):
        raise SpecError("missing or invalid 'paths' object", source=source, place="/paths")
    resolver = Resolver(doc, source)
    asm = Assembler(source)
    operations: list[Operation] = []
    for path, item in paths.items():
        if str(path).startswith("x-"):  # a specification extension, not a path
            continue
        place = pointer("paths", path)
        item = resolver.node(item, place)
        if not isinstance(item, dict):
            raise SpecError("a path item must be an object", source=source, place=place)
        shared = _parameters(resolver, item.get("parameters"), place + "/parameters", asm.warnings)
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            where = f"{place}/{method}"
            if not isinstance(op, dict):
                raise SpecError("an operation must be an object", source=source, place=where)
            params = {**shared, **_parameters(resolver, op.get("parameters"),
                                              where + "/parameters", asm.warnings)}
            body = _body(resolver, op, where)
            body_params = [p for p in params.values() if p["in"] in ("body", "formData")]
            if body is None and body_params:  # Swagger 2
                body_schema = body_params[0]["schema"] if body_params[0]["in"] == "body" else {
                    "type": "object", "properties": {p["name"]: p["schema"] for p in body_params}}
                body = _Body("json", "application/json", body_schema)
            response, response_place = _response(resolver, op, where)
            literals = [seg for seg in _segments(path) if not seg.startswith("{")]
            record, many = record_shape(resolver, response, response_place,
                                        hint=literals[-1] if literals else "")
            record = flatten(record, resolver, response_place)
            operations.append(Operation(
                method=method.upper(), path=path, place=where, segments=_segments(path),
                operation_id=str(op.get("operationId") or ""),
                summary=str(op.get("summary") or op.get("description") or "").strip(),
                params=[p for p in params.values() if p["in"] in ("path", "query")],
                dropped=[p["name"] for p in params.values() if p["in"] in ("header", "cookie")],
                body_kind=body.kind if body else None, body_media=body.media if body else None,
                body=resolver.properties(body.schema, where) if body else {},
                body_required=[str(r) for r in (body.schema.get("required") or [])] if body else [],
                record=record, many=many,
                method_paths={m.upper(): path for m in METHODS if m in item},
                rpc=bool(re.search(r"#(X-Amz-Target|Action)=", path))))
    singletons = {op.path for op in operations  # one object under a singular name
                  if op.method == "GET" and op.record and not op.many and op.segments
                  and _singular_name(op.segments[-1])}
    for op in operations:
        op.singleton = (op.path in singletons and bool(op.segments)
                        and not op.segments[-1].startswith("{"))
    mapped = [map_operation(op, asm) for op in operations]
    keep = sorted(range(len(mapped)), key=lambda i: (mapped[i] is None, i))[:max_tools]
    for i in sorted(keep):
        operations[i].emit(asm, mapped[i])
    if len(operations) > max_tools:
        asm.warnings.append(f"{len(operations) - max_tools} operation(s) beyond max_tools="
                            f"{max_tools} left out (simulated ones first)")
    info: dict[str, Any] = doc["info"] if isinstance(doc.get("info"), dict) else {}
    description = str(info.get("description") or info.get("title") or name).strip()
    spec = asm.finish(name=identifier(name, "service"), domain=domain,
                      description=description[:500], provenance=provenance)
    return CompileResult(spec, [*resolver.warnings, *asm.warnings])
