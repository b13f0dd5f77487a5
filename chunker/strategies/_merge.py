"""The `min_size` setting: chunks smaller than it merged into a neighbour.

Applied to any strategy's chunks, after the strategy: a chunk under `min_size` joins the chunk
before it, or else the one after it, when the two together still fit the size and no section
starts between them (`Spans.walls`: a markdown heading, a page). A merged chunk is the span
from the first one's start to the second one's end, so offsets stay exact and the overlap
with the chunks around it stays what it was; it keeps the first one's context (`Span.context`,
what the embedder reads before its text), and the two must fit the size with it. What cannot merge stays as it is (the records
flag it `tiny`).
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Sequence

from ..tokens._measure import Measure
from ._spans import Spans, context_cost

__all__ = ["merge_small"]


def merge_small(spans: Spans, *, size: int, min_size: int, measure: Measure) -> Spans:
    """`spans` with each chunk under `min_size` merged into a neighbour that can take it.

    >>> from chunker.tokens._measure import CharMeasure
    >>> text = "aaaa bb cccc"
    >>> sp = Spans.of([(0, 4), (5, 7), (8, 12)])
    >>> list(merge_small(sp, size=7, min_size=3, measure=CharMeasure(text)).ends)
    [7, 12]
    """
    n = len(spans)
    if n < 2 or min_size <= 0:
        return spans
    # The count a record's size is judged by: exact tokens count the chunk on its own.
    count = getattr(measure, "exact", measure.count)
    walls: Sequence[int] = spans.walls or ()
    starts, ends = spans.starts, spans.ends
    cut = spans.cut
    headings = spans.headings
    context = spans.context
    flags = spans.flags
    kind = starts.typecode
    out_starts, out_ends = array(kind), array(kind)
    out_cut = bytearray()
    out_headings: list[tuple[str, ...]] = []
    out_context: list[str] = []
    out_flags: list[tuple[str, ...]] = []
    held = 0  # what the last chunk out's context costs in the unit
    small = False  # the last chunk out is under min_size
    for k in range(n):
        a, b = starts[k], ends[k]
        mine = count(a, b) < min_size
        if out_starts and (small or mine):
            pa = out_starts[-1]
            w = bisect.bisect_right(walls, pa)
            walled = w < len(walls) and walls[w] <= a
            if not walled and not measure.over(pa, b, size - held):
                out_ends[-1] = b
                out_cut[-1] |= bool(cut[k]) if cut is not None else False
                out_headings[-1] = _common(out_headings[-1], headings[k] if headings is not None else ())
                if flags is not None and flags[k]:
                    out_flags[-1] = _joined(out_flags[-1], flags[k])
                small = count(pa, b) < min_size
                continue
        out_starts.append(a)
        out_ends.append(b)
        out_cut.append(bool(cut[k]) if cut is not None else False)
        out_headings.append(headings[k] if headings is not None else ())
        own = context[k] if context is not None else ""
        out_context.append(own)
        out_flags.append(flags[k] if flags is not None else ())
        held = context_cost(own, measure)
        small = mine
    if len(out_starts) == n:
        return spans
    return Spans(out_starts, out_ends, out_cut, out_headings, spans.walls, out_context, out_flags)


# Flags that go with a chunk's start and its context: a merged chunk has the first one's.
_OF_THE_START = frozenset({"table_continued"})


def _joined(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    """The strategy's flags of a merged chunk: the first one's, then the second one's others."""
    return first + tuple(f for f in second if f not in first and f not in _OF_THE_START)


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    """The heading path both chunks lie in (the same for chunks of one section)."""
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return a[:n]
