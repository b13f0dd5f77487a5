"""The retrievers the check ranks chunks with, chosen by name: BM25, dense, and their fusion.

- `bm25`: Okapi BM25 over the chunks' terms (`_bm25`).
- `dense`: the cosine of the question's and each chunk's vectors from the static embedding
  model of the `embedding_model` setting (chunker/embeddings): a chunk's vector is the mean of
  its tokens' rows as model2vec makes it (the model's length limit applied), a question's the
  same. A chunk or a question with no known token has no vector and matches nothing.
- `hybrid`: reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009) of the two rankings,
  each chunk scored sum(1 / (60 + rank)) over the rankings that hold it.

Every ranking puts the higher score first and, on a tie, the lower chunk index. Scores are
sums of products taken by math.fsum (correctly rounded), so the command line and the page's
Python rank alike.
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Iterable, Sequence
from math import fsum
from typing import Any

from .._errors import ChunkerError
from ..settings._settings import RETRIEVERS
from ._bm25 import BM25Index, _DocumentTerms, _with_headings

__all__ = ["RETRIEVERS", "RRF_K", "DenseIndex", "HybridIndex", "make_index", "check_retriever"]

# Which retrievers need an embedding model; the names themselves are the settings' registry.
NEEDS_MODEL = frozenset({"dense", "hybrid"})

RRF_K = 60
"""Reciprocal rank fusion's constant, the one its authors found best and everyone uses."""


class DenseIndex:
    """Chunks ranked by the cosine of their vectors with a query's."""

    def __init__(self, model: Any, texts: Sequence[str]) -> None:
        self.model = model
        self.vectors = model.directions(list(texts))

    def __len__(self) -> int:
        return len(self.vectors)

    def prepare(self, queries: Iterable[str]) -> None:
        """Nothing to gather first: each query is embedded when it is asked."""

    def scores(self, query: str) -> dict[int, float]:
        """Each chunk's cosine with `query`, for the chunks that have a vector."""
        (q,) = self.model.directions([query])
        if not q:
            return {}
        mul = operator.mul
        return {i: fsum(map(mul, q, v)) for i, v in enumerate(self.vectors) if v}

    def search(self, query: str, k: int = 5) -> list[int]:
        """The `k` best chunks for `query`, best first (ties: the lower index)."""
        totals = self.scores(query)
        best = heapq.nlargest(k, zip(totals.values(), map(operator.neg, totals)))
        return [-negated for _, negated in best]


class HybridIndex:
    """Reciprocal rank fusion of a BM25 and a dense ranking."""

    def __init__(self, bm25: BM25Index, dense: DenseIndex) -> None:
        self.bm25, self.dense = bm25, dense

    def __len__(self) -> int:
        return len(self.dense)

    def prepare(self, queries: Iterable[str]) -> None:
        self.bm25.prepare(queries)

    def search(self, query: str, k: int = 5) -> list[int]:
        n = len(self.dense)
        fused: dict[int, float] = {}
        for ranking in (self.bm25.search(query, n) if n else [], self.dense.search(query, n) if n else []):
            for rank, i in enumerate(ranking, 1):
                fused[i] = fused.get(i, 0.0) + 1.0 / (RRF_K + rank)
        best = heapq.nlargest(k, zip(fused.values(), map(operator.neg, fused)))
        return [-negated for _, negated in best]


def check_retriever(name: Any, model: Any) -> str:
    """`name` if it is a retriever, and has the model it needs; else one line saying what to do."""
    if not isinstance(name, str) or name not in RETRIEVERS:
        raise ChunkerError(f"unknown retriever {str(name)[:40]!r}: choose one of {', '.join(RETRIEVERS)}", field="retriever")
    if name in NEEDS_MODEL and model is None:
        raise ChunkerError(
            f"the {name} retriever needs an embedding model: give embedding_model= (--embedding-model), "
            "the folder of a model2vec model",
            field="retriever",
        )
    return name


def make_index(
    retriever: Any,
    *,
    text: str,
    terms: _DocumentTerms,
    spans: Sequence[tuple[int, int]],
    headings: Sequence[Sequence[str]] | None,
    k1: float,
    b: float,
    model: Any = None,
) -> BM25Index | DenseIndex | HybridIndex:
    """The index `retriever` ranks `spans` of `text` with."""
    check_retriever(retriever, model)
    bm25 = BM25Index._of_document(terms, spans, headings, k1, b) if retriever != "dense" else None
    if retriever == "bm25":
        assert bm25 is not None
        return bm25
    from ..embeddings import get_model

    texts = [text[s:e] for s, e in spans]
    if headings is not None:
        texts = _with_headings(texts, headings)
    dense = DenseIndex(get_model(model), texts)
    if retriever == "dense":
        return dense
    assert bm25 is not None
    return HybridIndex(bm25, dense)
