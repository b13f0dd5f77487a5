"""The `context` setting: what the embedder reads before each chunk's text.

Pipelines rarely embed a chunk's bare text: they put the heading path or the document's title
before it. The setting says what goes there:

- ``none`` (the default): nothing; `embed_text` is the chunk's text;
- ``headings``: the chunk's heading path, joined by " > ", then a blank line ("" for a chunk
  under no heading);
- a template holding at least one field of `FIELDS`, such as ``"{title} > {headings}\\n\\n"``:
  `str.format`'s syntax, ``{{`` and ``}}`` for braces, no conversions or format specs.

The value is kept with its line breaks, tabs and backslashes written ``\\n``, ``\\t`` and
``\\\\`` (what a command line or the page's field can hold, and what a link or copy-as-code
writes), and either form is taken: ``"{title}\\n\\n"`` is ``"{title}\n\n"``.

A template's fields are the chunk's heading path (" > " between headings), the document's
title (see `chunker.Document.title`), its source (the name it was read from, else "") and the
page the chunk starts on (from 1; "" for a document without pages).

>>> render(check_context("{title}: {headings}\\n"), ("Install", "Linux"), title="Guide", source="", page=None)
'Guide: Install > Linux\\n'
>>> check_context("{title}\\n\\n") == check_context("{title}\\\\n\\\\n") == "{title}\\\\n\\\\n"
True
>>> check_context("{heading}")
Traceback (most recent call last):
...
chunker._errors.ChunkerError: context '{heading}' has an unknown field {heading}: the fields are {headings}, ...
"""

from __future__ import annotations

import string
from typing import Any

from .._errors import ChunkerError, printable, shown
from ..text._segments import LONE_SURROGATE, surrogate_error

__all__ = ["NONE", "HEADINGS", "FIELDS", "check_context", "render", "fields_of", "escaped", "unescaped"]

NONE = "none"
HEADINGS = "headings"
FIELDS = ("headings", "title", "source", "page")
"""A template's fields, in the order its help lists them."""

_HEADINGS_TEMPLATE = "{headings}\n\n"
_SEP = " > "
_FIELDS_TEXT = ", ".join("{" + f + "}" for f in FIELDS)
_FORMATTER = string.Formatter()


def _bad(value: str, why: str) -> ChunkerError:
    return ChunkerError(
        f"context {value[:80]!r} {why}: the fields are {_FIELDS_TEXT} (or give {NONE} or {HEADINGS})", field="context"
    )


def fields_of(template: str) -> tuple[str, ...]:
    """The fields a checked template uses, once each."""
    if template == NONE:
        return ()
    if template == HEADINGS:
        return ("headings",)
    found: list[str] = []
    for _, name, _, _ in _FORMATTER.parse(unescaped(template)):
        if name is not None and name not in found:
            found.append(name)
    return tuple(found)


def check_context(value: Any, so_far: Any = None) -> str:
    """The setting's value checked: none, headings, or a template whose fields are all known."""
    if not isinstance(value, str):
        raise ChunkerError(
            f"context must be text ({NONE}, {HEADINGS} or a template), got {type(value).__name__} {shown(value, 60)}",
            field="context",
        )
    if value in (NONE, HEADINGS):
        return value
    bad = LONE_SURROGATE.search(value)
    if bad:
        # A lone surrogate (what a command line's undecodable bytes become) would reach every
        # chunk's embed_text, which no UTF-8 output can write: refuse it here, by its place.
        raise surrogate_error("context", value, bad.start(), "give the template as UTF-8 text", field="context")
    if value.strip().lower() in (NONE, HEADINGS, ""):
        return value.strip().lower() or NONE
    template = unescaped(value)
    try:
        parts = list(_FORMATTER.parse(template))
    except ValueError as e:  # "Single '}' encountered in format string" and the like
        raise _bad(value, f"is not a template ({e}; write {{{{ and }}}} for braces)") from None
    names = [(name, conv, spec) for _, name, spec, conv in parts if name is not None]
    if not names:
        raise _bad(value, "has no field")
    for name, conv, spec in names:
        if name not in FIELDS:
            # The name as the value writes it, escaped and cut short: a line break in it would
            # break the one-line message, and a long one would fill it.
            raise _bad(value, f"has an unknown field {{{printable(name, 40)}}}")
        if conv or spec:
            raise _bad(value, f"gives {{{name}}} a conversion or format spec; write the field alone")
    return escaped(template)


def render(template: str, headings: tuple[str, ...], *, title: str, source: str, page: int | None) -> str:
    """The context of one chunk under a checked template (none: "")."""
    if template == NONE:
        return ""
    if template == HEADINGS:
        return _HEADINGS_TEMPLATE.format(headings=_SEP.join(headings)) if headings else ""
    return unescaped(template).format(
        headings=_SEP.join(headings), title=title, source=source, page="" if page is None else str(page)
    )


# Text typed for the setting (a flag's value, the page's field) cannot hold a line break
# easily: \n, \t and \\ are escapes, and the value is kept so written.
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}


def unescaped(text: str, flag: str = "") -> str:
    """Typed text with \\n, \\t and \\\\ read as a line break, a tab and a backslash."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPES:
            out.append(_ESCAPES[text[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def escaped(value: str) -> str:
    """`unescaped`'s inverse: the value as it is kept."""
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
