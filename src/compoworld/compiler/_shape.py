"""Which part of a response or request body is the record: envelopes unwrapped
(``{"status_code": 200, "data": {...}}``, ``{"data": [...], "meta": {...}}``, HAL's
``_embedded``), lists inside grouping items followed, wrappers of one record in bodies removed,
and the schema a response documented only by an example shows."""

from __future__ import annotations

import re
from typing import Any

from compoworld.compiler._rules import singular
from compoworld.compiler._schema import MAX_DEPTH, SCALARS, Resolver, is_object
from compoworld.compiler._semantic import words

__all__ = ["body_shape", "record_shape", "schema_of_example"]

_WRAPPERS = ("data", "items", "results", "records", "entries", "values", "list", "content",
             "elements", "objects", "rows", "hits")
_PAYLOADS = ("data", "result", "results", "item", "record", "entry", "object", "payload",
             "response", "body", "content", "value", "embedded")
"""Names of the one object an envelope wraps (``{"status": "OK", "data": {...}}``)."""
_META = {"meta", "metadata", "links", "link", "pagination", "paging", "page_info", "paging_info",
         "page", "errors", "error", "warnings", "messages", "included", "extensions", "request",
         "header", "headers", "debug", "summary", "cursor", "cursors", "counts"}
"""Envelope siblings of the payload that are never part of the record."""
_MAX_UNWRAP = 3
_PAGING = re.compile(r"next|cursor|page|total|count|offset|limit|has_more")
"""Names of paging markers: an object with an id and one of these is a page (Google's
``{"id", "items", "nextPageToken"}``), not a record holding a list."""
_ID = re.compile(r"^(id|uuid|guid)$|(?<!request)_(id|uuid|guid)$")


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _wanted(hint: str) -> set[str]:
    """Keys naming the path's resource: ``campaign-folders`` → ``campaignfolders``,
    ``campaignfolder``, ``folders``, ``folder`` (Mailchimp answers ``{"folders": [...]}``)."""
    parts = words(hint.strip("{}")).split("_")
    last = parts[-1]
    return {_key(hint), _key(singular("_".join(parts))), _key(last), _key(singular(last))} - {""}


def _payload(props: dict[str, dict[str, Any]], hint: str) -> str | None:
    """The key of the one object an envelope wraps, or None when ``props`` is a record.

    An envelope holds a payload object (named ``data``, ``result``, ``item``... or like the
    path's resource, ``{"budget": {...}}`` under ``/budgets/{id}``) beside metadata only:
    scalars (``status_code``, ``status``, ``server_knowledge``) or known envelope parts
    (``meta``, ``links``, ``errors``). A record has an id, so anything with one is no envelope.
    """
    wanted = _wanted(hint)
    objects = [k for k, v in props.items() if is_object(v)
               and (_key(k) in _PAYLOADS or _key(k) in wanted)]
    if len(objects) != 1:
        return None
    others = [k for k in props if k != objects[0]]
    if len(others) > 8 or any(_ID.search(words(k)) for k in others):
        return None
    for k in others:
        v = props[k]
        if _key(k) not in _META and (is_object(v) or v.get("type") == "array" or "items" in v):
            return None
    return objects[0]


_STATUS = {"status", "status_code", "status_message", "success", "ok"}
"""Scalar envelope siblings that report on the call, never on a record."""


def _beside_metadata(props: dict[str, dict[str, Any]], key: str) -> bool:
    """Whether the list ``key`` stands beside envelope parts and call statuses only (UK
    Parliament's ``{"Response": [...], "PagingInfo": {...}, "StatusCode": "OK", "Success":
    true, "Errors": []}``), not beside a record's own fields (Adyen's ``pspReference``)."""
    return all(words(k) in _META or (words(k) in _STATUS and v.get("type") in SCALARS)
               for k, v in props.items() if k != key)


def _nested_list(item: dict[str, dict[str, Any]], hint: str) -> str | None:
    """The key of the list an item of a list only groups (``{"Brand": [...]}``, or
    ``{"BrandName": "HSBC", "ATM": [...]}`` under ``/atms``), or None when it is a record."""
    arrays = [k for k, v in item.items() if v.get("type") == "array" or "items" in v]
    if len(arrays) != 1:
        return None
    others = [v for k, v in item.items() if k != arrays[0]]
    wanted = _wanted(hint)
    if not others or (_key(arrays[0]) in wanted and len(others) <= 3
                      and all(v.get("type") in SCALARS for v in others)):
        return arrays[0]
    return None


def _only_object(props: dict[str, dict[str, Any]]) -> str | None:
    """The key of the one property of ``props`` when it is an object with properties
    (``{"track": {...}}``): such a value only wraps that object."""
    if len(props) != 1:
        return None
    (key, value), = props.items()
    return key if is_object(value) and isinstance(value.get("properties"), dict) else None


def _lists(array: str, key: str) -> bool:
    """Whether a list named ``array`` is named for the one object ``key`` its items wrap:
    musixmatch's ``track_list: [{"track": {...}}]``, ``tracks: [{"track": {...}}]``."""
    name, one = words(array), words(key)
    return bool(one) and (name == f"{one}_list" or singular(name) == one)


def _map_values(resolver: Resolver, schema: dict[str, Any], place: str
                ) -> dict[str, dict[str, Any]]:
    """The record properties of a map's values (``additionalProperties`` objects), else {}."""
    values = schema.get("additionalProperties")
    if schema.get("properties") or not isinstance(values, dict):
        return {}
    return resolver.properties(resolver.schema(values, place + "/additionalProperties"),
                               place + "/additionalProperties")


def _items(resolver: Resolver, array: dict[str, Any], place: str, hint: str, depth: int
           ) -> dict[str, dict[str, Any]]:
    """The properties of an array's items, through items that only group a nested list."""
    items = resolver.schema(array.get("items", {}), place + "/items")
    inner = resolver.properties(items, place + "/items")
    only = _only_object(inner)
    if only is not None and _lists(place.rsplit("/", 1)[-1], only):
        wrapped = resolver.properties(inner[only], f"{place}/items/properties/{only}")
        if wrapped:
            return wrapped
    nested = _nested_list(inner, hint) if depth < _MAX_UNWRAP else None
    if nested is not None:  # {"data": [{"Brand": [{"BrandName": "HSBC", "ATM": [...]}]}]}
        deeper = _items(resolver, inner[nested], f"{place}/items/properties/{nested}", hint,
                        depth + 1)
        if deeper:
            return deeper
    return inner


def record_shape(resolver: Resolver, schema: dict[str, Any], place: str, hint: str = "",
                 depth: int = 0) -> tuple[dict[str, dict[str, Any]], bool]:
    """(record properties, is a collection) of a response: an object, an array of objects, or
    an envelope holding an array of objects (``{"data": [...], "total": 3}``; with several
    arrays, the one named like ``hint``, the path's collection: ``{"appGateways": [...],
    "unreachable": [...]}``) or one object (``{"status_code": 200, "data": {...}}``,
    ``{"data": {"accounts": [...], "server_knowledge": 3}}``, HAL's ``{"_embedded":
    {"items": [...]}, "_links": {...}}``), unwrapped up to three levels deep.

    Example:
        >>> doc = {"components": {"schemas": {}}}
        >>> envelope = {"type": "object", "properties": {
        ...     "status_code": {"type": "integer"}, "status": {"type": "string"},
        ...     "data": {"type": "object", "properties": {"email": {"type": "string"}}}}}
        >>> record_shape(Resolver(doc, "x"), envelope, "")
        ({'email': {'type': 'string'}}, False)
    """
    if schema.get("type") == "array" or "items" in schema:
        return _items(resolver, schema, place, hint, depth), True
    props = resolver.properties(schema, place)
    arrays = {k: v for k, v in props.items() if v.get("type") == "array" or "items" in v}
    wanted = _wanted(hint)
    named = [k for k in arrays if k.lower() in _WRAPPERS] or [
        k for k in arrays if _key(k) in wanted]
    data = [k for k in arrays if words(k) not in _META]  # not ``_links`` beside the list
    key = named[0] if named else (data[0] if len(data) == 1 and (
        len(props) <= 4 or _beside_metadata(props, data[0])) else None)
    if "id" in props and not any(_PAGING.search(words(k)) for k in props):
        key = None  # a record holds its lists (a cart its items); a page of a feed pages
    if key is not None:
        inner = _items(resolver, arrays[key], f"{place}/properties/{key}", hint, depth)
        if inner:
            return inner, True
    for key in [k for k in props if k.lower() in _WRAPPERS] if not arrays else []:
        keyed = _map_values(resolver, props[key], f"{place}/properties/{key}")
        if keyed:  # {"results": {"<id>": {...}}}: records keyed by id, a collection
            return keyed, True
    payload = _payload(props, hint) if depth < _MAX_UNWRAP else None
    if payload is not None:
        inner_place = f"{place}/properties/{payload}"
        inner_props, many = record_shape(resolver, props[payload], inner_place, hint, depth + 1)
        if inner_props:
            return inner_props, many
    only = _only_object(props) if depth < _MAX_UNWRAP else None
    if only is not None:  # {"message": {"header": {...}, "body": {"track": {...}}}}
        inner_place = f"{place}/properties/{only}"
        inner_props, many = record_shape(resolver, props[only], inner_place, hint, depth + 1)
        envelope = depth > 0 or _payload(resolver.properties(props[only], inner_place),
                                         hint) is not None
        if many or (envelope and any(v.get("type") in SCALARS for v in inner_props.values())):
            return inner_props, many  # a list, or a record inside an envelope
    return props, False


def body_shape(resolver: Resolver, schema: dict[str, Any], place: str, hint: str = ""
               ) -> tuple[dict[str, dict[str, Any]], list[str], dict[str, Any]]:
    """(properties, required names, schema) of a request body, with a wrapper of one object
    unwrapped: ``{"transaction": {...}}`` under ``/transactions``, ``{"data": {...}}``.

    Example:
        >>> body = {"type": "object", "required": ["data"], "properties": {"data": {
        ...     "type": "object", "required": ["email"], "properties": {"email": {}}}}}
        >>> body_shape(Resolver({}, "x"), body, "")[:2]
        ({'email': {}}, ['email'])
    """
    props = resolver.properties(schema, place)
    if len(props) == 1:
        (key, inner), = props.items()
        if is_object(inner) and (_key(key) in _PAYLOADS or _key(key) in _wanted(hint)):
            inner_props = resolver.properties(inner, f"{place}/properties/{key}")
            if inner_props:
                return inner_props, [str(r) for r in inner.get("required") or []], inner
    return props, [str(r) for r in schema.get("required") or []], schema


def schema_of_example(value: Any, depth: int = 0) -> dict[str, Any]:
    """The JSON schema an example value shows (for responses documented only by an example):
    objects by their keys, arrays by the keys of their first objects, scalars by their type.

    Example:
        >>> schema_of_example({"data": [{"email": "a@b.co", "age": 3}], "ok": True})["properties"]
        ... # doctest: +NORMALIZE_WHITESPACE
        {'data': {'type': 'array', 'items': {'type': 'object', 'properties':
            {'email': {'type': 'string', 'example': 'a@b.co'}, 'age': {'type': 'integer'}}}},
         'ok': {'type': 'boolean'}}
    """
    if isinstance(value, dict) and depth < MAX_DEPTH:
        return {"type": "object", "properties": {
            str(k): schema_of_example(v, depth + 1) for k, v in value.items()}}
    if isinstance(value, list):
        objects = [v for v in value[:5] if isinstance(v, dict)]
        if objects and depth < MAX_DEPTH:
            merged: dict[str, Any] = {}
            for item in objects:
                for k, v in item.items():
                    merged.setdefault(k, v)
            return {"type": "array", "items": schema_of_example(merged, depth + 1)}
        return {"type": "array", "items": schema_of_example(value[0], depth + 1) if value else {}}
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str) and value:
        return {"type": "string", "example": value[:200]}  # semantic typing checks it
    return {"type": "string"}
