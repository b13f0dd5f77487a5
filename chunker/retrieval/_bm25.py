"""Okapi BM25 over chunks, standard library only: the lexical retriever `evaluate` ranks with.

Terms
    A term is a run of Unicode word characters (``re``'s ``\\w``: letters, digits, the
    underscore), case-folded with ``str.casefold``. Casefold rather than lower, so that
    "STRASSE" finds "Straße" (casefold maps ß to ss; lower keeps it). Han and kana are
    written without spaces, so a run of Han and kana characters (one run for both:
    Japanese words mix them) is indexed by its overlapping character bigrams, 検索結果 →
    検索 索結 結果, and a run of one such character as itself. A word run that enters or
    leaves Han/kana is cut there (``Python3の使い方`` → python3, の使, 使い, い方). Hangul is
    spaced like Latin, so its runs are words. What counts as a word character is the
    running Python's Unicode database (CPython 3.11 and Pyodide may differ on characters
    added since).

    >>> terms("Straße, STRASSE: 検索結果 と Python3の使い方")
    ['strasse', 'strasse', '検索', '索結', '結果', 'と', 'python3', 'の使', '使い', 'い方']

Scoring, for a query Q and a chunk D
    score(D, Q) = sum over the distinct terms t of Q of
                  IDF(t) * tf(t, D) * (k1 + 1) / (tf(t, D) + k1 * (1 - b + b * |D| / avgdl))
    IDF(t)      = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))      (Lucene's: never negative)

    N is the number of chunks, n(t) how many contain t, tf(t, D) how often t occurs in D,
    |D| the number of terms in D and avgdl their mean over the chunks; k1 = 1.5 and
    b = 0.75 by default. A term repeated in the query counts once. A chunk that shares no
    term with the query scores 0 and is never returned, so a search may return fewer than
    k chunks; equal scores go to the lower chunk index first.

Speed: an index does not tokenise its chunks. The document is tokenised once
(`_DocumentTerms`); a chunk is the slice of that list holding the runs that lie wholly
inside it, plus the runs its edges cut, tokenised again as the part inside the chunk. That
is the same as tokenising each chunk's own text (a test compares the two on random spans),
costs two bisections per chunk, and one tokenisation serves every chunking of a sweep.
Term statistics are gathered only for the terms searched for, all of a batch of queries
in one pass over the document (`BM25Index.prepare`).
"""

from __future__ import annotations

import heapq
import math
import operator
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate, compress
from typing import Any

from .._errors import ChunkerError, check_str_list, shown
from ..results._records import ChunkResult, Chunks
from ..text._segments import Deferred

__all__ = ["BM25Index", "terms"]

# Han (unified, extensions, compatibility, iteration and numeral marks) and kana (hiragana,
# katakana, their extensions, halfwidth katakana). Characters of these blocks that are not
# word characters (the middle dot ・, the sound marks ゛゜) separate runs like punctuation.
_HAN_KANA = (
    "\u3005-\u3007\u3021-\u3029\u3038-\u303c\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\U0001aff0-\U0001b16f\U00020000-\U0003ffff"
)
# Compiled when first used (see `Deferred`): a chunking never ranks.
_ANY_HAN_KANA = Deferred(f"[{_HAN_KANA}]")
_FROM_HAN_KANA = Deferred("[\u3005-\U0003ffff]")  # a quicker first look: one range
# A run of Han/kana word characters, or a run of other word characters.
_RUN = Deferred(f"(?:(?=\\w)[{_HAN_KANA}])+|[^\\W{_HAN_KANA}]+")
_SEPARATORS = re.compile(r"(\W+)")


def _run_terms(run: str, han_kana_at: Callable[[str], re.Match[str] | None]) -> list[str]:
    """The terms of one run that `_RUN` found; `han_kana_at`: `_ANY_HAN_KANA`'s compiled match
    (asked of every word: taken once by the caller, not through `Deferred` each time)."""
    if han_kana_at(run) is None:
        return [run.casefold()]
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _has_han_kana(text: str) -> bool:
    first = _FROM_HAN_KANA.search(text)
    return first is not None and _ANY_HAN_KANA.search(text, first.start()) is not None


def terms(text: str) -> list[str]:
    """The terms of `text` in order, as the index and the queries see them (see the module).

    >>> terms("Chunk size: 512 tokens_max, not 1024!")
    ['chunk', 'size', '512', 'tokens_max', 'not', '1024']
    """
    out: list[str] = []
    han_kana_at = _ANY_HAN_KANA.compiled().match
    for run in _RUN.compiled().findall(text):
        out.extend(_run_terms(run, han_kana_at))
    return out


class _DocumentTerms:
    """A document tokenised once: its runs in order, each with the span it came from.

    `keys[p]` is the p-th run, and `term(keys[p])` its term: the run itself, case-folded
    on first use (folding the document's vocabulary is cheaper than folding every word),
    or in a document with Han or kana, one term per key already (a bigram's span is its
    whole run). Either way the terms of the runs lying wholly inside a span form one slice.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._hits: tuple[frozenset[str], list[int], list[str]] | None = None
        self._folded: dict[str, str] | None = None
        self._keys_are_terms = False
        if not _has_han_kana(text):
            # Every run is a word: split at the separators and add up the lengths, all in C.
            # (finditer's match objects would cost half as much again.)
            parts = _SEPARATORS.split(text)
            ends_all = list(accumulate(map(len, parts)))
            words = parts[0::2]  # parts alternate word, separator, word, ...
            self.starts = [0, *ends_all[1::2]]
            self.ends = ends_all[0::2]
            if words and not words[-1]:  # text ends with a separator
                del words[-1], self.starts[-1], self.ends[-1]
            if words and not words[0]:  # text starts with one
                del words[0], self.starts[0], self.ends[0]
            self.keys = words
            return
        self.keys, self.starts, self.ends = [], [], []
        han_kana_at = _ANY_HAN_KANA.compiled().match
        for m in _RUN.finditer(text):
            found = _run_terms(m.group(), han_kana_at)
            self.keys.extend(found)
            self.starts.extend([m.start()] * len(found))
            self.ends.extend([m.end()] * len(found))
        self._keys_are_terms = True

    def terms_of(self, positions: Iterable[int]) -> Iterable[str]:
        """The terms at `positions` of `keys`."""
        keys = map(self.keys.__getitem__, positions)
        if self._keys_are_terms:
            return keys
        return map(self._fold().__getitem__, keys)

    def _fold(self) -> dict[str, str]:
        if self._folded is None:
            self._folded = {w: w.casefold() for w in set(self.keys)}
        return self._folded

    def slice(self, start: int, end: int) -> tuple[int, int, list[str]]:
        """``(i, j, edges)``: the terms of ``text[start:end]`` are those of ``keys[i:j]``, and `edges`.

        `edges` are the terms of the runs the span's edges cut, tokenised as the part of
        them inside the span, so the whole equals ``terms(text[start:end])`` as a multiset.
        """
        starts, ends, text = self.starts, self.ends, self.text
        i = bisect_left(starts, start)  # the first run starting inside the span
        j = max(i, bisect_right(ends, end))  # past the last run ending inside it
        edges: list[str] = []
        if i and ends[i - 1] > start:  # a run starts before the span and reaches into it
            edges = terms(text[start : min(ends[i - 1], end)])
            if ends[i - 1] >= end:
                return i, j, edges  # the whole span lies inside that one run
        if j < len(starts) and starts[j] < end:  # a run starts inside the span and goes past it
            edges += terms(text[starts[j] : end])
        return i, j, edges

    def hits(self, wanted: frozenset[str]) -> tuple[list[int], list[str]]:
        """The positions in `keys` whose terms are in `wanted`, in order, and those terms.

        The last answer is kept: every chunking of a sweep asks for the same terms.
        """
        if self._hits is None or self._hits[0] != wanted:
            if self._keys_are_terms:
                match: frozenset[str] | set[str] = wanted
            else:
                match = {w for w, term in self._fold().items() if term in wanted}
            positions = list(compress(range(len(self.keys)), map(match.__contains__, self.keys)))
            self._hits = (wanted, positions, list(self.terms_of(positions)))
        return self._hits[1], self._hits[2]


class BM25Index:
    """Okapi BM25 over a list of texts (chunks), searched any number of times.

    `BM25Index(texts)` indexes separate texts; `from_result` and `from_spans` index spans
    of one document, which is tokenised once however many spans share its text.

    >>> index = BM25Index(["The cat sat.", "A dog barked at the cat.", "Dogs bark."])
    >>> index.search("which dog barked?", k=5)
    [1]
    >>> index.search("the cat", k=1)
    [0]

    Term statistics are gathered when a term is first searched for, in one pass over the
    document for all the new terms of a query (or of all the queries given to `prepare`).
    """

    def __init__(self, texts: Iterable[str], *, k1: float = 1.5, b: float = 0.75) -> None:
        check_str_list(texts, "texts", "text")
        texts = list(texts)
        for n, t in enumerate(texts):
            if not isinstance(t, str):
                raise ChunkerError(f"text {n} must be a str, got {type(t).__name__}")
        spans, at = [], 0
        for t in texts:
            spans.append((at, at + len(t)))
            at += len(t) + 1
        # One line each: a line break is no word character, so no term spans two texts.
        self._setup(_DocumentTerms("\n".join(texts)), spans, None, k1, b)

    @classmethod
    def from_spans(
        cls,
        document: str,
        spans: Sequence[tuple[int, int]],
        *,
        headings: Sequence[Sequence[str]] | None = None,
        k1: float = 1.5,
        b: float = 0.75,
    ) -> BM25Index:
        """An index of ``document[start:end]`` for each ``(start, end)`` of `spans`.

        With `headings` (one heading path per span), each span is indexed with its path
        before its text, as a pipeline that embeds the path with the chunk sees it.
        """
        if not isinstance(document, str):
            raise ChunkerError(f"document must be a str, got {type(document).__name__}")
        return cls._of_document(_DocumentTerms(document), _spans(spans), _headings(headings), k1, b)

    @classmethod
    def from_result(cls, result: ChunkResult, *, with_headings: bool = False, k1: float = 1.5, b: float = 0.75) -> BM25Index:
        """An index of the chunks of a `ChunkResult` (chunk i of the result is entry i).

        >>> from chunker import chunk
        >>> res = chunk("# Setup\\n\\nInstall it.\\n\\n# Usage\\n\\nRun it.", strategy="markdown", size=5, overlap=0)
        >>> BM25Index.from_result(res, with_headings=True).search("usage", k=3)
        [1]
        """
        if not isinstance(result, ChunkResult):
            raise ChunkerError(f"from_result takes the ChunkResult of chunk(), got {type(result).__name__}")
        chunks = result.chunks
        headings = [c.headings for c in chunks] if with_headings else None
        if not isinstance(chunks, Chunks):  # a result made by hand, without its document
            texts = [c.text for c in chunks]
            return cls(_with_headings(texts, headings) if headings else texts, k1=k1, b=b)
        return cls._of_document(_DocumentTerms(chunks._text), chunks.spans(), headings, k1, b)

    @classmethod
    def _of_document(
        cls, doc: _DocumentTerms, spans: Sequence[tuple[int, int]], headings: Sequence[Sequence[str]] | None, k1: float, b: float
    ) -> BM25Index:
        index = cls.__new__(cls)
        index._setup(doc, spans, headings, k1, b)
        return index

    def _setup(
        self, doc: _DocumentTerms, spans: Sequence[tuple[int, int]], headings: Sequence[Sequence[str]] | None, k1: float, b: float
    ) -> None:
        self.k1, self.b = _parameters(k1, b)
        n = len(doc.text)
        if headings is not None and len(headings) != len(spans):
            raise ChunkerError(f"headings has {len(headings)} entries for {len(spans)} spans: give one heading path per span")
        firsts, lasts, lengths = [], [], []
        extra: dict[int, list[str]] = {}  # chunk -> its terms beyond keys[i:j] (cut edges, headings)
        path_terms: dict[tuple[str, ...], list[str]] = {}
        for c, (start, end) in enumerate(spans):
            if not 0 <= start <= end <= n:
                raise ChunkerError(
                    f"span ({start}, {end}) is not inside the document of {n} characters: give 0 <= start <= end <= {n}"
                )
            i, j, edges = doc.slice(start, end)
            if headings is not None and headings[c]:
                path = tuple(headings[c])
                if path not in path_terms:
                    path_terms[path] = terms("\n".join(path))
                edges = edges + path_terms[path]
            if edges:
                extra[c] = edges
            firsts.append(i)
            lasts.append(j)
            lengths.append(j - i + len(edges))
        self._doc, self._firsts, self._lasts, self._extra = doc, firsts, lasts, extra
        self._n = len(spans)
        self._lengths = lengths
        avgdl = sum(lengths) / len(lengths) if lengths else 0.0
        # The length part of the formula's denominator, per chunk (avgdl > 0 wherever a
        # chunk holds a term, the only place it is used).
        k1, b = self.k1, self.b
        self._norms = [k1 * (1.0 - b + b * length / avgdl) if avgdl else k1 for length in lengths]
        self._weights: dict[str, tuple[list[int], list[float]]] = {}

    def __len__(self) -> int:
        return self._n

    def prepare(self, queries: Iterable[str]) -> None:
        """Gather the statistics of every term of `queries` in one pass over the document.

        Optional: `search` gathers what it lacks itself, one pass per query with new terms.
        """
        check_str_list(queries, "queries", "query")
        wanted: set[str] = set()
        for q in queries:
            if not isinstance(q, str):
                raise ChunkerError(f"a query must be a str, got {type(q).__name__}")
            wanted.update(terms(q))
        self._gather(wanted)

    def _gather(self, wanted: set[str]) -> None:
        new = frozenset(t for t in wanted if t not in self._weights)
        if not new:
            return
        hits, hit_terms = self._doc.hits(new)
        found: dict[str, tuple[list[int], list[int]]] = {t: ([], []) for t in new}
        for c, (i, j) in enumerate(zip(self._firsts, self._lasts)):
            lo, hi = bisect_left(hits, i), bisect_left(hits, j)
            if hi == lo and c not in self._extra:
                continue
            counts = Counter(hit_terms[lo:hi])
            if c in self._extra:
                counts.update(t for t in self._extra[c] if t in new)
            for term, tf in counts.items():
                chunks, tfs = found[term]
                chunks.append(c)
                tfs.append(tf)
        k1_1, norms, n = self.k1 + 1.0, self._norms, self._n
        for term, (chunks, tfs) in found.items():
            df = len(chunks)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            self._weights[term] = (chunks, [idf * tf * k1_1 / (tf + norms[c]) for c, tf in zip(chunks, tfs)])

    def _scored(self, query: str) -> dict[int, float]:
        if not isinstance(query, str):
            raise ChunkerError(f"query must be a str, got {type(query).__name__}")
        query_terms = list(dict.fromkeys(terms(query)))  # distinct, in query order
        self._gather(set(query_terms))
        # The commonest term first: its chunks are copied in C, and only the rarer terms'
        # are added one by one. Every chunk sums its terms in this same order, so chunks
        # with the same terms and lengths still tie exactly.
        postings = sorted((self._weights[t] for t in query_terms), key=lambda p: -len(p[0]))
        if not postings:
            return {}
        totals = dict(zip(*postings[0]))
        get = totals.get
        for chunks, weights in postings[1:]:
            for c, weight in zip(chunks, weights):
                totals[c] = get(c, 0.0) + weight
        return totals

    def scores(self, query: str) -> list[float]:
        """Every chunk's score for `query`, in chunk order (0.0: no term in common).

        >>> [round(s, 3) for s in BM25Index(["red fish", "blue fish", "red red red"]).scores("red")]
        [0.502, 0.0, 0.731]
        """
        out = [0.0] * self._n
        for c, score in self._scored(query).items():
            out[c] = score
        return out

    def search(self, query: str, k: int = 5) -> list[int]:
        """The indices of the (at most) `k` best chunks for `query`, best first.

        Chunks with no term of the query are never returned; ties go to the lower index.
        """
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ChunkerError(f"k must be a whole number of at least 1, got {k!r}")
        totals = self._scored(query)
        # (score, -index) pairs compare in C: the highest score first, then the lowest index.
        best = heapq.nlargest(k, zip(totals.values(), map(operator.neg, totals)))
        return [-negated for _, negated in best]


def _with_headings(texts: Sequence[str], headings: Sequence[Sequence[str]]) -> list[str]:
    return ["\n".join(path) + "\n\n" + text if path else text for text, path in zip(texts, headings)]


def _spans(spans: Any) -> list[tuple[int, int]]:
    """`from_spans`'s spans checked: (start, end) pairs of whole numbers (their range is checked
    against the document by `_setup`)."""
    if isinstance(spans, (str, bytes)) or not isinstance(spans, Iterable):
        raise ChunkerError(f"spans must be a list of (start, end) pairs, got {type(spans).__name__}")
    out = []
    for n, span in enumerate(spans):
        try:
            start, end = span
            out.append((operator.index(start), operator.index(end)))  # an int, or what slices as one
        except (TypeError, ValueError):
            raise ChunkerError(f"span {n} must be a (start, end) pair of whole numbers, got {shown(span, 60)}") from None
    return out


def _headings(headings: Any) -> list[tuple[str, ...]] | None:
    """`from_spans`'s heading paths checked: None, or one sequence of str per span."""
    if headings is None:
        return None
    if isinstance(headings, (str, bytes)) or not isinstance(headings, Iterable):
        raise ChunkerError(f"headings must be a list of heading paths (lists of str), got {type(headings).__name__}")
    out: list[tuple[str, ...]] = []
    for n, path in enumerate(headings):
        if path is None:  # no heading path, as an empty one
            out.append(())
            continue
        # A str is a sequence of str too: as a path, each of its characters would be a heading.
        if isinstance(path, str) or not isinstance(path, Iterable):
            raise ChunkerError(f"headings[{n}] must be a list of str (a heading path), got {type(path).__name__}")
        path = tuple(path)
        if not all(isinstance(h, str) for h in path):
            raise ChunkerError(f"headings[{n}] must hold only str, got {shown(path, 60)}")
        out.append(path)
    return out


def _parameters(k1: float, b: float) -> tuple[float, float]:
    """Validated BM25 parameters."""
    for name, value in (("k1", k1), ("b", b)):
        # math.isfinite of an int past a float's range raises OverflowError: such an int is no
        # finite float either.
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or (isinstance(value, int) and abs(value) > 2**1023)
            or not math.isfinite(value)
        ):
            raise ChunkerError(f"{name} must be a finite number, got {shown(value, 40)}")
    if k1 < 0:
        raise ChunkerError(f"k1 must be 0 or more (1.2 to 2.0 is usual), got {k1!r}")
    if not 0 <= b <= 1:
        raise ChunkerError(f"b must be from 0 to 1 (0.75 is usual), got {b!r}")
    return float(k1), float(b)
