"""Tables kept by rows: a table longer than the size, split between its rows.

The `markdown` and `recursive` strategies hand every table (chunker/text/_tables.py) that does
not fit the size to `split_table`, and let `annotate` mark the chunks afterwards. The rows are
the pieces: the header rows (the header line and the delimiter row) are one piece, every
other line is one. Parts are packed from them greedily; each part is then one piece to the
packer, with a wall before it (and after the table), so no chunk holds two parts and no
overlap reaches into a part from the one before: a chunk ends inside a row only when that row
was cut.

Every part after the first carries the header rows as its context (`Span.context`, flagged
`table_continued`), and the context counts against the size: such a part's rows fit what
the header leaves of the size, checked again on header and rows together in the tokenizer's
own count (the text the embedder gets). A row that does not fit that room on its own is cut
at words, then characters; the chunks that hold its pieces are flagged `row_cut`. One bound
keeps the cost linear in the table and every part within the size: header rows are repeated
only when they leave the rows at least a quarter of the size (a longer header would make a
part for every few characters of a row, or parts over the size), otherwise the later parts
carry no context.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..text._segments import line_spans
from ..text._tables import Table, header_context, inside_row
from ..tokens._measure import Measure
from ._pack import Leaves, cascade
from ._spans import Spans, context_cost

__all__ = ["Split", "split_table", "annotate"]

_ROW_LEVELS = ("word", "char")


class Split(NamedTuple):
    """A table split into parts: text[start:end] is what was split (the table, with any pipe
    lines before its header), `head_end` where its header rows end, `context` what every part
    after the first carries ("" when the header rows are not repeated)."""

    start: int
    head_end: int
    end: int
    context: str


def _over_with(measure: Measure, context: str, start: int, end: int, size: int) -> bool:
    """Whether context + text[start:end], the text the embedder gets, is over `size`: counted
    whole in tokens (a tokenizer may join across the seam), the sum of both in characters and
    words (the context ends with a line break, so no word joins)."""
    if measure.unit in ("chars", "words"):
        return context_cost(context, measure) + measure.count(start, end) > size
    tokenizer = getattr(measure, "tokenizer", None)
    if tokenizer is None:
        return len(context) + measure.count(start, end) > size
    return int(tokenizer.count(context + measure.text[start:end])) > size


def split_table(
    text: str, start: int, end: int, table: Table, *, size: int, measure: Measure, leaves: Leaves, first: int | None = None
) -> Split:
    """Append the parts of text[start:end], which holds `table` from its header to its end, to
    `leaves` (see the module docstring); the split, for `annotate`. `first` is the room for
    the first part (the size, unless headings will be glued before it)."""
    context = header_context(text, table)
    cost = context_cost(context, measure)
    # The header is repeated only where it leaves its rows a quarter of the size: a longer
    # one would make a part for every few characters of a row, or parts over the size.
    most = size - max(size // 4, 1)
    if cost > most or measure.over(table.start, table.head_end, most):
        context, cost = "", 0
    room = size - cost if context else size
    head_end = table.head_end

    # The pieces: rows, the header rows as one, a row too long for its room cut at words.
    kind = leaves.starts.typecode
    starts, ends = array(kind), array(kind)
    for a, b in line_spans(text, start, end):
        if context and table.start <= a and b <= head_end and len(starts) and starts[-1] >= table.start:
            ends[-1] = b  # the delimiter row joins the header line
            continue
        budget = room if a >= head_end else size
        if measure.over(a, b, budget):
            sub = Leaves(kind)
            cascade(text, a, b, 0, measure=measure, size=budget, leaves=sub, levels=_ROW_LEVELS)
            starts.extend(sub.starts)
            ends.extend(sub.ends)
        else:
            starts.append(a)
            ends.append(b)

    # The parts: pieces packed greedily, the first part to the size, the others to the room
    # the header leaves, then checked whole with the header by the exact count.
    tokens = context and measure.unit == "tokens"
    over = measure.over
    n = len(starts)
    i = 0
    while i < n:
        ps = starts[i]
        later = bool(context) and ps >= head_end
        budget = room if later else size if i or first is None else first
        j = _furthest(over, ps, ends, i, n, budget)
        if tokens and later:
            while j > i and _over_with(measure, context, ps, ends[j], size):
                j -= 1
        k = len(leaves)
        leaves.hard.add(k)
        if i:
            leaves.walls.add(k)  # no overlap from the part before: it would come without its room
        leaves.add(ps, ends[j])
        i = j + 1
    leaves.walls.add(len(leaves))  # nor from the last part into the text after the table
    return Split(start, head_end, end, context)


def _furthest(over: Callable[[int, int, int], bool], start: int, ends: Sequence[int], i: int, n: int, budget: int) -> int:
    """The last piece j >= i such that text[start:ends[j]] fits `budget` (i at least). A count
    never falls as a span grows, so the pieces that fit are a prefix: step out from i, doubling
    the step, then halve the gap (a few counts a part, not one a row)."""
    lo, step = i, 1  # lo fits (or is i)
    hi = n  # every piece from hi is over
    while lo + step < hi:
        if over(start, ends[lo + step], budget):
            hi = lo + step
            break
        lo, step = lo + step, step * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if over(start, ends[mid], budget):
            hi = mid
        else:
            lo = mid
    return lo


def annotate(text: str, splits: list[Split], spans: Spans) -> Spans:
    """`spans` with each chunk that continues a split table given its header rows as context
    (flagged table_continued), and each chunk that starts or ends inside a row flagged
    row_cut. Only the chunks that touch a split are looked at (starts and ends ascend)."""
    if not splits:
        return spans
    n = len(spans.starts)
    starts, ends = spans.starts, spans.ends
    contexts = list(spans.context) if spans.context is not None else [""] * n
    flags: list[tuple[str, ...]] = list(spans.flags) if spans.flags is not None else [()] * n
    for s in splits:
        # The chunks that end after the split starts and start before it ends.
        for k in range(bisect.bisect_right(ends, s.start), bisect.bisect_left(starts, s.end)):
            a, b = starts[k], ends[k]
            found: list[str] = []
            if s.context and s.head_end <= a < s.end:
                contexts[k] += s.context
                found.append("table_continued")
            if inside_row(text, a, s.start, s.end) or inside_row(text, b, s.start, s.end):
                found.append("row_cut")
            if found:
                flags[k] = flags[k] + tuple(f for f in found if f not in flags[k])
    return Spans(starts, ends, spans.cut, spans.headings, spans.walls, contexts, flags)
