"""The result envelope every tool call returns."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

ErrorCode = Literal[400, 404, 409, 422, 500]


class ErrorBody(TypedDict):
    code: int
    message: str


class Envelope(TypedDict):
    """``{"success": true, "data": ...}`` or ``{"success": false, "error": {"code", "message"}}``."""

    success: bool
    data: NotRequired[Any]
    error: NotRequired[ErrorBody]


def ok(data: Any) -> Envelope:
    return {"success": True, "data": data}


def fail(code: int, message: str) -> Envelope:
    return {"success": False, "error": {"code": code, "message": message}}
