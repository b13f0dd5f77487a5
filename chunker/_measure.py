"""How big a span of the document is, in the chosen unit.

Strategies ask `count(start, end)` many times while packing, so each measure prepares the
document once: exact tokenizers encode it a single time and answer from the token offsets.
"""

from __future__ import annotations

import bisect

from ._text import word_spans
from ._tokenizers import FORCED_BOUNDARY, Tokenizer

__all__ = ["Measure", "make_measure"]


_INF = float("inf")


class Measure:
    """Base: sizes of spans of one document.

    Measures whose count has a closed-form inverse also define ``reach(start, n)``, the
    furthest end with ``count(start, end) <= n``, and ``back(end, n)``, the earliest start with
    ``count(start, end) <= n``; the packer then bisects instead of walking piece by piece.
    """

    unit = ""

    def __init__(self, text: str) -> None:
        self.text = text

    def count(self, start: int, end: int) -> int:
        raise NotImplementedError

    def over(self, start: int, end: int, size: int) -> bool:
        """Whether the span is too big to be a chunk as it stands."""
        return self.count(start, end) > size

    def advance(self, start: int, limit: int, n: int) -> int:
        """The furthest end <= limit with count(start, end) <= n; at least start + 1."""
        raise NotImplementedError

    def retreat(self, end: int, floor: int, n: int) -> int:
        """The earliest start >= floor with count(start, end) <= n (end when none is earlier).

        Mirrors `advance`: gallops back from `end`, so it costs about the span it finds.
        """
        if self.count(floor, end) <= n:
            return floor
        hi, step = end, max(16, 4 * n)  # count(hi, end) <= n
        lo = max(floor, end - step)
        while self.count(lo, end) <= n:  # lo > floor here, since count(floor, end) > n
            hi, step = lo, step * 2
            lo = max(floor, end - step)
        lo += 1  # count(lo - 1, end) > n; count(start, end) never grows as start moves right
        while lo < hi:
            mid = (lo + hi) // 2
            if self.count(mid, end) <= n:
                hi = mid
            else:
                lo = mid + 1
        return hi


class CharMeasure(Measure):
    unit = "chars"

    def count(self, start: int, end: int) -> int:
        return end - start

    def reach(self, start: int, n: int) -> float:
        return start + n

    def back(self, end: int, n: int) -> float:
        return end - n

    def advance(self, start: int, limit: int, n: int) -> int:
        return min(limit, start + max(1, n))


class WordMeasure(Measure):
    """Words overlapping the span; a word cut by the span still counts once."""

    unit = "words"

    def __init__(self, text: str) -> None:
        super().__init__(text)
        spans = word_spans(text)
        self.starts: list[int] = [s for s, _ in spans]
        self.ends: list[int] = [e for _, e in spans]

    def count(self, start: int, end: int) -> int:
        return bisect.bisect_left(self.starts, end) - bisect.bisect_right(self.ends, start)

    def reach(self, start: int, n: int) -> float:
        k = bisect.bisect_right(self.ends, start) + n
        return self.starts[k] if k < len(self.starts) else _INF

    def back(self, end: int, n: int) -> float:
        k = bisect.bisect_left(self.starts, end) - n - 1
        return self.ends[k] if k >= 0 else -_INF

    def advance(self, start: int, limit: int, n: int) -> int:
        return max(start + 1, min(limit, self.reach(start, max(1, n))))  # type: ignore[arg-type]


def _boundary_at(text: str, p: int) -> bool:
    """Whether a forced boundary (see FORCED_BOUNDARY) or an end of the text falls at `p`."""
    if p <= 0 or p >= len(text):
        return True
    c, before = text[p], text[p - 1]
    if c == " " or c == "\t":
        return not before.isspace()
    if before == "\n":
        return c != "/" and not c.isspace()
    return (c == "\n" or c == "\r") and before.isascii() and before.isalnum()


def _last_boundary(text: str, floor: int, end: int) -> int:
    """The last forced boundary (see FORCED_BOUNDARY) before `end`, or `floor` if none is later.

    Walks back from the end: the last word of a chunk is usually a few characters long.
    """
    p = end - 1
    while p > floor:  # inside the text here, so _boundary_at asks only FORCED_BOUNDARY's rules
        if _boundary_at(text, p):
            return p
        p -= 1
    return floor


class ExactTokenMeasure(Measure):
    """Token starts inside the span, from one encoding of the whole document."""

    unit = "tokens"

    def __init__(self, text: str, tokenizer: Tokenizer) -> None:
        super().__init__(text)
        self.tokenizer = tokenizer
        mid_chars: list[int] = []
        self.offsets = tokenizer.offsets(text, mid_chars=mid_chars)  # array('i'): 4 bytes a token
        # Tokens that start inside a character: no chunk may begin or end at one.
        self.mid_chars = frozenset(mid_chars)
        self._exact: dict[tuple[int, int], int] = {}
        # Every token holds at least one UTF-8 byte, so a span has at most this many tokens per
        # character: spans short enough need no counting at all.
        self._max_tokens_per_char = 1 if text.isascii() else 4
        self._heads: dict[int, tuple[int, int]] = {}  # start -> (first boundary, tokens before it)
        self._tails: dict[int, tuple[int, int]] = {}  # end -> (last boundary, tokens after it)

    def count(self, start: int, end: int) -> int:
        off = self.offsets
        return bisect.bisect_left(off, end) - bisect.bisect_left(off, start)

    def reach(self, start: int, n: int) -> float:
        k = bisect.bisect_left(self.offsets, start) + n
        return self.offsets[k] if k < len(self.offsets) else _INF

    def back(self, end: int, n: int) -> float:
        k = bisect.bisect_left(self.offsets, end) - n - 1
        return self.offsets[k] + 1 if k >= 0 else -_INF

    # Edge effects move a span's own count only a few tokens away from the document's count;
    # beyond this margin the cheap count decides.
    _MARGIN = 8

    def over(self, start: int, end: int, size: int) -> bool:
        n = end - start
        if n * self._max_tokens_per_char <= size:
            return False
        if n <= size and self.text[start:end].isascii():  # one byte, so at most one token, each
            return False
        c = self.count(start, end)
        if abs(c - size) > self._MARGIN:
            return c > size
        return self.exact(start, end) > size

    def exact(self, start: int, end: int) -> int:
        """Exactly ``tokenizer.count(text[start:end])``, encoding only the span's first and last
        words: between two forced boundaries the span's tokens are the document's tokens.
        """
        key = (start, end)
        known = self._exact.get(key)
        if known is not None:  # packing checked this chunk already; its record asks again
            return known
        # Packing tries several ends for one start and several starts for one end, so each
        # edge word is encoded once, not once per try; a boundary found for one span serves
        # any other span that holds it. An edge that is itself a forced boundary costs
        # nothing: most chunks start a line, or end before a space or a line break.
        head = self._heads.get(start)
        if head is None:
            head = self._head(start, end)
        elif head[0] >= end:  # the first boundary after start is past this span
            head = None
        tail = self._tails.get(end)
        if tail is None:
            tail = self._tail(start, end)
        elif tail[0] <= start:  # the last boundary before end is before this span
            tail = None
        if head is None or tail is None:  # no forced boundary inside: one long word or so
            result = self.tokenizer.count(self.text[start:end])
        else:
            (h, head_tokens), (t, tail_tokens) = head, tail
            off = self.offsets
            middle = bisect.bisect_left(off, t) - bisect.bisect_left(off, h)
            result = head_tokens + middle + tail_tokens
        self._exact[key] = result
        return result

    def _head(self, start: int, end: int) -> tuple[int, int] | None:
        """The first forced boundary in [start, end), and the tokens of the text before it."""
        text = self.text
        if _boundary_at(text, start):
            found = self._heads[start] = (start, 0)
            return found
        # No boundary falls at start itself (just checked), so the first match is past it.
        m = FORCED_BOUNDARY.search(text, start, end)
        if m is None:
            return None
        h = m.end()
        found = self._heads[start] = (h, self.tokenizer.count(text[start:h]))
        return found

    def _tail(self, start: int, end: int) -> tuple[int, int] | None:
        """The last forced boundary in (start, end], and the tokens of the text after it."""
        if _boundary_at(self.text, end):
            found = self._tails[end] = (end, 0)
            return found
        t = _last_boundary(self.text, start, end)
        if t <= start:
            return None
        found = self._tails[end] = (t, self.tokenizer.count(self.text[t:end]))
        return found

    def advance(self, start: int, limit: int, n: int) -> int:
        off = self.offsets
        i = bisect.bisect_left(off, start) + max(1, n)
        end = off[i] if i < len(off) else len(self.text)
        return max(start + 1, min(limit, end))


class EstimateTokenMeasure(Measure):
    """Estimated tokens of the span's own text (approx and estimate are cheap to recount)."""

    unit = "tokens"

    def __init__(self, text: str, tokenizer: Tokenizer) -> None:
        super().__init__(text)
        self.tokenizer = tokenizer
        self._count = tokenizer.count

    def count(self, start: int, end: int) -> int:
        return self._count(self.text[start:end])


    _chars_per_token = 4.0  # updated from each window found, so guesses track the text

    def advance(self, start: int, limit: int, n: int) -> int:
        # Every count re-reads the span, so aim first: guess from the text's chars per token,
        # correct once by the secant through the origin, then bisect the little that is left.
        count = self.count
        guess = min(limit, start + max(1, int(n * self._chars_per_token)))
        c = count(start, guess)
        if c > 0:
            guess = min(limit, start + max(1, int((guess - start) * n / c)))
            c = count(start, guess)
        step = max(8, int(self._chars_per_token * 2))
        if c <= n:
            lo, hi = guess, min(limit, guess + step)
            while hi < limit and count(start, hi) <= n:
                lo, step = hi, step * 2
                hi = min(limit, hi + step)
            if count(start, hi) <= n:
                return self._learn(start, hi, n)
            hi -= 1
        else:
            hi, lo = guess - 1, max(start + 1, guess - step)
            while lo > start + 1 and count(start, lo) > n:
                hi, step = lo - 1, step * 2
                lo = max(start + 1, lo - step)
        while lo < hi:  # count(start, lo) <= n (or lo == start + 1), count(start, hi + 1) > n
            mid = (lo + hi + 1) // 2
            if count(start, mid) <= n:
                lo = mid
            else:
                hi = mid - 1
        return self._learn(start, lo, n)

    def _learn(self, start: int, end: int, n: int) -> int:
        if n > 0 and end - start > n:
            self._chars_per_token = (end - start) / n
        return end


class ApproxTokenMeasure(EstimateTokenMeasure):
    """Seed 000's rule (see `approx_tokens`), from the span's length when it is already trimmed,
    as the pieces strategies pack are: no copy of the span."""

    def count(self, start: int, end: int) -> int:
        text = self.text
        if end > start and not text[start].isspace() and not text[end - 1].isspace():
            return max(1, (end - start + 2) // 4)
        return self._count(text[start:end])


class IndexedEstimateMeasure(EstimateTokenMeasure):
    """The estimate tokenizer's count of the span's own text, from running sums over the
    document (see `EstimateIndex`): the same numbers, in time that does not grow with the span."""

    def __init__(self, text: str, tokenizer: Tokenizer) -> None:
        super().__init__(text, tokenizer)
        from ._estimate import EstimateIndex  # noqa: PLC0415 - only this tokenizer needs it

        self.count = EstimateIndex(text).count  # type: ignore[method-assign]


def make_measure(text: str, unit: str, tokenizer: Tokenizer) -> Measure:
    if unit == "chars":
        return CharMeasure(text)
    if unit == "words":
        return WordMeasure(text)
    if tokenizer.exact:
        return ExactTokenMeasure(text, tokenizer)
    if tokenizer.name == "approx":
        return ApproxTokenMeasure(text, tokenizer)
    if tokenizer.name == "estimate":
        return IndexedEstimateMeasure(text, tokenizer)
    return EstimateTokenMeasure(text, tokenizer)
