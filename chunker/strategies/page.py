"""Strategy `page`: one chunk per page.

A document's pages are where each page starts in its text (a PDF's; see `Document.pages`); a
text without pages is one page. A page that fits the size is one chunk. A page larger than the
size is split by the recursive cascade (paragraph, line, sentence, word, character) and its
pieces packed up to the size, with overlap inside the page only. Pages never share a chunk,
and size 0 gives every page whole.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

from ..text._segments import Fences, position_kind
from ..tokens._measure import Measure
from ._pack import Leaves, Spans, cascade, pack_columns, spans_from_pack

_LEVELS = ("paragraph", "line", "sentence", "word", "char")


def split(
    text: str, *, size: int, overlap: int, measure: Measure, breaks: tuple[str, ...] = (), pages: Sequence[int] = ()
) -> Spans:
    """
    >>> from chunker import Document
    >>> doc = Document("First page.\\f\\nSecond page, which is longer. Much longer.", pages=(0, 12))
    >>> [(c.text, c.page_start) for c in doc.chunk(strategy="page", unit="chars", size=30, overlap=0)]
    [('First page.', 1), ('Second page, which is longer.', 2), ('Much longer.', 2)]
    """
    kind = position_kind(len(text))
    leaves = Leaves(kind)
    fences = Fences.of(text)
    starts = list(pages) or [0]
    for a, b in zip(starts, [*starts[1:], len(text)]):
        n0 = len(leaves)
        leaves.walls.add(n0)  # nothing crosses into a page, not even overlap
        page = text[a:b]
        body = page.lstrip()
        if not body:
            continue
        a += len(page) - len(body)
        b = a + len(body.rstrip())
        if size == 0 or not measure.over(a, b, size):
            leaves.add(a, b)
        else:
            cascade(text, a, b, 0, measure=measure, size=size, leaves=leaves, levels=_LEVELS, fences=fences)
    groups = pack_columns(
        leaves.starts, leaves.ends, size=size, overlap=overlap, measure=measure, hard=leaves.hard, walls=leaves.walls
    )
    out = spans_from_pack(leaves, groups)
    out.walls = array(kind, starts)
    return out
