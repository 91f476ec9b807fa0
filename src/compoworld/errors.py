"""The one error hierarchy of CompoWorld.

Two audiences, two families:

* :class:`UserError` and its subclasses are for the person running CompoWorld:
  misconfiguration, an unknown service name, a malformed spec file. They say what to change.
* :class:`ToolError` and its subclasses are raised *inside a tool* to refuse a call.
  They never escape an environment: the runtime turns them into the result envelope
  ``{"success": false, "error": {"code", "message"}}`` that goes back to the agent, and the
  state is left exactly as it was before the call.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "BadArguments",
    "CompoWorldError",
    "Conflict",
    "NotFound",
    "RecordNotFound",
    "Refused",
    "ToolError",
    "UserError",
    "closest",
]


class CompoWorldError(Exception):
    """Base class of every error CompoWorld raises on purpose."""


class UserError(CompoWorldError):
    """Misconfiguration or bad input from the person running CompoWorld."""


def closest(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """The names in ``candidates`` closest to ``name``, best first (may be empty)."""
    return difflib.get_close_matches(name, list(candidates), n=n, cutoff=0.5)


class NotFound(UserError):
    """A named thing does not exist; the message lists what exists and the closest names.

    Example:
        >>> str(NotFound("service", "contact", ["contacts", "crm"]))
        "unknown service 'contact'; did you mean 'contacts'? (known: 'contacts', 'crm')"
    """

    def __init__(self, kind: str, name: str, known: Iterable[str]) -> None:
        known = sorted(known)
        self.kind, self.name, self.known = kind, name, known
        message = f"unknown {kind} {name!r}"
        suggestions = closest(name, known)
        if suggestions:
            message += "; did you mean " + " or ".join(repr(s) for s in suggestions) + "?"
        if known:
            shown = ", ".join(repr(k) for k in known[:20])
            more = f", … {len(known) - 20} more" if len(known) > 20 else ""
            message += f" (known: {shown}{more})"
        else:
            message += f" (there is no {kind})"
        super().__init__(message)


class ToolError(CompoWorldError):
    """A tool refuses a call. Becomes an error envelope; state stays untouched.

    Attributes:
        code: The HTTP-like status code the envelope carries.
    """

    code: int = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadArguments(ToolError):
    """400: an argument is missing, of the wrong type or out of range."""

    code = 400


class RecordNotFound(ToolError):
    """404: the id or name the call refers to does not exist."""

    code = 404


class Conflict(ToolError):
    """409: the call conflicts with existing state (duplicate key, record still referenced)."""

    code = 409


class Refused(ToolError):
    """422: a business rule refuses the call (e.g. "cannot cancel a paid invoice")."""

    code = 422
