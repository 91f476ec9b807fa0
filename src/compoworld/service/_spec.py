"""``ServiceSpec``: the declarative, JSON-on-disk form of a service (what the compiler emits).

A spec lists entities with typed fields and tools whose ``op`` is one of list / get / search /
create / update / delete / upsert over one entity (an upsert updates the record its id or key
names, and creates it with that id or key when there is none), or ``action``: a custom action
whose ``effect`` (a status transition, a sent message, an aggregate or a deterministic
computation) the engine also runs without code. Every parameter states its ``role`` — the id of the
record, a field value to write, a filter, the search query, or a pagination / sorting control —
so the engine can run the tool without code and the agent sees exactly the declared schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from compoworld.errors import UserError

Op = Literal["list", "get", "search", "create", "update", "delete", "upsert", "action"]
Effect = Literal["transition", "send", "count", "summary", "compute"]
ParamRole = Literal["id", "field", "filter", "query", "limit", "offset", "page", "cursor", "sort_by",
                    "order", "option", "dry_run"]
FilterOp = Literal["eq", "ne", "gt", "gte", "lt", "lte", "contains", "in"]
PRIMITIVE_TYPES = ("string", "integer", "number", "boolean", "array", "object")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FieldSpec(_Model):
    """A field of an entity.

    ``type`` is a JSON primitive (``string``, ``integer``, ``number``, ``boolean``, ``array``,
    ``object``), a semantic type name (``Email``, ``Money``, ...), or ``Ref`` with ``ref``
    naming an entity of the same service.
    """

    name: str
    type: str
    description: str = ""
    required: bool = True
    ref: str | None = None
    items: str | None = Field(default=None, description="Item type of an array field.")
    enum: list[str] | None = None


class EntitySpec(_Model):
    """An entity: a table of records with a string ``id`` and typed fields."""

    name: str
    description: str = ""
    id_prefix: str | None = None
    fields: list[FieldSpec]
    unique: list[str] = []
    seed_count: int = Field(default=20, ge=0, le=10_000)
    singleton: bool = Field(default=False, description=(
        "One record per service (settings, a profile, a balance): tools acting on it need "
        "no id."))


class ParamSpec(_Model):
    """A tool parameter and the role it plays in the operation.

    Roles: ``id`` (the record a get/update/delete acts on), ``field`` (a value create/update
    writes to ``field``), ``filter`` (list/search keep records whose ``field`` matches with
    ``op``; a get/update/delete/transition without an ``id`` parameter acts on the first record
    whose fields equal its ``filter`` parameters — a natural key such as a path, or the parent
    of a singleton sub-record — and with none, on the service's one record), ``query`` (search
    text), ``limit`` / ``offset`` (pagination), ``page`` (a page number: ``default`` is the first
    page's number, 1 unless stated 0; the page starts at ``(page - default) * limit``),
    ``cursor`` (a page token: the ``next_offset`` a previous page answered; anything else is
    refused with 400), ``sort_by`` / ``order`` (sorting), ``option`` (accepted and checked
    against ``type``, with no effect on what the call does: an answer's projection or format,
    an idempotency token — what the real API would also do to state), ``dry_run`` (a boolean
    on a write: when true the call runs, answers what it would have answered and leaves no
    trace — a validation or preview). ``type`` defaults to the field's type (``option``:
    ``string``).

    Example:
        >>> ParamSpec(name="page", role="page", default=1).role
        'page'
    """

    name: str
    role: ParamRole
    field: str | None = None
    op: FilterOp = "eq"
    type: str | None = Field(default=None, description=(
        "On an ``id``: ``integer`` when the source declares integer ids (a whole number is "
        "then read as the record id's text)."))
    description: str = ""
    required: bool | None = None
    default: Any = None


class ActionSpec(_Model):
    """What a custom action (``op="action"``) does to its entity.

    Effects:

    * ``transition`` — set fields of the record named by the ``id`` parameter to the constants
      in ``set`` (``{"status": "cancelled"}``); refused (422) when the record's ``field`` is
      already the target value or not one of ``allowed_from``. Returns the updated record.
    * ``send`` — insert a record (a message, an outbox entry) from the ``field`` parameters plus
      the constants in ``set``. Returns the new record.
    * ``count`` — the number of records matching the ``filter`` parameters: ``{"count": n}``.
    * ``summary`` — count plus sum / min / max / average of the numeric ``field`` over the
      matching records.
    * ``compute`` — a deterministic lookup: the ``field`` parameters are the inputs, the
      entity's other fields the outputs. A seeded record with equal inputs answers; otherwise
      the outputs are drawn from a generator seeded by the world and the inputs, so the same
      question always gets the same answer within a world (a forecast by city and date, a
      quote, a conversion). Never writes.
    """

    effect: Effect
    set: dict[str, Any] = {}
    field: str | None = None
    allowed_from: list[str] | None = None
    writes: bool = Field(default=False, description="A simulated action that changes state.")


class ToolSpec(_Model):
    """A tool run by the generic engine (or, if ``simulated``, by the world model).

    ``rule`` names the compiler rule that mapped the source operation to this tool (e.g.
    ``"rest:GET collection → list"``), so every mapping can be audited.
    """

    name: str
    description: str
    op: Op
    entity: str
    params: list[ParamSpec] = []
    action: ActionSpec | None = None
    simulated: bool = False
    simulated_reason: str | None = None
    source: str | None = Field(default=None, description="Where it came from, e.g. 'GET /a/{id}'.")
    rule: str | None = None


class Provenance(_Model):
    """Where a compiled service came from."""

    source: str
    url: str | None = None
    license: str | None = None
    version: str | None = None


class ServiceSpec(_Model):
    """A whole service, declaratively. Round-trips through JSON unchanged."""

    format_version: Literal[1] = 1
    name: str
    domain: str
    description: str
    entities: list[EntitySpec]
    tools: list[ToolSpec]
    provenance: Provenance | None = None


def load_spec(path: str | Path | Any) -> ServiceSpec:
    """Read a :class:`ServiceSpec` JSON file.

    Raises:
        UserError: The file is missing or does not hold a valid spec (the message says where).
    """
    try:
        text = path.read_text() if hasattr(path, "read_text") else Path(path).read_text()
    except OSError as error:
        raise UserError(f"cannot read service spec {str(path)!r}: {error.strerror}") from None
    try:
        return ServiceSpec.model_validate_json(text)
    except ValidationError as error:
        raise UserError(f"invalid service spec {str(path)!r}:\n{error}") from None


def save_spec(spec: ServiceSpec, path: str | Path) -> None:
    """Write a spec as indented JSON (stable key order, so diffs are readable)."""
    Path(path).write_text(spec.model_dump_json(indent=2, exclude_defaults=True) + "\n")
