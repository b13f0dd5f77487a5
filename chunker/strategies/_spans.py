"""Chunks as strategies hand them over: one `Span` each, or `Spans`, the same as columns.

A megabyte cut into single characters is a million chunks. As `Span` tuples (a tuple and two
ints each) they would cost about 130 bytes a chunk before any record is made; as columns
(two arrays of positions, a byte for the cut flag) they cost 9. Strategies that can make that
many chunks (character windows, the packer) return `Spans`; a strategy registered from outside
may still return a list of `Span`.
"""

from __future__ import annotations

import bisect
import heapq
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import compress
from typing import NamedTuple, overload

from ..text._segments import count_words, position_kind
from ..tokens._measure import Measure

__all__ = ["Span", "Spans", "Marks", "context_cost"]


class Span(NamedTuple):
    """A chunk as a strategy sees it: offsets plus what only the strategy knows."""

    start: int
    end: int
    cut: bool = False  # a sentence was cut to make this chunk fit
    headings: tuple[str, ...] = ()
    context: str = ""
    """Text the embedder gets before this chunk's own text, known to the strategy alone (a table's
    header rows before a part that continues it). It is no part of the document: offsets and
    `text` stay the document's; the records' `embed_text` is the setting's context, then this,
    then the text. The strategy fits this context and the text together within `size`."""
    flags: tuple[str, ...] = ()
    """Flags (names of `chunker.FLAGS`) only the strategy can judge: ``table_continued``, a
    table's later part with its header rows as context; ``row_cut``, a chunk that starts or
    ends inside a table row too long to keep whole; ``framework_offset``, a pasted splitter's
    chunk whose own start index (a search for its text) is elsewhere."""
    embed: str | None = None
    """The text an embedder is handed, where it is not the slice: a framework's own chunk text
    that joins pieces of the slice (LangChain's separators put back, stripped lines joined)."""


class Spans(Sequence[Span]):
    """Chunks as columns: `starts` and `ends` (arrays of positions), `cut` (a byte per chunk,
    or None when no chunk was cut), `headings` (a tuple per chunk, or None when none has) and
    `context` (a string per chunk, or None when every one is empty; see `Span.context`) and
    `flags` (a tuple of flag names per chunk, or None when none has any; see `Span.flags`).
    `notes` are what the strategy tells the reader (see the attribute).
    `walls` are text positions where a section starts (a markdown heading, a page): the
    `min_size` merge never joins a chunk that starts before one to a chunk that starts at or
    after it. None: the strategy has no sections.

    >>> sp = Spans.of([Span(0, 4), Span(5, 9, True)])
    >>> len(sp), sp[1], list(sp.ends)
    (2, Span(start=5, end=9, cut=True, headings=(), context='', flags=(), embed=None), [4, 9])
    """

    __slots__ = ("starts", "ends", "cut", "headings", "walls", "context", "flags", "notes", "embeds")

    def __init__(
        self,
        starts: array[int],
        ends: array[int],
        cut: bytearray | None = None,
        headings: list[tuple[str, ...]] | None = None,
        walls: Sequence[int] | None = None,
        context: list[str] | None = None,
        flags: list[tuple[str, ...]] | None = None,
        embeds: list[str | None] | None = None,
    ) -> None:
        self.starts = starts
        self.ends = ends
        self.cut = cut if cut is not None and any(cut) else None
        self.headings = headings if headings is not None and any(headings) else None
        self.walls = walls
        self.context = context if context is not None and any(context) else None
        self.flags = flags if flags is not None and any(flags) else None
        self.notes: tuple[str, ...] = ()
        """What the strategy tells the reader of this split (a file cut another way than asked),
        one line each; the result carries them (`ChunkResult.notes`)."""
        self.embeds = embeds if embeds is not None and any(e is not None for e in embeds) else None

    @classmethod
    def of(cls, spans: Iterable[Span | tuple[int, int]], text_length: int | None = None) -> Spans:
        """Columns of any spans: `Span` tuples, or (start, end) pairs."""
        if isinstance(spans, Spans):
            return spans
        items = spans if isinstance(spans, Sequence) else list(spans)
        kind = position_kind(text_length if text_length is not None else max((sp[1] for sp in items), default=0))
        starts, ends = array(kind, [sp[0] for sp in items]), array(kind, [sp[1] for sp in items])
        cut = bytearray(bool(getattr(sp, "cut", False)) for sp in items)
        headings: list[tuple[str, ...]] = [getattr(sp, "headings", ()) for sp in items]
        context: list[str] = [getattr(sp, "context", "") for sp in items]
        flags: list[tuple[str, ...]] = [tuple(getattr(sp, "flags", ())) for sp in items]
        embeds: list[str | None] = [getattr(sp, "embed", None) for sp in items]
        return cls(starts, ends, cut, headings, context=context, flags=flags, embeds=embeds)

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, i: int) -> Span: ...

    @overload
    def __getitem__(self, i: slice) -> list[Span]: ...

    def __getitem__(self, i: int | slice) -> Span | list[Span]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return Span(
            self.starts[i],
            self.ends[i],
            bool(self.cut[i]) if self.cut is not None else False,
            self.headings[i] if self.headings is not None else (),
            self.context[i] if self.context is not None else "",
            self.flags[i] if self.flags is not None else (),
            self.embeds[i] if self.embeds is not None else None,
        )

    def __iter__(self) -> Iterator[Span]:
        return (self[k] for k in range(len(self)))

    def keep(self, wanted: Sequence[int]) -> Spans:
        """The chunks whose entry in `wanted` is true."""
        kind = self.starts.typecode
        return Spans(
            array(kind, compress(self.starts, wanted)),
            array(kind, compress(self.ends, wanted)),
            bytearray(compress(self.cut, wanted)) if self.cut is not None else None,
            list(compress(self.headings, wanted)) if self.headings is not None else None,
            self.walls,
            list(compress(self.context, wanted)) if self.context is not None else None,
            list(compress(self.flags, wanted)) if self.flags is not None else None,
            list(compress(self.embeds, wanted)) if self.embeds is not None else None,
        )  # positions in the text: dropping chunks moves none


class Marks:
    """Piece indices, ascending, 8 bytes each: the hard boundaries or walls of `Leaves`.

    Pieces are added in document order, so marks arrive ascending (or repeat the last one) and
    are appended; membership is a bisection. A set of a few hundred thousand ints (a character
    cascade marks every word it cuts) would cost ten times as much.

    >>> m = Marks([3, 1]); m.add(7); m.add(7); m.add(5)
    >>> list(m), 5 in m, 4 in m
    ([1, 3, 5, 7], True, False)
    """

    __slots__ = ("items",)

    def __init__(self, items: Iterable[int] = ()) -> None:
        self.items = array("q", sorted(set(items)))

    def add(self, k: int) -> None:
        items = self.items
        if not items or k > items[-1]:
            items.append(k)
        elif k not in self:
            items.insert(bisect.bisect_left(items, k), k)

    def __contains__(self, k: object) -> bool:
        items = self.items
        i = bisect.bisect_left(items, k)  # type: ignore[call-overload]
        return i < len(items) and bool(items[i] == k)

    def __iter__(self) -> Iterator[int]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @classmethod
    def union(cls, *groups: Iterable[int] | None) -> Marks:
        """All marks of `groups` (Marks, sets or any ints), ascending and once each."""
        parts = [g if isinstance(g, Marks) else sorted(g) for g in groups if g]
        out = cls()
        if len(parts) == 1 and isinstance(parts[0], Marks):
            out.items = parts[0].items
            return out
        items, last = out.items, None
        for k in heapq.merge(*parts):
            if k != last:
                items.append(k)
                last = k
        return out


def context_cost(context: str, measure: Measure) -> int:
    """What a strategy's context adds to a chunk in the measure's unit (its own count, less a
    tokenizer's special tokens, which the chunk's count holds already)."""
    if not context:
        return 0
    if measure.unit == "chars":
        return len(context)
    if measure.unit == "words":
        return count_words(context)
    tokenizer = getattr(measure, "tokenizer", None)
    if tokenizer is None:
        return len(context)
    return max(0, int(tokenizer.count(context)) - int(getattr(tokenizer, "specials", 0)))
