"""Strategy `semantic`: cut where the topic changes, never past the size.

The text is cut into sentences first (the finest enabled break, as the sentence strategy does:
a sentence longer than the size is cut between words and flagged). Each piece is embedded by
the static model of the `embedding_model` setting (chunker/embeddings); without one, a piece
is its words (of four characters or more), counted (lexical cohesion, as Hearst's TextTiling compares blocks of text: a
topic change is where the vocabulary changes), so the strategy runs everywhere, and a model
makes it see meaning rather than words. At every boundary
between pieces, the mean vector of the `WINDOW` pieces before it is compared with that of the
`WINDOW` pieces after it; where their distance (1 - cosine) is above the
`breakpoint_percentile` percentile of all boundaries' distances (95 by default, LangChain's
and LlamaIndex's), a chunk must end. Between those breaks, pieces are packed up to the size as
the sentence strategy packs them, overlap whole trailing pieces: no chunk is ever over the
size, in the chosen unit and tokenizer, and the `min_size` setting merges what is too small.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from math import sqrt
from operator import mul
from typing import Any

from ..tokens._measure import Measure
from ._pack import Spans, pack_columns, spans_from_pack
from ._spans import Marks
from .sentence import sentence_leaves

WINDOW = 5
"""Pieces on each side of a boundary whose mean vectors are compared: one sentence alone says
too little about its topic, and a window longer than a short section would blur its edge."""


def split(
    text: str,
    *,
    size: int,
    overlap: int,
    measure: Measure,
    breaks: tuple[str, ...] = ("paragraph", "line", "sentence"),
    embedding_model: Any = None,
    breakpoint_percentile: float = 95.0,
) -> Spans:
    model = None
    if embedding_model is not None:
        from ..embeddings import get_model

        model = get_model(embedding_model)
    leaves = sentence_leaves(text, size=size, measure=measure, breaks=breaks)
    cuts = topic_breaks(text, leaves.starts, leaves.ends, model, breakpoint_percentile)
    hard = Marks.union(leaves.hard, cuts)
    groups = pack_columns(leaves.starts, leaves.ends, size=size, overlap=overlap, measure=measure, hard=hard)
    return spans_from_pack(leaves, groups)


def topic_breaks(text: str, starts: Sequence[int], ends: Sequence[int], model: Any, percentile: float) -> list[int]:
    """The indices of the pieces that start a new topic: those at whose start the distance
    between the windows before and after is above the percentile of all such distances."""
    n = len(starts)
    if n < 2:
        return []
    if model is None:
        distances = word_distances([_words(text[a:b]) for a, b in zip(starts, ends)], WINDOW)
    else:
        distances = model_distances(text, starts, ends, model, WINDOW)
    threshold = percentile_of(distances, percentile)
    return [k + 1 for k, d in enumerate(distances) if d > threshold]


def model_distances(text: str, starts: Sequence[int], ends: Sequence[int], model: Any, window: int) -> list[float]:
    """1 - cosine of the mean token vectors of the `window` pieces before and after each
    boundary. Each piece's tokens are summed as packed ints (`EmbeddingModel.packed`), and
    windows are differences of running sums: a megabyte's rows are added in well under a
    second, where adding them dimension by dimension takes seconds. The cosine is taken from
    the windows' exact fixed-point fields (`EmbeddingModel.fixed`; the mean and the model's
    scale only stretch a vector): its dot products and norms are exact ints, so every Python,
    the page's included, gets the same distances, and a float64 model's values past 1e154,
    whose squares overflow a float, still give a distance."""
    ids = model.tokenize([text[a:b] for a, b in zip(starts, ends)])
    packed = model.packed
    n = len(ids)
    sums, counts = [0], [0]
    for piece in ids:
        sums.append(sums[-1] + sum(map(packed, piece)))
        counts.append(counts[-1] + len(piece))
    fixed = model.fixed
    after = []
    for k in range(n + 1):
        j = min(n, k + window)
        after.append(fixed(sums[j] - sums[k], counts[j] - counts[k]))
    norms = [sum(map(mul, w, w)) for w in after]
    out = []
    for b in range(1, n):
        a = max(0, b - window)
        if b - a == window:
            left, nl = after[a], norms[a]
        else:
            left = fixed(sums[b] - sums[a], counts[b] - counts[a])
            nl = sum(map(mul, left, left))
        right, nr = after[b], norms[b]
        cos = sum(map(mul, left, right)) / sqrt(nl * nr) if nl and nr else 0.0
        out.append(1.0 - cos)
    return out


# Words of four characters or more: the shorter ones are mostly function words (the, and, of,
# is, to) that every topic shares, and counting them hides where the vocabulary changes.
_WORD = re.compile(r"\w{4,}")


def _words(piece: str) -> Counter[str]:
    return Counter(_WORD.findall(piece.lower()))


def word_distances(bags: list[Counter[str]], window: int) -> list[float]:
    """`window_distances` for bags of words: 1 - cosine of the windows' summed word counts."""
    n = len(bags)
    out = []
    for b in range(1, n):
        left: Counter[str] = Counter()
        for bag in bags[max(0, b - window) : b]:
            left.update(bag)
        right: Counter[str] = Counter()
        for bag in bags[b : b + window]:
            right.update(bag)
        small, large = (left, right) if len(left) <= len(right) else (right, left)
        dot = sum(c * large.get(w, 0) for w, c in small.items())
        nl = sum(c * c for c in left.values())
        nr = sum(c * c for c in right.values())
        out.append(1.0 - dot / sqrt(nl * nr) if nl and nr else 1.0)
    return out


def percentile_of(values: Sequence[float], p: float) -> float:
    """The p-th percentile with linear interpolation between the closest ranks (numpy's default)."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    at = (len(ordered) - 1) * p / 100.0
    lo = int(at)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (at - lo)
