"""``Service``: a named set of tools over typed entities, with a seeder for its initial state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from compoworld.errors import NotFound, UserError
from compoworld.service._db import Db, Table
from compoworld.service._entity import Entity, check_identifier
from compoworld.service._tool import Tool, ToolKind
from compoworld.types import Pool

E = TypeVar("E", bound=type[Entity])
F = TypeVar("F", bound=Callable[..., Any])

Seeder = Callable[[Db, Pool], None]


class Service:
    """A service: entities (its state), tools (what agents call) and a seeder.

    Declare one in a small module; the catalog finds it by scanning for module-level
    ``Service`` objects.

    Example:
        >>> from compoworld.service import Db, Entity, Service
        >>> from compoworld.types import PersonName
        >>> notes = Service("notes", domain="productivity", description="Personal notes.")
        >>> @notes.entity
        ... class Note(Entity):
        ...     title: str
        >>> @notes.write
        ... def create_note(db: Db, title: str) -> dict:
        ...     '''Create a note.
        ...
        ...     Args:
        ...         title: The note's title.
        ...     '''
        ...     return db.insert(Note, title=title)
        >>> sorted(notes.tools)
        ['create_note']
    """

    def __init__(self, name: str, *, domain: str, description: str) -> None:
        self.name = check_identifier("service", name)
        self.domain = domain
        self.description = description
        self.entities: dict[str, type[Entity]] = {}
        self.tools: dict[str, Tool] = {}
        self._seeders: list[Seeder] = []
        self.tables: dict[str, Table] = {}
        self.origin: str = "hand-written"

    def copy(self) -> Service:
        """A new service with the same entities, tools and seeders (shared, not rebuilt: their
        models and validators are built once); declaring more on the copy leaves this one as
        it is."""
        other = Service(self.name, domain=self.domain, description=self.description)
        other.entities, other.tables = dict(self.entities), dict(self.tables)
        other.tools, other._seeders = dict(self.tools), list(self._seeders)
        other.origin = self.origin
        return other

    def __repr__(self) -> str:
        return f"Service({self.name!r}, {len(self.entities)} entities, {len(self.tools)} tools)"

    # -- declaring -----------------------------------------------------------------------

    def entity(self, cls: E) -> E:
        """Class decorator: register an :class:`Entity` as part of this service's state."""
        if cls.entity_name in self.entities:
            raise UserError(f"service {self.name!r} already has entity {cls.entity_name!r}")
        self.entities[cls.entity_name] = cls
        self.tables[cls.entity_name] = Table.of(self.name, cls)
        return cls

    def add_tool(self, tool: Tool) -> Tool:
        if tool.name in self.tools:
            raise UserError(f"service {self.name!r} already has tool {tool.name!r}")
        for param in tool.params:
            if param.ref and param.ref not in self.entities:
                raise UserError(
                    f"tool {tool.name!r}: parameter {param.name!r} refers to unknown entity "
                    f"{param.ref!r} (entities: {', '.join(self.entities)})"
                )
        self.tools[tool.name] = tool
        return tool

    def _decorator(
        self, kind: ToolKind, fn: F | None, returns: Any, name: str | None
    ) -> F | Callable[[F], F]:
        def register(f: F) -> F:
            self.add_tool(Tool.from_function(f, kind, name=name, returns=returns))
            return f

        return register(fn) if fn is not None else register

    @overload
    def read(self, fn: F) -> F: ...
    @overload
    def read(self, *, returns: Any = None, name: str | None = None) -> Callable[[F], F]: ...
    def read(
        self, fn: F | None = None, *, returns: Any = None, name: str | None = None
    ) -> F | Callable[[F], F]:
        """Decorator: a tool that only reads state."""
        return self._decorator("read", fn, returns, name)

    @overload
    def write(self, fn: F) -> F: ...
    @overload
    def write(self, *, returns: Any = None, name: str | None = None) -> Callable[[F], F]: ...
    def write(
        self, fn: F | None = None, *, returns: Any = None, name: str | None = None
    ) -> F | Callable[[F], F]:
        """Decorator: a tool that may change state (it runs in a savepoint)."""
        return self._decorator("write", fn, returns, name)

    def seeder(self, fn: Seeder) -> Seeder:
        """Decorator: ``fn(db, pool)`` fills the initial state from the shared pool."""
        self._seeders.append(fn)
        return fn

    # -- using ---------------------------------------------------------------------------

    def tool(self, name: str) -> Tool:
        """The tool called ``name``; :class:`NotFound` with suggestions if there is none."""
        try:
            return self.tools[name]
        except KeyError:
            raise NotFound(f"tool of service {self.name!r}", name, self.tools) from None

    def seed(self, db: Db, pool: Pool) -> None:
        for seeder in self._seeders:
            seeder(db, pool)
