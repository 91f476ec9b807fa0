"""The baseline: the same calls on the state kept as Python dicts, restored by copy.deepcopy."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from _workload import Workload
from compoworld.service import Environment, Tool


def _ok(data: Any) -> dict[str, Any]:
    return {"success": True, "data": data}


def _fail(code: int, message: str) -> dict[str, Any]:
    return {"success": False, "error": {"code": code, "message": message}}


class BaselineEnv:
    """The same read and write calls on dicts: validated args, dict index, the same envelope.

    ``state`` is ``{table: {id: record}}``; a new instance or a reset is a ``copy.deepcopy`` of
    the initial state. Reads return a shallow copy of the record (callers must not alias the
    state); writes set the field in place.
    """

    def __init__(self, initial: dict[str, dict[str, dict[str, Any]]],
                 routes: dict[str, tuple[Tool, str, str, str | None]]) -> None:
        self.initial = initial
        self.routes = routes
        self.state = copy.deepcopy(initial)

    @classmethod
    def from_environment(cls, env: Environment, read: Workload, write: Workload) -> BaselineEnv:
        initial = {table: {r["id"]: r for r in records} for table, records in env.rows().items()}
        routes: dict[str, tuple[Tool, str, str, str | None]] = {}
        for work in (read, write):
            for name, info in work.tools.items():
                routes[name] = (env.tools[name], info["table"], info["param"], info.get("field"))
        return cls(initial, routes)

    def new(self) -> BaselineEnv:
        return BaselineEnv(self.initial, self.routes)

    def reset(self) -> None:
        self.state = copy.deepcopy(self.initial)

    def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        route = self.routes.get(name)
        if route is None:
            return _fail(404, f"unknown tool {name!r}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            return _fail(400, f"arguments must be a JSON object, got {type(arguments).__name__}")
        tool, table, id_param, text_field = route
        try:
            args = tool.validator.validate_python(arguments)
        except ValidationError as error:
            return _fail(400, str(error))
        record = self.state[table].get(args[id_param])
        if record is None:
            return _fail(404, f"{table} {args[id_param]!r} not found")
        if text_field is not None and args.get(text_field) is not None:
            record[text_field] = args[text_field]
        return _ok(dict(record))

