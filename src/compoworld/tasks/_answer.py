"""Whether a final message states a value: as a whole value, after normalizing by its type.

``states(text, value, semantic)`` finds the spans of ``text`` that could be a value of the
type (an email, a phone number, a date, an amount, or for other types the value's own written
forms between word boundaries) and compares each, normalized as the type defines, with the
value: ``molly.carlson81@fernandez.comm`` does not state ``molly.carlson81@fernandez.com``,
``11,234.50`` does not state ``1,234.50``, ``(555) 010-2030`` does state ``555.010.2030``.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from compoworld.types import get_type

_EMAIL = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"(?<![\w.])\+?\(?\d[\d\s().-]{5,}\d(?:\s*(?:x|ext\.?)\s*\d+)?(?![\w])")
_NUMBER = re.compile(r"(?<![\w.])[-+]?[$€£]?\s?\d[\d,]*(?:\.\d+)?(?![\w]|\.\d)")
_ISO_DATE = re.compile(r"(?<![\w-])\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?(?![\w-])")
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|"
           "December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_WRITTEN_DATE = re.compile(
    rf"(?:(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\.?,?\s+\d{{4}}"
    r"|\d{1,2}/\d{1,2}/\d{4})", re.IGNORECASE)

_NUMERIC = frozenset({"Money", "Percent", "Quantity", "DurationMinutes", "Latitude",
                      "Longitude"})


def _normalize(semantic: str | None, value: Any) -> Any:
    """``value`` as its type compares it (an email lower-cased, a phone's digits, a date...).
    Scoring normalizes the same few values again and again (every mutation the gates play is
    scored against the same rubric): a hashable value's normal form is remembered."""
    try:
        return _normal_form(semantic, value)
    except TypeError:  # a list or a dict: not hashable, normalized each time
        return _normalize_now(semantic, value)


@lru_cache(maxsize=65536, typed=True)  # typed: 1, 1.0 and True stay apart
def _normal_form(semantic: str | None, value: Any) -> Any:
    return _normalize_now(semantic, value)


def _normalize_now(semantic: str | None, value: Any) -> Any:
    if semantic and semantic != "Ref":
        try:
            return get_type(semantic).normalize(value)
        except Exception:  # an unknown type name: compare as text
            pass
    if isinstance(value, int | float) and not isinstance(value, bool):
        return round(float(value), 2)
    return " ".join(str(value).casefold().split())


def _date_spans(text: str) -> list[str]:
    spans = [m.group(0) for m in _ISO_DATE.finditer(text)]
    for match in _WRITTEN_DATE.finditer(text):
        span = re.sub(r"(\d)(st|nd|rd|th)", r"\1", match.group(0), flags=re.IGNORECASE)
        spans.append(span.replace(".", "").replace(",", ", ").replace(" ,", ","))
    return spans


def _spans(text: str, semantic: str | None, value: Any) -> list[str]:
    """The parts of ``text`` that could be a value like ``value``."""
    if semantic == "Email":
        return _EMAIL.findall(text)
    if semantic == "Phone":
        return [m.group(0) for m in _PHONE.finditer(text)]
    if semantic in ("Date", "DateTime") or isinstance(value, date | datetime):
        return _date_spans(text)
    if semantic in _NUMERIC or (isinstance(value, int | float) and not isinstance(value, bool)):
        return [m.group(0).replace("$", "").replace("€", "").replace("£", "").strip()
                for m in _NUMBER.finditer(text)]
    return []


@lru_cache(maxsize=4096)
def _word_pattern(form: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w@.+-]){re.escape(form)}(?![\w@-]|\.\w)")


def _written_forms(value: Any) -> set[str]:
    forms = {" ".join(str(value).casefold().split())}
    if isinstance(value, float):
        forms |= {f"{value:.2f}", f"{value:,.2f}", f"{value:g}"}
    return {f for f in forms if f}


def states(text: str, value: Any, semantic: str | None = None) -> bool:
    """Whether ``text`` states ``value`` as a whole value of type ``semantic``.

    Example:
        >>> states("Her email is ada@example.com.", "Ada@Example.com", "Email")
        True
        >>> states("Her email is ada@example.comm", "ada@example.com", "Email")
        False
        >>> states("Total: $1,234.50", 1234.5, "Money"), states("11,234.50", 1234.5, "Money")
        (True, False)
    """
    if value is None or value == "":
        return False
    target = _normalize(semantic, value)
    spans = _spans(text, semantic, value)
    if any(_normalize(semantic, span) == target for span in spans):
        return True
    if semantic == "Email":
        return False  # an email is stated as an email token or not at all
    folded = " ".join(text.casefold().split())
    return any(form in folded and _word_pattern(form).search(folded) is not None
               for form in _written_forms(value))
