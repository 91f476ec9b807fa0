"""Realistic values from a JSON schema and its semantic annotations, seeded.

Used by the offline simulator: ids come from state where the entity exists, people-typed
fields of one object describe one pool person, dates sit around the world's today.
"""

from __future__ import annotations

import hashlib
import random
from datetime import timedelta
from typing import Any

from faker import Faker
from faker.providers.lorem.en_US import Provider as _Lorem

from compoworld.errors import CompoWorldError
from compoworld.service import Db
from compoworld.types import Person, Pool, get_type, person_fact

_WORDS: tuple[str, ...] = tuple(_Lorem.word_list)


class ValueFactory:
    """Builds one value for a schema. One factory per simulated call (its own random stream).

    Args:
        fake: A Faker seeded for this call.
        pool: The world's shared pool (people, companies, today).
        db: The simulated tool's service state, for existing ids.
        fixed: Values already decided, by property name (e.g. the ids the call asked for).
    """

    def __init__(self, fake: Faker, pool: Pool, db: Db, fixed: dict[str, Any] | None = None,
                 *, creates: bool = False):
        self.fake = fake
        self.rng: random.Random = fake.random
        self.pool = pool
        self.db = db
        self.fixed = fixed or {}
        self.creates = creates
        self._counts: dict[str, int] = {}
        self._first_ids: dict[str, list[str]] = {}

    def value(self, schema: dict[str, Any], person: Person | None = None) -> Any:
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return self.rng.choice(schema["enum"])
        if "anyOf" in schema:
            options = [o for o in schema["anyOf"] if o.get("type") != "null"]
            if not options or (len(options) < len(schema["anyOf"]) and self.rng.random() < 0.1):
                return None
            return self.value(self.rng.choice(options), person)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind == "object" or "properties" in schema:
            return self.record(schema)
        if kind == "array":
            low = schema.get("minItems", 1)
            high = max(low, min(schema.get("maxItems", 4), 4))
            return [self.value(schema.get("items", {}), person) for _ in range(self.rng.randint(low, high))]
        if kind == "string":
            return self.string(schema, person)
        if kind == "integer":
            return self.number(schema, integer=True)
        if kind == "number":
            return self.number(schema, integer=False)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self.fake.word()

    def record(self, schema: dict[str, Any]) -> dict[str, Any]:
        """An object: every required property, most optional ones; one person per object.

        An entity record (its ``id`` marked ``x-ref``) of this service agrees with state: an
        existing id gives the stored record, a new one a person the entity does not hold yet.
        """
        properties: dict[str, Any] = schema.get("properties", {})
        entity = self._own_entity(properties.get("id", {}).get("x-ref"))
        person = self._person_for(entity, properties)
        required = set(schema.get("required", properties))
        out: dict[str, Any] = {}
        for name, sub in properties.items():
            if name not in required and self.rng.random() < 0.25:
                continue
            if name in self.fixed and _accepts(sub, self.fixed[name]):
                out[name] = self.fixed[name]
            elif name == "id" and entity is not None and self.creates:
                out[name] = self.new_id(entity)  # a write makes a new record
            else:
                out[name] = self.value(sub, person)
        if entity is not None and isinstance(out.get("id"), str) and self._is_record(entity, properties):
            stored = self.db.find(entity, id=out["id"])
            if stored is not None:
                out.update({k: v for k, v in stored.items() if k in properties})
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            keys = schema.get("propertyNames", {}).get("enum") or [self.fake.word() for _ in range(3)]
            for key in self.rng.sample(list(keys), self.rng.randint(1, len(keys))):
                out[str(key)] = self.value(extra, person)
        return out

    def _is_record(self, entity: str, properties: dict[str, Any]) -> bool:
        """Whether an object is a view of the entity's records (it has all their fields),
        rather than a result that merely names one (``{"id", "deleted"}``)."""
        return set(self.db.table(entity).names) <= set(properties)

    def _own_entity(self, entity: str | None) -> str | None:
        """``entity`` if it is a table of the simulated tool's service."""
        if entity is None:
            return None
        try:
            self.db.table(entity)
        except CompoWorldError:
            return None
        return entity

    def _person_for(self, entity: str | None, properties: dict[str, Any]) -> Person:
        """A pool person; for a new record, one whose unique facts the entity does not hold."""
        if entity is None:
            return self.rng.choice(self.pool.people)
        table = self.db.table(entity)
        unique = [(f, properties[f].get("x-semantic-type")) for f in table.entity.unique_fields
                  if f in properties and properties[f].get("x-semantic-type")]
        person = self.rng.choice(self.pool.people)
        for _ in range(20):
            facts = [(f, fact) for f, t in unique if (fact := person_fact(person, t)) is not None]
            if not facts or not self.db.sql(  # one query for all the unique facts
                    "SELECT 1 FROM {" + entity + "} WHERE "
                    + " OR ".join(f'"{f}" = ?' for f, _ in facts) + " LIMIT 1",
                    [fact for _, fact in facts]):
                break
            person = self.rng.choice(self.pool.people)
        return person

    def string(self, schema: dict[str, Any], person: Person | None) -> str:
        if "x-ref" in schema:
            return self.reference(schema["x-ref"])
        semantic = schema.get("x-semantic-type")
        if semantic in ("Date", "DateTime") or schema.get("format") in ("date", "date-time"):
            day = self.pool.today + timedelta(days=self.rng.randint(-30, 30))
            if semantic == "Date" or schema.get("format") == "date":
                return day.isoformat()
            return f"{day.isoformat()}T{self.rng.randint(8, 18):02d}:{self.rng.choice((0, 30)):02d}:00"
        if semantic:
            fact = person_fact(person, semantic) if person else None
            return str(fact if fact is not None else get_type(semantic).generate(self.fake))
        if schema.get("format") == "email":
            return (person or self.rng.choice(self.pool.people)).email
        # Free text: a few lorem words drawn with the call's seeded rng (Faker's sentence() costs
        # ~25 µs a call, and compiled records hold dozens of free-text fields).
        words = self.rng.choices(_WORDS, k=self.rng.randint(2, 6))
        text = " ".join(words).capitalize()
        return text[: schema.get("maxLength", len(text))] or "x"

    def number(self, schema: dict[str, Any], *, integer: bool) -> int | float:
        semantic = schema.get("x-semantic-type")
        if semantic:
            value = get_type(semantic).generate(self.fake)
        else:
            value = self.rng.randint(0, 100) if integer else round(self.rng.uniform(0, 1000), 2)
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        if low is not None and value < low:
            value = low + (1 if "exclusiveMinimum" in schema else 0)
        if high is not None and value > high:
            value = high - (1 if "exclusiveMaximum" in schema else 0)
        return int(value) if integer else float(value)

    def reference(self, entity: str) -> str:
        """An id of ``entity``: an existing one where the service has records, else a new one."""
        if self._own_entity(entity) is None:  # another service's entity: only the shape matters
            return f"{entity[:2]}_{self.rng.getrandbits(32):08x}"
        if entity not in self._counts:
            self._counts[entity] = self.db.count(entity)
        if self._counts[entity] and self.rng.random() < 0.9:  # one of the first 50 records
            offset = self.rng.randrange(min(self._counts[entity], 50))
            if entity not in self._first_ids:  # the call writes nothing until it is answered
                rows = self.db.sql(f"SELECT id FROM {{{entity}}} ORDER BY rowid LIMIT 50")
                self._first_ids[entity] = [str(row["id"]) for row in rows]
            return self._first_ids[entity][offset]
        return self.new_id(entity)

    def new_id(self, entity: str) -> str:
        """A fresh id in the entity's format."""
        digest = hashlib.blake2b(str(self.rng.random()).encode(), digest_size=4).hexdigest()
        return f"{self.db.table(entity).entity.id_prefix}_{digest}"


def _accepts(schema: dict[str, Any], value: Any) -> bool:
    """Whether a fixed value fits a property (its JSON type, and its enum or const if any)."""
    options = schema.get("anyOf", [schema])
    allowed = [v for o in options for v in (o.get("enum") or ([o["const"]] if "const" in o else []))]
    if allowed and value not in allowed:
        return False
    kinds = {o.get("type") for o in options}
    return (isinstance(value, str) and "string" in kinds) or (
        isinstance(value, bool) and "boolean" in kinds) or (
        isinstance(value, int | float) and not isinstance(value, bool)
        and bool(kinds & {"integer", "number"}))
