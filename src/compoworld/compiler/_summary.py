"""A tool's description from its source text: the first sentence, plain and whole.

Source descriptions are markdown or HTML, often paragraphs long; the agent reads the tool's
description and task instructions quote its first sentence, so it must be one clean sentence:
markup stripped, cut at a sentence end (never inside "e.g." or a parenthesis).
"""

from __future__ import annotations

import html
import re

__all__ = ["summary_sentence", "summary_text"]

MAX_CHARS = 300

_TAGS = re.compile(r"<[^>]{0,200}>")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|`+|~~)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+", re.M)
_ABBREVIATIONS = re.compile(
    r"\b(e\.g|i\.e|etc|vs|approx|incl|cf|no|nos|fig|min|max|ca|resp|esp|viz|al|Inc|Ltd|Corp"
    r"|Co|Mr|Mrs|Ms|Dr|St|Jr|Sr|U\.S|a\.k\.a)\.$", re.I)
_TITLE = re.compile(r"^\s{0,3}#{1,6}\s.*$", re.M)
_LATIN = re.compile(r"\b(e\.g|i\.e)\.,?\s+", re.I)
_END = re.compile(r"[.!?](?=\s|$)")


def _plain(text: str) -> str:
    body = _TITLE.sub("", text)
    text = body if body.strip() else text  # a markdown title is no sentence, unless it is all
    text = html.unescape(_TAGS.sub(" ", text))
    text = _LINK.sub(r"\1", text)
    text = _HEADING.sub("", text)
    text = _EMPHASIS.sub("", text)
    return text


def _first_sentence(paragraph: str) -> str:
    depth = 0
    for i, char in enumerate(paragraph):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and _END.match(paragraph, i):
            head = paragraph[: i + 1]
            if char == "." and (_ABBREVIATIONS.search(head) or re.search(r"\b[A-Z]\.$", head)):
                continue
            return head
    return paragraph


def summary_sentence(*texts: str, limit: int = MAX_CHARS) -> str:
    """The first sentence of the first non-empty text, plain (no markdown or HTML), ending at
    a sentence end; a sentence longer than ``limit`` is cut at its last clause or word break
    before it and ends with "…".

    Args:
        texts: Candidate texts in order of preference (an operation's summary, then its
            description).
        limit: The longest sentence kept whole.

    Example:
        >>> summary_sentence("", "Returns the upcoming **events** (e.g. concerts). More text.")
        'Returns the upcoming events (e.g., concerts).'
        >>> summary_sentence("<p>List all <a href='x'>pets</a></p>\\n\\nPaged.")
        'List all pets'
    """
    for text in texts:
        plain = _plain(text or "")
        paragraph = next((p for p in re.split(r"\n\s*\n", plain) if p.strip()), "")
        paragraph = re.sub(r"\s+", " ", paragraph).strip(" :-")
        if not paragraph:
            continue
        # "e.g., " never reads as a sentence end, to whoever splits at ". " later
        sentence = _LATIN.sub(r"\1., ", _first_sentence(paragraph))
        if len(sentence) <= limit:
            return sentence
        cut = sentence[:limit]
        for brk in ("; ", ", ", " "):
            at = cut.rfind(brk)
            if at > limit // 2:
                cut = cut[:at]
                break
        return cut.rstrip(" ,;:(") + "…"
    return ""


def summary_text(*texts: str, limit: int = 500) -> str:
    """Whole sentences of the first non-empty text, plain, as many as fit in ``limit``
    characters (always the first one, cut as :func:`summary_sentence` cuts a long one), each
    ending in a full stop, none repeated.

    Example:
        >>> summary_text("Manage **pets**. Pets have owners. Pets have owners.", limit=40)
        'Manage pets. Pets have owners.'
    """
    for text in texts:
        plain = re.sub(r"\s+", " ", _plain(text or "")).strip(" :-")
        if not plain:
            continue
        out: list[str] = []
        rest = plain
        while rest:
            sentence = _LATIN.sub(r"\1., ", _first_sentence(rest)).strip()
            rest = rest[len(_first_sentence(rest)):].strip()
            if not sentence or sentence in out:
                continue
            if not sentence.endswith((".", "!", "?", "…")):
                sentence += "."
            if out and len(" ".join([*out, sentence])) > limit:
                break
            out.append(sentence if out or len(sentence) <= limit
                       else summary_sentence(sentence, limit=limit))
        return " ".join(out)
    return ""
