"""The generic engine: runs a :class:`ServiceSpec` as a :class:`Service`, without code per tool."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any, Literal

from annotated_types import Ge, Le
from pydantic import BaseModel, ConfigDict, create_model

from compoworld.errors import RecordNotFound, UserError
from compoworld.service._db import Db
from compoworld.service._entity import Entity, Page, check_identifier
from compoworld.service._seed import seed_entities
from compoworld.service._service import Service
from compoworld.service._spec import (
    EntitySpec,
    FieldSpec,
    ParamSpec,
    ServiceSpec,
    ToolSpec,
)
from compoworld.service._tool import Param, Tool
from compoworld.types import get_type, ref_type

DEFAULT_LIMIT = 20
MAX_LIMIT = 100

# Types built at run time from spec data; typed as Any so type checkers accept the construction.
_Annotated: Any = typing.Annotated
_Literal: Any = Literal
_list: Any = list
_Optional: Any = typing.Optional

_PRIMITIVES: dict[str, Any] = {
    "string": str, "integer": int, "number": float, "boolean": bool,
    "array": list[Any], "object": dict[str, Any],
}


def type_annotation(
    type_name: str, *, ref: str | None = None, items: str | None = None,
    enum: list[str] | None = None,
) -> Any:
    """The Python annotation of a spec type name (primitive, semantic type or ``Ref``)."""
    if enum:
        return _Literal[tuple(enum)]
    if type_name == "Ref":
        if not ref:
            raise UserError("a 'Ref' type needs 'ref' naming the referenced entity")
        return ref_type(ref)
    if type_name == "array" and items:
        return _list[type_annotation(items)]
    if type_name in _PRIMITIVES:
        return _PRIMITIVES[type_name]
    return get_type(type_name).annotation


def _field_annotation(spec: FieldSpec) -> Any:
    return type_annotation(spec.type, ref=spec.ref, items=spec.items, enum=spec.enum)


def _entity_class(spec: EntitySpec) -> type[Entity]:
    fields: dict[str, Any] = {}
    for f in spec.fields:
        if f.name == "id":
            continue
        annotation = _field_annotation(f)
        fields[f.name] = (annotation, ...) if f.required else (_Optional[annotation], None)
    class_name = "".join(part.title() for part in check_identifier("entity", spec.name).split("_"))
    model = create_model(class_name, __base__=Entity, **fields)
    model.entity_name = spec.name
    model.id_prefix = spec.id_prefix or spec.name[:2]
    model.unique_fields = tuple(spec.unique)
    return model


class _ToolBuilder:
    """Turns one :class:`ToolSpec` into a :class:`Tool` bound to the engine's operations."""

    def __init__(self, service: Service, spec: ToolSpec, entity: EntitySpec) -> None:
        self.service, self.spec, self.entity = service, spec, entity
        self.fields = {f.name: f for f in entity.fields}
        self.where = f"tool {spec.name!r} of service {service.name!r}"

    def fail(self, message: str) -> UserError:
        return UserError(f"{self.where}: {message}")

    def param(self, p: ParamSpec) -> Param:
        field = None
        if p.role in ("field", "filter"):
            name = p.field or p.name
            if name not in self.fields:
                raise self.fail(f"parameter {p.name!r} names unknown field {name!r} "
                                f"(fields: {', '.join(self.fields)})")
            field = self.fields[name]
        required = p.required if p.required is not None else p.role == "id" or (
            p.role == "field" and self.spec.op == "create" and field is not None
            and field.required and p.default is None
        )
        default: Any = inspect.Parameter.empty if required else p.default
        annotation: Any
        if p.role == "id":
            annotation = ref_type(self.entity.name)
        elif field is not None:
            if p.type:
                annotation = type_annotation(p.type)
            elif p.role == "filter" and p.op == "contains":
                annotation = str  # a part of a value, not a whole one: no pattern to match
            else:
                annotation = _field_annotation(field)
            if p.role == "filter" and p.op == "in":
                annotation = _list[annotation]
            if p.role == "field" and self.spec.op == "update" and not field.required:
                annotation = _Optional[annotation]
        elif p.role == "query":
            annotation = str
        elif p.role in ("limit", "offset"):
            annotation = _Annotated[(int, *_bounds(p.role))]
            if default is None:
                default = DEFAULT_LIMIT if p.role == "limit" else 0
        elif p.role == "sort_by":
            sortable = [f.name for f in self.entity.fields if f.type not in ("array", "object")]
            annotation = _Literal[tuple(["id", *sortable])]
        else:  # order
            annotation = _Literal["asc", "desc"]
            default = default or "asc"
        return Param.of(p.name, annotation, p.description or _describe(p, self.entity.name), default)

    def build(self) -> Tool:
        spec = self.spec
        roles = [p.role for p in spec.params]
        if spec.op in ("get", "update", "delete") and roles.count("id") != 1:
            raise self.fail(f"op {spec.op!r} needs exactly one parameter with role 'id'")
        if spec.op in ("list", "search", "create") and "id" in roles:
            raise self.fail(f"op {spec.op!r} takes no 'id' parameter")
        allowed = _ALLOWED_ROLES[spec.op]
        for p in spec.params:
            if p.role not in allowed:
                raise self.fail(f"parameter {p.name!r} has role {p.role!r}, not allowed for "
                                f"op {spec.op!r} (allowed: {', '.join(sorted(allowed))})")
        params = tuple(self.param(p) for p in spec.params)
        kind: Literal["read", "write"] = "read" if spec.op in ("list", "get", "search") else "write"
        return Tool(name=spec.name, description=spec.description, kind=kind, params=params,
                    fn=_OPERATIONS[spec.op](self), returns=self.returns(),
                    simulated=spec.simulated)

    def returns(self) -> Any:
        """The output type of the operation: a page of records, a record, or a deletion."""
        record = self.service.entities[self.entity.name]
        if self.spec.op in ("list", "search"):
            return Page[record]  # type: ignore[valid-type]
        return Deleted if self.spec.op == "delete" else record

    # Helpers the operations use.
    def split(
        self, db: Db, args: dict[str, Any]
    ) -> tuple[str | None, dict[str, Any], dict[str, Any]]:
        """(id, field values, filters) from validated arguments, keyed by entity field.

        Omitted parameters take their declared default. A filter on a reference must name an
        existing record (404 otherwise), as ``GET /customers/{id}/tickets`` would.
        """
        record_id, values, filters = None, {}, {}
        for p in self.spec.params:
            if p.name in args:
                value = args[p.name]
            elif p.default is not None:
                value = p.default
            else:
                continue
            if p.role == "filter" and p.op == "eq" and value is not None:
                f = self.fields[p.field or p.name]
                if f.type == "Ref" and f.ref and not db.exists(f.ref, value):
                    raise RecordNotFound(f"{f.ref} {value!r} not found")
            if p.role == "id":
                record_id = value
            elif p.role == "field":
                values[p.field or p.name] = value
            elif p.role == "filter" and value is not None:
                key = p.field or p.name
                filters[key if p.op == "eq" else f"{key}__{p.op}"] = value
        return record_id, values, filters

    def arg(self, args: dict[str, Any], role: str, default: Any) -> Any:
        """The value of the parameter playing ``role``: given, else declared default, else ``default``."""
        for p in self.spec.params:
            if p.role == role:
                if p.name in args:
                    return args[p.name]
                if p.default is not None:
                    return p.default
        return default


def _bounds(role: str) -> tuple[Any, ...]:
    return (Ge(1), Le(MAX_LIMIT)) if role == "limit" else (Ge(0),)


def _describe(p: ParamSpec, entity: str) -> str:
    return {
        "id": f"The id of the {entity}.",
        "field": f"Value of the {entity}'s {p.field or p.name}.",
        "filter": f"Only {entity} records whose {p.field or p.name} {p.op} this value.",
        "query": "Text to search for.",
        "limit": f"Maximum number of results (1-{MAX_LIMIT}).",
        "offset": "Number of results to skip (for paging).",
        "sort_by": "Field to sort by.",
        "order": "Sort order.",
    }[p.role]


class Deleted(BaseModel):
    """What a delete returns."""

    model_config = ConfigDict(extra="forbid")

    id: str
    deleted: bool


_ALLOWED_ROLES: dict[str, set[str]] = {
    "list": {"filter", "limit", "offset", "sort_by", "order"},
    "search": {"filter", "query", "limit", "offset", "sort_by", "order"},
    "get": {"id"},
    "create": {"field"},
    "update": {"id", "field"},
    "delete": {"id"},
}


def _page(b: _ToolBuilder, db: Db, args: dict[str, Any], filters: dict[str, Any]) -> dict[str, Any]:
    return db.page(b.entity.name, filters, order_by=b.arg(args, "sort_by", None),
                   descending=b.arg(args, "order", "asc") == "desc",
                   limit=b.arg(args, "limit", DEFAULT_LIMIT), offset=b.arg(args, "offset", 0),
                   max_limit=MAX_LIMIT)


def _op_list(b: _ToolBuilder) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        return _page(b, db, args, b.split(db, args)[2])

    return run


def _op_search(b: _ToolBuilder) -> Callable[..., Any]:
    text_fields = [f.name for f in b.entity.fields
                   if not f.enum and (f.type == "string" or f.type in _TEXT_TYPES)]
    if not text_fields:
        raise b.fail(f"entity {b.entity.name!r} has no text field to search")
    any_text = "|".join(text_fields) + "__contains"

    def run(db: Db, **args: Any) -> Any:
        filters = b.split(db, args)[2]
        query = b.arg(args, "query", "")
        # A record matches when any text field contains the query (case-insensitive).
        return _page(b, db, args, {**filters, any_text: query} if query else filters)

    return run


_TEXT_TYPES = ("PersonName", "FirstName", "LastName", "Email", "CompanyName", "JobTitle", "City",
               "Country", "Address", "ProductName", "Username", "Domain", "URL", "Region")


def _op_get(b: _ToolBuilder) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        return db.get(b.entity.name, b.split(db, args)[0] or "")

    return run


def _op_create(b: _ToolBuilder) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        return db.insert(b.entity.name, **b.split(db, args)[1])

    return run


def _op_update(b: _ToolBuilder) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        record_id, values, _ = b.split(db, args)
        return db.update(b.entity.name, record_id or "", **values)

    return run


def _op_delete(b: _ToolBuilder) -> Callable[..., Any]:
    def run(db: Db, **args: Any) -> Any:
        record = db.delete(b.entity.name, b.split(db, args)[0] or "")
        return {"id": record["id"], "deleted": True}

    return run


_OPERATIONS: dict[str, Callable[[_ToolBuilder], Callable[..., Any]]] = {
    "list": _op_list, "search": _op_search, "get": _op_get,
    "create": _op_create, "update": _op_update, "delete": _op_delete,
}


def build_service(spec: ServiceSpec) -> Service:
    """Run a :class:`ServiceSpec` on the generic engine.

    Raises:
        UserError: The spec is inconsistent (unknown entity, field or type, a missing id
            parameter...); the message names the tool and what to fix.
    """
    service = Service(spec.name, domain=spec.domain, description=spec.description)
    service.origin = spec.provenance.source if spec.provenance else "spec"
    entity_specs = {e.name: e for e in spec.entities}
    for entity in spec.entities:
        names = {f.name for f in entity.fields}
        for unique in entity.unique:
            if unique not in names:
                raise UserError(f"entity {entity.name!r} of service {spec.name!r}: 'unique' names "
                                f"unknown field {unique!r} (fields: {', '.join(sorted(names))})")
        for f in entity.fields:
            if f.type == "Ref" and not f.ref:
                raise UserError(f"field {entity.name}.{f.name} of service {spec.name!r}: a 'Ref' "
                                "type needs 'ref' naming the referenced entity")
            if f.type == "Ref" and f.ref not in entity_specs:
                raise UserError(f"field {entity.name}.{f.name} of service {spec.name!r} refers to "
                                f"unknown entity {f.ref!r} (entities: {', '.join(entity_specs)})")
        service.entity(_entity_class(entity))
    for tool in spec.tools:
        if tool.entity not in entity_specs:
            raise UserError(f"tool {tool.name!r} of service {spec.name!r} acts on unknown entity "
                            f"{tool.entity!r} (entities: {', '.join(entity_specs)})")
        service.add_tool(_ToolBuilder(service, tool, entity_specs[tool.entity]).build())
    service.seeder(lambda db, pool: seed_entities(db, pool, spec.entities))
    return service
