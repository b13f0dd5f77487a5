"""The machinery the structure-aware strategies share: the cascade that splits an oversized
span into pieces that fit, and the packer that merges pieces into chunks with overlap.

Pieces and chunks are held as columns (arrays of positions, see `Spans`): a character cascade
over a megabyte makes a million pieces.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable, Collection, Iterable, Sequence
from itertools import compress, repeat
from operator import sub

from ..text._segments import (  # noqa: F401 - paragraph_spans, for a doctest
    Fences,
    line_spans,
    paragraph_columns,
    paragraph_spans,
    position_kind,
    word_spans,
)
from ..tokens._measure import CharMeasure, Measure
from ._spans import Marks, Span, Spans

__all__ = ["Span", "Spans", "Leaves", "pack", "pack_columns", "cascade", "LEVELS", "spans_from_pack"]


LEVELS = ("paragraph", "line", "sentence", "clause", "word", "char")


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    from ..text._sentences import sentence_spans

    return sentence_spans(text, start, end)


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    from ..text._sentences import clause_spans

    return clause_spans(text, start, end)


# The levels below the paragraph (`paragraph_columns` finds paragraphs).
SEGMENTERS: dict[str, Callable[[str, int, int], list[tuple[int, int]]]] = {
    "line": line_spans,
    "sentence": _sentences,
    "clause": _clauses,
    "word": word_spans,
}


class Leaves:
    """Pieces in document order, with the boundaries the packer must respect.

    `hard` holds indices of pieces that must start a new chunk (overlap may still reach back
    across); `walls` holds indices that nothing crosses, not even overlap (markdown sections).
    Pieces are columns: `starts`, `ends` and a `cut` byte each.
    """

    def __init__(self, kind: str = "q") -> None:
        self.starts: array[int] = array(kind)
        self.ends: array[int] = array(kind)
        self.cut = bytearray()
        self.hard = Marks()
        self.walls = Marks()

    def add(self, start: int, end: int, cut: bool | int = False) -> None:
        self.starts.append(start)
        self.ends.append(end)
        self.cut.append(cut)

    def extend(self, spans: Sequence[tuple[int, int]], cut: bool = False) -> None:
        self.starts.extend([a for a, _ in spans])
        self.ends.extend([b for _, b in spans])
        self.cut.extend(b"\x01" * len(spans) if cut else bytes(len(spans)))

    def span(self, k: int) -> tuple[int, int]:
        return self.starts[k], self.ends[k]

    def __len__(self) -> int:
        return len(self.starts)


def _wrapped_prose(text: str, lines: Sequence[tuple[int, int]]) -> bool:
    """True when most line breaks fall inside sentences (hard-wrapped prose): splitting such a
    paragraph at its line breaks would cut sentences that the sentence level keeps whole."""
    if len(lines) < 2:
        return False
    soft = 0
    for (_, e), (s, _) in zip(lines, lines[1:]):
        last, first = text[e - 1], text[s]
        if (last.isalnum() or last in ",;-") and (first.islower() or first.isdigit()):
            soft += 1
    return soft * 2 > len(lines) - 1


def glue_fences(segments: Sequence[tuple[int, int]], fences: Fences | None) -> list[tuple[int, int]]:
    """`segments` with every piece that is exactly a code fence line joined to a neighbour: an
    opening fence to the piece after it, a closing fence to the piece before it (or the other
    way round at the edge of `segments`). A fence line alone is no chunk to embed.

    >>> text = "Run:\\n\\n```\\nls\\n\\n```\\n\\nDone."
    >>> paragraph_spans(text), glue_fences(paragraph_spans(text), Fences.of(text))
    ([(0, 4), (6, 12), (14, 17), (19, 24)], [(0, 4), (6, 17), (19, 24)])
    """
    if fences is None or not segments or not fences.markers_in(segments[0][0], segments[-1][1]):
        return list(segments)  # most pieces have no fence line among them: one bisection says so
    kind = position_kind(segments[-1][1])
    glued = glue_columns(array(kind, [a for a, _ in segments]), array(kind, [b for _, b in segments]), fences)
    return list(zip(*glued))


def glue_columns(starts: array[int], ends: array[int], fences: Fences | None) -> tuple[array[int], array[int]]:
    """`glue_fences` on pieces held as columns. The fence lines that fall among the pieces are
    looked up (a bisection each), not each piece among the fence lines: a megabyte of Markdown
    holds some 600 fence lines and 9,000 paragraphs.

    >>> text = "Run:\\n\\n```\\nls\\n\\n```\\n\\nDone."
    >>> [list(c) for c in glue_columns(array("q", [0, 6, 14, 19]), array("q", [4, 12, 17, 24]), Fences.of(text))]
    [[0, 6, 19], [4, 17, 24]]
    """
    n = len(starts)
    if fences is None or not n:
        return starts, ends
    lines = fences.lines
    hits = []
    for marker in fences.markers_in(starts[0], ends[-1]):
        k = bisect.bisect_left(starts, marker)
        if k < n and starts[k] == marker and ends[k] == lines[marker][1]:
            hits.append((k, lines[marker][0]))
    if not hits:
        return starts, ends
    kind = starts.typecode
    glued_starts, glued_ends = array(kind), array(kind)
    done = 0  # pieces before this one are placed
    for k, closes in hits:
        if k < done:
            continue  # the piece after an opening fence line, already joined to it
        glued_starts.extend(starts[done:k])
        glued_ends.extend(ends[done:k])
        if closes and glued_starts:  # a closing fence line joins the piece before it
            glued_ends[-1] = ends[k]
            done = k + 1
        elif k + 1 < n:  # any other fence line joins the piece after it
            glued_starts.append(starts[k])
            glued_ends.append(ends[k + 1])
            done = k + 2
        else:  # ... unless it is the last: then the piece before, if any
            if glued_starts:
                glued_ends[-1] = ends[k]
            else:
                glued_starts.append(starts[k])
                glued_ends.append(ends[k])
            done = k + 1
    glued_starts.extend(starts[done:])
    glued_ends.extend(ends[done:])
    return glued_starts, glued_ends


def cascade(
    text: str,
    start: int,
    end: int,
    level: int,
    *,
    measure: Measure,
    size: int,
    leaves: Leaves,
    levels: Sequence[str] = LEVELS,
    split_all_until: int = -1,
    fences: Fences | None = None,
) -> None:
    """Append to `leaves` the pieces of text[start:end] at `levels[level]`, splitting every
    piece that does not fit at the next level down.

    A piece split further is fenced by hard boundaries on both sides, so its parts never merge
    with a neighbour's text: no chunk joins the tail of a split piece to the next piece. Levels
    up to `split_all_until` are split even when they fit: the sentence strategy packs sentences, not paragraphs. A code
    fence line is never a piece of its own (see `glue_fences`; `fences` are the document's).
    A document's paragraphs are held as columns (8 bytes each), never as a list of pairs.
    """
    name = levels[level]
    if name == "char":
        if isinstance(measure, CharMeasure):
            # Windows of exactly `size` characters, made at C speed.
            step = max(1, size)
            firsts = range(start, end, step)
            leaves.starts.extend(firsts)
            leaves.ends.extend(range(start + step, end, step))
            leaves.ends.append(end)
            leaves.cut.extend(b"\x01" * len(firsts))
            return
        pos = start
        # Exact tokens: each piece's own count fits, not just its count within the document.
        cut_at = getattr(measure, "cut", measure.advance)
        while pos < end:
            stop = cut_at(pos, end, size)
            leaves.add(pos, stop, cut=True)
            pos = stop
        return
    segments: Iterable[tuple[int, int]]
    if name == "paragraph":
        starts, ends = glue_columns(*paragraph_columns(text, start, end, leaves.starts.typecode), fences)
        if level >= split_all_until:
            _place_paragraphs(text, starts, ends, level, measure=measure, size=size, leaves=leaves, levels=levels, fences=fences)
            return
        segments = zip(starts, ends)
    else:
        segments = SEGMENTERS[name](text, start, end)
        if name == "line" and _wrapped_prose(text, segments):
            segments = [(start, end)]  # skip the line level for this paragraph
        segments = glue_fences(segments, fences)
    if level < split_all_until:
        # A coarser break than the strategy packs: segment further, no fences.
        for a, b in segments:
            cascade(
                text,
                a,
                b,
                level + 1,
                measure=measure,
                size=size,
                leaves=leaves,
                levels=levels,
                split_all_until=split_all_until,
                fences=fences,
            )
        return
    cut = name == "word"
    starts, ends, cuts, hard = leaves.starts, leaves.ends, leaves.cut, leaves.hard
    over = None if size == 0 or isinstance(measure, CharMeasure) else measure.over
    for a, b in segments:
        if size and (over(a, b, size) if over is not None else b - a > size):
            hard.add(len(starts))
            cascade(
                text,
                a,
                b,
                level + 1,
                measure=measure,
                size=size,
                leaves=leaves,
                levels=levels,
                split_all_until=split_all_until,
                fences=fences,
            )
            hard.add(len(starts))  # whatever comes next starts afresh
        else:
            starts.append(a)
            ends.append(b)
            cuts.append(cut)


def _place_paragraphs(
    text: str,
    starts: array[int],
    ends: array[int],
    level: int,
    *,
    measure: Measure,
    size: int,
    leaves: Leaves,
    levels: Sequence[str],
    fences: Fences | None,
) -> None:
    """`cascade`'s paragraph level, on columns: the paragraphs that fit go to `leaves` in runs,
    as array slices, and only those over `size` take a step of Python (and a cascade of their
    own). A paragraph a time through three generators (the paragraphs, the fence glue, the
    loop) took 5.2 ms for the 9,000 paragraphs of a megabyte of Markdown, this 4.6, where
    LangChain's whole split of it takes about 7.5."""
    n = len(starts)
    if not size:
        over: list[int] = []
    elif isinstance(measure, CharMeasure):
        over = list(compress(range(n), map(size.__lt__, map(sub, ends, starts))))
    else:
        over = list(compress(range(n), map(measure.over, starts, ends, repeat(size, n))))
    to, ends_to, cuts, hard = leaves.starts, leaves.ends, leaves.cut, leaves.hard
    done = 0
    for k in over:
        to.extend(starts[done:k])
        ends_to.extend(ends[done:k])
        cuts.extend(bytes(k - done))
        hard.add(len(to))
        cascade(text, starts[k], ends[k], level + 1, measure=measure, size=size, leaves=leaves, levels=levels, fences=fences)
        hard.add(len(to))  # whatever comes next starts afresh
        done = k + 1
    to.extend(starts[done:])
    ends_to.extend(ends[done:])
    cuts.extend(bytes(n - done))


def pack(
    spans: Sequence[tuple[int, int]],
    *,
    size: int,
    overlap: int,
    measure: Measure,
    hard: Collection[int] | None = None,
    walls: Collection[int] | None = None,
    walk: bool = False,
) -> list[tuple[int, int]]:
    """Greedy packing of pieces into chunks of at most `size`, as (first, last) piece indices.

    The next chunk starts with the longest run of the previous chunk's trailing pieces that
    fits within `overlap` and still leaves room for the first new piece, so overlap is always
    whole pieces and never more than asked. `spans` ascend and do not overlap. Measures with an
    inverse are packed by bisection, the others by galloping; `walk=True` forces the
    piece-by-piece reference. `pack_columns` is the same on columns.
    """
    kind = position_kind(max((e for _, e in spans), default=0))
    firsts, lasts = pack_columns(
        array(kind, [s for s, _ in spans]),
        array(kind, [e for _, e in spans]),
        size=size,
        overlap=overlap,
        measure=measure,
        hard=hard,
        walls=walls,
        walk=walk,
    )
    return list(zip(firsts, lasts))


def pack_columns(
    starts: Sequence[int],
    ends: Sequence[int],
    *,
    size: int,
    overlap: int,
    measure: Measure,
    hard: Collection[int] | None = None,
    walls: Collection[int] | None = None,
    walk: bool = False,
) -> tuple[array[int], array[int]]:
    """`pack` for pieces given as columns; the chunks' first and last pieces as two arrays."""
    walls = Marks.union(walls)
    stops = Marks.union(hard, walls)
    kind = position_kind(len(starts))
    firsts, lasts = array(kind), array(kind)
    if not len(starts):
        return firsts, lasts
    finder = (_Walk if walk else _Bisect if hasattr(measure, "reach") else _Gallop)(starts, ends, measure, stops)
    # Measures whose document counts can differ from a chunk's own count at its edges (exact
    # tokens) have the last word on whether a chunk fits; `over` asks the exact count only
    # when the document count is within a few tokens of the size.
    over = measure.over if hasattr(measure, "exact") else None
    n = len(starts)
    i = first_new = 0
    while True:
        j = _exact_fit(over, starts, ends, i, finder.furthest(i, first_new, size), first_new, size)
        firsts.append(i)
        lasts.append(j)
        nxt = j + 1
        if nxt >= n:
            return firsts, lasts
        k = nxt
        if overlap > 0 and nxt not in walls:
            # Overlap never reaches back across a wall, nor to this chunk's own start.
            floor = max(i + 1, first_new) if first_new in walls else i + 1
            k = _exact_overlap(
                over, starts, ends, finder.earliest(floor, j, overlap, size), nxt, size, overlap + getattr(measure, "specials", 0)
            )
        i, first_new = k, nxt


def _next_stop(stops: Marks, first_new: int, n: int) -> int:
    """The first piece after `first_new` that must start a chunk, or `n`: no chunk that holds
    `first_new` reaches it."""
    items = stops.items
    k = bisect.bisect_right(items, first_new)
    return items[k] if k < len(items) and items[k] < n else n


class _Walk:
    """The reference: walks piece by piece, for measures without an inverse."""

    def __init__(self, starts: Sequence[int], ends: Sequence[int], measure: Measure, stops: Marks) -> None:
        self.starts, self.ends, self.count, self.stops = starts, ends, measure.count, stops

    def furthest(self, i: int, first_new: int, size: int) -> int:
        """The last piece j >= first_new such that pieces i..j fit (first_new at least)."""
        ends, count, stops = self.ends, self.count, self.stops
        start, j = self.starts[i], first_new
        while j + 1 < len(ends) and (j + 1) not in stops and count(start, ends[j + 1]) <= size:
            j += 1
        return j

    def earliest(self, floor: int, j: int, overlap: int, size: int) -> int:
        """The first piece k in floor..j such that k..j fits the overlap and k..j+1 the size;
        j + 1 when there is none."""
        starts, count = self.starts, self.count
        end_prev, end_next = self.ends[j], self.ends[j + 1]
        k = j + 1
        while k - 1 >= floor:
            s = starts[k - 1]
            if count(s, end_prev) > overlap or count(s, end_next) > size:
                break
            k -= 1
        return k


class _Gallop(_Walk):
    """The walk's answers from a few counts, for measures without an inverse (the estimates,
    which re-read a span to count it). A count never falls as a span grows, so the pieces that
    fit are a prefix: aim at the piece where the size should end, at the characters per unit
    seen so far, then step out from there, doubling the step, and halve the gap."""

    def __init__(self, starts: Sequence[int], ends: Sequence[int], measure: Measure, stops: Marks) -> None:
        super().__init__(starts, ends, measure, stops)
        self.chars_per_unit = 4.0  # learnt from every chunk found

    def furthest(self, i: int, first_new: int, size: int) -> int:
        ends, count = self.ends, self.count
        limit = _next_stop(self.stops, first_new, len(ends))
        start = self.starts[i]
        aim = bisect.bisect_right(ends, start + size * self.chars_per_unit, first_new, limit) - 1
        lo, hi = first_new, limit  # lo fits (or is the least answer); every piece from hi is over
        if aim > lo:
            if count(start, ends[aim]) <= size:
                lo = aim
            else:
                hi = aim
                step = 1
                while hi - step > lo:  # step back until a piece fits
                    if count(start, ends[hi - step]) <= size:
                        lo = hi - step
                        break
                    hi, step = hi - step, step * 2
        step = 1
        while lo + step < hi:  # step on while pieces fit
            if count(start, ends[lo + step]) > size:
                hi = lo + step
                break
            lo, step = lo + step, step * 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if count(start, ends[mid]) <= size:
                lo = mid
            else:
                hi = mid
        if size > 0 and ends[lo] > start:
            self.chars_per_unit = max(1.0, (ends[lo] - start) / size)
        return lo

    def earliest(self, floor: int, j: int, overlap: int, size: int) -> int:
        # The walk's two tests apart: the short spans against the overlap first, then the
        # whole next chunk against the size, which usually fits at once.
        starts, count = self.starts, self.count
        end_prev, end_next = self.ends[j], self.ends[j + 1]
        k = j + 1
        while k - 1 >= floor and count(starts[k - 1], end_prev) <= overlap:
            k -= 1
        while k <= j and count(starts[k], end_next) > size:
            k += 1
        return k


class _Bisect:
    """The same answers in O(log n): ends and starts ascend, and the measure can say how far a
    count reaches (`reach`) and from where it reaches back (`back`)."""

    def __init__(self, starts: Sequence[int], ends: Sequence[int], measure: Measure, stops: Marks) -> None:
        self.starts, self.ends, self.stops = starts, ends, stops
        self.reach, self.back = measure.reach, measure.back  # type: ignore[attr-defined]

    def furthest(self, i: int, first_new: int, size: int) -> int:
        ends = self.ends
        limit = _next_stop(self.stops, first_new, len(ends))
        return max(first_new, bisect.bisect_right(ends, self.reach(self.starts[i], size), first_new, limit) - 1)

    def earliest(self, floor: int, j: int, overlap: int, size: int) -> int:
        if floor > j:
            return j + 1
        earliest = max(self.back(self.ends[j], overlap), self.back(self.ends[j + 1], size))
        return bisect.bisect_left(self.starts, earliest, floor, j + 1)


Over = Callable[[int, int, int], bool] | None
"""A measure's exact test, whether a span's own count passes a number (None: no such test)."""


def _exact_fit(over: Over, starts: Sequence[int], ends: Sequence[int], i: int, j: int, floor: int, size: int) -> int:
    """Step `j` back (not below `floor`) until the chunk i..j fits by the exact count.

    Span counts from the document's encoding can differ from the chunk's own encoding by a
    token or two at its edges; the chunk is what gets embedded, so it has the last word.
    """
    if over is None:
        return j
    start = starts[i]
    while j > floor and over(start, ends[j], size):
        j -= 1
    return j


def _exact_overlap(over: Over, starts: Sequence[int], ends: Sequence[int], k: int, nxt: int, size: int, overlap: int) -> int:
    """Drop leading overlap pieces until the overlap fits `overlap` and the overlap with the
    first new piece fits `size`, both by the exact count: the text a chunk repeats is counted
    as its own text is (`overlap` holds the special tokens that count adds to any text)."""
    if over is None:
        return k
    end_prev, end = ends[nxt - 1], ends[nxt]
    while k < nxt and (over(starts[k], end_prev, overlap) or over(starts[k], end, size)):
        k += 1
    return k


def spans_from_pack(leaves: Leaves, groups: tuple[Sequence[int], Sequence[int]]) -> Spans:
    """The chunks of packed `leaves`, from `pack_columns`' (firsts, lasts)."""
    firsts, lasts = groups
    kind = leaves.starts.typecode
    starts = array(kind, map(leaves.starts.__getitem__, firsts))
    ends = array(kind, map(leaves.ends.__getitem__, lasts))
    cut = leaves.cut
    flags = None
    if cut.find(1) >= 0:  # a chunk is cut when any of its pieces is
        find = cut.find
        flags = bytearray(find(1, i, j + 1) >= 0 for i, j in zip(firsts, lasts))
    return Spans(starts, ends, flags)
