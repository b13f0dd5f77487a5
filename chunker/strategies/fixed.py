"""Strategy `fixed`: windows of exactly `size` units with a stride of `size − overlap`.

The last window ends at the end of the text (seeds 000, 001, 002, 003). Windows ignore
structure, so they are not trimmed: the text between offsets is exactly the window. In the
tokens unit with an exact tokenizer the document is encoded once and windows are cut on token
boundaries, never inside a character; in the words unit a window runs from its first word's
start to its last word's end.
"""

from __future__ import annotations

from .._measure import CharMeasure, ExactTokenMeasure, Measure, WordMeasure
from .._text import ends_sentence
from ._pack import Span


def _windows(n_units: int, size: int, overlap: int) -> list[tuple[int, int]]:
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
          breaks: tuple[str, ...] = ()) -> list[Span]:
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
        # A tokenizer that adds special tokens to every sequence counts them in every window.
        room = max(1, size - measure.specials)
        bounds = _token_windows(measure, n, room, min(overlap, room - 1))
    else:
        # Estimated tokens have no boundaries of their own: grow each window as far as the
        # estimate allows, and start the next one where `overlap` tokens of it remain. (Stepping
        # forward by the stride instead could leave more than `overlap` behind: estimates are
        # rounded, so they do not add up exactly.)
        bounds = []
        pos = 0
        while pos < n:
            end = measure.advance(pos, n, size)
            bounds.append((pos, end))
            if end >= n:
                break
            pos = measure.retreat(end, pos + 1, overlap)
    return [Span(s, e, _cuts_sentence(text, s, e)) for s, e in bounds]


def _token_windows(measure: ExactTokenMeasure, n: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Token windows cut only where a token starts a character.

    A character split over several tokens (bytes of a rare character, some CJK) cannot be cut,
    so a window's start moves forward past it and its end back before it: windows keep at most
    `size` tokens and overlaps at most `overlap`. A start never passes the previous end (no
    text is lost) and starts ascend. Only a character of more than `size` tokens gets a window
    that is over (and flagged).
    """
    off, count, mid = measure.offsets, len(measure.offsets), measure.mid_chars

    def up(i: int) -> int:
        while i in mid:
            i += 1
        return i

    def down(j: int) -> int:
        while j in mid:
            j -= 1
        return j

    at = lambda i: off[i] if i < count else n  # noqa: E731
    bounds: list[tuple[int, int]] = []
    prev_s = prev_e = -1
    for i, j in _windows(count, size, overlap):
        s, e = up(i), down(j)
        if prev_e >= 0:
            s = min(s, prev_e)
            if s <= prev_s:
                s = up(prev_s + 1)
        if e <= s:
            e = up(s + 1)
        bounds.append((at(s), at(e)))
        prev_s, prev_e = s, e
    return bounds


def _cuts_sentence(text: str, start: int, end: int) -> bool:
    """A window cuts a sentence when it starts or ends inside one."""
    if end < len(text) and not ends_sentence(text[max(0, end - 16):end]):
        return True
    return start > 0 and not ends_sentence(text[max(0, start - 16):start])
