"""Markdown pipe tables: where each one starts, where its header rows end, where it ends.

A table is GitHub Flavored Markdown's: a header line, then a delimiter row (cells of ``---``,
``:--``, ``--:`` or ``:-:`` between pipes) with as many cells as the header, then the body:
every following line that is not blank and holds a pipe. Each line is one row. The header
rows are the header line and the delimiter row together; a long table's later parts repeat
them. Nothing inside a fenced code block is a table. The HTML and Word readers write their
tables in this form (see chunker/documents/_html.py), so all three are found alike.

Finding them costs one look on a text without a pipe; otherwise only the lines that hold a
pipe are read (str.find finds them), each once.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from ._segments import Fences

__all__ = ["Table", "find_tables", "is_header", "header_context", "inside_row"]

# A delimiter row: optional outer pipes around cells of dashes with optional colons, at least
# one pipe on the line (a line of dashes alone is a rule or a setext underline, not a table).
_DELIM_LINE = re.compile(r"[ \t]{0,3}(?=[^\n]*\|)\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\r?")
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
    prev = -1  # where the last line read that holds a pipe starts (-1: none yet)
    prev_end = -1
    pos = start
    # Only lines holding a pipe can be a header or a delimiter row: found with str.find, one
    # look per such line (a text of prose has a handful).
    while True:
        p = text.find("|", pos, stop)
        if p < 0:
            return out
        line_start = max(start, text.rfind("\n", 0, p) + 1)
        line_end = text.find("\n", p, stop)
        line_end = stop if line_end < 0 else line_end
        pos = line_end + 1
        # A delimiter row right under the pipe line before it: a table, if the cells agree.
        if (
            prev >= 0
            and prev_end + 1 == line_start
            and "-" in text[line_start:line_end]
            and is_header(text[prev:prev_end], text[line_start:line_end])
            and not (fenced and _in_ranges(fenced, line_start))
        ):
            table_start, _ = _trimmed(text, prev, prev_end)
            _, head_end = _trimmed(text, line_start, line_end)
            table_end = head_end
            # The body: each following line that is not blank and holds a pipe.
            while pos < stop:
                row_end = text.find("\n", pos, stop)
                row_end = stop if row_end < 0 else row_end
                if text.find("|", pos, row_end) < 0 or not text[pos:row_end].strip():
                    break
                table_end = _trimmed(text, pos, row_end)[1]
                pos = row_end + 1
            out.append(Table(table_start, head_end, table_end))
            prev = -1  # the line after the table holds no pipe, or is blank
            continue
        prev, prev_end = line_start, line_end


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
