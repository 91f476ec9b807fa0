"""Compiling an object schema: every required property, most optional ones, one person each.

An entity record (its ``id`` marked ``x-ref`` to one of the service's entities) agrees with
state: an existing id gives the stored record's fields, a new one describes a person whose
unique facts (email, phone...) the entity does not hold yet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from compoworld.service import Table
from compoworld.simulate._draw import TITLES, WORDS, Draw, is_person_type
from compoworld.types import Person, code_prefix, person_fact, text_role

if TYPE_CHECKING:
    from compoworld.simulate._generate import Gen, _Compiler

_PERSON_TRIES = 20


def compile_record(compiler: _Compiler, schema: dict[str, Any], nested: bool) -> Gen:
    """The generator of an object schema (see the module docstring)."""
    properties: dict[str, Any] = schema.get("properties") or {}
    id_schema = properties.get("id")
    table = compiler.own(id_schema.get("x-ref")) if isinstance(id_schema, dict) else None
    inner = nested or "id" in properties  # lists inside a record hold 0-2 items
    required = set(schema.get("required", properties))
    fields = tuple((name, *_field(compiler, sub, inner, name), name in required, _acceptor(sub),
                    table is not None and name == "id")
                   for name, sub in properties.items())
    stored = table is not None and set(table.names) <= set(properties)
    pick = _person_picker(compiler, table, properties) if any(
        compiler.is_personal(sub) for sub in properties.values()) else None
    extra = schema.get("additionalProperties")
    more = _more(compiler, schema, extra, inner) if isinstance(extra, dict) and extra else None

    def gen(d: Draw, _: Person | None) -> dict[str, Any]:
        person = pick(d) if pick is not None else None
        fixed, random = d.fixed, d.random
        out: dict[str, Any] = {}
        for name, draw, nullable, needed, accepts, is_id in fields:
            if not needed and random() < 0.25:
                continue
            if fixed and name in fixed and accepts(fixed[name]):
                out[name] = fixed[name]
            elif is_id and d.creates:
                out[name] = d.new_id(table)  # type: ignore[arg-type]  # a write makes a new record
            elif nullable and random() < 0.1:
                out[name] = None
            else:
                out[name] = draw(d, person)
        if stored and isinstance(out.get("id"), str) and out["id"] not in d.minted:
            record = d.stored(table, out["id"])  # type: ignore[arg-type]
            if record is not None:
                out.update({k: v for k, v in record.items() if k in properties})
        if more is not None:
            more(d, person, out)
        return out

    return gen


def _plain_string(schema: Any) -> bool:
    return (isinstance(schema, dict) and schema.get("type") == "string"
            and not any(k in schema for k in ("x-semantic-type", "x-ref", "format", "enum",
                                              "const", "pattern")))


def _named(name: str, schema: Any) -> Gen | None:
    """An untyped string named like an identifier or a title gets a code ("WOR-482913") or
    a name ("Adaptive Alliance"), not lorem filler; None for any other field."""
    if not _plain_string(schema):
        return None
    role = text_role(name)
    limit = schema.get("maxLength") if isinstance(schema.get("maxLength"), int) else None
    if role == "code":
        prefix = code_prefix(name)
        gen: Gen = lambda d, p: f"{prefix}-{100000 + int(d.random() * 900000)}"  # noqa: E731
    elif role == "title":
        gen = lambda d, p: TITLES[int(d.random() * len(TITLES))]  # noqa: E731
    else:
        return None
    if limit is None:
        return gen
    return lambda d, p: gen(d, p)[:limit] or "x"


def _field(compiler: _Compiler, schema: Any, nested: bool,
           name: str = "") -> tuple[Gen, bool]:
    """A property's generator, and whether it is "this or null" (the most common optional
    field: decided in the record's loop, one call less per field)."""
    if isinstance(schema, dict) and isinstance(schema.get("anyOf"), list) \
            and "const" not in schema and "enum" not in schema:
        options = [o for o in schema["anyOf"] if not (isinstance(o, dict) and o.get("type") == "null")]
        if len(options) == 1 < len(schema["anyOf"]):
            named = _named(name, options[0])
            return (named or compiler.compile(options[0], nested)), True
    return (_named(name, schema) or compiler.compile(schema, nested)), False


def _more(compiler: _Compiler, schema: dict[str, Any], extra: dict[str, Any],
          nested: bool) -> Callable[[Draw, Person | None, dict[str, Any]], None]:
    """Additional properties: some of the named keys (else of three random words)."""
    value = compiler.compile(extra, nested)
    names = tuple(map(str, (schema.get("propertyNames") or {}).get("enum") or ()))

    def add(d: Draw, person: Person | None, out: dict[str, Any]) -> None:
        keys = names or tuple(WORDS[d.index(len(WORDS))] for _ in range(3))
        for key in d.rng.sample(keys, 1 + d.index(len(keys))):
            out[key] = value(d, person)

    return add


def _person_picker(compiler: _Compiler, table: Table | None,
                   properties: dict[str, Any]) -> Callable[[Draw], Person]:
    """A pool person for the record; for a new entity record, one whose unique facts the
    entity does not hold yet (one query for all of them)."""
    unique = [(f, semantic) for f in (table.entity.unique_fields if table is not None else ())
              if isinstance(properties.get(f), dict)
              and isinstance(semantic := properties[f].get("x-semantic-type"), str)
              and is_person_type(semantic)]
    if table is None or not unique:
        return Draw.person
    query = (f'SELECT 1 FROM "{table.name}" WHERE '
             + " OR ".join(f'"{f}" = ?' for f, _ in unique) + " LIMIT 1")

    def pick(d: Draw) -> Person:
        person = d.person()
        for _ in range(_PERSON_TRIES):
            if not d.db.sql(query, [person_fact(person, semantic) for _, semantic in unique]):
                break
            person = d.person()
        return person

    return pick


_ACCEPTORS: dict[tuple[frozenset[Any], tuple[Any, ...]], Callable[[Any], bool]] = {}


def _acceptor(schema: Any) -> Callable[[Any], bool]:
    """Whether a fixed value fits a property (its JSON type, and its enum or const if any)."""
    options = schema.get("anyOf", [schema]) if isinstance(schema, dict) else []
    options = [o for o in options if isinstance(o, dict)]
    allowed = [v for o in options for v in (o.get("enum") or ([o["const"]] if "const" in o else []))]
    kinds = frozenset(o.get("type") for o in options if isinstance(o.get("type"), str))
    try:
        key = (kinds, tuple(allowed))
        hash(key)
    except TypeError:  # unhashable enum values: not shared
        return _make_acceptor(kinds, allowed)
    accepts = _ACCEPTORS.get(key)
    if accepts is None:
        accepts = _ACCEPTORS[key] = _make_acceptor(kinds, allowed)
    return accepts


def _make_acceptor(kinds: frozenset[Any], allowed: list[Any]) -> Callable[[Any], bool]:
    numeric = bool(kinds & {"integer", "number"})

    def accepts(value: Any) -> bool:
        if allowed and value not in allowed:
            return False
        return (isinstance(value, str) and "string" in kinds) or (
            isinstance(value, bool) and "boolean" in kinds) or (
            numeric and isinstance(value, int | float) and not isinstance(value, bool))

    return accepts
