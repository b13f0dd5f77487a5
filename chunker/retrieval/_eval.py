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
- rank      = the 1-based place in C of the first such chunk; MRR averages 1/rank (0 if none).

The reported values are the means over the questions.

Decisions, each tested:

- R is the union of a question's references. The report defines its metrics on the set of
  tokens in the references, so text two references share counts once. (Chroma's code sums
  the references' lengths instead; the two agree wherever a question's references do not
  overlap each other.)
- BM25 never returns a chunk that shares no term with the question, so C may hold fewer
  than k chunks, or none. Then precision is 0 (nothing retrieved, nothing relevant), as
  are recall and IoU.
- A document without chunks (empty, or only whitespace) retrieves nothing: every metric 0.
- With `with_headings`, chunks are ranked as embedded with their heading path, but lengths
  are still their spans of the document: the path is not part of it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._errors import ChunkerError
from ..results._records import ChunkResult, Chunks
from ..session._api import Document
from ..settings._options import Settings, options_for, signed, unknown_setting
from ._bm25 import _DocumentTerms, _parameters
from ._questions import Question
from ._rankers import make_index

__all__ = ["Evaluation", "QuestionResult", "SweepRow", "evaluate", "mark_best", "sweep", "SWEEP_STRATEGIES", "SWEEP_SIZES"]

Span = tuple[int, int]

SWEEP_STRATEGIES = ("recursive", "sentence", "markdown")
SWEEP_SIZES = (128, 256, 512, 1024)
"""The sweep's grid, for `sweep()`, `chunker eval --sweep` and the page: the sizes published
evaluations compare."""
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


@dataclass(frozen=True)
class QuestionResult:
    """One question's retrieval: the chunk indices, best first, and its scores."""

    question: str
    retrieved: tuple[int, ...]
    recall: float
    precision: float
    iou: float
    hit: bool
    rank: int | None  # of the first retrieved chunk that overlaps the answer, from 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "retrieved": list(self.retrieved),
            "recall": self.recall,
            "precision": self.precision,
            "iou": self.iou,
            "hit": self.hit,
            "rank": self.rank,
        }


@dataclass(frozen=True)
class Evaluation:
    """The means over the questions, and each question's own result."""

    questions: int
    top_k: int
    recall: float
    precision: float
    iou: float
    hit_rate: float
    mrr: float
    per_question: tuple[QuestionResult, ...]

    def to_dict(self) -> dict[str, Any]:
        """The object ``python -m chunker eval`` prints."""
        return {
            "questions": self.questions,
            "top_k": self.top_k,
            "recall": self.recall,
            "precision": self.precision,
            "iou": self.iou,
            "hit_rate": self.hit_rate,
            "mrr": self.mrr,
            "per_question": [q.to_dict() for q in self.per_question],
        }


def _check_questions(document: str, questions: Sequence[Question]) -> tuple[Question, ...]:
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


def _measure(index: Any, spans: Sequence[Span], questions: Sequence[Question], top_k: int) -> Evaluation:
    index.prepare(q.question for q in questions)  # one pass over the document for all their terms
    results = []
    for q in questions:
        retrieved = index.search(q.question, top_k)
        refs = _union([(r.start_index, r.end_index) for r in q.references])
        recall, precision, iou, rank = _scores(refs, [spans[i] for i in retrieved])
        results.append(QuestionResult(q.question, tuple(retrieved), recall, precision, iou, rank is not None, rank))
    n = len(results)
    return Evaluation(
        questions=n,
        top_k=top_k,
        recall=sum(r.recall for r in results) / n,
        precision=sum(r.precision for r in results) / n,
        iou=sum(r.iou for r in results) / n,
        hit_rate=sum(r.hit for r in results) / n,
        mrr=sum(1 / r.rank for r in results if r.rank) / n,
        per_question=tuple(results),
    )


def _spans_and_headings(
    document: str, result: ChunkResult, with_headings: bool
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
    return spans, headings


def evaluate(
    document: str | Document,
    result: ChunkResult,
    questions: Sequence[Question],
    *,
    top_k: int = 5,
    k1: float = 1.5,
    b: float = 0.75,
    with_headings: bool = False,
    retriever: str | None = None,
    embedding_model: Any = None,
) -> Evaluation:
    """Rank `result`'s chunks for each question with BM25 and score the top `top_k`.

    `retriever` (bm25, dense or hybrid) and the `embedding_model` dense and hybrid rank with
    are the result's settings' unless given (chunker/retrieval/_rankers.py).

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
    spans, headings = _spans_and_headings(text, result, with_headings)
    settings = result.settings
    index = make_index(
        retriever or getattr(settings, "retriever", "bm25"),
        text=text,
        terms=_document_terms(document),
        spans=spans,
        headings=headings,
        k1=k1,
        b=b,
        model=embedding_model if embedding_model is not None else getattr(settings, "embedding_model", None),
    )
    return _measure(index, spans, questions, top_k)


@dataclass(frozen=True)
class SweepRow:
    """One setting of a sweep: the chunking, how many chunks it made and the five means.

    `best` names the metrics ("recall", "iou") this row is best at; `mark_best` fills it.
    `settings` are the row's whole settings (every option, `model_max` included).
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "size": self.size,
            "unit": self.unit,
            "overlap": self.overlap,
            "tokenizer": self.tokenizer,
            "breaks": list(self.breaks),
            "top_k": self.top_k,
            "chunks": self.chunks,
            "recall": self.recall,
            "precision": self.precision,
            "iou": self.iou,
            "hit_rate": self.hit_rate,
            "mrr": self.mrr,
            "best": list(self.best),
        }


def _names(kind: str, values: Any) -> list[Any]:
    if isinstance(values, (str, int)):
        values = [values]
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
    >>> [(r.size, r.chunks, r.recall, round(r.iou, 2), r.best) for r in rows]
    [(8, 11, 1.0, 1.0, ('recall', 'iou')), (64, 2, 1.0, 0.15, ('recall',))]
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
                others=("strategies", "sizes", "top_k", "k1", "b", "with_headings", "max_chunk_chars"),
            )
    every = [
        Settings(**settings, strategy=s, size=z, overlap=overlap)
        for s in _names("strategies", strategies)
        for z in _names("sizes", sizes)
    ]
    return _sweep_rows(doc, questions, every, top_k, k1, b, with_headings, max_chunk_chars)


def _sweep_rows(
    doc: Document,
    questions: tuple[Question, ...],
    settings: list[Settings],
    top_k: int,
    k1: float,
    b: float,
    with_headings: bool,
    max_chunk_chars: int | None,
) -> Iterator[SweepRow]:
    doc_terms = _document_terms(doc)
    for s in settings:
        result = doc.run(s, max_chunk_chars=max_chunk_chars)
        spans, headings = _spans_and_headings(doc.text, result, with_headings)
        del result  # the chunk texts: a sweep of a large document need not hold two chunkings
        index = make_index(
            s.retriever, text=doc.text, terms=doc_terms, spans=spans, headings=headings, k1=k1, b=b, model=s.embedding_model
        )
        ev = _measure(index, spans, questions, top_k)
        yield SweepRow(
            s.strategy,
            s.size,
            s.unit,
            s.overlap,
            s.tokenizer,
            s.breaks,
            top_k,
            len(spans),
            ev.recall,
            ev.precision,
            ev.iou,
            ev.hit_rate,
            ev.mrr,
            settings=s,
        )


def mark_best(rows: Sequence[SweepRow] | Iterator[SweepRow]) -> tuple[SweepRow, ...]:
    """The rows with `best` naming "recall" and/or "iou" where the row has the highest mean.

    Rows tied at the top are all marked; where every row scores 0 on a metric, none is.
    """
    rows = tuple(rows)
    marks: dict[int, list[str]] = {}
    for metric in ("recall", "iou"):
        # Rounded: equal means summed in another order may differ in the last bit.
        values = [round(getattr(r, metric), 12) for r in rows]
        top = max(values, default=0.0)
        if top > 0:
            for n, v in enumerate(values):
                if v == top:
                    marks.setdefault(n, []).append(metric)
    return tuple(replace(r, best=tuple(marks.get(n, ()))) for n, r in enumerate(rows))
