"""The generic engine: runs a :class:`ServiceSpec` as a :class:`Service`, without code per tool."""

from __future__ import annotations

import hashlib
import inspect
import typing
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Literal

from annotated_types import Ge, Le
from pydantic import BaseModel, BeforeValidator, ConfigDict, create_model

from compoworld.errors import RecordNotFound, UserError
from compoworld.service._actions import (
    action_kind,
    action_returns,
    check_action,
    check_target,
    op_action,
)
from compoworld.service._crud import DEFAULT_LIMIT, MAX_LIMIT, OPERATIONS, first_page
from compoworld.service._db import Db
from compoworld.service._entity import Entity, Page, check_identifier
from compoworld.service._seed import entities_seeder
from compoworld.service._service import Service
from compoworld.service._spec import (
    EntitySpec,
    FieldSpec,
    ParamSpec,
    ServiceSpec,
    ToolSpec,
)
from compoworld.service._tool import Param, Tool
from compoworld.types import SemanticTag, get_type, ref_type

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


def _id_text(value: Any) -> Any:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def integer_id(entity: str) -> Any:
    """The id of a record that the source declares ``integer`` (bfcl's ``ticket_id``, a
    petstore ``petId``): a whole number is read as the record id's text (``1`` → ``"1"``), and
    a record id the engine made (a string) is taken as well. In JSON schema: integer or string,
    with ``x-ref``."""
    return _Annotated[str, BeforeValidator(_id_text, json_schema_input_type=int | str),
                      SemanticTag("Ref", ref=entity)]


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
        self._creates = spec.op == "create" or (
            spec.action is not None and spec.action.effect == "send")
        self._keyed = (spec.op in ("get", "update", "delete", "upsert") or (
            spec.action is not None and spec.action.effect == "transition")) and not any(
            p.role == "id" for p in spec.params)
        """Whether the record is named by key filters instead of an id."""

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
            p.role == "filter" and self._keyed) or (
            p.role == "field" and self._creates and field is not None
            and field.required and p.default is None
        )
        default: Any = inspect.Parameter.empty if required else p.default
        annotation: Any
        if p.role == "id":
            # an upsert's id is the one the caller chooses: it need not name a record yet
            annotation = str if self.spec.op == "upsert" else ref_type(self.entity.name)
        elif field is not None:
            if p.type:
                annotation = type_annotation(p.type)
            elif p.role == "filter" and p.op == "contains":
                annotation = str  # a part of a value, not a whole one: no pattern to match
            else:
                annotation = _field_annotation(field)
            if p.role == "filter" and p.op == "in":
                annotation = _list[annotation]
            if p.role == "field" and self.spec.op in ("update", "upsert") and not field.required:
                annotation = _Optional[annotation]
        elif p.role == "query":
            annotation = str
        elif p.role in ("limit", "offset"):
            annotation = _Annotated[(int, *_bounds(p.role))]
            if default is None:
                default = DEFAULT_LIMIT if p.role == "limit" else 0
        elif p.role == "page":
            default = first_page(p)
            annotation = _Annotated[int, Ge(default)]
        elif p.role == "cursor":
            annotation, default = _Optional[str], None
        elif p.role == "option":
            annotation = _Optional[type_annotation(p.type or "string")]
        elif p.role == "dry_run":
            annotation, default = bool, False
        elif p.role == "sort_by":
            sortable = [f.name for f in self.entity.fields if f.type not in ("array", "object")]
            annotation = _Literal[tuple(["id", *sortable])]
        else:  # order
            annotation = _Literal["asc", "desc"]
            default = default or "asc"
        if p.role == "id" and p.type == "integer":
            annotation = integer_id(self.entity.name)
        description = p.description or (
            f"The {p.field or p.name} of the {self.entity.name} (identifies it)." if self._keyed
            else _describe(p, self.entity.name))
        return Param.of(p.name, annotation, description, default)

    def prepare(self) -> tuple[Literal["read", "write"], tuple[Param, ...], Callable[..., Any]]:
        """Check the tool against its entity: (kind, parameters, the function that runs it).

        Cheap (no schema is generated), so a compiler can check many tools before building.
        """
        spec = self.spec
        if spec.op == "action":
            action = check_action(self)
            return (action_kind(action), tuple(self.param(p) for p in spec.params),
                    self.dry_runnable(op_action(self)))
        if spec.action is not None:
            raise self.fail(f"'action' is only for op 'action', not op {spec.op!r}")
        roles = [p.role for p in spec.params]
        if spec.op in ("get", "update", "delete", "upsert"):
            check_target(self, roles)
        if spec.op in ("list", "search", "create") and "id" in roles:
            raise self.fail(f"op {spec.op!r} takes no 'id' parameter")
        allowed = _ALLOWED_ROLES[spec.op]
        for p in spec.params:
            if p.role not in allowed:
                raise self.fail(f"parameter {p.name!r} has role {p.role!r}, not allowed for "
                                f"op {spec.op!r} (allowed: {', '.join(sorted(allowed))})")
        params = tuple(self.param(p) for p in spec.params)
        kind: Literal["read", "write"] = "read" if spec.op in ("list", "get", "search") else "write"
        return kind, params, self.dry_runnable(OPERATIONS[spec.op](self))

    def dry_runnable(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn``, or, when the tool declares a ``dry_run`` parameter, ``fn`` run as a trial
        whenever that parameter is true: it answers what the call would and writes nothing."""
        flags = [p.name for p in self.spec.params if p.role == "dry_run"]
        if not flags:
            return fn

        def run(db: Db, **args: Any) -> Any:
            if not any([bool(args.pop(name, False)) for name in flags]):
                return fn(db, **args)
            with db.dry_run():
                return fn(db, **args)

        return run

    def build(self) -> Tool:
        spec = self.spec
        kind, params, fn = self.prepare()
        returns = action_returns(self, spec.action) if spec.action else self.returns()
        return Tool(name=spec.name, description=spec.description, kind=kind, params=params,
                    fn=fn, returns=returns, simulated=spec.simulated)

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

    def locate(self, db: Db, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """(record id, field values) of a call acting on one record: the ``id`` argument (whose
        record must also match the ``filter`` arguments, its scope, when there are any), or
        else the first record whose key fields equal the ``filter`` arguments (a natural key
        such as a path, or a singleton per parent); 404 when none matches."""
        record_id, values, filters = self.split(db, args)
        if record_id is not None and not filters:
            return record_id, values
        if record_id is not None:  # a record under its scope (its parents' ids)
            if not db.select(self.entity.name, {**filters, "id": record_id}, limit=1):
                scope = ", ".join(f"{k}={v!r}" for k, v in filters.items())
                raise RecordNotFound(f"{self.entity.name} {record_id!r} not found with {scope}")
            return record_id, values
        rows = db.select(self.entity.name, filters, limit=1)
        if not rows:
            keys = ", ".join(f"{k}={v!r}" for k, v in filters.items()) or "any key"
            raise RecordNotFound(f"no {self.entity.name} with {keys}")
        return str(rows[0]["id"]), values

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
        "page": f"Page number (the first page is {first_page(p)}).",
        "cursor": "Where the page starts: the previous page's next_offset (omit for the first).",
        "option": "Accepted; it does not change what the call does.",
        "dry_run": "If true, the call is checked and answered but changes nothing.",
        "sort_by": "Field to sort by.",
        "order": "Sort order.",
    }[p.role]


class Deleted(BaseModel):
    """What a delete returns."""

    model_config = ConfigDict(extra="forbid")

    id: str
    deleted: bool


_ALLOWED_ROLES: dict[str, set[str]] = {
    "list": {"filter", "limit", "offset", "page", "cursor", "sort_by", "order", "option"},
    "search": {"filter", "query", "limit", "offset", "page", "cursor", "sort_by", "order",
               "option"},
    "get": {"id", "filter", "option"},
    "create": {"field", "option", "dry_run"},
    "update": {"id", "field", "filter", "option", "dry_run"},
    "delete": {"id", "filter", "option", "dry_run"},
    "upsert": {"id", "field", "filter", "option", "dry_run"},
}


_BUILT: OrderedDict[str, Service] = OrderedDict()
"""Services built in this process by spec digest, most recently used last (see build_service)."""
_BUILT_MAX = 2048


def spec_digest(spec: ServiceSpec) -> str:
    """A digest of everything a spec says (its JSON): equal digests, equal services."""
    return hashlib.blake2b(spec.model_dump_json().encode(), digest_size=16).hexdigest()


def build_service(spec: ServiceSpec) -> Service:
    """Run a :class:`ServiceSpec` on the generic engine.

    A spec is built once per process: building it again (the same JSON, e.g. the compiler
    verifying a spec the catalog then loads) gives a :meth:`Service.copy` of the first build,
    sharing its entity models, tools and seeder — the same behaviour, without rebuilding
    models and validators.

    Raises:
        UserError: The spec is inconsistent (unknown entity, field or type, a missing id
            parameter...); the message names the tool and what to fix.

    Example:
        >>> spec = ServiceSpec.model_validate({
        ...     "name": "notes", "domain": "productivity", "description": "Notes.",
        ...     "entities": [{"name": "note", "fields": [{"name": "title", "type": "string"}]}],
        ...     "tools": [{"name": "list_notes", "description": "List notes.", "op": "list",
        ...                "entity": "note"}]})
        >>> first, again = build_service(spec), build_service(spec)
        >>> first is again, first.tools["list_notes"] is again.tools["list_notes"]
        (False, True)
    """
    key = spec_digest(spec)
    built = _BUILT.get(key)
    if built is None:
        built = _build(spec)
        _BUILT[key] = built
        if len(_BUILT) > _BUILT_MAX:
            _BUILT.popitem(last=False)
    else:
        _BUILT.move_to_end(key)
    return built.copy()


def _build(spec: ServiceSpec) -> Service:
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
    service.seeder(entities_seeder(spec.entities))
    return service
