"""Tools: a name, a documented typed parameter list, read or write, and the code that runs."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, NotRequired, Required

import docstring_parser
from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from compoworld.errors import BadArguments, UserError
from compoworld.service._db import Db
from compoworld.service._entity import check_identifier, describe_annotation
from compoworld.service._limits import MAX_STRING_LENGTH, check_limits

ToolKind = Literal["read", "write"]

_NO_DEFAULT: Any = inspect.Parameter.empty

# Types built at run time from data; typed as Any so type checkers accept the construction.
_Annotated: Any = typing.Annotated
_TypedDict: Any = TypedDict


@dataclass(frozen=True)
class Param:
    """One parameter of a tool.

    Attributes:
        name: Argument name.
        annotation: Python type (may be a semantic ``Annotated`` type or ``Ref[...]``).
        description: What the agent reads about it.
        required: Whether the call must give it.
        default: Value used when it is omitted (``inspect.Parameter.empty`` for none).
        semantic: Semantic type name, or ``"Ref"``, or None.
        ref: Referenced entity for ``Ref`` parameters.
    """

    name: str
    annotation: Any
    description: str
    required: bool = True
    default: Any = _NO_DEFAULT
    semantic: str | None = None
    ref: str | None = None

    # Cached: these parse the annotation, and task generation asks them at every step.
    @cached_property
    def base(self) -> Any:
        """The Python type under ``Annotated`` and ``| None``: ``str``, ``list[str]``..."""
        return describe_annotation(self.annotation, [])[0]

    @cached_property
    def is_list(self) -> bool:
        """Whether the parameter takes a list (``list[Email]``...)."""
        return typing.get_origin(self.base) is list

    @cached_property
    def choices(self) -> tuple[Any, ...]:
        """The allowed values of a ``Literal`` parameter (empty otherwise)."""
        return typing.get_args(self.base) if typing.get_origin(self.base) is Literal else ()

    @classmethod
    def of(cls, name: str, annotation: Any, description: str, default: Any = _NO_DEFAULT) -> Param:
        _, _, tag = describe_annotation(annotation, [])
        return cls(
            name=check_identifier("parameter", name), annotation=annotation,
            description=description, required=default is _NO_DEFAULT, default=default,
            semantic=tag.name if tag else None, ref=tag.ref if tag else None,
        )


def _strip_titles(schema: Any) -> Any:
    """Drop pydantic's generated ``title`` keywords (not properties that are called title)."""
    if isinstance(schema, dict):
        return {k: ({name: _strip_titles(sub) for name, sub in v.items()}
                    if k == "properties" and isinstance(v, dict) else _strip_titles(v))
                for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def _inline_refs(schema: Any, defs: dict[str, Any]) -> Any:
    if isinstance(schema, dict):
        if "$ref" in schema:
            return _inline_refs(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: _inline_refs(v, defs) for k, v in schema.items() if k != "$defs"}
    if isinstance(schema, list):
        return [_inline_refs(v, defs) for v in schema]
    return schema


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A pydantic JSON schema made self-contained: titles dropped, ``$defs`` inlined."""
    return typing.cast(dict[str, Any], _strip_titles(_inline_refs(schema, schema.get("$defs", {}))))


def compile_params(tool_name: str, params: Sequence[Param]) -> tuple[TypeAdapter[Any], dict[str, Any]]:
    """One validator and one JSON schema for a parameter list (the same rules for both)."""
    fields: dict[str, Any] = {}
    for p in params:
        annotated = _Annotated[p.annotation, Field(description=p.description)]
        fields[p.name] = Required[annotated] if p.required else NotRequired[annotated]
    arguments = _TypedDict(f"{tool_name}_arguments", fields)
    arguments.__pydantic_config__ = ConfigDict(
        extra="forbid", str_max_length=MAX_STRING_LENGTH, allow_inf_nan=False
    )
    adapter: TypeAdapter[Any] = TypeAdapter(arguments)
    schema = _drop_max_length(clean_schema(adapter.json_schema()))
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    for p in params:
        prop = schema["properties"][p.name]
        if not p.required:
            prop = schema["properties"][p.name] = _without_null(prop)
            if p.default is not None and isinstance(p.default, str | int | float):
                prop["default"] = p.default
    return adapter, schema


def _drop_max_length(schema: Any) -> Any:
    """Remove the global string cap from the schema (it is enforced, not advertised)."""
    if isinstance(schema, dict):
        return {k: _drop_max_length(v) for k, v in schema.items()
                if not (k == "maxLength" and v == MAX_STRING_LENGTH)}
    if isinstance(schema, list):
        return [_drop_max_length(v) for v in schema]
    return schema


def _without_null(prop: dict[str, Any]) -> dict[str, Any]:
    """An optional ``X | None`` parameter is shown as plain ``X``: leaving it out means None."""
    options = prop.get("anyOf")
    if options and len(options) == 2 and {"type": "null"} in options:
        (kept,) = [o for o in options if o != {"type": "null"}]
        return {**kept, **{k: v for k, v in prop.items() if k != "anyOf"}}
    return prop


def describe_validation_error(error: ValidationError, params: Sequence[Param]) -> str:
    """A message for the agent: which argument, what was expected, what it got."""
    by_name = {p.name: p for p in params}
    messages = []
    for item in error.errors()[:3]:
        loc = ".".join(str(part) for part in item["loc"])
        top = str(item["loc"][0]) if item["loc"] else ""
        param = by_name.get(top)
        if item["type"] == "missing":
            about = f": {param.description}" if param and param.description else ""
            messages.append(f"missing required argument {loc!r}{about}")
        elif item["type"] == "extra_forbidden":
            known = ", ".join(repr(p.name) for p in params) or "none"
            messages.append(f"unexpected argument {loc!r}; this tool takes: {known}")
        else:
            expected = item["msg"]
            if param and param.semantic and param.semantic != "Ref" and "pattern" in item["type"]:
                from compoworld.types import get_type

                expected = f"expected {param.semantic} ({get_type(param.semantic).description})"
            got = repr(item.get("input"))
            got = got if len(got) <= 60 else got[:57] + "..."
            messages.append(f"argument {loc!r}: {expected}; got {got}")
    if len(error.errors()) > 3:
        messages.append(f"and {len(error.errors()) - 3} more")
    return "; ".join(messages)


@dataclass(frozen=True, eq=False)
class Tool:
    """A callable capability of a service.

    ``fn`` is called as ``fn(db, **arguments)`` with validated arguments; what it returns is
    the ``data`` of the success envelope. ``simulated`` tools are answered by the world model.
    """

    name: str
    description: str
    kind: ToolKind
    params: tuple[Param, ...]
    fn: Callable[..., Any]
    returns: Any = None
    simulated: bool = False

    def __post_init__(self) -> None:
        check_identifier("tool", self.name)

    # The validator and the schemas are built on first use (~20 ms per tool): a catalog of
    # thousands of tools is listed and mounted without paying for the ones never called.
    @cached_property
    def _compiled(self) -> tuple[TypeAdapter[Any], dict[str, Any]]:
        return compile_params(self.name, self.params)

    @cached_property
    def _check(self) -> Callable[[Any], Any]:
        """``validator.validate_python`` without the adapter's Python wrapper: its compiled
        validator, called with the same (default) options."""
        return typing.cast(Callable[[Any], Any], self.validator.validator.validate_python)

    @property
    def validator(self) -> TypeAdapter[Any]:
        """Validates a call's arguments (types, semantic patterns, unknown keys)."""
        return self._compiled[0]

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the arguments (what the agent reads)."""
        return self._compiled[1]

    @cached_property
    def output(self) -> TypeAdapter[Any] | None:
        """Validates the data a call returns (None when the tool declares no output type)."""
        return None if self.returns in (None, typing.Any) else TypeAdapter(self.returns)

    @cached_property
    def output_schema(self) -> dict[str, Any] | None:
        """The JSON schema of the returned data (None when undeclared)."""
        return self.output and clean_schema(self.output.json_schema(mode="serialization"))

    def check_arguments(self, arguments: Any) -> dict[str, Any]:
        """The validated arguments of a call (``None`` means none).

        Raises:
            BadArguments: Not a JSON object, or an argument missing, unknown or of the wrong
                type; the message names it and says what was expected.
        """
        if arguments is None:
            arguments = {}
        if type(arguments) is not dict and not isinstance(arguments, Mapping):
            raise BadArguments(
                f"arguments must be a JSON object, got {type(arguments).__name__}")
        check_limits(arguments)  # depth, sizes, 64-bit integers, finite floats (service._limits)
        try:
            checked = self._check(arguments)  # a new dict (a TypedDict's validator builds one)
        except ValidationError as error:
            raise BadArguments(describe_validation_error(error, self.params)) from None
        for key, value in checked.items():
            if value is not arguments.get(key):  # coerced ("1e999", "99999999999999999999"): check
                check_limits(checked)  # again; a value passed through as it came was checked
                break
        return checked

    @property
    def precise_output(self) -> bool:
        """Whether the declared output says what the data holds (not a bare object or Any)."""
        schema = self.output_schema or {}
        return bool(schema.get("properties") or schema.get("items") or schema.get("anyOf")
                    or schema.get("type") not in (None, "object"))

    @classmethod
    def from_function(
        cls, fn: Callable[..., Any], kind: ToolKind, *, name: str | None = None,
        returns: Any = None,
    ) -> Tool:
        """Build a tool from a typed function whose Google-style docstring documents it.

        The first parameter receives the service's :class:`Db`; the others are the tool's
        parameters, described by the docstring's ``Args:`` section.
        """
        name = name or fn.__name__
        hints = typing.get_type_hints(fn, include_extras=True)
        doc = docstring_parser.parse(inspect.getdoc(fn) or "", docstring_parser.DocstringStyle.GOOGLE)
        described = {p.arg_name: (p.description or "").strip() for p in doc.params}
        signature = inspect.signature(fn)
        params = []
        for i, (pname, parameter) in enumerate(signature.parameters.items()):
            if i == 0:
                if hints.get(pname, Db) is not Db:
                    raise UserError(f"tool {name!r}: the first parameter must be the Db handle")
                continue
            if pname not in hints:
                raise UserError(f"tool {name!r}: parameter {pname!r} has no type annotation")
            params.append(Param.of(pname, hints[pname], described.get(pname, ""), parameter.default))
        description = "\n\n".join(
            part for part in (doc.short_description, doc.long_description) if part
        ).strip()
        return cls(name=name, description=description, kind=kind, params=tuple(params), fn=fn,
                   returns=returns if returns is not None else hints.get("return"))
