"""What every fragment of the page's HTML is built with: escaping, numbers, UTF-16 offsets.

The worker builds the page's HTML in Python (app/view.py and the modules it calls); two rules
hold throughout:

* every piece of text that reaches the DOM goes through :func:`esc` (the document, chunk
  previews, headings, error messages, advice); markup in a pasted document stays text;
* offsets in records are code points, while the DOM counts UTF-16 code units, so every offset
  the page uses to address the text box goes through :class:`Utf16`.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["esc", "num", "plural", "Utf16", "per_text", "utf16"]

T = TypeVar("T")


def esc(text: Any) -> str:
    r"""Escape text for HTML element content and quoted attribute values.

    A carriage return becomes a character reference: the HTML parser turns a literal CR LF
    into LF, and the view must hold a file's text character for character. A NUL, which the
    parser would drop or replace, is shown as the symbol ␀: still one character.

    >>> esc('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    >>> esc("line\r\n"), esc("a\x00b")
    ('line&#13;\n', 'a&#9216;b')
    """
    out = html.escape(str(text), quote=True)
    if "\r" in out:
        out = out.replace("\r", "&#13;")
    if "\x00" in out:
        out = out.replace("\x00", "&#9216;")
    return out


def num(n: float) -> str:
    """Group thousands; floats keep at most one decimal.

    >>> num(12345), num(150.44), num(3.0)
    ('12,345', '150.4', '3')
    """
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,.1f}"
    return f"{int(n):,}"


def plural(n: float, one: str, many: str | None = None) -> str:
    """A count with its noun, singular for exactly one.

    >>> plural(1, "chunk"), plural(2, "chunk"), plural(1_200, "match", "matches")
    ('1 chunk', '2 chunks', '1,200 matches')
    """
    return f"{num(n)} {one if n == 1 else (many or one + 's')}"


def per_text(fn: Callable[[str], T]) -> Callable[[str], T]:
    """Remember ``fn(text)`` for the last text object it saw.

    A slider move re-renders the same document with new chunks: what depends on the text alone
    (its UTF-16 map) is worked out once per document. The check is identity, which is free,
    not equality, which would read a megabyte each time.

    >>> calls = []
    >>> twice = per_text(lambda t: calls.append(t) or t * 2)
    >>> text = "ab" * 3
    >>> twice(text), twice(text), len(calls)
    ('abababababab', 'abababababab', 1)
    """
    last: list[Any] = [None, None]

    def cached(text: str) -> T:
        if last[0] is not text:
            last[1] = fn(text)
            last[0] = text
        return last[1]

    cached.__doc__ = fn.__doc__
    return cached


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class Utf16:
    """Maps code-point offsets of one text to UTF-16 offsets (what the DOM and JS count).

    Characters outside the Basic Multilingual Plane (emoji, many CJK extensions) are one code
    point but two UTF-16 units, so every offset after one shifts by one.

    >>> u = Utf16("a😀b")
    >>> u(0), u(1), u(2), u(3)
    (0, 1, 3, 4)
    """

    def __init__(self, text: str) -> None:
        self._astral = [] if text.isascii() else [m.start() for m in _ASTRAL.finditer(text)]

    def __call__(self, offset: int) -> int:
        return offset + bisect_left(self._astral, offset)


utf16 = per_text(Utf16)
"""The UTF-16 map of the last document."""
