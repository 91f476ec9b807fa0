"""``check_service``: the conformance check every service passes (Gymnasium's ``check_env`` idea).

It mounts the service alone, calls every tool with sampled valid and invalid arguments, and
reports what breaks the contract: undocumented tools or parameters, invalid schemas, seeding
that is not deterministic, snapshots that do not round-trip, errors outside the envelope
contract, failed calls that leave traces, and reads that write.
"""

from __future__ import annotations

import random
import typing
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson
from pydantic import ValidationError

from compoworld.errors import CompoWorldError
from compoworld.service._entity import describe_annotation
from compoworld.service._environment import Environment, qualified_name
from compoworld.service._service import Service
from compoworld.service._tool import Param, Tool
from compoworld.types import get_type

_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object", "null"}


@dataclass
class CheckReport:
    """What :func:`check_service` found. ``ok`` when ``problems`` is empty."""

    service: str
    problems: list[str] = field(default_factory=list)
    calls: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        if self.ok:
            return f"{self.service}: ok ({self.calls} calls checked)"
        return f"{self.service}: {len(self.problems)} problem(s)\n" + "\n".join(
            f"  - {p}" for p in self.problems
        )

    def raise_for_problems(self) -> None:
        if self.problems:
            raise CompoWorldError(str(self))


def _sample_value(param: Param, annotation: Any, env: Environment, service: str,
                  rng: random.Random) -> Any:
    base, _, tag = describe_annotation(annotation, [])
    if typing.get_origin(base) is list:
        (item,) = typing.get_args(base) or (str,)
        return [_sample_value(param, item, env, service, rng)]
    if tag and tag.ref:
        rows = env.db(service).select(tag.ref, limit=50)
        return rng.choice(rows)["id"] if rows else f"{tag.ref}_missing"
    if tag and tag.name != "Ref":
        semantic = get_type(tag.name)
        return semantic.generate(env.pool.faker(f"check.{param.name}.{rng.random()}"))
    origin = typing.get_origin(base)
    if origin is Literal:
        return rng.choice(typing.get_args(base))
    if origin is dict or base is dict:
        return {}
    if base is bool:
        return rng.random() < 0.5
    if base is int:
        return 1
    if base is float:
        return 1.5
    return "sample text"


def sample_arguments(tool: Tool, env: Environment, service: str, rng: random.Random,
                     *, optional: bool = True) -> dict[str, Any]:
    """Plausible, schema-valid arguments for ``tool`` drawn from the environment's state."""
    args = {}
    for param in tool.params:
        if param.required or (optional and rng.random() < 0.5):
            args[param.name] = _sample_value(param, param.annotation, env, service, rng)
    return args


def _schema_problems(tool: Tool) -> list[str]:
    problems = []
    schema = tool.parameters
    if schema.get("type") != "object" or not isinstance(schema.get("properties"), dict):
        return [f"tool {tool.name!r}: parameters schema is not an object schema"]
    if set(schema.get("required", [])) - set(schema["properties"]):
        problems.append(f"tool {tool.name!r}: 'required' names undeclared properties")
    for name, prop in schema["properties"].items():
        types = prop.get("type")
        alternatives = prop.get("anyOf") or prop.get("enum") or prop.get("const")
        type_list = types if isinstance(types, list) else [types] if types else []
        if not type_list and not alternatives:
            problems.append(f"tool {tool.name!r}: parameter {name!r} has no type")
        if set(type_list) - _JSON_TYPES:
            problems.append(f"tool {tool.name!r}: parameter {name!r} has unknown type {types!r}")
        if not prop.get("description"):
            problems.append(f"tool {tool.name!r}: parameter {name!r} is not documented")
    try:
        orjson.dumps(schema)
        orjson.dumps(tool.output_schema)
    except TypeError as error:
        problems.append(f"tool {tool.name!r}: schema is not JSON: {error}")
    return problems


def _output_problems(tool: Tool, name: str, data: Any) -> list[str]:
    """The data must match the tool's declared output type (its output schema is a promise)."""
    if tool.output is None:
        return []
    try:
        tool.output.validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return [f"{name}: result does not match its declared output at {where!r}: {first['msg']}"]
    return []


def _expect(report: CheckReport, env: Environment, name: str, args: Any,
            codes: tuple[int, ...], why: str) -> None:
    before = env.digest()
    envelope = env.call(name, args)
    report.calls += 1
    if envelope.get("success") or envelope.get("error", {}).get("code") not in codes:
        report.problems.append(f"{name} {why}: expected error {codes}, got {envelope!r:.200}")
    if env.digest() != before:
        report.problems.append(f"{name} {why}: the failed call changed the state")


_WRONG = (({"not": "valid"}, "object"), ("not valid", "string"), ([["not", "valid"]], "array"),
          (True, "boolean"))


def _wrong_value(schema: dict[str, Any]) -> Any:
    """A value of a JSON type the parameter does not admit (None when it may admit any)."""
    options = [*schema.get("anyOf", ()), *schema.get("oneOf", ())] or [schema]
    types: set[str] = set()
    for option in options:
        kind = option.get("type")
        if not kind or "$ref" in option or "allOf" in option:
            return None  # untyped or indirect: any value might be valid
        types |= set(kind) if isinstance(kind, list) else {kind}
    if "integer" in types:
        types.add("number")
    return next((value for value, kind in _WRONG if kind not in types), None)


def check_service(service: Service, *, seed: int = 0, rounds: int = 3) -> CheckReport:
    """Check that ``service`` honours the runtime's contract.

    Args:
        service: The service to check (mounted alone).
        seed: World seed to build the checking environment with.
        rounds: How many sampled valid calls per tool.

    Example:
        >>> from compoworld.catalog import load_service
        >>> check_service(load_service("contacts")).ok
        True
    """
    report = CheckReport(service.name)
    problems = report.problems
    if not service.description.strip():
        problems.append("the service has no description")
    if not service.tools:
        problems.append("the service has no tools")
    for tool in service.tools.values():
        if not tool.description.strip():
            problems.append(f"tool {tool.name!r} has no description")
        if not tool.precise_output:
            problems.append(f"tool {tool.name!r} does not declare what it returns precisely "
                            "(returns=Entity, Page[Entity], list[...] or a Result model)")
        problems.extend(_schema_problems(tool))

    env = Environment([service], seed=seed)
    again = Environment([service], seed=seed)
    if env.digest() != again.digest():
        problems.append(f"seeding is not deterministic: seed {seed} gave two different states")
    rows = sum(len(r) for r in env.rows().values())
    implemented = any(not tool.simulated for tool in service.tools.values())
    if rows == 0 and implemented:  # an all-simulated service keeps no state of its own
        problems.append("seeding created no records")
    elif rows and implemented and Environment([service], seed=seed + 1).digest() == env.digest():
        problems.append(f"seeds do not matter: seeds {seed} and {seed + 1} gave the same state")

    initial = env.digest()
    rng = random.Random(seed)
    for tool in service.tools.values():
        name = qualified_name(service.name, tool.name)
        if tool.simulated:
            continue
        _expect(report, env, name, {"__unexpected__": 1}, (400,), "with an unknown argument")
        _expect(report, env, name, [1, 2], (400,), "with non-object arguments")
        for param in tool.params:
            valid = sample_arguments(tool, env, service.name, rng, optional=False)
            if param.required:
                missing = {k: v for k, v in valid.items() if k != param.name}
                _expect(report, env, name, missing, (400,), f"without {param.name!r}")
            wrong = _wrong_value(tool.parameters.get("properties", {}).get(param.name, {}))
            if wrong is not None:
                _expect(report, env, name, {**valid, param.name: wrong}, (400,),
                        f"with a wrong-typed {param.name!r}")
            if param.ref:
                _expect(report, env, name, {**valid, param.name: "zz_does_not_exist"}, (404,),
                        f"with an unknown {param.ref} id in {param.name!r}")
        for _ in range(rounds):
            args = sample_arguments(tool, env, service.name, rng)
            before = env.digest()
            envelope = env.call(name, args)
            report.calls += 1
            try:
                orjson.dumps(envelope)
            except TypeError as error:
                problems.append(f"{name}: result is not JSON-serializable ({error})")
            if not envelope["success"]:
                code = envelope["error"]["code"]
                if code == 500 or code not in (400, 404, 409, 422):
                    problems.append(f"{name}{args!r:.120}: error {envelope['error']!r:.200}")
                if env.digest() != before:
                    problems.append(f"{name}: a failed call changed the state")
            else:
                if tool.kind == "read" and env.digest() != before:
                    problems.append(f"{name}: a read tool changed the state")
                problems.extend(_output_problems(tool, name, envelope["data"]))
    for failure in env.failures:
        problems.append(f"{failure.tool} crashed: {failure.error}")

    changed = env.snapshot()
    fork = env.fork()
    if fork.digest() != initial:
        problems.append("fork() does not start from the initial state")
    fork.restore(changed)
    if fork.digest() != env.digest():
        problems.append("snapshot()/restore() does not round-trip")
    env.reset()
    if env.digest() != initial:
        problems.append("reset() does not restore the initial state")
    return report
