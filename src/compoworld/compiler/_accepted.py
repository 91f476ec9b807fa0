"""Parameters a tool accepts beyond its record: paging by page number or cursor, and options
that change nothing the call does to state.

A real API's list takes ``page`` or a ``cursor``, and many calls take options that shape only
the answer (``include_images``, ``full_response``, ``fields``, ``view``) or make a retry safe
(``client_token``). The engine honours them (``ParamSpec`` roles ``page``, ``cursor``,
``option``), so a tool declaring them is implemented with every declared parameter, never
with one dropped. What is *not* an option stays out: a flag that widens or narrows which
records answer (``include_archived``, ``with_issues_enabled`` "Filter projects with issues
enabled"), a filter language, a dry run (it changes whether the call writes).

Example:
    >>> paging_role("page", {"type": "integer"}), paging_role("start_cursor", {"type": "string"})
    ('page', 'cursor')
    >>> no_effect("include_images", {"type": "boolean",
    ...     "description": "Include a list of query-related images in the response"}, "search")
    True
    >>> no_effect("include_archived", {"type": "boolean"}, "list")
    False
"""

from __future__ import annotations

import re
from typing import Any, Literal

from compoworld.compiler._rules import identifier

_PAGE_NUMBERS = {"page", "page_number", "pagenumber", "page_no", "page_num", "pageno",
                 "page_index"}
_CURSORS = {"cursor", "start_cursor", "page_token", "pagetoken", "next_token", "nexttoken",
            "next_page_token", "continuation_token", "continuation", "starting_after",
            "pagination_token", "offset_token", "marker", "next_marker", "next_cursor", "after",
            "start_key", "exclusive_start_key", "page_cursor", "after_cursor", "scroll_id"}
"""Tokens naming where the next page starts (forward only: ``before`` / ``ending_before`` page
backwards, which the engine's offset paging cannot answer)."""
_ZERO_BASED = re.compile(r"\b(?:0|zero)[- ]based\b|\bstarts? (?:at|from) 0\b|\bfirst page is 0\b",
                         re.I)


def paging_role(name: str, schema: dict[str, Any]) -> Literal["page", "cursor"] | None:
    """``page`` for a page number, ``cursor`` for a forward page token, else None.

    A page number is an integer (or number) named ``page`` / ``page_number``...; a cursor is a
    string named ``cursor``, ``start_cursor``, ``page_token``, ``next_token``, ``after``,
    ``starting_after``, ``marker``... An ``after`` described as a date is a time bound, not a
    cursor (the caller checks :func:`~compoworld.compiler._tooling.range_bound` first).
    """
    snake, kind = identifier(name), schema.get("type")
    if snake in _PAGE_NUMBERS and kind in ("integer", "number"):
        return "page"
    if snake in _CURSORS and kind in ("string", None):
        return "cursor"
    return None


def first_page(schema: dict[str, Any]) -> int:
    """0 when the schema says pages count from zero (``minimum: 0``, ``default: 0``, "0-based"),
    else 1."""
    zero = schema.get("minimum") == 0 or schema.get("default") == 0 or bool(
        _ZERO_BASED.search(str(schema.get("description") or "")))
    return 0 if zero else 1


_OPTION_WORDS = {"include", "show", "return", "fetch", "expand", "full", "detailed", "verbose",
                 "pretty"}
"""First words of a read's flags that add to its answer (``include_images``,
``full_response``); ``with_*`` is as often a filter (``with_photo``) and needs a description
saying it adds (``with_labels_details``: "Return more details for each label")."""
_ADDS = re.compile(r"^\s*(?:whether to |if (?:set to )?true,? |set to true to )?"
                   r"(?:include|return|show|present|add|expand|display|fetch)s?\b", re.I)
"""A description saying a flag adds to the answer ("Include commit stats", "Whether to
include the favicon URL", "If true, return the complete issue object")."""
_SELECTS = re.compile(r"\b(?:only|filter(?:s|ed)?|limit(?:s|ed)? (?:to|by)|restrict|exclud\w*|"
                      r"whose|that (?:have|are))\b", re.I)
"""A description saying a flag chooses which records answer (with_issues_enabled: "Filter
projects with issues feature enabled")."""
_SETS = {"hidden", "archived", "deleted", "inactive", "closed", "disabled", "enabled",
         "inherited", "inheritance", "ancestor", "ancestors", "descendant", "descendants",
         "subgroups", "subgroup", "children", "child", "all", "private", "public", "draft",
         "drafts", "removed", "trashed", "expired", "shared", "spam", "suspended", "revoked",
         "past", "cancelled", "canceled", "completed", "resolved", "unread", "read", "muted",
         "blocked", "nested", "recursive", "subfolders", "subdirectories", "forks", "others",
         "system", "internal", "external", "archive", "trash", "bots", "guests"}
"""Words naming records a flag would add or take away (``include_archived``,
``include_subgroups``, ``includeHidden``): a filter in disguise, never an option."""
_COMMON = {"all", "read", "public", "system", "internal", "external", "child", "children",
           "others", "nested", "archive"}
"""Words of ``_SETS`` that a description uses in passing ("include all details")."""
_PROJECTIONS = {"fields", "properties", "select", "columns", "attributes", "filter_properties",
                "field_names", "property_names", "return_fields", "output_fields"}
_SAYS_ANSWER = re.compile(r"\b(?:response|responses|return(?:s|ed)?|results?|output|include"
                          r"[sd]?|answer)\b", re.I)
_FORMATS = {"format", "output_format", "response_format", "detail_level", "view", "verbosity",
            "output", "output_mode", "response_mode", "representation", "style"}
"""Options choosing how an answer is rendered (airtable's ``detailLevel``, Google's ``view``)."""
_MASKS = {"update_mask", "updatemask", "field_mask", "fieldmask", "mask"}
"""Google's ``updateMask``: the fields a PATCH writes, those the call gives (the engine writes
exactly the fields given)."""
_RETRY_TOKENS = {"client_token", "idempotency_key", "idempotency_token", "client_request_id",
                 "idempotence_key"}
_RETRY = re.compile(r"idempot|\bretr(?:y|ies|ied)\b|\bduplicate", re.I)
_READS = ("list", "search", "get", "count", "summary", "compute")


def no_effect(name: str, schema: dict[str, Any], op: str) -> bool:
    """Whether a declared parameter is accepted with no effect on what the call does to state.

    * a boolean adding to the answer, never choosing records: on a read, a name starting
      ``include`` / ``show`` / ``return`` / ``full``... or a description starting "Include" /
      "Whether to include" / "If true, return" (on a write, only such a description naming the
      response: a write's flag may be a field it stores), with no word naming records it would
      add or remove (``hidden``, ``archived``, ``inherited``, ``subgroups``...) and no
      description saying it filters or limits;
    * on a read, a list of field names to return (``fields``, ``properties``, notion's
      ``filter_properties``) described as shaping the response, and a render choice
      (``format``, ``view``, ``detail_level``) given as a string;
    * on a write that names its record (update, delete, transition), an idempotency token
      (``client_token``, ``idempotency_key``; a ``request_id`` described as making retries
      safe): one call has the same effect with or without it. On a create it is no option:
      a retry with the same token creates nothing, which the engine does not model;
    * on an update, an update mask (``update_mask``) naming the fields it writes: the engine
      writes the fields the call gives.
    """
    snake = identifier(name)
    words = snake.split("_")
    kind = schema.get("type")
    text = str(schema.get("description") or "")
    if kind == "boolean":
        says = bool(_ADDS.match(text))
        if op not in _READS:  # a write's flag may be a stored field (include_in_menu)
            if not (says and _SAYS_ANSWER.search(text) and re.search(
                    r"\b(?:response|return(?:s|ed)?|answer|output)\b", text, re.I)):
                return False
        elif not (words[0] in _OPTION_WORDS or says):
            return False
        named = set(words) | {w.rstrip("s") for w in words}
        told = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
        return not (named & _SETS or told & (_SETS - _COMMON) or _SELECTS.search(text))
    if op in _READS and snake in _PROJECTIONS and kind in ("array", "string") and (
            kind == "string" or (isinstance(schema.get("items"), dict)
            and schema["items"].get("type", "string") == "string")):
        return bool(_SAYS_ANSWER.search(text))
    if op in _READS and snake in _FORMATS and kind in ("string", None):
        return True
    if op == "update" and snake in _MASKS and kind in ("string", None):
        return True
    if op in ("update", "delete", "transition") and kind in ("string", None):
        return snake in _RETRY_TOKENS or (snake == "request_id" and bool(_RETRY.search(text)))
    return False
