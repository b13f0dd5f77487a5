"""Strategy `fixed`: windows of exactly `size` units with a stride of `size − overlap`.

The last window ends at the end of the text (seeds 000, 001, 002, 003). Windows ignore
structure, so they are not trimmed: the text between offsets is exactly the window. In the
tokens unit with an exact tokenizer the document is encoded once and windows are cut on token
boundaries, never inside a character; in the words unit a window runs from its first word's
start to its last word's end.
"""

from __future__ import annotations

from typing import List, Tuple

from .._measure import CharMeasure, ExactTokenMeasure, Measure, WordMeasure
from .._text import ends_sentence
from ._pack import Span


def _windows(n_units: int, size: int, overlap: int) -> List[Tuple[int, int]]:
    """Unit-index windows [i, j) covering 0..n_units, the last one ending at n_units."""
    stride = size - overlap
    out = []
    i = 0
    while i < n_units:
        j = min(i + size, n_units)
        out.append((i, j))
        if j == n_units:
            break
        i += stride
    return out


def split(text: str, *, size: int, overlap: int, measure: Measure,
          breaks: Tuple[str, ...] = ()) -> List[Span]:
    """
    >>> from chunker import chunk
    >>> [(c.start_char, c.end_char) for c in chunk("x" * 1188, strategy="fixed", unit="chars", size=500, overlap=50)]
    [(0, 500), (450, 950), (900, 1188)]
    """
    n = len(text)
    if isinstance(measure, CharMeasure):
        bounds = [(i, j) for i, j in _windows(n, size, overlap)]
    elif isinstance(measure, WordMeasure):
        starts, ends = measure.starts, measure.ends
        bounds = [(starts[i], ends[j - 1]) for i, j in _windows(len(starts), size, overlap)]
    elif isinstance(measure, ExactTokenMeasure):
        off = measure.offsets + [n]
        bounds = [(off[i], off[j]) for i, j in _windows(len(measure.offsets), size, overlap)]
        bounds = [(s, e) for s, e in bounds if e > s]
    else:
        # Estimated tokens have no boundaries of their own: grow each window as far as the
        # estimate allows, and step by the stride's worth of estimated tokens.
        bounds = []
        pos = 0
        stride = size - overlap
        while pos < n:
            end = measure.advance(pos, n, size)
            bounds.append((pos, end))
            if end >= n:
                break
            pos = _overlap_start(measure, max(pos + 1, measure.advance(pos, n, stride)), end, overlap)
    return [Span(s, e, _cuts_sentence(text, s, e)) for s, e in bounds]


def _overlap_start(measure: Measure, start: int, end: int, overlap: int) -> int:
    """The first start >= `start` whose overlap with a window ending at `end` fits `overlap`.

    Estimates are rounded, so stepping by the stride's worth of tokens can leave more than
    `overlap` behind; the count of [p, end) never grows as p moves right, so bisect.
    """
    if measure.count(start, end) <= overlap:
        return start
    lo, hi = start + 1, end
    while lo < hi:
        mid = (lo + hi) // 2
        if measure.count(mid, end) <= overlap:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _cuts_sentence(text: str, start: int, end: int) -> bool:
    """A window cuts a sentence when it starts or ends inside one."""
    if end < len(text) and not ends_sentence(text[max(0, end - 16):end]):
        return True
    return start > 0 and not ends_sentence(text[max(0, start - 16):start])
