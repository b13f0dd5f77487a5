"""Strategy `fixed`: windows of exactly `size` units with a stride of `size − overlap`.

The last window ends at the end of the text (seeds 000, 001, 002, 003). Windows ignore
structure, so they are not trimmed: the text between offsets is exactly the window. In the
tokens unit with an exact tokenizer the document is encoded once and windows are cut on token
boundaries, never inside a character; in the words unit a window runs from its first word's
start to its last word's end.
"""

from __future__ import annotations

import bisect
import re
from array import array

from ..text._segments import ends_sentence, position_kind
from ..tokens._measure import CharMeasure, ExactTokenMeasure, Measure, WordMeasure
from ._spans import Spans

_NON_SPACE = re.compile(r"\S")


def _windows(n_units: int, size: int, overlap: int, kind: str = "q") -> tuple[array[int], array[int]]:
    """Unit-index windows [i, j) covering 0..n_units, the last one ending at n_units, as two
    arrays (a stride of one character over a megabyte is a million windows).

    >>> [list(a) for a in _windows(10, 4, 1)]
    [[0, 3, 6], [4, 7, 10]]
    """
    if n_units <= 0:
        return array(kind), array(kind)
    stride = size - overlap
    # Every window but the last ends before n_units; the last is the first to reach it.
    count = 1 if n_units <= size else -(-(n_units - size) // stride) + 1
    starts = array(kind, range(0, (count - 1) * stride + 1, stride))
    ends = array(kind, range(size, size + (count - 1) * stride, stride))
    ends.append(n_units)
    return starts, ends


def split(text: str, *, size: int, overlap: int, measure: Measure, breaks: tuple[str, ...] = ()) -> Spans:
    """
    >>> from chunker import chunk
    >>> [(c.start_char, c.end_char) for c in chunk("x" * 1188, strategy="fixed", unit="chars", size=500, overlap=50)]
    [(0, 500), (450, 950), (900, 1188)]
    """
    n = len(text)
    kind = position_kind(n)
    if isinstance(measure, CharMeasure):
        starts, ends = _windows(n, size, overlap, kind)
    elif isinstance(measure, WordMeasure):
        first, last = _windows(len(measure.starts), size, overlap, kind)
        starts = array(kind, map(measure.starts.__getitem__, first))
        ends = array(kind, (measure.ends[j - 1] for j in last))
    elif isinstance(measure, ExactTokenMeasure):
        # A tokenizer that adds special tokens to every sequence counts them in every window.
        room = max(1, size - measure.specials)
        starts, ends = _token_windows(measure, n, room, min(overlap, room - 1), kind)
    else:
        # Estimated tokens have no boundaries of their own: grow each window as far as the
        # estimate allows, and start the next one where `overlap` tokens of it remain. (Stepping
        # forward by the stride instead could leave more than `overlap` behind: estimates are
        # rounded, so they do not add up exactly.)
        starts, ends = array(kind), array(kind)
        pos = 0
        while pos < n:
            end = measure.advance(pos, n, size)
            starts.append(pos)
            ends.append(end)
            if end >= n:
                break
            pos = measure.retreat(end, pos + 1, overlap)
    cut = bytearray(_cuts_sentence(text, s, e) for s, e in zip(starts, ends))
    return Spans(starts, ends, cut)


def _token_windows(measure: ExactTokenMeasure, n: int, size: int, overlap: int, kind: str) -> tuple[array[int], array[int]]:
    """Token windows cut only where a token starts a character, each within the size and each
    overlap within the overlap, counted as their own text.

    A character split over several tokens (bytes of a rare character, some CJK) cannot be cut,
    so a window's start moves forward past it and its end back before it. A window is `size`
    of the document's tokens, but it is embedded alone, and its own encoding can differ at its
    edges (a run of CJK characters cut in the middle): then its end moves back a token at a
    time until it fits, and the next window's start forward until the overlap fits. Where no
    token start is left to move back to, the window is cut between two characters inside a
    token, and the next starts there. A start never passes the previous end (no text is lost)
    and starts ascend. Only a character of more than `size` tokens gets a window that is over
    (and flagged). Characters the tokenizer drops (a normalizer's control characters) hold no
    token: those before the first token are the first window's, and a text of nothing else is
    one window.
    """
    off, count, mid = measure.offsets, len(measure.offsets), measure.mid_chars
    over, specials = measure.over, measure.specials

    def up(i: int) -> int:
        while i in mid:
            i += 1
        return i

    def down(j: int) -> int:
        while j in mid:
            j -= 1
        return j

    def at(i: int) -> int:
        return int(off[i]) if i < count else n

    found = _NON_SPACE.search(measure.text)
    lead = found.start() if found is not None else n  # where the first window starts at the latest
    starts, ends = array(kind), array(kind)
    if not count:
        if lead < n:
            starts.append(lead)
            ends.append(n)
        return starts, ends
    stride = size - overlap
    prev_s = prev_e = -1
    carry = -1  # the last window ended between two characters of one token: the next starts there
    i = 0  # where the window would start on the document's tokens, a stride from the last
    while carry >= 0 or i < count or prev_e < count:
        if carry >= 0:
            s = bisect.bisect_right(off, carry) - 1  # the token the cut falls in
            a, carry = carry, -1
            e = down(min(s + size, count))
        else:
            s, e = up(i), down(min(i + size, count))
            if prev_e >= 0:
                s = min(s, prev_e)
                if s <= prev_s:
                    s = up(prev_s + 1)
                while s < prev_e and over(at(s), at(prev_e), overlap + specials):
                    s = up(s + 1)
            a = at(s)
        if e <= s:
            e = up(s + 1)
        while over(a, at(e), size + specials):
            shorter = down(e - 1)
            if shorter <= s:
                break
            e = shorter
        if at(e) - a > 1 and over(a, at(e), size + specials):
            # No token start will do, but the window holds more than one character: a token
            # can hold a space and the first bytes of the character after it (" 𝔘" in cl100k).
            # Cut between the characters, and start the next window there (no overlap).
            cut = measure.cut(a, at(e), size + specials)
            if a < cut < at(e):
                starts.append(a)
                ends.append(cut)
                carry = cut
                i += stride
                continue
        starts.append(a)
        ends.append(at(e))
        if e >= count:
            break
        prev_s, prev_e = s, e
        i += stride
    starts[0] = min(starts[0], lead)
    return starts, ends


def _cuts_sentence(text: str, start: int, end: int) -> bool:
    """A window cuts a sentence when it starts or ends inside one."""
    if end < len(text) and not ends_sentence(text[max(0, end - 16) : end]):
        return True
    return start > 0 and not ends_sentence(text[max(0, start - 16) : start])
