"""LangChain-compatible recursive splitting, with offsets that are always right.

`langchain_spans` returns the same chunks as `langchain-text-splitters`'
``RecursiveCharacterTextSplitter(...).split_text(text)`` with its defaults
(``keep_separator=True``, i.e. the separator starts the next piece;
``strip_whitespace=True``; literal, non-regex separators), but as
``(start, end)`` code-point offsets into the input.

LangChain itself only knows chunk *strings*: its ``add_start_index`` recovers
positions afterwards with ``str.find`` and a guessed search origin, which lands on
the wrong occurrence when text repeats (LangChain issue #21475) and returns -1
when ``chunk_overlap`` is counted in tokens (#17642). Here every piece is a
``(start, end)`` range from the moment it is cut, so offsets never need to be
searched for.

The algorithm is LangChain's, rebuilt around offsets (the package itself is
never imported; the tests compare against it):

1. Pick the first separator that occurs in the text (``""`` always "occurs").
2. Cut the text before every occurrence of it, so each piece after the first
   starts with the separator (and the pieces tile the text exactly).
3. Pieces measuring under ``size`` are queued; queued pieces are packed into
   chunks by a greedy merge with overlap. A piece measuring ``size`` or more
   flushes the queue, then is split again with the remaining separators, or,
   when none remain, becomes a chunk on its own, as is.

Only LangChain's defaults are reproduced: ``keep_separator="end"`` or ``False``,
regex separators and ``strip_whitespace=False`` are not offered.
Standard library only.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Sequence

from .._errors import ChunkerError
from ..tokens._measure import ExactTokenMeasure, IndexedEstimateMeasure, Measure
from ._spans import Spans

__all__ = ["DEFAULT_SEPARATORS", "langchain_spans", "split"]

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", " ", "")
"""LangChain's default cascade: paragraph break, line break, space, character."""

_log = logging.getLogger(__name__)


def langchain_spans(
    text: str,
    *,
    size: int,
    overlap: int,
    length: Callable[[str], int] = len,
    separators: Sequence[str] = DEFAULT_SEPARATORS,
) -> list[tuple[int, int]]:
    """Split ``text`` exactly as LangChain's ``RecursiveCharacterTextSplitter``.

    ``size`` and ``overlap`` are LangChain's ``chunk_size`` and ``chunk_overlap``,
    measured by ``length`` (its ``length_function``): ``len`` for characters, or a
    token counter such as ``lambda s: len(enc.encode_ordinary(s))`` to match
    ``from_tiktoken_encoder``. ``length`` is called on pieces, as LangChain calls
    it; it must be a pure function of its argument (results are cached).

    Returns ``(start, end)`` pairs with
    ``[text[s:e] for s, e in spans] == splitter.split_text(text)``;
    starts never decrease.

    >>> text = "Hello world.\\n\\nSecond paragraph here."
    >>> spans = langchain_spans(text, size=20, overlap=0)
    >>> spans
    [(0, 12), (14, 30), (31, 36)]
    >>> [text[s:e] for s, e in spans]
    ['Hello world.', 'Second paragraph', 'here.']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}: decode bytes first")
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise ChunkerError(f"size must be a positive integer, got {size!r}: pass e.g. size=500")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or overlap < 0:
        raise ChunkerError(f"overlap must be an integer >= 0, got {overlap!r}: pass e.g. overlap=50")
    if overlap > size:
        # NOTE: LangChain accepts overlap == size (and it terminates); only larger is refused.
        raise ChunkerError(f"overlap {overlap} is larger than size {size}: pass an overlap of at most {size}")
    seps = tuple(separators)
    if not all(isinstance(s, str) for s in seps):
        raise TypeError(f"separators must be strings, got {seps!r}")
    # NOTE: LangChain does `separators or [defaults]`, so an empty list means the defaults.
    return _Splitter(text, size, overlap, length).split(0, len(text), seps or DEFAULT_SEPARATORS)


def spans_measured(
    text: str, *, size: int, overlap: int, length: Callable[[str], int], span_length: Callable[[int, int], int]
) -> list[tuple[int, int]]:
    """`langchain_spans` with default separators, for settings already checked, where
    ``span_length(p, q) == length(text[p:q])`` measures a piece by its place in the text
    (chunk() hands over its token measure: the estimate's running sums, or the exact
    tokenizers' single encoding of the document)."""
    return _Splitter(text, size, overlap, length, span_length).split(0, len(text), DEFAULT_SEPARATORS)


def split(text: str, *, size: int, overlap: int, measure: Measure, breaks: tuple[str, ...] = ()) -> Spans:
    """The strategy: LangChain's splitter measuring pieces in the measure's unit, as
    ``from_tiktoken_encoder`` does for tokens (and ``len(s.split())`` for words).

    >>> from chunker import chunk
    >>> [c.text for c in chunk("Hello world.\\n\\nSecond paragraph here.", strategy="langchain",
    ...                        unit="chars", size=20, overlap=0)]
    ['Hello world.', 'Second paragraph', 'here.']
    """
    if measure.unit == "chars":
        length: Callable[[str], int] = len
    elif measure.unit == "words":
        length = _count_words
    else:
        length = measure.tokenizer.count  # type: ignore[attr-defined]
        # The same numbers as counting each piece's text, from the document's running sums (the
        # estimate) or its single encoding (exact tokens): no piece is encoded again.
        span_length = (
            measure.count
            if isinstance(measure, IndexedEstimateMeasure)
            else measure.exact
            if isinstance(measure, ExactTokenMeasure)
            else None
        )
        if span_length is not None:
            return Spans.of(spans_measured(text, size=size, overlap=overlap, length=length, span_length=span_length), len(text))
    return Spans.of(langchain_spans(text, size=size, overlap=overlap, length=length), len(text))


def _count_words(s: str) -> int:
    return len(s.split())


class _Splitter:
    """One split of one text: the settings, a length cache and the output."""

    __slots__ = ("text", "size", "overlap", "measure", "sep_len", "out")

    def __init__(
        self,
        text: str,
        size: int,
        overlap: int,
        length: Callable[[str], int],
        span_length: Callable[[int, int], int] | None = None,
    ) -> None:
        self.text = text
        self.size = size
        self.overlap = overlap
        self.out: list[tuple[int, int]] = []
        if length is len:
            # Characters: a piece's length is its span width; no slicing needed.
            self.measure: Callable[[int, int], int] | None = None
        elif span_length is not None:
            self.measure = span_length
        else:
            self.measure = _cached_measure(text, length, size)
        # NOTE: LangChain merges with separator "" (the separators already sit inside
        # the pieces) but still adds length_function("") between pieces. That is 0
        # for len and for tiktoken, yet counted the same way for any other function.
        self.sep_len = length("")

    def split(self, a: int, b: int, seps: tuple[str, ...]) -> list[tuple[int, int]]:
        """LangChain's `_split_text` on ``text[a:b]``: chunks go to ``self.out``."""
        text = self.text
        size = self.size
        measure = self.measure
        # NOTE: when nothing matches and "" is absent, LangChain falls back to the
        # last separator with nothing left to recurse into.
        rest: tuple[str, ...] = ()
        sep = seps[-1]
        for i, s in enumerate(seps):
            if not s:
                sep = s
                break
            if text.find(s, a, b) != -1:
                sep, rest = s, seps[i + 1 :]
                break
        run: list[tuple[int, int, int]] = []  # queued pieces: (start, end, length)
        for p, q in _pieces(text, a, b, sep):
            n = q - p if measure is None else measure(p, q)
            # NOTE: the test is `<`: a piece of exactly `size` is split again.
            if n < size:
                run.append((p, q, n))
                continue
            # NOTE: an oversized piece ends the merge run before it, so the chunk
            # after it never carries overlap from the chunks before it.
            if run:
                self._merge(run)
                run = []
            if rest:
                self.split(p, q, rest)
            else:
                # NOTE: with no separator left, LangChain appends the piece as it is:
                # not stripped, never dropped, longer than `size` (a size of 1 thus
                # yields whitespace-only chunks such as " " and "\n").
                self.out.append((p, q))
        if run:
            self._merge(run)
        return self.out

    def _merge(self, run: list[tuple[int, int, int]]) -> None:
        """LangChain's `_merge_splits`: greedy packing of contiguous pieces.

        The current chunk is the window ``run[lo:hi]`` and ``total`` is what
        LangChain believes its size is.
        """
        size = self.size
        overlap = self.overlap
        sep_len = self.sep_len
        lo = 0
        total = 0
        for hi, (_, _, n) in enumerate(run):
            if total + n + (sep_len if hi > lo else 0) > size:
                if total > size:
                    # NOTE: LangChain only warns about an oversized chunk here, and keeps
                    # it; reachable only when length("") > 0 and pieces can measure 0.
                    _log.warning("Created a chunk of size %d, which is longer than the specified %d", total, size)
                if hi > lo:
                    self._window(run, lo, hi)
                    # NOTE: the overlap is whole trailing pieces of this run: drop
                    # leading pieces while the rest exceeds `overlap`, or while the
                    # incoming piece would not fit beside it (and the rest measures > 0).
                    while lo < hi and (total > overlap or (total + n + (sep_len if hi > lo else 0) > size and total > 0)):
                        total -= run[lo][2] + (sep_len if hi - lo > 1 else 0)
                        lo += 1
            # NOTE: the chunk size is the running sum of piece lengths (plus sep_len
            # between pieces); the joined chunk is never measured again, so a token
            # chunk can count differently from `size` once encoded as a whole.
            total += n + (sep_len if hi > lo else 0)
        self._window(run, lo, len(run))

    def _window(self, run: list[tuple[int, int, int]], lo: int, hi: int) -> None:
        """The chunk of pieces ``run[lo:hi]``, joined as LangChain's `_join_docs` joins them."""
        self._emit(run[lo][0], run[hi - 1][1])

    def _emit(self, a: int, b: int) -> None:
        """Add ``text[a:b]`` stripped, as LangChain's `_join_docs` does; drop it if empty."""
        # NOTE: str.strip() strips what str.isspace() calls whitespace (NBSP, U+2028,
        # U+0085 included), like LangChain; the offsets then point at the stripped text.
        text = self.text
        if b > a and not text[a].isspace() and not text[b - 1].isspace():
            self.out.append((a, b))  # already stripped: no copy
            return
        seg = text[a:b]
        head = seg.lstrip()
        if head:
            start = b - len(head)
            self.out.append((start, start + len(head.rstrip())))


_SEPARATORS: dict[str, re.Pattern[str]] = {}


def _pieces(text: str, a: int, b: int, sep: str) -> list[tuple[int, int]]:
    """Cut ``text[a:b]`` before each occurrence of ``sep``; empty pieces are left out.

    Occurrences are found left to right without overlapping, like ``re.split``
    on the escaped separator; ``""`` cuts between every two characters.
    """
    if not sep:
        return [(i, i + 1) for i in range(a, b)]
    # The separators inside the span being split, found left to right without overlapping
    # (one regex scan: a str.find() per separator costs a Python call each); chunk positions
    # are never searched for, they are these cut points.
    pattern = _SEPARATORS.get(sep)
    if pattern is None:
        pattern = _SEPARATORS[sep] = re.compile(re.escape(sep))
    cuts = [a]
    cuts.extend([m.start() for m in pattern.finditer(text, a, b)])
    cuts.append(b)
    # Only the first piece can be empty (when text[a:b] starts with sep).
    return [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1) if cuts[i] < cuts[i + 1]]


def _cached_measure(text: str, length: Callable[[str], int], size: int) -> Callable[[int, int], int]:
    """Length of ``text[p:q]`` by ``length``, computed once per distinct piece text.

    LangChain measures each piece up to three times, and word pieces repeat
    (" the"); here a piece is measured once and a repeated one not at all. The
    results are the same because ``length`` is a function of the string alone.
    """
    cache: dict[str, int] = {}
    get = cache.get

    def measure(p: int, q: int) -> int:
        piece = text[p:q]
        n = get(piece)
        if n is None:
            n = length(piece)
            # Pieces of `size` or more are split further and seldom recur: keeping
            # them would hold a second copy of most of the document.
            if n < size:
                cache[piece] = n
        return n

    return measure


@functools.lru_cache(maxsize=64)
def _kept_compiles(sep: str) -> None:
    """LangChain keeps a separator by splitting on it inside a group, ``re.split(f"({sep})")``,
    when it splits with it: a pattern that compiles alone but not so (an inline global flag,
    "(?i)b", which must open the whole expression) makes LangChain raise there, and so here."""
    try:
        re.compile(f"({sep})")
    except (re.error, RecursionError, OverflowError) as e:
        raise ChunkerError(
            f"separator {sep[:80]!r} fails in LangChain, which splits on it as {f'({sep})'[:82]!r} to keep it: {e}; "
            "write the flag into the pattern instead (such as [bB] or (?i:b)), or set keep_separator=False",
            field="splitter",
        ) from None


class Configured(_Splitter):
    """LangChain's splitters with every option of theirs: separators taken as regular
    expressions, ``keep_separator`` True/"start", "end" or False, ``strip_whitespace`` off.

    `split` is `RecursiveCharacterTextSplitter._split_text`, `split_flat`
    `CharacterTextSplitter.split_text`. Chunks go to ``out`` as (start, end) in the text;
    where LangChain's chunk text is not that slice (with ``keep_separator=False`` it joins the
    pieces with the separator itself, and drops the empty pieces between two separators) its
    text goes to ``embeds`` under the chunk's index, and the span is the slice covering it.
    """

    __slots__ = ("regex", "keep", "strip", "length", "merge_sep", "embeds", "_compiled")

    def __init__(
        self,
        text: str,
        size: int,
        overlap: int,
        length: Callable[[str], int],
        *,
        regex: bool = False,
        keep: str = "start",
        strip: bool = True,
    ) -> None:
        super().__init__(text, size, overlap, length)
        self.regex = regex
        self.keep = keep  # "start", "end", or "" for False
        self.strip = strip
        self.length = length
        self.merge_sep = ""
        self.embeds: dict[int, str] = {}
        self._compiled: dict[str, re.Pattern[str]] = {}

    def _pattern(self, sep: str) -> re.Pattern[str]:
        found = self._compiled.get(sep)
        if found is None:
            found = self._compiled[sep] = re.compile(sep if self.regex else re.escape(sep))
        return found

    def _cut(self, a: int, b: int, sep: str) -> list[tuple[int, int]]:
        """LangChain's `_split_text_with_regex` on ``text[a:b]``, as offsets; empty pieces left out."""
        if not sep:
            return [(i, i + 1) for i in range(a, b)]
        if self.regex and self.keep:
            _kept_compiles(sep)
        # A regular expression is matched on the piece itself, as LangChain matches it: its
        # lookarounds and anchors must not see the text around the piece.
        sub = self.text[a:b] if self.regex else self.text
        shift = a if self.regex else 0
        found = self._pattern(sep).finditer(sub) if self.regex else self._pattern(sep).finditer(sub, a, b)
        cuts: list[tuple[int, int]] = []  # (start, end) of each separator
        for m in found:
            cuts.append((m.start() + shift, m.end() + shift))
        if self.keep == "start":
            bounds = [a, *(s for s, _ in cuts), b]
            pairs = list(zip(bounds, bounds[1:]))
        elif self.keep == "end":
            bounds = [a, *(e for _, e in cuts), b]
            pairs = list(zip(bounds, bounds[1:]))
        else:
            starts = [a, *(e for _, e in cuts)]
            ends = [*(s for s, _ in cuts), b]
            pairs = list(zip(starts, ends))
        return [(p, q) for p, q in pairs if p < q]

    def _found(self, a: int, b: int, sep: str) -> bool:
        if self.regex:
            return self._pattern(sep).search(self.text[a:b]) is not None
        return self.text.find(sep, a, b) != -1

    def _merge_with(self, run: list[tuple[int, int, int]], sep: str) -> None:
        self.merge_sep = "" if self.keep else sep
        self.sep_len = self.length(self.merge_sep)
        self._merge(run)

    def split(self, a: int, b: int, seps: tuple[str, ...]) -> list[tuple[int, int]]:
        size, measure = self.size, self.measure
        rest: tuple[str, ...] = ()
        sep = seps[-1]
        for i, s in enumerate(seps):
            if not s:
                sep = s
                break
            if self._found(a, b, s):
                sep, rest = s, seps[i + 1 :]
                break
        run: list[tuple[int, int, int]] = []
        for p, q in self._cut(a, b, sep):
            n = q - p if measure is None else measure(p, q)
            if n < size:
                run.append((p, q, n))
                continue
            if run:
                self._merge_with(run, sep)
                run = []
            if rest:
                self.split(p, q, rest)
            else:
                self.out.append((p, q))  # as it is, unstripped, as LangChain appends it
        if run:
            self._merge_with(run, sep)
        return self.out

    def split_flat(self, sep: str, merge_sep: str) -> list[tuple[int, int]]:
        """`CharacterTextSplitter`: one cut at `sep`, every piece merged, joined by `merge_sep`."""
        measure = self.measure
        run = [(p, q, q - p if measure is None else measure(p, q)) for p, q in self._cut(0, len(self.text), sep)]
        if run:
            self.merge_sep = merge_sep
            self.sep_len = self.length(merge_sep)
            self._merge(run)
        return self.out

    def _window(self, run: list[tuple[int, int, int]], lo: int, hi: int) -> None:
        text, sep = self.text, self.merge_sep
        # Kept separators make the pieces tile the text: a run of them is one slice. Dropped
        # ones leave gaps, which LangChain's join closes with the separator (or with nothing,
        # after a lookaround).
        if self.keep or hi - lo == 1:
            a, b = run[lo][0], run[hi - 1][1]
            if self.strip:
                self._emit(a, b)
            elif b > a:
                self.out.append((a, b))
            return
        joined = sep.join([text[p:q] for p, q, _ in run[lo:hi]])
        if self.strip:
            joined = joined.strip()
        if not joined:
            return
        start, end = run[lo][0], run[hi - 1][1]
        if self.strip:
            start, end = self._covering(run[lo:hi], sep)
        if text[start:end] != joined:
            self.embeds[len(self.out)] = joined
        self.out.append((start, end))

    def _covering(self, pieces: list[tuple[int, int, int]], sep: str) -> tuple[int, int]:
        """The slice of the text covering ``sep.join(pieces).strip()``: from its first character
        that is not whitespace (in a piece, or in the gap a separator stood in) to its last."""
        text = self.text
        solid = bool(sep.strip())
        start = end = None
        for j, (p, q, _) in enumerate(pieces):
            if j and solid:
                start = pieces[j - 1][1]
                break
            k = len(text[p:q]) - len(text[p:q].lstrip())
            if p + k < q:
                start = p + k
                break
        for j in range(len(pieces) - 1, -1, -1):
            p, q, _ = pieces[j]
            kept = text[p:q].rstrip()
            if kept:
                end = p + len(kept)
                break
            if j and solid:
                end = p
                break
        assert start is not None and end is not None
        return start, max(start, end)
