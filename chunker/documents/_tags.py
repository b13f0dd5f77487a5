"""HTML split into tags and text, the way Python 3.14's `html.parser` splits it, on every Python.

The standard library's parser changed in 2025 (CVE-2025-6069 and the fixes around it, in
3.13.4 / 3.12.11 / 3.14): before, ``<x `` or ``<!--`` or ``<a b="`` repeated took quadratic
time, ``<![foo[`` raised AssertionError, and ``</script foo>`` or ``</style x>`` were not
end tags, so the rest of a page was lost. The page runs Pyodide's 3.14, the CLI any 3.10+,
and the same file must give the same text in both, so this module reads the markup itself,
following the fixed parser's rules (the HTML standard's tokenizer, as far as that parser goes)
with the same regular expressions, in one pass: every construct is scanned once, from its
``<`` to its end, and what is left unclosed at the end of the input is read as the fixed
parser reads it at `close()` (a tag cut off by the end is dropped, a comment runs to the end).

Only what `_html` needs is reported, through the parser's method names: ``handle_starttag``,
``handle_startendtag``, ``handle_endtag`` and ``handle_data`` (character references already
replaced, as with ``convert_charrefs=True``). Comments, declarations, CDATA sections and
processing instructions are read and dropped.

>>> class Show:
...     def __init__(self): self.seen = []
...     def handle_starttag(self, tag, attrs): self.seen.append(("start", tag, attrs))
...     def handle_startendtag(self, tag, attrs): self.seen.append(("startend", tag, attrs))
...     def handle_endtag(self, tag): self.seen.append(("end", tag))
...     def handle_data(self, data): self.seen.append(("data", data))
>>> show = Show(); read('<P class=x>a &amp; b<script>1 < 2</script foo><br/><!-- c', show)
>>> show.seen  # doctest: +NORMALIZE_WHITESPACE
[('start', 'p', [('class', 'x')]), ('data', 'a & b'), ('start', 'script', []),
 ('data', '1 < 2'), ('end', 'script'), ('startend', 'br', [])]
"""

from __future__ import annotations

import re
from html import unescape
from html.entities import html5 as _ENTITIES
from typing import Any

__all__ = ["read"]

# Elements whose content is raw text up to their end tag; in the second kind (RCDATA)
# character references are still replaced.
RAW_TEXT = frozenset({"script", "style", "xmp", "iframe", "noembed", "noframes"})
RCDATA = frozenset({"textarea", "title"})

_TAG_OPEN = re.compile(r"<[a-zA-Z]")
_END_TAG_OPEN = re.compile(r"</[a-zA-Z]")
_COMMENT_CLOSE = re.compile(r"--!?>")
_COMMENT_ABRUPT_CLOSE = re.compile(r"-?>")
# The tag name, then what may stand between attributes ("13.2.5.8 Tag name state").
_TAG_NAME = re.compile(r"([a-zA-Z][^\t\n\r\f />]*)(?:[\t\n\r\f ]|/(?!>))*")
_ATTRIBUTE = re.compile(
    r"""
    ((?<=['"\t\n\r\f /])[^\t\n\r\f />][^\t\n\r\f /=>]*)    # name
    ([\t\n\r\f ]*=[\t\n\r\f ]*                             # = value
      ('[^']*'|"[^"]*"|(?!['"])[^>\t\n\r\f ]*)
    )?
    (?:[\t\n\r\f ]|/(?!>))*
    """,
    re.VERBOSE,
)
# Where a tag ends: the same grammar as _TAG_NAME and _ATTRIBUTE, run to the ">" (or to where
# the tag cannot go on, which is not a tag end).
_TAG_END = re.compile(
    r"""
    [a-zA-Z][^\t\n\r\f />]*
    [\t\n\r\f /]*
    (?:(?<=['"\t\n\r\f /])[^\t\n\r\f />][^\t\n\r\f /=>]*
      (?:[\t\n\r\f ]*=[\t\n\r\f ]*(?:'[^']*'|"[^"]*"|(?!['"])[^>\t\n\r\f ]*))?
      [\t\n\r\f /]*
    )*
    >?
    """,
    re.VERBOSE,
)
_ATTR_CHARREF = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*)[;=]?")


def _attr_charref(m: re.Match[str]) -> str:
    ref = m.group()
    # In an attribute, a named reference counts only when it is complete and not followed by
    # "=" (so "?a=1&copy=2" stays as written); numeric ones always count.
    if ref.startswith("&#") or (not ref.endswith("=") and ref[1:] in _ENTITIES):
        return unescape(ref)
    return ref


def _attributes(raw: str, start: int, end: int) -> tuple[str, list[tuple[str, str | None]], int]:
    m = _TAG_NAME.match(raw, start)
    assert m is not None
    tag, k = m.group(1).lower(), m.end()
    attrs: list[tuple[str, str | None]] = []
    while k < end:
        m = _ATTRIBUTE.match(raw, k)
        if not m:
            break
        name, rest, value = m.group(1, 2, 3)
        if not rest:
            value = None
        elif value[:1] == "'" == value[-1:] or value[:1] == '"' == value[-1:]:
            value = value[1:-1]
        if value:
            value = _ATTR_CHARREF.sub(_attr_charref, value)
        attrs.append((name.lower(), value))
        k = m.end()
    return tag, attrs, k


def read(raw: str, out: Any) -> None:
    """Report the tags and text of `raw` to `out` (see the module docstring)."""
    i, n = 0, len(raw)
    raw_end: re.Pattern[str] | None = None  # inside a raw text element: its end tag
    escapable = True
    data = out.handle_data
    while i < n:
        if raw_end is None:
            j = raw.find("<", i)
            if j < 0:
                j = n
        else:
            m = raw_end.search(raw, i)
            if m is None:  # never closed: the rest is its text
                data(unescape(raw[i:]) if escapable else raw[i:])
                return
            j = m.start()
        if i < j:
            data(unescape(raw[i:j]) if escapable else raw[i:j])
        i = j
        if i == n:
            return
        # raw[i] == "<"
        if _TAG_OPEN.match(raw, i):
            m = _TAG_END.match(raw, i + 1)
            assert m is not None
            end = m.end()
            if raw[end - 1] != ">":
                return  # a tag the input ends inside: dropped, with the rest
            tag, attrs, k = _attributes(raw, i + 1, end)
            close = raw[k:end].strip()
            if close not in (">", "/>"):
                data(raw[i:end])
            elif close == "/>":
                out.handle_startendtag(tag, attrs)
            else:
                out.handle_starttag(tag, attrs)
                if tag in RAW_TEXT or tag in RCDATA or tag == "plaintext":
                    if tag == "plaintext":  # the rest is its text, as written
                        if end < n:
                            data(raw[end:])
                        return
                    raw_end = re.compile(rf"</{tag}(?=[\t\n\r\f />])", re.IGNORECASE | re.ASCII)
                    escapable = tag in RCDATA
            i = end
        elif raw.startswith("</", i):
            gt = raw.find(">", i + 2)
            if gt < 0:
                if i + 2 == n:
                    data("</")
                return  # an end tag cut off by the end, or a bogus comment to the end
            if not _END_TAG_OPEN.match(raw, i):
                i = gt + 1  # "</>" is ignored, "</1...>" is a bogus comment
                continue
            m = _TAG_END.match(raw, i + 2)
            assert m is not None
            end = m.end()
            if raw[end - 1] != ">":
                return
            name = _TAG_NAME.match(raw, i + 2)
            assert name is not None
            out.handle_endtag(name.group(1).lower())
            raw_end, escapable = None, True
            i = end
        elif raw.startswith("<!--", i):
            m = _COMMENT_CLOSE.search(raw, i + 4) or _COMMENT_ABRUPT_CLOSE.match(raw, i + 4)
            if m is None:
                return  # a comment to the end
            i = m.end()
        elif raw.startswith("<![CDATA[", i):
            j = raw.find("]]>", i + 9)
            if j < 0:
                return
            i = j + 3
        elif raw.startswith("<?", i) or raw.startswith("<!", i):
            # A processing instruction, a doctype or a bogus comment, each to the next ">".
            j = raw.find(">", i + 2)
            if j < 0:
                return
            i = j + 1
        else:
            data("<")
            i += 1
