"""HTML to Markdown-flavoured text; `_tags` reads the markup as Python 3.14's `html.parser` does.

Word documents arrive here too (mammoth turns .docx into HTML), so this is the one place that
decides how structure becomes text:

- ``<h1>``..``<h6>`` become ``#`` .. ``######`` lines, so the markdown strategy sees headings;
- list items become ``- `` or ``1. `` lines, nested lists indented under their item (to a depth
  of eight lists: deeper ones stand at the eighth level, so the indentation stays bounded);
- a table becomes Markdown rows: the first row is the header, then a ``|---|`` line; cells have
  ``|`` escaped and line breaks flattened; a cell spanning columns is followed by empty ones,
  and short rows are padded to the table's width, but a row spans at most 1,000 columns and
  a page gets at most 200,000 such empty cells (past that, rows keep only their own cells), so
  a few bytes of ``colspan`` cannot expand to megabytes; a table inside a cell becomes words of
  that cell, and tables nested more than eight deep are read as text of the eighth one's cell
  (each level re-reads the text of the ones inside it, so the depth bounds that work);
- ``<pre>`` is kept verbatim in a fenced block; everywhere else runs of whitespace become one
  space and ``<br>`` one line break;
- blocks are separated by one blank line;
- script, style, template, noscript, title and other non-text elements are dropped, and so are
  ``<nav>`` and ``<footer>``, the menus and small print around a page's text; inline
  markup (links, emphasis, images) leaves only its text, with no Markdown markers, since those
  would only add noise to embeddings.

>>> html_to_text("<h2>Fruit</h2><p>Apples &amp;\\n  pears.</p><ul><li>one<li>two</ul>")
'## Fruit\\n\\nApples & pears.\\n\\n- one\\n- two'
"""

from __future__ import annotations

import re

from ._tags import read as _read_tags

__all__ = ["escape_block_start", "html_to_text"]

_SKIP = frozenset(
    {
        "script",
        "style",
        "template",
        "noscript",
        "title",
        "svg",
        "math",
        "iframe",
        "object",
        "canvas",
        "select",
        "datalist",
        "head",
        "noembed",
        "noframes",
        "nav",
        "footer",
    }
)
# Bounds on what markup can expand to (see the module docstring).
_MAX_LIST_DEPTH = 8
_MAX_COLUMNS = 1000
_MAX_EMPTY_CELLS = 200_000
_MAX_TABLE_DEPTH = 8
# The longest run of backticks in a <pre>: its fence is one longer.
_BACKTICKS = re.compile(r"`+")
_BLOCK = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "header",
        "footer",
        "main",
        "nav",
        "aside",
        "blockquote",
        "figure",
        "figcaption",
        "address",
        "details",
        "summary",
        "form",
        "fieldset",
        "legend",
        "hr",
        "dl",
        "dt",
        "dd",
        "center",
        "body",
        "html",
        "hgroup",
        "search",
        "dialog",
        "menu",
    }
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
# HTML whitespace, plus no-break space: runs of either read as one space in a paragraph.
_SPACE = re.compile(r"[ \t\n\r\f\xa0]+")
# Stands for <br> while a block's text is normalised (NUL never survives the parser's input).
_BR = "\x00"
# A paragraph that happens to start like a Markdown heading or fence is not one: escape it.
_FAKE_START = re.compile(r"(?=[ \t]{0,3}(?:#{1,6}(?:[ \t]|\Z)|```|~~~))")


def escape_block_start(text: str) -> str:
    r"""Backslash-escape a paragraph that would read as a Markdown heading or code fence.

    >>> escape_block_start("# not a heading"), escape_block_start("#hashtag")
    ('\\# not a heading', '#hashtag')
    """
    return _FAKE_START.sub("\\\\", text, count=1) if text[:1] in "#`~ \t" else text


def html_to_text(markup: str) -> str:
    """The text of an HTML document or fragment (see the module docstring)."""
    converter = _Converter()
    _read_tags(markup.replace("\x00", "\ufffd"), converter)
    return converter.result()


def _inline(pieces: list[str]) -> str:
    """One block's text: whitespace runs collapsed, <br> kept as a line break."""
    text = _SPACE.sub(" ", "".join(pieces))
    if _BR in text:
        text = "\n".join(part.strip() for part in text.split(_BR))
        text = re.sub(r"\n{2,}", "\n", text)
    return text.strip()


def _cell(pieces: list[str]) -> str:
    return _inline(pieces).replace("\n", " ").replace("|", "\\|")


class _List:
    __slots__ = ("hang", "indent", "marker", "number", "ordered")

    def __init__(self, ordered: bool, start: int, indent: str) -> None:
        self.ordered, self.number, self.indent = ordered, start, indent
        self.marker = ""  # the current item's "- " or "3. ", until its first line is out
        self.hang = indent  # where the item's further lines start: under its text


class _Table:
    __slots__ = ("caption", "cell", "in_caption", "in_cell", "row", "rows", "span")

    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self.row: list[str] | None = None
        self.cell: list[str] = []
        self.in_cell = False
        self.span = 1
        self.caption: list[str] = []
        self.in_caption = False


class _Converter:
    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.pieces: list[str] = []  # inline text of the block being read
        self.skip = 0  # depth inside elements whose text is dropped
        self.heading = 0
        self.pre: list[str] | None = None
        self.pre_lang = ""
        self.lists: list[_List] = []
        self.list_lines: list[str] = []
        self.tables: list[_Table] = []
        self.deep_tables = 0  # tables open past _MAX_TABLE_DEPTH, read as the innermost cell's text
        self.empty_cells = _MAX_EMPTY_CELLS  # how many more empty cells tables may add

    def _sink(self) -> list[str]:
        """Where text read now goes: a <pre>, a caption, a table cell, or the current block."""
        if self.pre is not None:
            return self.pre
        if self.tables:
            table = self.tables[-1]
            if table.in_caption:
                return table.caption
            if not table.in_cell:  # text loose in a table still belongs to it
                self._open_cell(table)
            return table.cell
        return self.pieces

    # -- where finished text goes ------------------------------------------------------------

    def _emit(self, text: str) -> None:
        """Send one finished block to the innermost container: table cell, list, or page."""
        if not text:
            return
        if self.tables:
            self._sink().append(" " + text + " ")
        elif self.lists:
            item = self.lists[-1]
            lines = text.split("\n")
            first = (item.marker or item.hang) + lines[0]
            item.marker = ""
            self.list_lines.append(first)
            self.list_lines.extend(item.hang + line if line else "" for line in lines[1:])
        else:
            self.blocks.append(text)

    def _flush(self) -> None:
        """End the inline run: it becomes a paragraph (or heading) of the current container."""
        if self.tables:
            if self.tables[-1].in_cell:
                self.tables[-1].cell.append(" ")  # blocks inside a cell: one line of words
            return
        pieces, self.pieces = self.pieces, []
        text = _inline(pieces)
        if not text:
            return
        if self.lists:
            self._emit(text)
        elif self.heading:
            self._emit("#" * self.heading + " " + text.replace("\n", " "))
        else:
            self._emit(escape_block_start(text))

    # -- tables ----------------------------------------------------------------------------

    def _open_cell(self, table: _Table, span: int = 1) -> None:
        self._close_cell(table)
        if table.row is None:
            table.row = []
        table.in_cell, table.span = True, span

    def _close_cell(self, table: _Table) -> None:
        if table.in_cell:
            assert table.row is not None
            table.row.append(_cell(table.cell))
            empty = max(0, min(table.span - 1, _MAX_COLUMNS - len(table.row), self.empty_cells))
            table.row.extend("" for _ in range(empty))
            self.empty_cells -= empty
            table.cell, table.in_cell, table.span = [], False, 1

    def _close_row(self, table: _Table) -> None:
        self._close_cell(table)
        if table.row is not None:
            if any(table.row):
                table.rows.append(table.row)
            table.row = None

    def _close_table(self) -> None:
        table = self.tables.pop()
        self._close_row(table)
        caption = _inline(table.caption)
        if self.tables:  # a table inside a cell: its text joins the outer cell, flattened
            self._emit(" ".join([caption] + [" ".join(row) for row in table.rows]))
            return
        if caption:
            self._emit(escape_block_start(caption.replace("\n", " ")))
        if table.rows:
            width = max(len(row) for row in table.rows)
            lines = []
            for row in table.rows:
                pad = min(width - len(row), self.empty_cells)
                self.empty_cells -= pad
                lines.append("| " + " | ".join(row + [""] * pad) + " |")
            lines.insert(1, "|" + "---|" * width)
            self._emit("\n".join(lines))

    # -- the parser's callbacks --------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.skip = 0  # a <head> left open ends here
        if self.skip or tag in _SKIP:
            self.skip += tag in _SKIP
            return
        if self.pre is not None:
            if tag == "br":
                self.pre.append("\n")
            elif tag == "code" and not self.pre_lang:
                self.pre_lang = _language(attrs)
        elif tag == "br":
            self._sink().append(_BR)
        elif tag in _BLOCK:
            self._flush()
        elif tag in _HEADINGS:
            self._flush()
            self.heading = _HEADINGS[tag]
        elif tag in ("ul", "ol"):
            self._flush()
            indent = ""
            if self.lists:
                parent = self.lists[-1]
                if parent.marker:  # an item that opens with a list: its marker stands alone
                    self.list_lines.append(parent.marker.rstrip())
                    parent.marker = ""
                indent = parent.hang if len(self.lists) < _MAX_LIST_DEPTH else parent.indent
            start = _int(dict(attrs).get("start"), 1, -(10**9), 10**9)
            self.lists.append(_List(tag == "ol", start, indent))
        elif tag == "li":
            self._flush()
            if not self.lists:  # a stray <li>: read it as an item of a bulleted list
                self.lists.append(_List(False, 1, ""))
            item = self.lists[-1]
            item.marker = item.indent + (f"{item.number}. " if item.ordered else "- ")
            item.hang = " " * len(item.marker)
            item.number += 1
        elif tag in _TABLE_PARTS and (self.deep_tables or (tag == "table" and len(self.tables) >= _MAX_TABLE_DEPTH)):
            self.deep_tables += tag == "table"
            self._sink().append(" ")  # its cells and rows: words apart, as in a flattened table
        elif tag == "table":
            self._flush()
            self.tables.append(_Table())
        elif self.tables and tag == "caption":
            self.tables[-1].in_caption = True
        elif self.tables and tag == "tr":
            self._close_row(self.tables[-1])
            self.tables[-1].row = []
        elif self.tables and tag in ("td", "th"):
            self._open_cell(self.tables[-1], _int(dict(attrs).get("colspan"), 1, 1, 1000))
        elif tag == "pre":
            self._flush()
            self.pre, self.pre_lang = [], ""

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("body", "html"):
            self.skip = 0  # an element dropped with its text (a <nav>...) left open ends here
        if self.skip:
            self.skip -= tag in _SKIP
            return
        if self.pre is not None:
            if tag == "pre":
                self._close_pre()
        elif tag in _BLOCK or tag == "li":
            self._flush()
        elif tag in _HEADINGS:
            self._flush()
            self.heading = 0
        elif tag in ("ul", "ol") and self.lists:
            self._flush()
            self.lists.pop()
            if not self.lists and self.list_lines:
                lines, self.list_lines = self.list_lines, []
                self._emit("\n".join(lines))
        elif self.deep_tables and tag in _TABLE_PARTS:
            self.deep_tables -= tag == "table"
            self._sink().append(" ")
        elif self.tables and tag == "table":
            self._close_table()
        elif self.tables and tag == "caption":
            self.tables[-1].in_caption = False
        elif self.tables and tag == "tr":
            self._close_row(self.tables[-1])
        elif self.tables and tag in ("td", "th"):
            self._close_cell(self.tables[-1])

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.tables and self.pre is None and not data.strip():
            table = self.tables[-1]
            if not table.in_cell and not table.in_caption:
                return  # whitespace between rows and cells
        self._sink().append(data)

    def _close_pre(self) -> None:
        assert self.pre is not None
        body, self.pre = "".join(self.pre), None
        # The parser keeps the newline right after <pre>, which HTML says is not content.
        body = (body.removeprefix("\n")).rstrip()
        if not body.strip():
            return
        if self.tables:
            self._emit(_SPACE.sub(" ", body).strip())
            return
        # Longer than any run of backticks in the body (searched for once: growing the fence
        # until it is not in the body was quadratic in the run's length).
        fence = "`" * max(3, 1 + max(map(len, _BACKTICKS.findall(body)), default=0))
        self._emit(f"{fence}{self.pre_lang}\n{body}\n{fence}")

    def result(self) -> str:
        if self.pre is not None:
            self._close_pre()
        self._flush()
        while self.tables:
            self._close_table()
        self.lists.clear()
        if self.list_lines:
            self._emit("\n".join(self.list_lines))
        return "\n\n".join(self.blocks)


_TABLE_PARTS = frozenset({"table", "caption", "tr", "td", "th"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "param"})


def _int(value: str | None, default: int, lo: int, hi: int) -> int:
    if not value:
        return default
    try:
        return max(lo, min(int((value or "").strip()), hi))
    except ValueError:
        return default


def _language(attrs: list[tuple[str, str | None]]) -> str:
    for cls in (dict(attrs).get("class") or "").split():
        if cls.startswith(("language-", "lang-")):
            lang = cls.split("-", 1)[1]
            if re.fullmatch(r"[\w+#.-]{1,30}", lang):
                return lang
    return ""
