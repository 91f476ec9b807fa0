"""Entities: typed records (pydantic) whose fields carry semantic types, and their SQL columns."""

from __future__ import annotations

import re
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, TypeVar, Union

import orjson
from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler

from compoworld.errors import UserError
from compoworld.types import SemanticTag, semantic_type_of

_IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]*$")


def snake_case(name: str) -> str:
    """``"CalendarEvent"`` → ``"calendar_event"``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def check_identifier(kind: str, name: str) -> str:
    """Service, entity, field and tool names are lower snake case (they become SQL and tool names)."""
    if not _IDENTIFIER.match(name) or "__" in name:
        raise UserError(
            f"{kind} name {name!r} must be lower snake case (a-z, 0-9, single '_'), "
            "starting with a letter"
        )
    return name


def _mark_id_as_ref(schema: dict[str, Any], cls: type[Any]) -> None:
    """In JSON schema, a record's ``id`` is a reference to that entity (``x-ref``)."""
    schema.get("properties", {}).get("id", {})["x-ref"] = cls.entity_name


_BUILDING: set[type[Any]] = set()
"""Models whose deferred schema is being built (so that building it does not recurse)."""


class _Deferred(BaseModel):
    """A model whose validator and schema are built on first use, once.

    A world mounts hundreds of entities whose records it only reads from its seeded image,
    and most of its tools are never called: building their models' schemas with the classes
    was most of a service's build. Pydantic (2.14) builds a deferred model's schema anew
    inside every type that holds it (a page of records, a tool's output); this builds it
    once, on the class, the first time a holder needs it.
    """

    model_config = ConfigDict(defer_build=True)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> Any:
        if source is cls and not cls.__pydantic_complete__ and cls not in _BUILDING:
            _BUILDING.add(cls)
            try:
                cls.model_rebuild()
            finally:
                _BUILDING.discard(cls)
        return handler(source)


class Entity(_Deferred):
    """Base class of a service's typed records. Every record has a string ``id``.

    Class attributes (optional): ``entity_name`` (default: the class name in snake case),
    ``id_prefix`` (default: the first two letters of the entity name) and ``unique_fields``.

    Example:
        >>> from compoworld.types import Email, PersonName
        >>> class Contact(Entity):
        ...     id_prefix = "ct"
        ...     unique_fields = ("email",)
        ...     name: PersonName
        ...     email: Email
        >>> Contact.entity_name
        'contact'
    """

    model_config = ConfigDict(extra="forbid", json_schema_extra=_mark_id_as_ref)

    entity_name: ClassVar[str] = ""
    id_prefix: ClassVar[str] = ""
    unique_fields: ClassVar[tuple[str, ...]] = ()

    id: str

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        # A subclass of a concrete entity is a view of it with more fields (an output type
        # such as ``class InvoiceDetails(Invoice)``): it keeps the parent's name and prefix.
        if "entity_name" not in cls.__dict__ and not cls.entity_name:
            cls.entity_name = snake_case(cls.__name__)
        check_identifier("entity", cls.entity_name)
        if "id_prefix" not in cls.__dict__:
            cls.id_prefix = cls.entity_name[:2]
        for name in cls.unique_fields:
            if name not in cls.model_fields:
                raise UserError(f"{cls.__name__}.unique_fields names unknown field {name!r}")


T = TypeVar("T")


class Result(_Deferred):
    """Base class of a tool's output type that is not a record: a summary, a balance...

    Fields should carry semantic types (``Money``, ``Email``...): they are what lets the
    dependency graph see that this tool's answer can feed another tool.
    """

    model_config = ConfigDict(extra="forbid")


class Page(_Deferred, Generic[T]):
    """What a list tool returns (``returns=Page[Contact]``): one page of records.

    ``Db.page`` builds exactly this shape; declaring it gives the tool a precise output schema.
    """

    items: list[T]
    total: int
    next_offset: int | None = None


SqlType = Literal["TEXT", "INTEGER", "REAL"]


@dataclass(frozen=True)
class Column:
    """How one entity field is stored.

    Attributes:
        name: Field and column name.
        sql_type: SQLite storage type.
        nullable: Whether NULL is allowed.
        kind: The field's value shape: ``str``, ``int``, ``float``, ``bool``, ``json``.
        semantic: Semantic type name, ``"Ref"`` for references, or None.
        ref: Referenced entity name for ``Ref`` fields.
        enum: Allowed values for ``Literal`` fields.
    """

    name: str
    sql_type: SqlType
    nullable: bool
    kind: Literal["str", "int", "float", "bool", "json"]
    semantic: str | None = None
    ref: str | None = None
    enum: tuple[Any, ...] | None = None

    def encode(self, value: Any) -> Any:
        if value is None:
            return None
        if self.kind == "json":
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
        if self.kind == "bool":
            return int(value)
        return value

    def decode(self, value: Any) -> Any:
        if value is None:
            return None
        if self.kind == "json":
            return orjson.loads(value)
        if self.kind == "bool":
            return bool(value)
        return value

    @property
    def needs_decoding(self) -> bool:
        return self.kind in ("json", "bool")


def describe_annotation(
    annotation: Any, metadata: list[Any]
) -> tuple[Any, bool, SemanticTag | None]:
    """Split an annotation into (base type, nullable, semantic tag; a list's item tag)."""
    tag = next((m for m in metadata if isinstance(m, SemanticTag)), None)
    nullable = False
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        nullable = len(args) < len(typing.get_args(annotation))
        annotation = args[0] if len(args) == 1 else Any
    if typing.get_origin(annotation) is typing.Annotated:
        tag = tag or semantic_type_of(annotation)
        annotation = typing.get_args(annotation)[0]
    if tag is None and typing.get_origin(annotation) is list:
        # list[Email]: the items carry the meaning (a list of recipients is a list of emails).
        (item,) = typing.get_args(annotation) or (None,)
        _, _, tag = describe_annotation(item, []) if item is not None else (None, False, None)
    return annotation, nullable, tag


def entity_columns(entity: type[Entity]) -> tuple[Column, ...]:
    """The SQL columns of an entity, in field order (``id`` first)."""
    columns = []
    for name, info in entity.model_fields.items():
        check_identifier("field", name)
        base, nullable, tag = describe_annotation(info.annotation, list(info.metadata))
        nullable = nullable or (not info.is_required() and info.default is None)
        enum = None
        if typing.get_origin(base) is Literal:
            enum = typing.get_args(base)
            base = type(enum[0])
        kind: Literal["str", "int", "float", "bool", "json"]
        sql: SqlType
        if base is bool:
            kind, sql = "bool", "INTEGER"
        elif base is int:
            kind, sql = "int", "INTEGER"
        elif base is float:
            kind, sql = "float", "REAL"
        elif base is str:
            kind, sql = "str", "TEXT"
        else:
            kind, sql = "json", "TEXT"
        columns.append(Column(
            name=name, sql_type=sql, nullable=nullable, kind=kind,
            semantic=tag.name if tag else None, ref=tag.ref if tag else None, enum=enum,
        ))
    return tuple(columns)
