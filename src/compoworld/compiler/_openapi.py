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
from compoworld.compiler._schema import Resolver, flatten
from compoworld.compiler._select import MAX_TOOLS, TRIMMED
from compoworld.compiler._shape import body_shape, record_shape, schema_of_example
from compoworld.compiler._summary import summary_sentence, summary_text
from compoworld.service import Provenance

METHODS = ("get", "post", "put", "patch", "delete")
_PREFIX = re.compile(r"^(v\d+([._]\d+)*([a-z]+\d*)?|api|apis|rest|\d+([.-]\d+)*|latest"
                     r"|v\{[^}]+\})$", re.I)
"""Version prefixes, literal (``v1``, ``2015-03-31``) or a placeholder (opencage's
``/v{version}/{format}``: no ``v_version`` resource)."""
_JSON = re.compile(r"json", re.I)
_FORM = ("application/x-www-form-urlencoded", "multipart/form-data")
GOOGLE_PARAMS = frozenset({"$.xgafv", "access_token", "alt", "callback", "fields", "key",
                           "oauth_token", "prettyPrint", "quotaUser", "upload_protocol",
                           "uploadType", "userIp"})
"""Google's standard query parameters: transport controls of every Google API call, never
inputs of the operation."""


def _is_google(doc: dict[str, Any]) -> bool:
    info: dict[str, Any] = doc["info"] if isinstance(doc.get("info"), dict) else {}
    servers: list[Any] = doc["servers"] if isinstance(doc.get("servers"), list) else []
    urls = [str(s.get("url", "")) for s in servers if isinstance(s, dict)]
    return info.get("x-providerName") == "googleapis.com" or any(
        "googleapis.com" in u for u in urls)


def _transport(params: dict[tuple[str, str], dict[str, Any]], google: bool) -> set[tuple[str, str]]:
    """The query parameters that are Google's standard transport block: all of them in a Google
    API, and elsewhere only where at least three of them appear together."""
    standard = {k for k in params if k[0] == "query" and k[1] in GOOGLE_PARAMS}
    return standard if google or len(standard) >= 3 else set()


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
    schema = resolver.schema(schema_node, where)
    if kind == "other" and "xml" in media and resolver.properties(schema, where):
        # AWS Query's POST /#Action=CreateLoadBalancer (text/xml of CreateAccessPointInput):
        # an XML body of an object's properties carries named values, as a form does; one
        # without properties is a document (a SOAP envelope), not modelled
        kind = "form"
    return _Body(kind, media, schema)


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
            entry = content.get(media) if media else None
            if isinstance(entry, dict) and "schema" not in entry:
                example = _example_of(resolver, entry, where)
                if example is not None:  # no schema, only a documented example answer
                    return schema_of_example(example), where
            if isinstance(entry, dict):
                return resolver.schema(entry.get("schema", {}), where), where
        elif "schema" in resp:  # Swagger 2
            return resolver.schema(resp["schema"], where), where
    return {}, ""


def _example_of(resolver: Resolver, entry: dict[str, Any], place: str) -> Any:
    """The example value of a media type entry (``example``, or the first of ``examples``)."""
    if "example" in entry:
        return entry["example"]
    examples = entry.get("examples")
    if isinstance(examples, dict):
        for node in examples.values():
            node = resolver.node(node, place)
            if isinstance(node, dict) and "value" in node:
                return node["value"]
    return None


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
        schema = _items_read(schema, resolver, where)  # AWS query `Listeners.member.N`: records
        out[(str(location), name)] = {"name": name, "in": location, "schema": schema,
                                      "required": bool(p.get("required")) or location == "path"}
    return out


def compile_openapi(doc: dict[str, Any], *, name: str, domain: str, provenance: Provenance,
                    max_tools: int = MAX_TOOLS) -> CompileResult:
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
    google = _is_google(doc)
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
            if op is None or (isinstance(op, dict) and op.get(TRIMMED)):
                continue
            where = f"{place}/{method}"
            if not isinstance(op, dict):
                raise SpecError("an operation must be an object", source=source, place=where)
            params = {**shared, **_parameters(resolver, op.get("parameters"),
                                              where + "/parameters", asm.warnings)}
            transport = _transport(params, google)
            params = {k: v for k, v in params.items() if k not in transport}
            body = _body(resolver, op, where)
            body_params = [p for p in params.values() if p["in"] in ("body", "formData")]
            if body is None and body_params:  # Swagger 2
                body_schema = body_params[0]["schema"] if body_params[0]["in"] == "body" else {
                    "type": "object", "properties": {p["name"]: p["schema"] for p in body_params}}
                body = _Body("json", "application/json", body_schema)
            response, response_place = _response(resolver, op, where)
            literals = [seg for seg in _segments(path) if not seg.startswith("{")]
            hint = literals[-1] if literals else ""
            record, many = record_shape(resolver, response, response_place, hint=hint)
            body_props: dict[str, dict[str, Any]] = {}
            body_required: list[str] = []
            if body is not None and body.kind == "json":  # {"transaction": {...}} unwrapped
                body_props, body_required, _ = body_shape(resolver, body.schema, where, hint)
                body_props = flatten(body_props, resolver, where + "/requestBody")
                body_props = {k: _items_read(v, resolver, f"{where}/requestBody/{k}")
                              for k, v in body_props.items()  # readOnly: never sent
                              if not (isinstance(v, dict) and v.get("readOnly") is True)}
            elif body is not None:
                body_props = {k: _items_read(v, resolver, f"{where}/requestBody/{k}")
                              for k, v in resolver.properties(body.schema, where).items()}
                body_required = [str(r) for r in body.schema.get("required") or []]
            record = flatten(record, resolver, response_place)
            operations.append(Operation(
                method=method.upper(), path=path, place=where, segments=_segments(path),
                operation_id=str(op.get("operationId") or ""),
                summary=summary_sentence(str(op.get("summary") or ""),
                                         str(op.get("description") or "")),
                params=[p for p in params.values() if p["in"] in ("path", "query")],
                dropped=[p["name"] for p in params.values() if p["in"] in ("header", "cookie")]
                + sorted(name for _, name in transport),
                body_kind=body.kind if body else None, body_media=body.media if body else None,
                body=body_props, body_required=body_required,
                record=record, many=many,
                method_paths={m.upper(): path for m in METHODS if m in item},
                rpc=bool(re.search(r"#(X-Amz-Target|Action)=", path)),
                text=re.sub(r"<[^>]+>", " ", f"{op.get('summary') or ''} "
                                             f"{op.get('description') or ''}")[:2000]))
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
    description = summary_text(str(info.get("description") or ""), str(info.get("title") or ""),
                               name)
    spec = asm.finish(name=identifier(name, "service"), domain=domain,
                      description=description, provenance=provenance)
    return CompileResult(spec, [*resolver.warnings, *asm.warnings])


def _items_read(schema: dict[str, Any], resolver: Resolver, place: str) -> dict[str, Any]:
    """An array property whose items are a ``$ref`` with the items read (their type, enum,
    format, properties), so rules tell a list of names (AWS ``ConfigRuleNames``: strings) from
    a list of records (``mediaStreams``: objects)."""
    items = schema.get("items") if isinstance(schema, dict) else None
    if schema.get("type") != "array" or not isinstance(items, dict) or not (
            "$ref" in items or "allOf" in items):  # AWS: allOf [$ref Tag, {xml: ...}]
        return schema
    read = resolver.schema(items, f"{place}/items")
    kept = {k: read[k] for k in ("type", "enum", "format", "properties") if k in read}
    return {**schema, "items": kept or items}
