"""JSON-schema helpers for source specs: local ``$ref`` resolution (circular ones included),
``allOf`` merging, ``oneOf`` / ``anyOf`` choice, and nested objects flattened into record
fields. Which part of a response or body is the record: :mod:`compoworld.compiler._shape`."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from compoworld.compiler._result import SpecError
from compoworld.compiler._semantic import IDENTIFYING_TYPES, infer_semantic

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
        return self._follow(node, place, seen)[0]

    def _follow(self, node: Any, place: str,
                seen: tuple[str, ...]) -> tuple[Any, tuple[str, ...] | None]:
        """``node`` at the end of its ``$ref`` chain, and the refs followed (``None`` where the
        chain turns circular or too deep: the node is then the circular placeholder)."""
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or len(seen) > MAX_DEPTH:
                return dict(_CIRCULAR), None
            seen = (*seen, ref)
            node = self.target(ref, place)
        return node, seen

    def schema(self, node: Any, place: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
        """A schema with ``$ref`` followed, ``allOf`` merged and ``oneOf``/``anyOf`` resolved to
        their first object option (or first option). Properties stay unresolved."""
        node, chain = self._follow(node, place, seen)
        if chain is None:
            return node
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


def is_object(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "object" or isinstance(schema.get("properties"), dict)


SCALARS = ("string", "integer", "number", "boolean")


def flatten(props: dict[str, dict[str, Any]], resolver: Resolver | None = None, place: str = "",
            max_inner: int = 16, levels: int = 2, max_fields: int = 40
            ) -> dict[str, dict[str, Any]]:
    """Record properties with small nested objects flattened (``address: {city}`` →
    ``address_city``, ``location: {postal_address: {post_code}}`` →
    ``location_postal_address_post_code``), so the facts inside them get their semantic types
    and can link services.

    Up to ``levels`` deep, objects of at most ``max_inner`` properties, and only while the
    record keeps at most ``max_fields`` fields: the objects holding the most semantic facts
    (names, emails, addresses) are opened first, the record's own fields always stay. Larger
    objects stay whole, as do the objects below ``levels``.
    """
    options: dict[str, list[dict[str, dict[str, Any]]]] = {}  # deepest first
    large: dict[str, dict[str, dict[str, Any]]] = {}
    for key, schema in props.items():
        inner = _inner(schema, resolver, f"{place}/properties/{key}")
        if len(inner) > max_inner:
            large[key] = inner
        if not inner or len(inner) > max_inner:
            continue
        deep = flatten(inner, resolver, f"{place}/properties/{key}", max_inner, levels - 1,
                       max_fields) if levels > 1 else inner
        usable = [o for o in ((deep, inner) if deep != inner else (inner,))
                  if any(v.get("type") in SCALARS for v in o.values())]
        if usable:
            options[key] = usable
    budget = max_fields - len(props)
    facts = {key: sum(infer_semantic(f"{key}_{k}", v) is not None for k, v in opts[0].items())
             for key, opts in options.items()}
    chosen: dict[str, dict[str, dict[str, Any]]] = {}
    for key in sorted(options, key=lambda k: -facts[k]):  # stable: spec order among equals
        fits = next((o for o in options[key] if len(o) - 1 <= budget), None)
        if fits is not None:
            budget -= len(fits) - 1
            chosen[key] = fits
    lifted = _identifying_facts(large, budget)
    out: dict[str, dict[str, Any]] = {}
    for key, schema in props.items():
        if key in chosen:
            for inner_key, inner_schema in chosen[key].items():
                out.setdefault(f"{key}_{inner_key}", inner_schema)
        else:
            out.setdefault(key, schema)
            for inner_key, inner_schema in lifted.get(key, {}).items():
                out.setdefault(f"{key}_{inner_key}", inner_schema)
    return out


MAX_LIFTED = 8
"""Identifying facts lifted from one object too large to flatten."""


def _identifying_facts(large: dict[str, dict[str, dict[str, Any]]], budget: int
                       ) -> dict[str, dict[str, dict[str, Any]]]:
    """The scalar properties of objects too large to flatten that hold an identifying fact (an
    email, a phone, a name...), at most :data:`MAX_LIFTED` an object and ``budget`` in all, in
    spec order: Adyen's ``accountHolderDetails`` (20 properties) keeps its ``email`` as
    ``account_holder_details_email`` beside the whole object."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for key, inner in large.items():
        facts = {k: v for k, v in inner.items() if v.get("type") in SCALARS
                 and infer_semantic(f"{key}_{k}", v) in IDENTIFYING_TYPES}
        for k in list(facts)[:min(MAX_LIFTED, max(budget, 0))]:
            out.setdefault(key, {})[k] = facts[k]
            budget -= 1
    return out


def _inner(schema: dict[str, Any], resolver: Resolver | None, place: str
           ) -> dict[str, dict[str, Any]]:
    if not is_object(schema):
        return {}
    if resolver is not None:
        return resolver.properties(schema, place)
    raw = schema.get("properties")
    return {str(k): v for k, v in raw.items() if isinstance(v, dict)} if isinstance(
        raw, dict) else {}
