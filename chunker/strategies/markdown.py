"""Strategy `markdown`: heading-aware sections with a size cap (seed 004's "semantic").

A section starts at an ATX heading (``## Title``), a setext heading, or a short ALL-CAPS line.
Sections never share a chunk or overlap. Inside a section, blocks (paragraphs, lists, fenced
code, tables, front matter) are packed up to `size`; code and tables are cut only when one
alone exceeds `size`, and then by the recursive cascade (lines, words, characters), as is an
oversized paragraph (lines, sentences, words, characters). A heading is glued to what follows
it, so it never ends a chunk, unless the heading alone leaves no room for any of its body: then
it stands alone (flagged orphan_heading, and oversize when it is over by itself: a heading is
never cut). Each chunk carries the heading path it sits under.
"""

from __future__ import annotations

import bisect
import re
from array import array
from typing import NamedTuple

from .._measure import Measure
from .._text import is_caps_heading, position_kind
from ._pack import Leaves, Spans, cascade, pack_columns

_LINES = re.compile(r"[^\n]*\n|[^\n]+")
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"[ \t]{0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*\Z")
_SETEXT = re.compile(r"[ \t]{0,3}(=+|-+)[ \t]*\Z")
_TABLE_DELIM = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\Z")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")

_TEXT_LEVELS = ("paragraph", "line", "sentence", "word", "char")
_BLOCK_LEVELS = ("line", "word", "char")
_GLUE_LEVELS = ("line", "sentence", "word", "char")


class Block(NamedTuple):
    start: int
    end: int
    kind: str  # heading | text | code | table
    level: int = 0
    title: str = ""


def _trimmed_end(text: str, start: int, end: int) -> int:
    return start + len(text[start:end].rstrip())


def blocks(text: str) -> list[Block]:
    """Markdown blocks in document order, each a trimmed span.

    >>> [b.kind for b in blocks("# T\\n\\nSome text.\\n\\n```\\ncode\\n\\nmore\\n```\\n|a|b|\\n|-|-|")]
    ['heading', 'text', 'code', 'table']
    """
    lines = [m.span() for m in _LINES.finditer(text)]
    out: list[Block] = []
    cur = None  # [kind, start, end, nlines]
    fence = ""
    last_atx = 0

    def flush() -> None:
        nonlocal cur
        if cur is not None:
            out.append(Block(cur[1], cur[2], cur[0]))
            cur = None

    i = 0
    # YAML front matter: a leading '---' line up to the next '---' or '...' line is one block.
    first = text[lines[0][0]:lines[0][1]].strip().lstrip("\ufeff") if lines else ""
    if first == "---":
        for k in range(1, len(lines)):
            if text[lines[k][0]:lines[k][1]].strip() in ("---", "..."):
                s0 = len(text) - len(text.lstrip())
                out.append(Block(s0, _trimmed_end(text, lines[k][0], lines[k][1]), "code"))
                i = k + 1
                break
    while i < len(lines):
        s, e = lines[i]
        line = text[s:e].rstrip("\r\n")
        stripped = line.strip()
        i += 1
        if fence:
            cur[2] = _trimmed_end(text, s, e) if stripped else cur[2]
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                fence = ""
                flush()
            continue
        if not stripped:
            flush()
            continue
        m = _FENCE.match(line)
        if m:
            flush()
            fence = m.group(1)
            cur = ["code", s + len(line) - len(line.lstrip()), _trimmed_end(text, s, e), 1]
            continue
        m = _ATX.match(line)
        if m:
            flush()
            last_atx = len(m.group(1))
            lead = s + len(line) - len(line.lstrip())
            out.append(Block(lead, _trimmed_end(text, s, e), "heading", last_atx, (m.group(2) or "").strip()))
            continue
        if (cur is not None and cur[0] == "text" and cur[3] == 1 and _SETEXT.match(line)
                and not _LIST_ITEM.match(text[cur[1]:cur[2]])):
            title = text[cur[1]:cur[2]].strip()
            level = 1 if stripped[0] == "=" else 2
            out.append(Block(cur[1], _trimmed_end(text, s, e), "heading", level, title))
            last_atx = level
            cur = None
            continue
        if cur is None and is_caps_heading(stripped):
            lead = s + len(line) - len(line.lstrip())
            out.append(Block(lead, _trimmed_end(text, s, e), "heading", last_atx + 1 if last_atx else 1, stripped))
            continue
        next_line = text[lines[i][0]:lines[i][1]] if i < len(lines) else ""
        is_table = "|" in line and (
            stripped.startswith("|") or (cur is None and _TABLE_DELIM.match(next_line.rstrip("\r\n")) is not None))
        if cur is not None and (cur[0] == "table") != is_table:
            flush()
        if cur is None:
            cur = ["table" if is_table else "text", s + len(line) - len(line.lstrip()), s, 0]
        cur[2] = _trimmed_end(text, s, e)
        cur[3] += 1
    flush()
    return out


def split(text: str, *, size: int, overlap: int, measure: Measure,
          breaks: tuple[str, ...] = ()) -> Spans:
    """
    >>> from chunker import chunk
    >>> res = chunk("# Guide\\n\\n## Install\\n\\nRun it.\\n\\n## Use\\n\\nCall it.", strategy="markdown", size=100)
    >>> [(c.text, c.headings) for c in res]
    [('# Guide\\n\\n## Install\\n\\nRun it.', ('Guide', 'Install')), ('## Use\\n\\nCall it.', ('Guide', 'Use'))]
    """
    found = blocks(text)
    kind = position_kind(len(text))
    raw = Leaves(kind)
    is_heading: list[bool] = []
    for b in found:
        n0 = len(raw)
        if b.kind == "heading":
            if not (is_heading and is_heading[-1]):
                raw.walls.add(n0)  # a new section (consecutive headings share one)
            raw.add(b.start, b.end)
        elif not measure.over(b.start, b.end, size):
            raw.add(b.start, b.end)
        else:
            raw.hard.add(n0)
            levels = _TEXT_LEVELS if b.kind == "text" else _BLOCK_LEVELS
            cascade(text, b.start, b.end, 1 if b.kind == "text" else 0, measure=measure,
                    size=size, leaves=raw, levels=levels)
            raw.hard.add(len(raw))
        is_heading.extend([b.kind == "heading"] * (len(raw) - n0))

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
        budget = size - measure.count(start, s)
        while budget > 0:
            sub = Leaves(kind)
            cascade(text, s, e, 0, measure=measure, size=budget, leaves=sub, levels=_GLUE_LEVELS)
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

    firsts, lasts = pack_columns(leaves.starts, leaves.ends, size=size, overlap=overlap, measure=measure,
                                 hard=leaves.hard, walls=leaves.walls)

    # Heading path in force at each chunk's end: every heading before it, by level.
    heads = [b for b in found if b.kind == "heading"]
    paths: list[tuple[str, ...]] = []
    stack: list[tuple[int, str]] = []
    for h in heads:
        while stack and stack[-1][0] >= h.level:
            stack.pop()
        stack.append((h.level, h.title))
        paths.append(tuple(t for _, t in stack))
    head_starts = [h.start for h in heads]
    starts = array(kind, map(leaves.starts.__getitem__, firsts))
    ends = array(kind, map(leaves.ends.__getitem__, lasts))
    find = leaves.cut.find
    cut = bytearray(find(1, i, j + 1) >= 0 for i, j in zip(firsts, lasts))
    headings = [paths[h] if h >= 0 else () for h in (bisect.bisect_left(head_starts, e) - 1 for e in ends)]
    return Spans(starts, ends, cut, headings)
