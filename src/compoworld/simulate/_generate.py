"""Realistic values from a JSON schema and its semantic annotations: compiled once, drawn fast.

An output schema is compiled once per service (:func:`plan_for`) into a tree of small
generator functions, so a call no longer walks the schema: it runs the tree on its own
:class:`~compoworld.simulate._draw.Draw`. What the values mean is decided at compile time: ids
come from state where the service has the entity, the people-typed fields of one record
describe one pool person, dates sit around the world's today, lists nested in records hold
0-2 items (result lists 1-4), free text is lorem.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from compoworld.errors import CompoWorldError
from compoworld.service import Db, Table
from compoworld.simulate._draw import PHRASES, WORDS, Draw, is_person_type
from compoworld.simulate._record import compile_record
from compoworld.types import Person, SemanticType, get_type, person_fact

Gen = Callable[[Draw, Person | None], Any]
"""A compiled schema: draws one value (the person, if any, is the enclosing record's)."""

_PLANS: dict[tuple[int, str], tuple[Any, Gen]] = {}
_PLANS_KEPT = 32768  # a full compiled catalog (~10k tools) fits
_TRUNCATED: dict[int, tuple[str, ...]] = {}


def plan_for(schema: Any, db: Db) -> Gen:
    """The compiled generator of ``schema`` for ``db``'s service (built on first use).

    Args:
        schema: A JSON schema (a tool's output schema).
        db: The service state the values must agree with (its tables decide which ``x-ref``
            ids are this service's records).
    """
    key = (id(schema), db.service)
    cached = _PLANS.get(key)
    if cached is not None and cached[0] is schema:
        return cached[1]
    gen = _Compiler(db).compile(schema, nested=False)
    if len(_PLANS) >= _PLANS_KEPT:
        _PLANS.clear()
    _PLANS[key] = (schema, gen)  # the schema is kept alive, so its id stays its own
    return gen


def _none(d: Draw, p: Person | None) -> None:
    return None


def _boolean(d: Draw, p: Person | None) -> bool:
    return d.random() < 0.5


def _word(d: Draw, p: Person | None) -> str:
    return WORDS[int(d.random() * len(WORDS))]


def _date(d: Draw, p: Person | None) -> str:
    return d.dates[int(d.random() * len(d.dates))]


def _datetime(d: Draw, p: Person | None) -> str:
    return d.datetimes[int(d.random() * len(d.datetimes))]


def _email(d: Draw, p: Person | None) -> str:
    return (p if p is not None else d.person()).email


def _text(d: Draw, p: Person | None) -> str:
    return PHRASES[int(d.random() * len(PHRASES))]


def _integer(d: Draw, p: Person | None) -> int:
    return int(d.random() * 101)


def _float(d: Draw, p: Person | None) -> float:
    return round(d.random() * 1000, 2)


class _Compiler:
    """Compiles the schemas of one service's tools."""

    def __init__(self, db: Db) -> None:
        self.db = db

    def own(self, entity: Any) -> Table | None:
        """The table of ``entity`` if it is one of the service's."""
        if not isinstance(entity, str):
            return None
        try:
            return self.db.table(entity)
        except CompoWorldError:
            return None

    def compile(self, schema: Any, nested: bool) -> Gen:
        """``nested``: inside a record or a list item (lists then hold 0-2 items)."""
        if not isinstance(schema, dict):
            return _word
        if "const" in schema:
            const = schema["const"]
            return lambda d, p: copy.deepcopy(const)
        if "enum" in schema:
            options = tuple(schema["enum"])
            return (lambda d, p: options[int(d.random() * len(options))]) if options else _none
        for union in ("anyOf", "oneOf"):
            if isinstance(schema.get(union), list):
                return self.any_of(schema[union], nested)
        if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
            return self.compile({**schema["allOf"][0], **{k: v for k, v in schema.items()
                                                         if k != "allOf"}}, nested)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind == "object" or "properties" in schema:
            return compile_record(self, schema, nested)
        if kind == "array":
            return self.array(schema, nested)
        if kind == "string":
            return self.string(schema)
        if kind in ("integer", "number"):
            return self.number(schema, integer=kind == "integer")
        if kind == "boolean":
            return _boolean
        if kind == "null":
            return _none
        return _word

    def any_of(self, choices: list[Any], nested: bool) -> Gen:
        options = [o for o in choices if not (isinstance(o, dict) and o.get("type") == "null")]
        if not options:
            return _none
        gens = tuple(self.compile(o, nested) for o in options)
        nullable = len(options) < len(choices)
        if len(gens) == 1:
            only = gens[0]
            if not nullable:
                return only
            return lambda d, p: None if d.random() < 0.1 else only(d, p)
        return lambda d, p: (None if nullable and d.random() < 0.1
                             else gens[int(d.random() * len(gens))](d, p))

    def array(self, schema: dict[str, Any], nested: bool) -> Gen:
        if isinstance(schema.get("prefixItems"), list):  # a tuple: one value per position
            parts = tuple(self.compile(s, nested=True) for s in schema["prefixItems"])
            return lambda d, p: [part(d, p) for part in parts]
        item = self.compile(schema.get("items", {}), nested=True)
        cap = 2 if nested else 4  # a record's own lists stay short; result lists keep their size
        low = int(schema.get("minItems", 0 if nested else 1))
        high = max(low, min(int(schema.get("maxItems", cap)), cap))
        span = high - low + 1
        return lambda d, p: [item(d, p) for _ in range(low + int(d.random() * span))]

    def semantic(self, name: Any) -> SemanticType | None:
        if not isinstance(name, str):
            return None
        try:
            return get_type(name)
        except CompoWorldError:
            return None  # an unknown annotation: the value is drawn from its JSON type alone

    def is_personal(self, schema: Any) -> bool:
        """Whether values of ``schema`` (outside nested records) describe a person."""
        if not isinstance(schema, dict) or "x-ref" in schema:
            return False
        if "anyOf" in schema:
            return any(self.is_personal(o) for o in schema["anyOf"])
        if "items" in schema:
            return self.is_personal(schema["items"])
        semantic = schema.get("x-semantic-type")
        if semantic:
            return isinstance(semantic, str) and is_person_type(semantic)
        return schema.get("format") == "email"

    def string(self, schema: dict[str, Any]) -> Gen:
        if "x-ref" in schema:
            return self.reference(schema["x-ref"])
        name, fmt = schema.get("x-semantic-type"), schema.get("format")
        if name in ("Date", "DateTime") or fmt in ("date", "date-time"):
            return _date if name == "Date" or fmt == "date" else _datetime
        semantic = self.semantic(name)
        if semantic is not None:
            generate, fact = semantic.generate, semantic.name
            if not is_person_type(fact):
                return lambda d, p: str(generate(d.fake))

            def personal(d: Draw, p: Person | None) -> str:
                value = person_fact(p if p is not None else d.person(), fact)
                return str(value if value is not None else generate(d.fake))

            return personal
        if fmt == "email":
            return _email
        limit = schema.get("maxLength")
        if not isinstance(limit, int):
            return _text
        phrases = _truncated(limit)
        return lambda d, p: phrases[int(d.random() * len(phrases))]

    def number(self, schema: dict[str, Any], *, integer: bool) -> Gen:
        semantic = self.semantic(schema.get("x-semantic-type"))
        draw: Gen
        if semantic is not None:
            generate = semantic.generate
            draw = lambda d, p: generate(d.fake)  # noqa: E731
        else:
            draw = _integer if integer else _float
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        if semantic is None and low is None and high is None:
            return _integer if integer else _float  # shared: nothing to decide per field
        if low is not None:
            low += 1 if "exclusiveMinimum" in schema else 0
        if high is not None:
            high -= 1 if "exclusiveMaximum" in schema else 0
        cast = int if integer else float

        def gen(d: Draw, p: Person | None) -> int | float:
            value = draw(d, p)
            if low is not None and value < low:
                value = low
            if high is not None and value > high:
                value = high
            return cast(value)

        return gen

    def reference(self, entity: str) -> Gen:
        """An id of ``entity``: mostly one of the first 50 records, else a new one."""
        table = self.own(entity)
        if table is None:  # another service's entity: only the shape matters
            prefix = entity[:2]
            return lambda d, p: f"{prefix}_{d.rng.getrandbits(32):08x}"
        name = table.entity_name

        def gen(d: Draw, p: Person | None) -> str:
            ids = d.ids(name)
            if ids and d.random() < 0.9:
                return ids[int(d.random() * len(ids))]
            return d.new_id(table)

        return gen


def _truncated(limit: int) -> tuple[str, ...]:
    phrases = _TRUNCATED.get(limit)
    if phrases is None:
        phrases = _TRUNCATED[limit] = tuple(text[:limit] or "x" for text in PHRASES)
    return phrases
