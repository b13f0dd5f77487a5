"""Markdown pipe tables: where each one starts, where its header rows end, where it ends.

A table is GitHub Flavored Markdown's: a header line, then a delimiter row (cells of ``---``,
``:--``, ``--:`` or ``:-:`` between pipes) with as many cells as the header, then the body:
every following line that is not blank and holds a pipe. Each line is one row. The header
rows are the header line and the delimiter row together; a long table's later parts repeat
them. Nothing inside a fenced code block is a table. The HTML and Word readers write their
tables in this form (see chunker/documents/_html.py), so all three are found alike.

Finding them costs nothing on a text without a pipe, and one pass of a line pattern (in C)
otherwise: the delimiter rows are found first, and only their neighbours are read.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from ._segments import Fences

__all__ = ["Table", "find_tables", "is_header", "header_context", "inside_row"]

# A delimiter row: optional outer pipes around cells of dashes with optional colons, at least
# one pipe on the line (a line of dashes alone is a rule or a setext underline, not a table).
_DELIM = re.compile(
    r"^[ \t]{0,3}(?=[^\n]*\|)\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\r?$",
    re.MULTILINE,
)
_DELIM_LINE = re.compile(_DELIM.pattern[1:-1])  # the same, for one line (no ^ and $)
_ESCAPED_PIPE = re.compile(r"\\.")


class Table(NamedTuple):
    """One table: text[start:head_end] are its header rows (header line and delimiter row),
    text[start:end] the whole table, trimmed at both ends."""

    start: int
    head_end: int
    end: int


def cells(line: str) -> int:
    """How many cells a table line holds: its pipes, less a leading and a trailing one; an
    escaped pipe (``\\|``) is a cell's text.

    >>> cells("| a | b |"), cells("a | b"), cells("|---|:-:|---"), cells(r"| a \\| b |")
    (2, 2, 3, 1)
    """
    s = _ESCAPED_PIPE.sub("x", line.strip())
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return s.count("|") + 1


def is_header(line: str, next_line: str) -> bool:
    """Whether `line` is a table's header line: `next_line` is a delimiter row with as many cells.

    >>> is_header("a | b", "--|:-:"), is_header("a | b", "---"), is_header("| a |", "|---|---|")
    (True, False, False)
    """
    return "|" in line and _DELIM_LINE.fullmatch(next_line) is not None and bool(line.strip()) and cells(line) == cells(next_line)


def _line_bounds(text: str, at: int, stop: int) -> tuple[int, int]:
    """The line holding position `at`, as (start, end without its line break), within `stop`."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at, stop)
    return start, stop if end < 0 else end


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    line = text[start:end]
    lead = len(line) - len(line.lstrip())
    return start + lead, start + len(line.rstrip())


def find_tables(text: str, start: int = 0, end: int | None = None, fences: Fences | None = None) -> list[Table]:
    """The tables of text[start:end], in document order (see the module docstring); `fences`
    are the document's code fences (`Fences.of`), whose blocks hold no table.

    >>> t = "Prices:\\n\\n| item | cost |\\n|:-----|-----:|\\n| tea  | 2 |\\n| cake | 3 |\\n\\nAfter."
    >>> [(t[a:h], t[h:e]) for a, h, e in find_tables(t)]
    [('| item | cost |\\n|:-----|-----:|', '\\n| tea  | 2 |\\n| cake | 3 |')]
    >>> find_tables("a | b\\n--|--\\n1 | 2") == [Table(0, 11, 17)]
    True
    """
    stop = len(text) if end is None else end
    if text.find("|", start, stop) < 0:
        return []
    fenced = _fenced_ranges(fences)
    out: list[Table] = []
    last_end = start
    for m in _DELIM.finditer(text, start, stop):
        d_start, d_end = m.start(), m.end()
        if d_start == 0 or d_start - 1 < last_end:
            continue  # no line before it in range, or that line is a row of the last table
        h_start, h_end = _line_bounds(text, d_start - 1, stop)
        if h_start < start:
            continue
        if not is_header(text[h_start:h_end], text[d_start:d_end]):
            continue
        if fenced and _in_ranges(fenced, d_start):
            continue
        a, _ = _trimmed(text, h_start, h_end)
        _, head_end = _trimmed(text, d_start, d_end)
        # The body: each following line that is not blank and holds a pipe.
        table_end = head_end
        pos = d_end + 1
        while pos < stop:
            line_end = text.find("\n", pos, stop)
            line_end = stop if line_end < 0 else line_end
            row = text[pos:line_end]
            if "|" not in row or not row.strip():
                break
            table_end = _trimmed(text, pos, line_end)[1]
            pos = line_end + 1
        out.append(Table(a, head_end, table_end))
        last_end = table_end
    return out


def _fenced_ranges(fences: Fences | None) -> list[tuple[int, int]]:
    """The spans of fenced code blocks, from their opening fence to their closing one (or the
    text's end when a block is never closed)."""
    if fences is None:
        return []
    out: list[tuple[int, int]] = []
    opened = -1
    for marker, (closes, line_end) in sorted(fences.lines.items()):
        if not closes:
            opened = marker
        elif opened >= 0:
            out.append((opened, line_end))
            opened = -1
    if opened >= 0:
        out.append((opened, 1 << 62))
    return out


def _in_ranges(ranges: list[tuple[int, int]], at: int) -> bool:
    k = bisect.bisect_right(ranges, (at, 1 << 62)) - 1
    return k >= 0 and ranges[k][0] <= at < ranges[k][1]


def header_context(text: str, table: Table) -> str:
    """What a later part of `table` carries before its text: the header rows, then a line break.

    >>> t = "| a | b |\\n|---|---|\\n| 1 | 2 |"
    >>> header_context(t, find_tables(t)[0])
    '| a | b |\\n|---|---|\\n'
    """
    return text[table.start : table.head_end] + "\n"


def inside_row(text: str, at: int, start: int, end: int) -> bool:
    """Whether position `at` falls inside a row of the table lines text[start:end]: after a row's
    first character and before its last one (a row is a trimmed line).

    >>> t = "| a | b |\\n| 1 | 2 |"
    >>> inside_row(t, 9, 0, len(t)), inside_row(t, 10, 0, len(t)), inside_row(t, 13, 0, len(t))
    (False, False, True)
    """
    if not start < at < end:
        return False
    a, b = _trimmed(text, *_line_bounds(text, at, end))
    return a < at < b
