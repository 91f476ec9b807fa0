"""Helpers the catalog's service modules share (a ``_`` module: never loaded as a service)."""

from typing import Any


def given(where: dict[str, Any]) -> dict[str, Any]:
    """``where`` without the filters left out: a None or "" value means "no filter"."""
    return {k: v for k, v in where.items() if v is not None and v != ""}
