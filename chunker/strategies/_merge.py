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

from ..text._segments import count_words
from ..tokens._measure import Measure
from ._spans import Spans

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
    kind = starts.typecode
    out_starts, out_ends = array(kind), array(kind)
    out_cut = bytearray()
    out_headings: list[tuple[str, ...]] = []
    out_context: list[str] = []
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
                small = count(pa, b) < min_size
                continue
        out_starts.append(a)
        out_ends.append(b)
        out_cut.append(bool(cut[k]) if cut is not None else False)
        out_headings.append(headings[k] if headings is not None else ())
        own = context[k] if context is not None else ""
        out_context.append(own)
        held = _cost(own, measure) if own else 0
        small = mine
    if len(out_starts) == n:
        return spans
    return Spans(out_starts, out_ends, out_cut, out_headings, spans.walls, out_context)


def _cost(context: str, measure: Measure) -> int:
    """What a strategy's context adds to a chunk in the measure's unit (its own count, less a
    tokenizer's special tokens, which the chunk's count holds already)."""
    if measure.unit == "chars":
        return len(context)
    if measure.unit == "words":
        return count_words(context)
    tokenizer = getattr(measure, "tokenizer", None)
    if tokenizer is None:
        return len(context)
    return max(0, int(tokenizer.count(context)) - int(getattr(tokenizer, "specials", 0)))


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    """The heading path both chunks lie in (the same for chunks of one section)."""
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return a[:n]
