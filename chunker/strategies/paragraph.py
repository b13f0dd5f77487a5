"""Strategy `paragraph`: blank-line-separated blocks, adjacent ones packed up to `size`.

A paragraph is never split: one larger than `size` becomes its own chunk, flagged oversize
(seed 004). Size 0 gives one chunk per paragraph (seed 000's "by paragraph").
"""

from __future__ import annotations

from .._measure import Measure
from .._text import paragraph_spans
from ._pack import Span, pack


def split(text: str, *, size: int, overlap: int, measure: Measure,
          breaks: tuple[str, ...] = ()) -> list[Span]:
    """
    >>> from chunker import chunk
    >>> [c.text for c in chunk("A.\\n\\nB.\\n\\nC.", strategy="paragraph", unit="chars", size=6, overlap=0)]
    ['A.\\n\\nB.', 'C.']
    """
    spans = paragraph_spans(text)
    groups = pack(spans, size=size, overlap=overlap, measure=measure)
    return [Span(spans[i][0], spans[j][1]) for i, j in groups]
