"""JSON-schema helpers for source specs: local ``$ref`` resolution (circular ones included),
``allOf`` merging, ``oneOf`` / ``anyOf`` choice, and the record shape a response holds."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from compoworld.compiler._result import SpecError

MAX_DEPTH = 12
_CIRCULAR: dict[str, Any] = {"type": "object", "description": "(circular reference)"}


class Resolver:
    """Resolves schemas of one document; errors name the document and the JSON pointer."""

    def __init__(self, doc: dict[str, Any], source: str) -> None:
        self.doc, self.source = doc, source
        self.warnings: list[str] = []

    def target(self, ref: str, place: str) -> Any:
        """The node a local ``$ref`` points to."""
        if not ref.startswith("#"):
            self.warnings.append(f"{place}: external $ref {ref!r} not followed")
            return {}
        node: Any = self.doc
        for raw in unquote(ref[1:]).split("/")[1:]:  # a URI fragment: %7B → {
            key = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and key in node:
                node = node[key]
            elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
            else:
                raise SpecError(f"$ref {ref!r} points to nothing", source=self.source, place=place)
        return node

    def node(self, node: Any, place: str, seen: tuple[str, ...] = ()) -> Any:
        """``node`` with its own ``$ref`` chain followed (not its children)."""
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or len(seen) > MAX_DEPTH:
                return dict(_CIRCULAR)
            seen = (*seen, ref)
            node = self.target(ref, place)
        return node

    def schema(self, node: Any, place: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
        """A schema with ``$ref`` followed, ``allOf`` merged and ``oneOf``/``anyOf`` resolved to
        their first object option (or first option). Properties stay unresolved."""
        chain = seen
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in chain or len(chain) > MAX_DEPTH:
                return dict(_CIRCULAR)
            chain = (*chain, ref)
            node = self.target(ref, place)
        if not isinstance(node, dict):
            return {}
        result = {k: v for k, v in node.items() if k not in ("allOf", "oneOf", "anyOf")}
        if isinstance(node.get("allOf"), list):
            for part in node["allOf"]:
                merged = self.schema(part, place, chain)
                props = {**merged.get("properties", {}), **result.get("properties", {})}
                required = [*merged.get("required", []), *result.get("required", [])]
                result = {**merged, **result, "properties": props, "required": required}
        for key in ("oneOf", "anyOf"):
            options = node.get(key)
            if isinstance(options, list) and options and "properties" not in result:
                resolved = [self.schema(o, place, chain) for o in options]
                usable = [o for o in resolved if o.get("type") != "null"] or resolved
                chosen = next((o for o in usable if o.get("properties")), usable[0])
                result = {**chosen, **result}
        if isinstance(result.get("type"), list):  # OpenAPI 3.1: ["string", "null"]
            result["type"] = next((t for t in result["type"] if t != "null"), "string")
        return result

    def properties(self, schema: dict[str, Any], place: str,
                   seen: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
        """The resolved top-level properties of an object schema."""
        props = schema.get("properties")
        if not isinstance(props, dict):
            return {}
        return {str(k): self.schema(v, f"{place}/properties/{k}", seen) for k, v in props.items()}


_WRAPPERS = ("data", "items", "results", "records", "entries", "values", "list", "content",
             "elements", "objects", "rows", "hits")


def record_shape(resolver: Resolver, schema: dict[str, Any], place: str, hint: str = ""
                 ) -> tuple[dict[str, dict[str, Any]], bool]:
    """(record properties, is a collection) of a response: an object, an array of objects, or
    an envelope holding an array of objects (``{"data": [...], "total": 3}``; with several
    arrays, the one named like ``hint``, the path's collection: ``{"appGateways": [...],
    "unreachable": [...]}``)."""
    if schema.get("type") == "array" or "items" in schema:
        items = resolver.schema(schema.get("items", {}), place + "/items")
        return resolver.properties(items, place + "/items"), True
    props = resolver.properties(schema, place)
    arrays = {k: v for k, v in props.items() if v.get("type") == "array" or "items" in v}
    wanted = re.sub(r"[^a-z0-9]", "", hint.lower())
    named = [k for k in arrays if k.lower() in _WRAPPERS] or [
        k for k in arrays if wanted and re.sub(r"[^a-z0-9]", "", k.lower()) == wanted]
    key = named[0] if named else (next(iter(arrays)) if len(arrays) == 1 and len(props) <= 4
                                  else None)
    if key is not None:
        items = resolver.schema(arrays[key].get("items", {}), f"{place}/properties/{key}/items")
        inner = resolver.properties(items, f"{place}/properties/{key}/items")
        if inner:
            return inner, True
    return props, False


_SCALARS = ("string", "integer", "number", "boolean")


def flatten(props: dict[str, dict[str, Any]], resolver: Resolver | None = None, place: str = "",
            max_inner: int = 10) -> dict[str, dict[str, Any]]:
    """Record properties with small nested objects flattened one level (``address: {city}`` →
    ``address_city``), so the facts inside them get their semantic types and can link
    services. Larger objects stay whole, as do the objects inside small ones."""
    out: dict[str, dict[str, Any]] = {}
    for key, schema in props.items():
        is_object = schema.get("type") == "object" or isinstance(schema.get("properties"), dict)
        if resolver is not None:
            inner = resolver.properties(schema, f"{place}/properties/{key}") if is_object else {}
        else:
            raw = schema.get("properties") if is_object else None
            inner = {str(k): v for k, v in raw.items() if isinstance(v, dict)} if isinstance(
                raw, dict) else {}
        if any(v.get("type") in _SCALARS for v in inner.values()) and len(inner) <= max_inner:
            for inner_key, inner_schema in inner.items():
                out.setdefault(f"{key}_{inner_key}", inner_schema)
            continue
        out.setdefault(key, schema)
    return out
