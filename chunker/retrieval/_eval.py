"""Does this chunking retrieve? BM25 over the chunks, scored against answer spans.

For each question, BM25 (`_bm25`) ranks the chunks and the top k, C, are compared with the
question's references R, as character spans of the document. The metrics are those of
Chroma's 2024 report "Evaluating Chunking Strategies for Retrieval", with characters for
tokens:

- numerator = the length of the union of every overlap between a chunk of C and R;
- recall    = numerator / |R|;
- precision = numerator / sum of |c| over C (each chunk's full length: text that two
  retrieved chunks share counts twice, so overlap costs precision);
- IoU       = numerator / (sum of |c| over C + the length of R that no chunk of C covers);
- hit       = 1 if a chunk of C overlaps R by at least one character, else 0;
- rank      = the 1-based place in C of the first such chunk; MRR averages 1/rank (0 if none);
- Precision_Ω = the precision had exactly the chunks that hold the answer been retrieved:
  with H the chunks that overlap R and T the characters of H (the union: a character two of
  them share counts once), |R ∩ T| / |T|. It depends on the chunking alone, not on the
  retriever or k: how much of what the retriever must return, at best, is answer.

Each metric is reported as its mean over the questions and their standard deviation (the
population one, as Chroma's ``*_std``). `compare` puts a paired bootstrap interval
(`_stats`) on the difference between two settings, and `mark_best` one on each sweep row's
difference from the best.

When k is half the chunks or more, any ranking retrieves most of the document, so recall and
hit rate are high whatever the chunking: the evaluation carries a `warning`, and such a sweep
row is never marked best (with k = 5, a setting of 1 to 10 chunks would otherwise win recall
by retrieving nearly everything).

Decisions, each tested:

- R is the union of a question's references. The report defines its metrics on the set of
  tokens in the references, so text two references share counts once. (Chroma's code sums
  the references' lengths instead; the two agree wherever a question's references do not
  overlap each other.)
- BM25 never returns a chunk that shares no term with the question, so C may hold fewer
  than k chunks, or none. Then precision is 0 (nothing retrieved, nothing relevant), as
  are recall and IoU.
- A document without chunks (empty, or only whitespace) retrieves nothing: every metric 0.
- With `with_headings`, chunks are ranked with their heading path before their text, and
  with ``index="embedded"`` by their `embed_text` (the context, then the text);
  either way lengths are still their spans of the document: neither is part of it. The
  report says which it ranked (`Evaluation.index`).
- Precision_Ω follows the report's definition on sets of characters. Chroma's code also
  adds to its denominator the answer's characters that no chunk holds (whitespace a
  chunking leaves between chunks); the two agree wherever the chunks hold every character
  of the answer. A question no chunk overlaps has Precision_Ω 0.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._errors import ChunkerError, shown
from ..results._records import ChunkResult, Chunks
from ..session._api import Document
from ..settings._options import Settings, options_for, signed, unknown_setting
from ._bm25 import _DocumentTerms, _parameters
from ._questions import Question
from ._rankers import make_index
from ._stats import CONFIDENCE, RESAMPLES, SEED, Interval, Resamples, mean_std

__all__ = [
    "Evaluation",
    "QuestionResult",
    "SweepRow",
    "compare",
    "evaluate",
    "mark_best",
    "sweep",
    "METRICS",
    "SWEEP_STRATEGIES",
    "SWEEP_SIZES",
    "INDEXES",
]

METRICS = ("recall", "precision", "iou", "hit_rate", "mrr", "precision_omega")
"""The metrics each question gets and each evaluation averages, in the order they are shown."""
BEST_METRICS = ("recall", "iou")
"""The metrics a sweep marks its best rows by."""
_SUMMARY = tuple(f for m in METRICS for f in (m, m + "_std"))
"""The fields `_summary` fills, in `to_dict` order: each metric's mean, then its spread."""
COVERED = 0.5
"""The share of the chunks past which k retrieves "most" of the document (see `coverage_warning`)."""

Span = tuple[int, int]

SWEEP_STRATEGIES = ("recursive", "sentence", "markdown")
SWEEP_SIZES = (128, 256, 512, 1024)
"""The sweep's grid, for `sweep()`, `chunker eval --sweep` and the page: the sizes published
evaluations compare."""
INDEXES = ("text", "embedded")
"""What the check can rank each chunk by: its own text, or its `embed_text` (its context, then
its text: what a pipeline embeds)."""
SWEEP_OVERLAP = "10%"
"""A sweep's overlap: a share of each size, as a count (50) would be 39% of 128 but 5% of 1024."""


def _document_terms(document: str | Document) -> _DocumentTerms:
    """The document's terms for BM25: kept on a `Document` (a slider move, a sweep), made
    afresh for a str."""
    if isinstance(document, Document):
        terms = getattr(document, "_terms", None)
        if terms is None:
            terms = _DocumentTerms(document.text)
            document._terms = terms  # type: ignore[attr-defined]
        return terms
    return _DocumentTerms(document)


def _text(document: str | Document) -> str:
    if isinstance(document, Document):
        return document.text
    if not isinstance(document, str):
        raise ChunkerError(f"document must be a str or a Document, got {type(document).__name__}")
    return document


def _union(spans: Sequence[Span]) -> list[Span]:
    """Sorted, disjoint spans covering the same characters (touching spans merge)."""
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        elif end > start:
            out.append((start, end))
    return out


def _shared(a: list[Span], b: list[Span]) -> int:
    """Characters two sorted disjoint span lists have in common."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def _scores(references: list[Span], retrieved: Sequence[Span]) -> tuple[float, float, float, int | None]:
    """(recall, precision, iou, rank) of one question; `references` already a union."""
    relevant = sum(end - start for start, end in references)
    numerator = _shared(references, _union(retrieved))
    retrieved_chars = sum(end - start for start, end in retrieved)
    missed = relevant - numerator
    rank = next((k for k, span in enumerate(retrieved, 1) if _shared(references, [span])), None)
    return (
        numerator / relevant,
        numerator / retrieved_chars if retrieved_chars else 0.0,
        numerator / (retrieved_chars + missed),  # > 0: references are never empty
        rank,
    )


class _Holders:
    """The chunks of one chunking, found by the characters they overlap: sorted by start, so
    the chunks overlapping [a, b) are among those starting in (a - longest, b)."""

    def __init__(self, spans: Sequence[Span]) -> None:
        self.spans = sorted(s for s in spans if s[1] > s[0])
        self.starts = [s for s, _ in self.spans]
        self.longest = max((e - s for s, e in self.spans), default=0)

    def holding(self, references: list[Span]) -> list[Span]:
        """The chunks that share at least one character with `references` (a union)."""
        found: set[Span] = set()
        for a, b in references:
            lo = bisect_left(self.starts, a - self.longest + 1)
            hi = bisect_left(self.starts, b)
            found.update(span for span in self.spans[lo:hi] if span[1] > a)
        return sorted(found)

    def omega(self, references: list[Span]) -> float:
        """Precision_Ω of one question; `references` already a union."""
        union = _union(self.holding(references))
        held = sum(end - start for start, end in union)
        return _shared(references, union) / held if held else 0.0


def coverage_warning(top_k: int, chunks: int) -> str | None:
    """The warning for a top k that retrieves half the chunks or more, else None.

    At that share a ranking that ignored the question would still retrieve most answers, so
    recall and hit rate mostly measure how few chunks there are.

    >>> coverage_warning(5, 5).split(":")[0]
    'the top 5 retrieve all 5 chunks'
    >>> coverage_warning(5, 11) is None
    True
    """
    if chunks == 0 or top_k < COVERED * chunks:
        return None
    taken = f"all {chunks:,}" if top_k >= chunks else f"{top_k:,} of the {chunks:,}"
    return (
        f"the top {top_k:,} retrieve {taken} chunks: with half the chunks or more retrieved, recall and hit "
        "rate are high whatever the ranking, so these numbers say little; use smaller chunks or a smaller top k"
    )


@dataclass(frozen=True)
class QuestionResult:
    """One question's retrieval: the chunk indices, best first, and its scores.

    A plain record any retriever fills: `_evaluation` makes it from a ranking.
    `precision_omega` is the chunking's alone (it does not depend on what was retrieved).
    """

    question: str
    retrieved: tuple[int, ...]
    recall: float
    precision: float
    iou: float
    hit: bool
    rank: int | None  # of the first retrieved chunk that overlaps the answer, from 1
    precision_omega: float

    def value(self, metric: str) -> float:
        """The question's score for one of `METRICS` (hit_rate: 1 or 0; mrr: 1 / rank, or 0)."""
        if metric == "hit_rate":
            return 1.0 if self.hit else 0.0
        if metric == "mrr":
            return 1 / self.rank if self.rank else 0.0
        if metric not in METRICS:
            raise ChunkerError(f"unknown metric {metric!r}: choose from {', '.join(METRICS)}")
        return float(getattr(self, metric))

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "retrieved": list(self.retrieved),
            "recall": self.recall,
            "precision": self.precision,
            "iou": self.iou,
            "hit": self.hit,
            "rank": self.rank,
            "precision_omega": self.precision_omega,
        }


def _summary(results: Sequence[QuestionResult]) -> dict[str, float]:
    """Each metric's mean over the questions (`recall`) and standard deviation (`recall_std`)."""
    out: dict[str, float] = {}
    for metric in METRICS:
        out[metric], out[metric + "_std"] = mean_std([r.value(metric) for r in results])
    return out


def _means_dict(record: Any) -> dict[str, float]:
    """Each metric's mean then its standard deviation, for `to_dict`."""
    return {name: getattr(record, name) for name in _SUMMARY}


@dataclass(frozen=True)
class Evaluation:
    """Each metric's mean over the questions and its standard deviation, and each question's
    own result. `warning` says when k retrieves so much of the document that the numbers
    say little (`coverage_warning`)."""

    questions: int
    top_k: int
    chunks: int
    recall: float
    precision: float
    iou: float
    hit_rate: float
    mrr: float
    precision_omega: float
    recall_std: float
    precision_std: float
    iou_std: float
    hit_rate_std: float
    mrr_std: float
    precision_omega_std: float
    warning: str | None
    per_question: tuple[QuestionResult, ...]
    index: str = "text"
    """What each chunk was ranked by: "text" (its own) or "embedded" (its embed_text)."""

    def to_dict(self) -> dict[str, Any]:
        """The object ``python -m chunker eval`` prints."""
        return {
            "questions": self.questions,
            "top_k": self.top_k,
            "index": self.index,
            "chunks": self.chunks,
            **_means_dict(self),
            "warning": self.warning,
            "per_question": [q.to_dict() for q in self.per_question],
        }


def compare(
    a: Evaluation,
    b: Evaluation,
    *,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> tuple[Interval, ...]:
    """A paired bootstrap interval on b's mean minus a's, for each of `METRICS`.

    `a` and `b` must be evaluations of the same questions, in the same order (two chunkings,
    or two retrievers, of one document). The same seed gives the same intervals.

    >>> from chunker import chunk
    >>> from chunker.retrieval._questions import Question, Reference
    >>> doc = "Deploys take twelve minutes. Rollbacks take one minute. Backups run nightly."
    >>> at = doc.index("one minute")
    >>> qs = [Question("How long does a rollback take?", [Reference(at, at + 10, "one minute")])]
    >>> one = evaluate(doc, chunk(doc, strategy="sentence", size=0), qs, top_k=1)
    >>> [(iv.metric, iv.difference, iv.low, iv.high) for iv in compare(one, one)][:2]
    [('recall', 0.0, 0.0, 0.0), ('precision', 0.0, 0.0, 0.0)]
    """
    for e in (a, b):
        if not isinstance(e, Evaluation):
            raise ChunkerError(f"compare takes two Evaluations (from evaluate), got {type(e).__name__}")
    if [q.question for q in a.per_question] != [q.question for q in b.per_question]:
        raise ChunkerError(
            f"the two evaluations are of different questions ({a.questions} and {b.questions}): "
            "evaluate both settings with the same questions, in the same order"
        )
    draws = Resamples(a.questions, resamples=resamples, seed=seed)
    return tuple(
        draws.interval(
            metric,
            [q.value(metric) for q in a.per_question],
            [q.value(metric) for q in b.per_question],
            confidence=confidence,
        )
        for metric in METRICS
    )


def _check_questions(document: str, questions: Sequence[Question]) -> tuple[Question, ...]:
    if isinstance(questions, (str, Question)) or not isinstance(questions, Iterable):
        raise ChunkerError(
            f"questions must be a list of Question records, got {type(questions).__name__}: read them with load_questions"
        )
    questions = tuple(questions)
    if not questions:
        raise ChunkerError("there are no questions: give at least one, with its answer spans")
    for n, q in enumerate(questions, 1):
        if not isinstance(q, Question):
            raise ChunkerError(f"question {n} is a {type(q).__name__}, not a Question: read them with load_questions")
        for r in q.references:
            if r.end_index > len(document) or document[r.start_index : r.end_index] != r.content:
                raise ChunkerError(
                    f"question {n}'s reference [{r.start_index}, {r.end_index}) does not match "
                    "this document: load the questions against this very document"
                )
    return questions


def _top_k(top_k: int) -> int:
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise ChunkerError(f"top_k must be a whole number of at least 1, got {top_k!r}")
    return top_k


def _evaluation(
    spans: Sequence[Span],
    questions: Sequence[Question],
    rankings: Sequence[Sequence[int]],
    top_k: int,
    ranked_by: str = "text",
) -> Evaluation:
    """The evaluation of any retriever's rankings: ``rankings[i]`` is question i's chunk
    indices into `spans`, best first, at most `top_k` of them; `ranked_by` what it ranked
    each chunk by (`INDEXES`)."""
    holders = _Holders(spans)
    results = []
    for q, ranking in zip(questions, rankings, strict=True):
        retrieved = tuple(ranking)
        refs = _union([(r.start_index, r.end_index) for r in q.references])
        recall, precision, iou, rank = _scores(refs, [spans[i] for i in retrieved])
        results.append(
            QuestionResult(
                question=q.question,
                retrieved=retrieved,
                recall=recall,
                precision=precision,
                iou=iou,
                hit=rank is not None,
                rank=rank,
                precision_omega=holders.omega(refs),
            )
        )
    return Evaluation(
        questions=len(results),
        top_k=top_k,
        chunks=len(spans),
        **_summary(results),
        warning=coverage_warning(top_k, len(spans)),
        per_question=tuple(results),
        index=ranked_by,
    )


def _measure(index: Any, spans: Sequence[Span], questions: Sequence[Question], top_k: int, ranked_by: str = "text") -> Evaluation:
    index.prepare(q.question for q in questions)  # one pass over the document for all their terms
    return _evaluation(spans, questions, [index.search(q.question, top_k) for q in questions], top_k, ranked_by)


def _spans_and_headings(
    document: str, result: ChunkResult, with_headings: bool, index: str = "text"
) -> tuple[list[Span], list[tuple[str, ...]] | None]:
    if not isinstance(result, ChunkResult):
        raise ChunkerError(f"result must be the ChunkResult of chunk(document), got {type(result).__name__}")
    chunks = result.chunks
    if isinstance(chunks, Chunks):
        if chunks._text is not document and chunks._text != document:
            raise ChunkerError("the result is of another document: chunk this document and pass that result")
        spans = chunks.spans()  # made from this very text: no record needs making
    else:
        if any(document[c.start_char : c.end_char] != c.text for c in chunks):
            raise ChunkerError("the result's chunks are not spans of this document: chunk this document and pass that result")
        spans = [(c.start_char, c.end_char) for c in chunks]
    headings = [c.headings for c in result.chunks] if with_headings else None
    if index == "embedded" and isinstance(chunks, Chunks) and chunks._contexts is not None:
        # The context's terms join the chunk's own (a heading path once more with headings).
        contexts = chunks._contexts
        paths = headings or [()] * len(contexts)
        headings = [(*p, c) if c else tuple(p) for p, c in zip(paths, contexts)]
    elif index == "embedded" and not isinstance(chunks, Chunks):
        paths = headings or [()] * len(chunks)
        headings = [(*p, c.context) if c.context else tuple(p) for p, c in zip(paths, chunks)]
    return spans, headings


def _index(index: str) -> str:
    if index not in INDEXES:
        raise ChunkerError(f"index must be {' or '.join(INDEXES)} (what each chunk is ranked by), got {index!r}")
    return index


def evaluate(
    document: str | Document,
    result: ChunkResult,
    questions: Sequence[Question],
    *,
    top_k: int = 5,
    k1: float = 1.5,
    b: float = 0.75,
    with_headings: bool = False,
    index: str = "text",
    retriever: str | None = None,
    embedding_model: Any = None,
) -> Evaluation:
    """Rank `result`'s chunks for each question with BM25 and score the top `top_k`.

    `retriever` (bm25, dense or hybrid) and the `embedding_model` dense and hybrid rank with
    are the result's settings' unless given (chunker/retrieval/_rankers.py).

    `index` says what each chunk is ranked by: "text", its own, or "embedded", its
    `embed_text` (the `context` setting's prefix, then the text); the report says which.

    A `Document` keeps its terms for BM25 between calls: evaluating its next chunking does
    not read it again.

    >>> from chunker import chunk
    >>> from chunker.retrieval._questions import Question, Reference
    >>> doc = "# Deploy\\n\\nA deploy takes twelve minutes.\\n\\n# Rollback\\n\\nA rollback takes one minute."
    >>> at = doc.index("one minute")
    >>> qs = [Question("How long does a rollback take?", [Reference(at, at + 10, "one minute")])]
    >>> res = chunk(doc, strategy="markdown", size=12, overlap=0)
    >>> [c.text for c in res.chunks]
    ['# Deploy\\n\\nA deploy takes twelve minutes.', '# Rollback\\n\\nA rollback takes one minute.']
    >>> ev = evaluate(doc, res, qs, top_k=1)
    >>> ev.per_question[0].retrieved, ev.recall, ev.hit_rate, ev.mrr
    ((1,), 1.0, 1.0, 1.0)
    >>> ev.precision  # 10 of the chunk's 40 characters answer the question
    0.25
    """
    text = _text(document)
    top_k = _top_k(top_k)
    _parameters(k1, b)
    questions = _check_questions(text, questions)
    index = _index(index)
    spans, headings = _spans_and_headings(text, result, with_headings, index)
    settings = result.settings
    ranker = make_index(
        retriever or getattr(settings, "retriever", "bm25"),
        text=text,
        terms=_document_terms(document),
        spans=spans,
        headings=headings,
        k1=k1,
        b=b,
        model=embedding_model if embedding_model is not None else getattr(settings, "embedding_model", None),
    )
    return _measure(ranker, spans, questions, top_k, index)


@dataclass(frozen=True)
class SweepRow:
    """One setting of a sweep: the chunking, how many chunks it made, and each metric's mean
    over the questions (and, from `precision_omega` on, Precision_Ω and the standard
    deviations, as in `Evaluation`).

    `best` names the metrics ("recall", "iou") this row is best at, and `versus_best` holds,
    per such metric, the paired bootstrap interval on this row's mean minus the best row's:
    `mark_best` fills both. `warning` is set when k retrieves half the chunks or more; such
    a row is never best. `settings` are the row's whole settings (every option, `model_max`
    included); `per_question` its questions' results (not in `to_dict`: one row a line).
    """

    strategy: str
    size: int
    unit: str
    overlap: int | str
    tokenizer: str
    breaks: tuple[str, ...]
    top_k: int
    chunks: int
    recall: float
    precision: float
    iou: float
    hit_rate: float
    mrr: float
    best: tuple[str, ...] = ()
    settings: Settings | None = None
    precision_omega: float = 0.0
    recall_std: float = 0.0
    precision_std: float = 0.0
    iou_std: float = 0.0
    hit_rate_std: float = 0.0
    mrr_std: float = 0.0
    precision_omega_std: float = 0.0
    warning: str | None = None
    versus_best: tuple[Interval, ...] = ()
    per_question: tuple[QuestionResult, ...] = ()
    index: str = "text"
    """What each chunk was ranked by (see `evaluate`)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "size": self.size,
            "unit": self.unit,
            "overlap": self.overlap,
            "tokenizer": self.tokenizer,
            "breaks": list(self.breaks),
            "top_k": self.top_k,
            "index": self.index,
            "chunks": self.chunks,
            **_means_dict(self),
            "warning": self.warning,
            "best": list(self.best),
            "versus_best": {iv.metric: iv.to_dict() for iv in self.versus_best},
        }


def _names(kind: str, values: Any) -> list[Any]:
    if isinstance(values, (str, int)):
        values = [values]
    if not isinstance(values, Iterable):
        raise ChunkerError(f"{kind} must be a list, got {type(values).__name__} {shown(values, 40)}")
    names: list[Any] = list(values)
    if not names:
        raise ChunkerError(f"{kind} is empty: name at least one")
    return names


@signed("sweep")
def sweep(
    document: str | Document,
    questions: Sequence[Question],
    *,
    strategies: Sequence[str] = SWEEP_STRATEGIES,
    sizes: Sequence[int] = SWEEP_SIZES,
    overlap: int | str = SWEEP_OVERLAP,
    top_k: int = 5,
    k1: float = 1.5,
    b: float = 0.75,
    with_headings: bool = False,
    index: str = "text",
    max_chunk_chars: int | None = None,
    **settings: Any,
) -> Iterator[SweepRow]:
    """Evaluate every strategy at every size; yield each row as soon as it is measured.

    `settings` are the other options of `chunk()` (unit, tokenizer, breaks, model_max...: the
    table's options for this surface), the same for every row.

    Every setting and question is checked before anything is chunked, so a bad one raises
    here, not halfway through. The document is measured once for all settings (its tokens,
    and its terms for BM25); a `Document` keeps both for later calls.
    Chunk indices are those of ``chunk(document, strategy=..., size=..., ...)``.

    >>> from chunker.retrieval._questions import Question, Reference
    >>> doc = "Deploys take twelve minutes. " * 20 + "Rollbacks take one minute."
    >>> at = doc.index("Rollbacks")
    >>> qs = [Question("rollbacks?", [Reference(at, len(doc), doc[at:])])]
    >>> rows = mark_best(sweep(doc, qs, strategies=["sentence"], sizes=[8, 64], unit="words", top_k=1))
    >>> [(r.size, r.chunks, r.recall, round(r.iou, 2), r.best, bool(r.warning)) for r in rows]
    [(8, 11, 1.0, 1.0, ('recall', 'iou'), False), (64, 2, 1.0, 0.15, (), True)]

    The second row's recall ties the first's only because its top 1 is half the document:
    it is never best (see `mark_best`).
    """
    doc = document if isinstance(document, Document) else Document(_text(document))
    top_k = _top_k(top_k)
    _parameters(k1, b)
    questions = _check_questions(doc.text, questions)
    taken = {o.name for o in options_for("sweep")} - {"overlap"}
    for name in settings:
        if name in ("strategy", "size"):
            raise ChunkerError(f"sweep takes {name.replace('y', 'ie')}s= (a list), not {name}=")
        if name not in taken:
            raise unknown_setting(
                name,
                owner="sweep",
                surface="sweep",
                others=("strategies", "sizes", "top_k", "k1", "b", "with_headings", "index", "max_chunk_chars"),
            )
    every = [
        Settings(**settings, strategy=s, size=z, overlap=overlap)
        for s in _names("strategies", strategies)
        for z in _names("sizes", sizes)
    ]
    return _sweep_rows(doc, questions, every, top_k, k1, b, with_headings, max_chunk_chars, _index(index))


def _sweep_rows(
    doc: Document,
    questions: tuple[Question, ...],
    settings: list[Settings],
    top_k: int,
    k1: float,
    b: float,
    with_headings: bool,
    max_chunk_chars: int | None,
    index: str = "text",
) -> Iterator[SweepRow]:
    doc_terms = _document_terms(doc)
    for s in settings:
        result = doc.run(s, max_chunk_chars=max_chunk_chars)
        spans, headings = _spans_and_headings(doc.text, result, with_headings, index)
        del result  # the chunk texts: a sweep of a large document need not hold two chunkings
        ranker = make_index(
            s.retriever, text=doc.text, terms=doc_terms, spans=spans, headings=headings, k1=k1, b=b, model=s.embedding_model
        )
        yield _row(s, _measure(ranker, spans, questions, top_k, index))


def _row(s: Settings, ev: Evaluation) -> SweepRow:
    """A sweep row of setting `s` from its evaluation."""
    return SweepRow(
        strategy=s.strategy,
        size=s.size,
        unit=s.unit,
        overlap=s.overlap,
        tokenizer=s.tokenizer,
        breaks=s.breaks,
        top_k=ev.top_k,
        chunks=ev.chunks,
        settings=s,
        **{name: getattr(ev, name) for name in _SUMMARY},
        warning=ev.warning,
        per_question=ev.per_question,
        index=ev.index,
    )


def mark_best(
    rows: Sequence[SweepRow] | Iterator[SweepRow],
    *,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> tuple[SweepRow, ...]:
    """The rows with `best` naming "recall" and/or "iou" where the row has the highest mean,
    and `versus_best` each row's paired bootstrap interval on its mean minus the best's.

    Rows tied at the top are all marked (the intervals are against the first of them); where
    every row scores 0 on a metric, none is. A row with a `warning` (k retrieves half its
    chunks or more) is never best: with few enough chunks any ranking retrieves most answers,
    so its recall says how few chunks it made, not how well they retrieve. Rows without
    per-question results (made by hand) get no interval.
    """
    if not isinstance(rows, Iterable):
        raise ChunkerError(f"mark_best takes the rows of sweep(), got {type(rows).__name__}")
    rows = tuple(rows)
    wrong = next((r for r in rows if not isinstance(r, SweepRow)), None)
    if wrong is not None:
        raise ChunkerError(f"mark_best takes the rows of sweep() (SweepRow records), got a {type(wrong).__name__}")
    eligible = [n for n, r in enumerate(rows) if r.warning is None]
    marks: dict[int, list[str]] = {}
    best_of: dict[str, int] = {}
    for metric in BEST_METRICS:
        # Rounded: equal means summed in another order may differ in the last bit.
        values = {n: round(getattr(rows[n], metric), 12) for n in eligible}
        top = max(values.values(), default=0.0)
        if top > 0:
            winners = [n for n, v in values.items() if v == top]
            best_of[metric] = winners[0]
            for n in winners:
                marks.setdefault(n, []).append(metric)
    intervals: dict[int, list[Interval]] = {}
    draws: Resamples | None = None
    for metric, b in best_of.items():
        best = rows[b].per_question
        if not best:
            continue
        draws = draws or Resamples(len(best), resamples=resamples, seed=seed)
        best_values = [q.value(metric) for q in best]
        for n, r in enumerate(rows):
            if len(r.per_question) == len(best):
                mine = [q.value(metric) for q in r.per_question]
                intervals.setdefault(n, []).append(draws.interval(metric, best_values, mine, confidence=confidence))
    return tuple(replace(r, best=tuple(marks.get(n, ())), versus_best=tuple(intervals.get(n, ()))) for n, r in enumerate(rows))
