"""Strategy `markdown`: heading-aware sections with a size cap.

A section starts at a heading. Sections never share a chunk or overlap. Inside a section,
blocks (paragraphs, lists, fenced and indented code, HTML blocks, tables, front matter) are
packed up to `size`; code and HTML are cut only when one alone exceeds `size`, and then by the
recursive cascade (lines, words, characters), as is an oversized paragraph (lines, sentences,
words, characters). A pipe table that exceeds `size` is split between its rows, and each part
after the first carries the table's header rows as its context (see `_tables`). A code fence
line is never a piece of its own: it stays with the line it opens or closes. A heading is
glued to what follows it, so it never ends a chunk, unless the heading alone leaves no room
for any of its body: then it stands alone (flagged orphan_heading, and oversize when it is
over by itself: a heading is never cut). Each chunk carries the heading path it sits under.

What is a heading (the scanner follows CommonMark where the two could differ; docs/markdown.md
has the comparison with a CommonMark parser):

- an ATX heading, ``## Title``, indented at most three spaces; a byte order mark before the
  document's first line is no part of it;
- a setext heading: one line of text underlined with ``===`` or ``---``;
- a line of capitals, alone at the start of a block (plain-text documents mark headings this
  way): no lowercase letter, at least four letters, at most 60 characters, no sentence
  punctuation at its end, and two words or more ("TERMS AND CONDITIONS") or one word of
  letters only ("INTRODUCTION", "SUMMARY"). "NASA." (a full stop), "OK" (two letters) and
  "UTF8" (a digit) are not; a four-letter acronym alone on a line would be.

Nothing inside a block is a heading: not a line in fenced code; not a line indented four
columns or more where no paragraph or list goes on (indented code: ``    # code``); not a line
of an HTML block (CommonMark's seven kinds: ``<!-- ... -->`` and the other declarations end
at their end marker, block-level tags and any lone tag at a blank line).
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Iterator
from typing import Any, NamedTuple

from ..text._segments import Fences, indent_columns, is_caps_heading, position_kind
from ..text._tables import Table, find_tables, is_header
from ..tokens._measure import Measure
from ._pack import Leaves, Spans, cascade, pack_columns
from ._tables import Split, annotate, split_table

# CommonMark's line endings: LF, CR LF, and a CR alone (classic Mac OS text), which else made
# a heading of the whole rest of the document.
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})(.*)")
_ATX = re.compile(r"[ \t]{0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*\Z")
_SETEXT = re.compile(r"[ \t]{0,3}(=+|-+)[ \t]*\Z")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")

# CommonMark's HTML blocks (spec 0.31.2, section 4.6): how each of the seven kinds starts, and
# how kinds 1-5 end (on the line that holds the end, which may be the first); kinds 6 and 7 end
# at a blank line, and kind 7 cannot interrupt a paragraph.
_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|"
    "hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|"
    "search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
_ATTRIBUTE = r"""\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?"""
_HTML_START = re.compile(
    r"[ \t]{0,3}(?:(<(?:pre|script|style|textarea)(?:[ \t>]|\Z))|(<!--)|(<\?)|(<![A-Za-z])|(<!\[CDATA\[)"
    rf"|(</?(?:{_BLOCK_TAGS})(?:[ \t>]|/>|\Z))"
    rf"|((?:<[A-Za-z][A-Za-z0-9-]*(?:{_ATTRIBUTE})*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>)[ \t]*\Z))",
    re.IGNORECASE,
)
_HTML_END = (
    re.compile(r"</(?:pre|script|style|textarea)>", re.IGNORECASE),
    re.compile("-->"),
    re.compile(r"\?>"),
    re.compile(">"),
    re.compile(r"\]\]>"),
)

_TEXT_LEVELS = ("paragraph", "line", "sentence", "word", "char")
_BLOCK_LEVELS = ("line", "word", "char")
_GLUE_LEVELS = ("line", "sentence", "word", "char")


class Block(NamedTuple):
    start: int
    end: int
    kind: str  # heading | text | code | table | html
    level: int = 0
    title: str = ""


def _trimmed_end(text: str, start: int, end: int) -> int:
    return start + len(text[start:end].rstrip())


def blocks(text: str) -> list[Block]:
    """Markdown blocks in document order, each a trimmed span (`iter_blocks` as a list). See the
    module's docstring for what counts as a heading.

    >>> [b.kind for b in blocks("# T\\n\\nSome text.\\n\\n```\\ncode\\n\\nmore\\n```\\n|a|b|\\n|-|-|")]
    ['heading', 'text', 'code', 'table']
    >>> [b.kind for b in blocks("<!--\\n# not a heading\\n-->\\n\\n    # code, indented\\n\\nINTRODUCTION")]
    ['html', 'code', 'heading']
    """
    return list(iter_blocks(text))


_FRONT_MATTER_END = re.compile(r"^[^\S\n]*(?:---|\.\.\.)[^\S\n]*$", re.MULTILINE)


def iter_blocks(text: str) -> Iterator[Block]:
    """`blocks` one at a time, reading the text a line at a time."""
    out: list[Block] = []  # blocks found, handed on before the next line is read
    cur: list[Any] | None = None  # [kind, start, end, nlines]
    fence = ""
    html_end: re.Pattern[str] | None = None  # HTML kinds 1-5: what ends the block
    html_blank = False  # HTML kinds 6 and 7: a blank line ends the block
    indented = False  # an indented code block
    in_list = False  # a list item started the last text block: indented lines are its content
    last_atx = 0
    bom = False  # the first line held only a byte order mark: it joins the first block

    def flush() -> None:
        nonlocal cur
        if cur is not None:
            out.append(Block(cur[1], cur[2], cur[0]))
            cur = None

    pos = 0
    # YAML front matter: a leading '---' line up to the next '---' or '...' line is one block.
    first_end = text.find("\n") + 1 or len(text)
    if text[:first_end].strip().lstrip("\ufeff") == "---":
        m = _FRONT_MATTER_END.search(text, first_end)
        if m is not None:
            line_end = text.find("\n", m.end()) + 1 or len(text)
            yield Block(len(text) - len(text.lstrip()), _trimmed_end(text, m.start(), line_end), "code")
            pos = line_end
    for line_match in _LINES.finditer(text, pos):
        if out:
            yield from out
            out.clear()
        s, e = line_match.span()
        raw = text[s:e].rstrip("\r\n")
        # A byte order mark is no part of the first line's Markdown (but stays in its block).
        line = raw[1:] if s == 0 and raw.startswith("\ufeff") else raw
        stripped = line.strip()
        if s == 0 and not stripped and line != raw:
            bom = True  # no block of its own, but never dropped: it is no whitespace
            continue
        if fence:
            cur[2] = _trimmed_end(text, s, e) if stripped else cur[2]  # type: ignore[index]
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                fence = ""
                flush()
            continue
        if html_end is not None:
            cur[2] = _trimmed_end(text, s, e) if stripped else cur[2]  # type: ignore[index]
            if html_end.search(line):
                html_end = None
                flush()
            continue
        if indented:
            if not stripped:
                continue  # blank lines inside an indented block belong to it, if more code follows
            if indent_columns(line) >= 4:
                cur[2] = _trimmed_end(text, s, e)  # type: ignore[index]
                continue
            indented = False
            flush()
        if not stripped:
            html_blank = False
            flush()
            continue
        if html_blank:
            cur[2] = _trimmed_end(text, s, e)  # type: ignore[index]
            continue
        indent = indent_columns(line) if line[0] in " \t" else 0
        lead = s + (len(raw) - len(raw.lstrip()) if raw[0].isspace() or s == 0 else 0)
        if bom:
            lead, bom = 0, False
        if indent >= 4 and cur is None and not in_list:
            # CommonMark's indented code (it cannot interrupt a paragraph): nothing in it is a heading.
            cur = ["code", lead, _trimmed_end(text, s, e), 1]
            indented = True
            continue
        if indent < 4:
            m = _FENCE.match(line)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                flush()
                fence = m.group(1)
                in_list = in_list and indent > 0
                cur = ["code", lead, _trimmed_end(text, s, e), 1]
                continue
            m = _HTML_START.match(line) if stripped[0] == "<" else None
            if m and (m.lastindex != 7 or cur is None):
                flush()
                in_list = in_list and indent > 0
                cur = ["html", lead, _trimmed_end(text, s, e), 1]
                if m.lastindex is not None and m.lastindex <= 5:
                    end_of = _HTML_END[m.lastindex - 1]
                    if end_of.search(line, m.end() - (m.lastindex == 4)):
                        flush()  # it ends on the line it starts
                    else:
                        html_end = end_of
                else:
                    html_blank = True
                continue
        m = _ATX.match(line)
        if m:
            flush()
            in_list = False
            last_atx = len(m.group(1))
            out.append(Block(lead, _trimmed_end(text, s, e), "heading", last_atx, (m.group(2) or "").strip()))
            continue
        if (
            cur is not None
            and cur[0] == "text"
            and cur[3] == 1
            and _SETEXT.match(line)
            and not _LIST_ITEM.match(text[cur[1] : cur[2]])
        ):
            title = text[cur[1] : cur[2]].strip().lstrip("\ufeff")
            level = 1 if stripped[0] == "=" else 2
            out.append(Block(cur[1], _trimmed_end(text, s, e), "heading", level, title))
            last_atx = level
            cur = None
            continue
        if cur is None and indent < 4 and is_caps_heading(stripped):
            in_list = False
            out.append(Block(lead, _trimmed_end(text, s, e), "heading", last_atx + 1 if last_atx else 1, stripped))
            continue
        # A table starts at a line of pipes, or at a header line (GFM's: it may interrupt a
        # paragraph), and goes on while its lines hold a pipe (body rows need no leading one).
        is_table = "|" in line and (
            stripped.startswith("|")
            or (cur is not None and cur[0] == "table")
            or ((cur is None or cur[0] == "text") and is_header(line, _line_at(text, e)))
        )
        if cur is not None and (cur[0] == "table") != is_table:
            flush()
        if cur is None:
            if _LIST_ITEM.match(line):
                in_list = True
            elif indent == 0:
                in_list = False
            cur = ["table" if is_table else "text", lead, s, 0]
        cur[2] = _trimmed_end(text, s, e)
        cur[3] += 1
    flush()
    if bom:  # nothing but the mark
        out.append(Block(0, 1, "text"))
    yield from out


def _table_in(text: str, b: Block) -> Table | None:
    """The table a table block holds, from its header line to its end: the first one
    `find_tables` sees in the block (a block of pipe lines with no delimiter row has none)."""
    found = find_tables(text, b.start, b.end)
    return found[0]._replace(end=b.end) if found else None


def _line_at(text: str, start: int) -> str:
    """The line that starts at `start`, without its line break ('' past the end)."""
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)].rstrip("\r")


def _lone_fences_joined(found: Iterator[Block], fences: Fences | None) -> Iterator[Block]:
    """`found` with a block that is one fence line (a code block opened at the end of the text
    and never closed) joined to the block before it, unless that is a heading (which the
    fence then follows as its body)."""
    if fences is None:
        yield from found
        return
    held: Block | None = None
    for b in found:
        if held is not None and held.kind != "heading" and fences.line(b.start, b.end) is not None:
            held = held._replace(end=b.end)
            continue
        if held is not None:
            yield held
        held = b
    if held is not None:
        yield held


def split(text: str, *, size: int, overlap: int, measure: Measure, breaks: tuple[str, ...] = ()) -> Spans:
    """
    >>> from chunker import chunk
    >>> res = chunk("# Guide\\n\\n## Install\\n\\nRun it.\\n\\n## Use\\n\\nCall it.", strategy="markdown", size=100)
    >>> [(c.text, c.headings) for c in res]
    [('# Guide\\n\\n## Install\\n\\nRun it.', ('Guide', 'Install')), ('## Use\\n\\nCall it.', ('Guide', 'Use'))]
    """
    fences = Fences.of(text)
    kind = position_kind(len(text))
    raw = Leaves(kind)
    is_heading = bytearray()  # a byte for each piece of raw
    heads: list[Block] = []
    splits: list[Split] = []  # tables split between their rows
    # Where the walls around a split table's parts start, and which pieces follow such a
    # table: those walls keep overlap out of the parts, but min_size may merge a small part.
    part_walls: set[int] = set()
    after_tables: list[int] = []
    table_pieces: set[int] = set()  # raw indices of a split table's parts: never cut again
    run_start = -1  # where the run of headings just before this block starts (-1: none)
    for b in _lone_fences_joined(iter_blocks(text), fences):
        n0 = len(raw)
        if b.kind == "heading":
            if not (is_heading and is_heading[-1]):
                raw.walls.add(n0)  # a new section (consecutive headings share one)
            raw.add(b.start, b.end)
        elif (
            b.kind == "table"
            and (measure.over(b.start, b.end, size) or (run_start >= 0 and measure.over(run_start, b.end, size)))
            and (table := _table_in(text, b)) is not None
        ):
            # Too long, or too long with the headings that will be glued before it: split
            # between rows, the first part within what those headings leave.
            first = size - measure.count(run_start, b.start) if run_start >= 0 else size
            if first * 4 < size:
                first = size  # headings that leave too little: they stand alone before the table
            raw.hard.add(n0)
            splits.append(split_table(text, b.start, b.end, table, size=size, measure=measure, leaves=raw, first=first))
            raw.hard.add(len(raw))
            table_pieces.update(range(n0, len(raw)))
            part_walls.update(raw.starts[k] for k in range(n0 + 1, len(raw)))
            after_tables.append(len(raw))
        elif not measure.over(b.start, b.end, size):
            raw.add(b.start, b.end)
        else:
            raw.hard.add(n0)
            levels = _TEXT_LEVELS if b.kind == "text" else _BLOCK_LEVELS
            cascade(
                text,
                b.start,
                b.end,
                1 if b.kind == "text" else 0,
                measure=measure,
                size=size,
                leaves=raw,
                levels=levels,
                fences=fences,
            )
            raw.hard.add(len(raw))
        if b.kind == "heading":
            heads.append(b)
            run_start = b.start if run_start < 0 else run_start
        else:
            run_start = -1
        is_heading.extend((b"\x01" if b.kind == "heading" else b"\x00") * (len(raw) - n0))

    # Glue each run of headings to the piece after it, so a heading never ends a chunk. A run
    # too long to fit with its body (a table of contents) keeps only the trailing headings
    # that fit; the others are empty sections and stand alone.
    leaves = Leaves(kind)
    pending: list[int] = []  # raw indices of a run of headings waiting for its body

    def add(k: int, start: int, wall: bool) -> None:
        n = len(leaves)
        if wall:
            leaves.walls.add(n)
        elif k in raw.hard:
            leaves.hard.add(n)
        leaves.add(start, raw.ends[k], raw.cut[k])

    def glue(k: int, start: int, wall: bool) -> None:
        # Headings (from `start`) plus body piece k. Too big together: cut the piece again with
        # what the headings leave, as the glued chunk counts (its own count has the last word).
        s, e = raw.span(k)
        if not measure.over(start, e, size):
            add(k, start, wall)
            return
        budget = size - measure.count(start, s) if k not in table_pieces else 0  # rows are not cut again
        while budget > 0:
            sub = Leaves(kind)
            cascade(text, s, e, 0, measure=measure, size=budget, leaves=sub, levels=_GLUE_LEVELS, fences=fences)
            if not measure.over(start, sub.ends[0], size):
                for idx, (a, b) in enumerate(zip(sub.starts, sub.ends)):
                    n = len(leaves)
                    if idx == 0:
                        if wall:
                            leaves.walls.add(n)
                        leaves.add(start, b, sub.cut[0] or raw.cut[k])
                    else:
                        if idx in sub.hard:
                            leaves.hard.add(n)
                        leaves.add(a, b, sub.cut[idx] or raw.cut[k])
                return
            budget -= 1
        # The headings fill the size on their own: they stand alone, and the body follows.
        if wall:
            leaves.walls.add(len(leaves))
        leaves.add(start, raw.ends[k - 1])
        add(k, s, False)

    for k, (s, e) in enumerate(zip(raw.starts, raw.ends)):
        if is_heading[k]:
            pending.append(k)
            continue
        if not pending:
            add(k, s, k in raw.walls)
            continue
        keep = len(pending) - 1
        while keep > 0 and not measure.over(raw.starts[pending[keep - 1]], e, size):
            keep -= 1
        for h in pending[:keep]:
            add(h, raw.starts[h], h in raw.walls)
        glue(k, raw.starts[pending[keep]], keep > 0 or pending[0] in raw.walls)
        pending = []
    if pending:  # the document ends with headings and no body
        for h in pending:
            add(h, raw.starts[h], h in raw.walls)

    firsts, lasts = pack_columns(
        leaves.starts, leaves.ends, size=size, overlap=overlap, measure=measure, hard=leaves.hard, walls=leaves.walls
    )

    # Heading path in force at each chunk's end: every heading before it, by level.
    paths: list[tuple[str, ...]] = []
    stack: list[tuple[int, str]] = []
    for head in heads:
        while stack and stack[-1][0] >= head.level:
            stack.pop()
        stack.append((head.level, head.title))
        paths.append(tuple(t for _, t in stack))
    head_starts = [h.start for h in heads]
    starts = array(kind, map(leaves.starts.__getitem__, firsts))
    ends = array(kind, map(leaves.ends.__getitem__, lasts))
    find = leaves.cut.find
    cut = bytearray(find(1, i, j + 1) >= 0 for i, j in zip(firsts, lasts))
    headings = [paths[h] if h >= 0 else () for h in (bisect.bisect_left(head_starts, e) - 1 for e in ends)]
    # Where each section's first chunk starts: min_size never merges across one (nor across
    # the walls around a table's parts, which are no section's).
    part_walls.update(raw.starts[k] for k in after_tables if k < len(raw) and not is_heading[k])
    walls = array(kind, [leaves.starts[i] for i in firsts if i in leaves.walls and leaves.starts[i] not in part_walls])
    return annotate(text, splits, Spans(starts, ends, cut, headings, walls))
