"""What a semantic type is, how it appears in pydantic and JSON schema, and its registry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, TypeVar

from faker import Faker
from pydantic import AfterValidator, GetCoreSchemaHandler, GetJsonSchemaHandler, StringConstraints
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from compoworld.errors import NotFound, UserError

JsonType = Literal["string", "number", "integer"]

_PYTHON_TYPES: dict[str, type] = {"string": str, "number": float, "integer": int}


@dataclass(frozen=True)
class SemanticTag:
    """Annotation metadata that marks a value with its semantic type (or entity reference).

    ``Annotated[str, SemanticTag("Email")]`` is what :data:`compoworld.types.Email` is. In
    pydantic it validates the type's pattern and check; in JSON schema it adds ``format`` and
    ``x-semantic-type`` (or ``x-ref``), so tool schemas say what a value *means*.
    """

    name: str
    ref: str | None = None

    @property
    def semantic_type(self) -> SemanticType | None:
        return None if self.ref is not None else get_type(self.name)

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        semantic = self.semantic_type
        metadata: list[Any] = []
        if semantic is not None and semantic.pattern:
            metadata.append(StringConstraints(pattern=semantic.pattern))
        if semantic is not None and semantic.check:
            metadata.append(AfterValidator(semantic.check))
        if metadata:
            return handler.generate_schema(Annotated[(source, *metadata)])
        return handler(source)

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        semantic = self.semantic_type
        if semantic is None:
            json_schema["x-ref"] = self.ref
            return json_schema
        if semantic.format:
            json_schema["format"] = semantic.format
        json_schema["x-semantic-type"] = self.name
        return json_schema


@dataclass(frozen=True)
class SemanticType:
    """A kind of value that means the same thing in every service (an email, a date, ...).

    Attributes:
        name: CamelCase name, e.g. ``"Email"``.
        json_type: The JSON type values have.
        description: One line, for docs and for the agent.
        generate: Makes a realistic value from a seeded Faker.
        normalize: Maps a value to the canonical form used when values are compared
            (case, whitespace, phone and date formats).
        format: JSON schema ``format``, where one exists.
        pattern: Regular expression a valid string value matches (validated on input).
        check: Extra validation of a value (raises ``ValueError``), e.g. "is a real date".
        knowable: Whether a user could plausibly state such a value in an instruction
            (names, emails, dates) rather than the agent having to look it up (ids).

    Example:
        >>> from compoworld.types import get_type
        >>> get_type("Email").normalize("  Ada.Lovelace@Example.COM ")
        'ada.lovelace@example.com'
    """

    name: str
    json_type: JsonType
    description: str
    generate: Callable[[Faker], Any]
    normalize: Callable[[Any], Any]
    format: str | None = None
    pattern: str | None = None
    check: Callable[[Any], Any] | None = None
    knowable: bool = True
    examples: tuple[Any, ...] = field(default=())

    @property
    def annotation(self) -> Any:
        """The ``Annotated`` type a tool signature or entity field uses for this type."""
        return Annotated[_PYTHON_TYPES[self.json_type], SemanticTag(self.name)]

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of one value of this type."""
        schema: dict[str, Any] = {"type": self.json_type, "x-semantic-type": self.name}
        if self.format:
            schema["format"] = self.format
        if self.pattern:
            schema["pattern"] = self.pattern
        return schema


_REGISTRY: dict[str, SemanticType] = {}


def register_type(semantic_type: SemanticType) -> SemanticType:
    """Add a semantic type to the shared registry (names are unique)."""
    if semantic_type.name in _REGISTRY and _REGISTRY[semantic_type.name] is not semantic_type:
        raise UserError(f"semantic type {semantic_type.name!r} is already registered")
    _REGISTRY[semantic_type.name] = semantic_type
    return semantic_type


def get_type(name: str) -> SemanticType:
    """The registered semantic type called ``name``.

    Raises:
        NotFound: No such type; the message suggests the closest names.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise NotFound("semantic type", name, _REGISTRY) from None


def semantic_types() -> list[SemanticType]:
    """Every registered semantic type, sorted by name."""
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def semantic_type_of(annotation: Any) -> SemanticTag | None:
    """The :class:`SemanticTag` carried by an ``Annotated`` type, if any."""
    for item in getattr(annotation, "__metadata__", ()):
        if isinstance(item, SemanticTag):
            return item
    return None


def ref_type(entity_name: str) -> Any:
    """``Ref[...]`` for an entity known by name at run time (specs, generated code)."""
    return Annotated[str, SemanticTag("Ref", ref=entity_name)]


if TYPE_CHECKING:
    _E = TypeVar("_E")

    class Ref(str, Generic[_E]):
        """Type checkers see ``Ref[Contact]`` as a string; at run time it is ``Annotated``."""

else:

    class Ref:
        """A reference to a record of an entity of the same service: ``Ref[Contact]``.

        The value is the record's id (a string). In SQLite the column is a foreign key; in
        JSON schema it carries ``x-ref``; in the dependency graph it links the tool that
        returns such ids to the tools that need one. Prefer the entity class; a name
        (``Ref["contact"]``) works where the class cannot be written (code generation).

        Example:
            >>> from compoworld.types import Ref
            >>> Ref["contact"]
            typing.Annotated[str, SemanticTag(name='Ref', ref='contact')]
        """

        def __class_getitem__(cls, entity: Any) -> Any:
            name = entity if isinstance(entity, str) else getattr(entity, "entity_name", None)
            if not isinstance(name, str):
                raise UserError(f"Ref[...] takes an entity class or name, got {entity!r}")
            return ref_type(name)
