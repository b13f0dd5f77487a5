"""The document view: the text with every chunk's span tinted and overlaps striped.

Built in the worker as HTML, in parts: a megabyte is never parsed or sent in one go. The view
needs no UTF-16 conversion: it is built from Python slices of the document.

>>> for part in document_html("ab cd", [(0, 2), (1, 5)]).split("</span>")[:-1]:
...     print(part + "</span>")
<span class="s t0" data-c="0" id="chunk-0" data-n="0">a</span>
<span class="s o t0 u1 b1" data-c="0 1" id="chunk-1" data-n="1">b</span>
<span class="s t1" data-c="1"> cd</span>
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .html import esc

__all__ = ["PALETTE", "sweep", "slice_ends", "document_html", "document_parts", "count_parts", "iter_document_parts"]

PALETTE = 6
"""Number of tints; neighbouring chunks always get different ones (index modulo PALETTE)."""

SLICE = 2000
"""Characters per block of a long document view (cut at the next line end after this many).

Each block is a ``<div class="slice">`` that the stylesheet renders with ``content-visibility:
auto``: the browser lays out only the blocks near the visible part of the view, so a megabyte
of text costs the layout of a screenful. Cutting just after a newline keeps the text's lines
exactly as one flow would break them."""

DOC_PART = 50_000
"""Characters of the document per part of its view. The first part comes with the view, the
others follow one by one (worker.more_doc), so a megabyte is never parsed or sent in one go,
and the main thread parses each part in a task short enough not to hold up a frame."""

DOC_FIRST = 6_000
"""Characters in the first part: a screenful and more, so the view on screen is complete at
once (every character sent with the view is HTML parsed before it shows) and the rest of the
text follows in the next frames."""


def sweep(spans: Sequence[tuple[int, int]], length: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """Cut ``[0, length)`` into segments, each with the chunks covering it (in index order).

    Chunk starts and ends become sorted boundary events, swept once: overlapping chunks need no
    pairwise comparison, and gaps (text in no chunk) come out with an empty tuple.

    >>> sweep([(0, 4), (2, 6)], 8)
    [(0, 2, (0,)), (2, 4, (0, 1)), (4, 6, (1,)), (6, 8, ())]
    """
    events: list[tuple[int, int, int]] = []
    for i, (start, end) in enumerate(spans):
        if end > start:
            events.append((start, 1, i))
            events.append((end, 0, i))  # 0 sorts first: a chunk ends before the next starts
    events.sort()
    segments: list[tuple[int, int, tuple[int, ...]]] = []
    active: list[int] = []
    pos = 0
    k = 0
    while k < len(events):
        at = events[k][0]
        if at > pos:
            segments.append((pos, at, tuple(active)))
            pos = at
        while k < len(events) and events[k][0] == at:
            _, kind, i = events[k]
            if kind:
                active.append(i)
                active.sort()
            else:
                active.remove(i)
            k += 1
    if length > pos:
        segments.append((pos, length, tuple(active)))
    return segments


def slice_ends(text: str, every: int = SLICE) -> list[int]:
    r"""Where the view's blocks end: just after the first newline at least ``every`` characters
    into each block, then the end of the text. A text with no newline stays one block.

    >>> slice_ends("aaa\nbb\ncc\ndd", 4)
    [4, 10, 12]
    """
    ends: list[int] = []
    pos = 0
    while len(text) - pos > every:
        cut = text.find("\n", pos + every - 1)
        if cut < 0 or cut + 1 >= len(text):
            break
        pos = cut + 1
        ends.append(pos)
    ends.append(len(text))
    return ends


def document_html(text: str, spans: Sequence[tuple[int, int]], every: int = SLICE) -> str:
    r"""The document with each chunk's span tinted and overlaps striped.

    A segment covered by one chunk is ``<span class="s tN" data-c="i">``; by several, it is
    also ``o`` (striped between the first two chunks' tints, ``tN uM``) with ``data-c="i j"``.
    The segment where chunk i starts carries ``id="chunk-i"`` (the scroll target) and
    ``data-n`` (its number, drawn by CSS so it never enters the text). Text in no chunk is
    left bare.

    A text longer than ``every`` characters is cut into ``<div class="slice">`` blocks at line
    ends (see :data:`SLICE`); a segment crossing a cut becomes two spans with the same chunks,
    and only the first carries the id.

    >>> print(document_html("ab\ncd", [(0, 5)], every=2))
    <div class="slice"><span class="s t0" data-c="0" id="chunk-0" data-n="0">ab
    </span></div><div class="slice"><span class="s t0" data-c="0">cd</span></div>
    """
    return "".join(document_parts(text, spans, every))


def document_parts(
    text: str, spans: Sequence[tuple[int, int]], every: int = SLICE, part: int = DOC_PART, first: int = DOC_FIRST
) -> list[str]:
    r""":func:`document_html` as consecutive pieces of whole blocks, the first covering at least
    ``first`` characters of text, the others ``part`` (the last one may hold fewer). Joined,
    they are the whole view; there are :func:`count_parts` of them.

    >>> document_parts("ab\ncd\nef", [(0, 8)], every=2, part=2, first=2)[1]
    '<div class="slice"><span class="s t0" data-c="0">cd\n</span></div>'
    """
    return list(iter_document_parts(text, spans, every, part, first))


def count_parts(text: str, every: int = SLICE, part: int = DOC_PART, first: int = DOC_FIRST) -> int:
    r"""How many parts :func:`document_parts` makes of ``text`` (it depends on the text alone).

    >>> count_parts("ab\ncd\nef", every=2, part=2, first=2)
    3
    """
    count, part_start = 1, 0
    for b in slice_ends(text, every)[:-1]:
        if b - part_start >= (part if count > 1 else first):
            count += 1
            part_start = b
    return count


def iter_document_parts(
    text: str, spans: Sequence[tuple[int, int]], every: int = SLICE, part: int = DOC_PART, first: int = DOC_FIRST
) -> Iterator[str]:
    """:func:`document_parts`, built as they are asked for: the worker sends the first part at
    once and builds the others only when the page asks for them."""
    starts = {start: i for i, (start, end) in reversed(list(enumerate(spans))) if end > start}
    ends = slice_ends(text, every)
    sliced = len(ends) > 1
    made = 0
    out: list[str] = ['<div class="slice">'] if sliced else []
    k = 0  # the block being written: it ends at ends[k]
    part_start = 0
    for seg_a, seg_b, active in sweep(spans, len(text)):
        a = seg_a
        while a < seg_b:
            b = min(seg_b, ends[k])
            piece = esc(text[a:b])
            if not active:
                out.append(piece)
            else:
                lead = active[0]
                if len(active) == 1:
                    cls = f"s t{lead % PALETTE}"
                else:
                    cls = f"s o t{lead % PALETTE} u{active[1] % PALETTE}"
                n = starts.get(a)
                if n is not None and n != lead and n in active:
                    # The chunk starts inside its predecessor's overlap: the segment wears the
                    # predecessor's tint, the number badge its own chunk's (class bN).
                    cls += f" b{n % PALETTE}"
                attrs = f'class="{cls}" data-c="{" ".join(map(str, active))}"'
                if n is not None and n in active:
                    attrs += f' id="chunk-{n}" data-n="{n}"'
                out.append(f"<span {attrs}>{piece}</span>")
            a = b
            if b == ends[k] and k + 1 < len(ends):
                k += 1
                out.append("</div>")
                if b - part_start >= (part if made else first):
                    made += 1
                    yield "".join(out)
                    out = []
                    part_start = b
                out.append('<div class="slice">')
    if sliced:
        out.append("</div>")
    yield "".join(out)
