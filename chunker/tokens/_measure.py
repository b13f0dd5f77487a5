"""How big a span of the document is, in the chosen unit.

Strategies ask `count(start, end)` many times while packing, so each measure prepares the
document once: exact tokenizers encode it a single time and answer from the token offsets.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..text._segments import iter_paragraph_spans, word_columns
from ._tokenizers import TokenizerLike

if TYPE_CHECKING:
    from ._estimate import EstimateIndex

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

    def counts(self, starts: Sequence[int], ends: Sequence[int]) -> Sequence[int]:
        """`count` of every span (starts[k], ends[k]): the chunks' counts, once they are packed."""
        return array("q", map(self.count, starts, ends))

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
        self.starts, self.ends = word_columns(text)

    def count(self, start: int, end: int) -> int:
        return bisect.bisect_left(self.starts, end) - bisect.bisect_right(self.ends, start)

    def reach(self, start: int, n: int) -> float:
        k = bisect.bisect_right(self.ends, start) + n
        return self.starts[k] if k < len(self.starts) else _INF

    def back(self, end: int, n: int) -> float:
        k = bisect.bisect_left(self.starts, end) - n - 1
        return self.ends[k] if k >= 0 else -_INF

    def advance(self, start: int, limit: int, n: int) -> int:
        return int(max(start + 1, min(limit, self.reach(start, max(1, n)))))


class ExactTokenMeasure(Measure):
    """Token starts inside the span, from one encoding of the whole document.

    The tokenizer says where its tokens are independent of the text around them (its
    boundaries: `boundary_at`, `first_boundary`, `last_boundary`), so a span's exact count is
    the document's tokens between the span's first and last boundaries, plus the tokens of
    its two edge pieces encoded on their own. A tokenizer whose post-processor adds special
    tokens to every sequence ([CLS] and [SEP] for BERT) has them counted in every span
    (`specials`), since the model's limit counts them too.
    """

    unit = "tokens"

    def __init__(self, text: str, tokenizer: TokenizerLike) -> None:
        super().__init__(text)
        self.tokenizer = tokenizer
        self.specials = getattr(tokenizer, "specials", 0)
        mid_chars: list[int] = []
        self.offsets = tokenizer.offsets(text, mid_chars=mid_chars)  # array('i'): 4 bytes a token
        # Tokens that start inside a character: no chunk may begin or end at one.
        self.mid_chars = frozenset(mid_chars)
        # Every token holds at least one UTF-8 byte, so a span has at most this many tokens per
        # character: spans short enough need no counting at all.
        self._max_tokens_per_char = 1 if text.isascii() else 4
        # What counting edges found, kept while a chunking lasts (`forget` lets it go). Pairs
        # are packed into one int (a * _k + b): a fixed window of a few tokens is a chunk, and a
        # tuple per chunk would cost more than the chunk's record.
        self._k = 4 * len(text) + 1  # above any position, and any piece's tokens (4 UTF-8 bytes a character at most)
        self._heads: dict[int, int] = {}  # start -> first boundary * _k + tokens before it
        self._tails: dict[int, int] = {}  # end -> last boundary * _k + tokens after it
        self._whole: dict[int, int] = {}  # start * _k + end -> count, for spans with no boundary inside

    def count(self, start: int, end: int) -> int:
        off = self.offsets
        return bisect.bisect_left(off, end) - bisect.bisect_left(off, start) + self.specials

    def reach(self, start: int, n: int) -> float:
        if n < self.specials:
            return start  # even an empty span holds the special tokens: no end fits
        k = bisect.bisect_left(self.offsets, start) + n - self.specials
        return self.offsets[k] if k < len(self.offsets) else _INF

    def back(self, end: int, n: int) -> float:
        if n < self.specials:
            return end  # no start fits, as above
        k = bisect.bisect_left(self.offsets, end) - (n - self.specials) - 1
        return self.offsets[k] + 1 if k >= 0 else -_INF

    # Edge effects move a span's own count only a few tokens away from the document's count;
    # beyond this margin the cheap count decides.
    _MARGIN = 8

    def over(self, start: int, end: int, size: int) -> bool:
        n = end - start
        if n * self._max_tokens_per_char + self.specials <= size:
            return False
        if n + self.specials <= size and self.text[start:end].isascii():  # a byte or more a token
            return False
        c = self.count(start, end)
        if abs(c - size) > self._MARGIN:
            return c > size
        return self.exact(start, end) > size

    def plain(self, start: int, end: int) -> int:
        """`exact` without the special tokens: the text's own tokens (what an overlap repeats)."""
        return self.exact(start, end) - self.specials

    def _plain_count(self, piece: str) -> int:
        return self.tokenizer.count(piece) - self.specials

    def exact(self, start: int, end: int) -> int:
        """Exactly ``tokenizer.count(text[start:end])``, encoding only the span's first and last
        pieces: between two boundaries the span's tokens are the document's tokens.
        """
        # Packing tries several ends for one start and several starts for one end, so each
        # edge piece is encoded once, not once per try; a boundary found for one span serves
        # any other span that holds it. An edge that is itself a boundary costs nothing (and is
        # not kept): most chunks start a line, or end before a space or a line break.
        head = self._head(start, end)
        tail = self._tail(start, end) if head is not None else None
        if head is None or tail is None or tail[0] < head[0]:  # no boundary inside: one long word
            key = start * self._k + end
            known = self._whole.get(key)
            if known is None:
                known = self._whole[key] = self.tokenizer.count(self.text[start:end])
            return known
        (h, head_tokens), (t, tail_tokens) = head, tail
        off = self.offsets
        return head_tokens + bisect.bisect_left(off, t) - bisect.bisect_left(off, h) + tail_tokens + self.specials

    def forget(self) -> None:
        """Let go of what counting edges found (the document's encoding stays)."""
        self._heads.clear()
        self._tails.clear()
        self._whole.clear()

    def _head(self, start: int, end: int) -> tuple[int, int] | None:
        """The first boundary in [start, end), and the tokens of the text before it."""
        if start < end and self.tokenizer.boundary_at(self.text, start):
            return start, 0
        known = self._heads.get(start)
        if known is not None:
            h, tokens = divmod(known, self._k)
            return (h, tokens) if h < end else None  # the first boundary after start may be past this span
        first = self.tokenizer.first_boundary(self.text, start, end)
        if first is None:
            return None
        tokens = self._plain_count(self.text[start:first])
        self._heads[start] = first * self._k + tokens
        return first, tokens

    def _tail(self, start: int, end: int) -> tuple[int, int] | None:
        """The last boundary in (start, end], and the tokens of the text after it."""
        if end > start and self.tokenizer.boundary_at(self.text, end):
            return end, 0
        known = self._tails.get(end)
        if known is not None:
            t, tokens = divmod(known, self._k)
            return (t, tokens) if t > start else None  # the last boundary before end may be before this span
        last = self.tokenizer.last_boundary(self.text, start, end)
        if last is None:
            return None
        tokens = self._plain_count(self.text[last:end])
        self._tails[end] = last * self._k + tokens
        return last, tokens

    def advance(self, start: int, limit: int, n: int) -> int:
        off = self.offsets
        i = bisect.bisect_left(off, start) + max(1, n - self.specials)
        end = off[i] if i < len(off) else len(self.text)
        return max(start + 1, min(limit, end))

    def cut(self, start: int, limit: int, n: int) -> int:
        """Where to end the next piece of text[start:limit] cut to at most `n` tokens counted
        as its own text is (`exact`), the chunk it will be.

        The document's count says how far to go (`advance`); the piece's own encoding can hold
        a token more at its edges ("xxx" cut from a run the document encodes as " xx", "x"),
        so the end moves back to earlier token starts, then (when the piece starts inside a
        document token) to earlier characters, until the piece fits. start + 1 when even one
        character is over: no cut can make it fit.
        """
        end = self.advance(start, limit, n)
        if not self.over(start, end, n):
            return end
        off, mid, over = self.offsets, self.mid_chars, self.over
        k = bisect.bisect_left(off, end) - 1
        while k >= 0 and off[k] > start:
            if k not in mid and not over(start, off[k], n):
                return off[k]
            k -= 1
        # No token start in the piece will do: cut between characters, before the first one.
        lo, hi = start + 1, off[k + 1] if k + 1 < len(off) and off[k + 1] < end else end
        if over(start, lo, n):
            return lo
        while hi - lo > 1:  # over(start, hi) or hi is that token start; lo fits
            mid_point = (lo + hi) // 2
            if over(start, mid_point, n):
                hi = mid_point
            else:
                lo = mid_point
        return lo


class EstimateTokenMeasure(Measure):
    """Estimated tokens of the span's own text (approx and estimate are cheap to recount)."""

    unit = "tokens"

    def __init__(self, text: str, tokenizer: TokenizerLike) -> None:
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
    """Characters over four (see `approx_tokens`), from the span's length when it is already trimmed,
    as the pieces strategies pack are: no copy of the span."""

    def count(self, start: int, end: int) -> int:
        text = self.text
        if end > start and not text[start].isspace() and not text[end - 1].isspace():
            return max(1, (end - start + 2) // 4)
        return self._count(text[start:end])


class IndexedEstimateMeasure(EstimateTokenMeasure):
    """The estimate tokenizer's count of the span's own text, from running sums over the
    document (see `EstimateIndex`): the same numbers, in time that does not grow with the span."""

    def __init__(self, text: str, tokenizer: TokenizerLike) -> None:
        super().__init__(text, tokenizer)
        from ._estimate import EstimateIndex  # only this tokenizer needs it

        index = EstimateIndex(text)
        self.count = index.count  # type: ignore[method-assign]
        self.counts = index.counts  # type: ignore[method-assign]
        self._unlearnt: EstimateIndex | None = index  # until it learns the paragraphs (`over`)

    def over(self, start: int, end: int, size: int) -> bool:
        # Asked first when packing begins (a piece that may not fit): the paragraphs' ends are
        # learnt then, once per document, since packing asks about the spans between them.
        # Counting chunks made by characters never asks, and never pays for it.
        if self._unlearnt is not None:
            self._unlearnt.learn(iter_paragraph_spans(self.text))
            self._unlearnt = None
        return self.count(start, end) > size


def make_measure(text: str, unit: str, tokenizer: TokenizerLike) -> Measure:
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
