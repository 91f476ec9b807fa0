"""The boundary limits of a tool call's arguments: what any call must respect before a tool runs.

One place for every bound, checked by :meth:`Tool.check_arguments` (so by
:meth:`Environment.call`, the MCP server and ``compoworld call`` alike). A value past a limit
is refused with a 400 that names the argument and the limit; nothing deeper than
:data:`MAX_DEPTH` ever reaches pydantic, ``repr``, ``orjson`` or SQLite, so no input can
raise out of the runtime (``RecursionError``, ``OverflowError``, "too many SQL variables")
or be stored differently from how it was answered (NaN stored as NULL).

The check is one loop over the top-level values when they are plain scalars (the common
case); nested values are walked iteratively (no recursion, whatever the depth).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from compoworld.errors import BadArguments

MAX_DEPTH = 32
"""Deepest nesting of lists and objects inside one call's arguments."""
MAX_VALUES = 10_000
"""Most values (scalars, lists and objects) in one call's arguments."""
MAX_LIST_LENGTH = 1_000
"""Longest list (and largest object) any argument may hold."""
MAX_STRING_LENGTH = 20_000
"""Longest string any argument may be, at any depth."""
MAX_KEY_LENGTH = 1_000
"""Longest key of an object inside the arguments."""
MAX_TEXT = 200_000
"""Most characters of text (strings and keys) in one call's arguments."""
MIN_INTEGER, MAX_INTEGER = -(2 ** 63), 2 ** 63 - 1
"""The integer range SQLite stores (64-bit signed)."""

_PLAIN = (type(None), bool)


def _where(path: tuple[Any, ...]) -> str:
    """The dotted path of a value (shortened past four parts: ``a.0.….0``)."""
    parts = [str(part)[:120] for part in path]  # a declared name in full; a huge key cut
    if len(parts) > 4:
        parts = [*parts[:2], "…", parts[-1]]
    return ".".join(parts) or "arguments"


def _integer(value: int, path: tuple[Any, ...]) -> None:
    if not MIN_INTEGER <= value <= MAX_INTEGER:
        raise BadArguments(
            f"argument {_where(path)!r}: an integer of {value.bit_length()} bits is outside the "
            f"64-bit range ({MIN_INTEGER} to {MAX_INTEGER}); send a smaller number")


def _float(value: float, path: tuple[Any, ...]) -> None:
    if not math.isfinite(value):
        raise BadArguments(f"argument {_where(path)!r}: {value!r} is not a finite number; NaN "
                           f"and infinities are not allowed")


def _string(value: str, path: tuple[Any, ...]) -> None:
    if len(value) > MAX_STRING_LENGTH:
        raise BadArguments(f"argument {_where(path)!r} is {len(value):,} characters long; the "
                           f"limit is {MAX_STRING_LENGTH:,}. Send a shorter string")


def check_limits(arguments: Mapping[str, Any]) -> None:
    """Refuse arguments past any boundary limit (this module's constants).

    Raises:
        BadArguments: A value nested too deep, a list too long, too many values or too much
            text, a string or key too long, an integer outside SQLite's 64-bit range, or a
            NaN or infinite float; the message names the argument and the limit.
    """
    text = 0
    if len(arguments) > MAX_LIST_LENGTH:
        _walk(arguments)
    for key, value in arguments.items():  # the fast path: flat scalar arguments
        kind = type(value)
        if type(key) is not str or len(key) > MAX_KEY_LENGTH:
            break
        text += len(key)
        if kind is str:  # (the checks inline; the helpers only say what is wrong)
            if len(value) > MAX_STRING_LENGTH:
                _string(value, (key,))
            text += len(value)
        elif kind is int:
            if not MIN_INTEGER <= value <= MAX_INTEGER:
                _integer(value, (key,))
        elif kind is float:
            if not math.isfinite(value):
                _float(value, (key,))
        elif kind is list:
            chars = _flat_list(value)
            if chars < 0:
                break
            text += chars
        elif kind not in _PLAIN:
            break
    else:
        if text <= MAX_TEXT:
            return
    _walk(arguments)


def _flat_list(value: list[Any]) -> int:
    """The characters of a list of plain strings and in-range integers within the limits
    (-1: it holds something else or breaks a limit; the full walk says which)."""
    if len(value) > MAX_LIST_LENGTH:
        return -1
    text = 0
    for item in value:
        kind = type(item)
        if kind is str:
            if len(item) > MAX_STRING_LENGTH:
                return -1
            text += len(item)
        elif kind is not int or not MIN_INTEGER <= item <= MAX_INTEGER:
            return -1
    return text


def _walk(arguments: Mapping[str, Any]) -> None:
    """The full check, iterative: every value with its path and depth."""
    stack: list[tuple[Any, tuple[Any, ...], int]] = [(arguments, (), 0)]
    values = text = 0
    while stack:
        value, path, depth = stack.pop()
        values += 1
        if values > MAX_VALUES:
            raise BadArguments(f"the arguments hold more than {MAX_VALUES:,} values; send "
                               f"fewer")
        if isinstance(value, str):
            _string(value, path)
            text += len(value)
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            _integer(value, path)
        elif isinstance(value, float):
            _float(value, path)
        elif isinstance(value, Mapping | list | tuple):
            if depth >= MAX_DEPTH:
                raise BadArguments(f"argument {_where(path)!r} is nested more than {MAX_DEPTH} "
                                   f"levels deep; send a flatter value")
            if len(value) > MAX_LIST_LENGTH:
                what = "object has" if isinstance(value, Mapping) else "list has"
                raise BadArguments(f"argument {_where(path)!r}: the {what} {len(value):,} "
                                   f"items; the limit is {MAX_LIST_LENGTH:,}")
            if isinstance(value, Mapping):
                for key, item in value.items():
                    if isinstance(key, str):
                        if len(key) > MAX_KEY_LENGTH:
                            raise BadArguments(
                                f"argument {_where(path)!r} has a key of {len(key):,} "
                                f"characters; the limit is {MAX_KEY_LENGTH:,}")
                        text += len(key)
                    stack.append((item, (*path, key if isinstance(key, str) else repr(key)),
                                  depth + 1))
            else:
                stack.extend((item, (*path, i), depth + 1) for i, item in enumerate(value))
        if text > MAX_TEXT:
            raise BadArguments(f"the arguments hold more than {MAX_TEXT:,} characters of text; "
                               f"send less")
