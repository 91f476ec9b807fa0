"""What the compiler returns, and its one error: a malformed source spec."""

from __future__ import annotations

from dataclasses import dataclass, field

from compoworld.errors import UserError
from compoworld.service import ServiceSpec


class SpecError(UserError):
    """A source spec is malformed; the message names the file (or service) and the place.

    ``place`` is a JSON pointer into the source document (``/paths/~1pets/get``).

    Example:
        >>> str(SpecError("bad type", source="petstore.json", place="/paths/~1pets"))
        "petstore.json at '/paths/~1pets': bad type"
    """

    def __init__(self, message: str, *, source: str, place: str = "") -> None:
        self.source, self.place, self.detail = source, place, message
        where = f"{source} at {place!r}" if place else source
        super().__init__(f"{where}: {message}")


def pointer(*parts: object) -> str:
    """A JSON pointer from path parts (``~`` and ``/`` escaped)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


@dataclass(frozen=True)
class CompileResult:
    """A compiled service and what the compiler noticed on the way (dropped parameters...)."""

    spec: ServiceSpec
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ToolCheck:
    """The conformance result of one tool: which checks ran and the first failure, if any."""

    tool: str
    passed: bool
    checks: tuple[str, ...] = ()
    failure: str | None = None


@dataclass(frozen=True)
class VerifyResult:
    """A spec after verification: failing tools switched to simulated with the reason.

    Attributes:
        spec: The verified spec (tools that failed are ``simulated`` with ``simulated_reason``).
        implemented: Names of the tools that passed every check.
        simulated: Tool name → why it is simulated (compiler's reason or the failed check).
        checks: Per-tool results of the conformance run.
    """

    spec: ServiceSpec
    implemented: list[str]
    simulated: dict[str, str]
    checks: dict[str, ToolCheck] = field(default_factory=dict)

    @property
    def share(self) -> float:
        """Implemented share of the tools (0..1)."""
        total = len(self.implemented) + len(self.simulated)
        return len(self.implemented) / total if total else 0.0
