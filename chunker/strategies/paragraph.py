"""Strategy `paragraph`: blank-line-separated blocks, adjacent ones packed up to `size`.

A paragraph is never split: one larger than `size` becomes its own chunk, flagged oversize
(a paragraph is the smallest unit this strategy keeps whole). Size 0 gives one chunk per
paragraph.
"""

from __future__ import annotations

from array import array

from ..text._segments import Fences, paragraph_columns, position_kind
from ..tokens._measure import Measure
from ._pack import Spans, glue_columns, pack_columns


def split(text: str, *, size: int, overlap: int, measure: Measure, breaks: tuple[str, ...] = ()) -> Spans:
    """
    >>> from chunker import chunk
    >>> [c.text for c in chunk("A.\\n\\nB.\\n\\nC.", strategy="paragraph", unit="chars", size=6, overlap=0)]
    ['A.\\n\\nB.', 'C.']
    """
    kind = position_kind(len(text))
    # A fence line is no paragraph of its own.
    starts, ends = glue_columns(*paragraph_columns(text, 0, len(text), kind), Fences.of(text))
    firsts, lasts = pack_columns(starts, ends, size=size, overlap=overlap, measure=measure)
    return Spans(array(kind, map(starts.__getitem__, firsts)), array(kind, map(ends.__getitem__, lasts)))
