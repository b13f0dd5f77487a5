"""The packer's fast paths (bisection, galloping) give exactly the reference walk's chunks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chunker.strategies._pack import pack
from chunker.text._segments import line_spans, word_spans
from chunker.tokens._measure import make_measure
from chunker.tokens._tokenizers import get_tokenizer

_text = st.lists(
    st.sampled_from(["a", "bb", "word", "longerword", " ", "  ", "\n", "\n\n", ".", "😀", "日本", "x" * 25]),
    min_size=1,
    max_size=80,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(_text, st.sampled_from(["chars", "words", "o200k", "cl100k", "approx", "estimate"]), st.booleans(), st.data())
def test_bisect_equals_walk(text, unit, by_line, data):
    # Chars, words and exact tokens are packed by bisection; the estimates by galloping.
    tokenizer = unit if unit in ("o200k", "cl100k", "approx", "estimate") else "approx"
    measure = make_measure(text, "tokens" if unit == tokenizer else unit, get_tokenizer(tokenizer))
    spans = line_spans(text) if by_line else word_spans(text)
    if not spans:
        return
    size = data.draw(st.integers(1, 40))
    overlap = data.draw(st.integers(0, size - 1))
    idx = st.integers(0, len(spans))
    hard = set(data.draw(st.lists(idx, max_size=4)))
    walls = set(data.draw(st.lists(idx, max_size=3)))
    fast = pack(spans, size=size, overlap=overlap, measure=measure, hard=hard, walls=walls)
    slow = pack(spans, size=size, overlap=overlap, measure=measure, hard=hard, walls=walls, walk=True)
    assert fast == slow


_words = st.lists(st.sampled_from(["a", "to", "word", "longerword", "x" * 25, "日本", "😀", "."]), min_size=2, max_size=120).map(
    " ".join
)


@settings(max_examples=300, deadline=None)
@given(_words, st.sampled_from(["approx", "estimate"]), st.data())
def test_gallop_finds_what_the_walk_finds(text, tokenizer, data):
    # Sizes drawn from the spans' own counts, so that chunks of exactly the size come up, and
    # every starting piece: the galloping finder must stop exactly where the walk stops.
    from chunker.strategies._pack import _Gallop, _Walk
    from chunker.strategies._spans import Marks

    measure = make_measure(text, "tokens", get_tokenizer(tokenizer))
    spans = word_spans(text)
    if len(spans) < 2:
        return
    stops = set(data.draw(st.lists(st.integers(0, len(spans)), max_size=3)))
    starts, ends = [a for a, _ in spans], [b for _, b in spans]
    walk, gallop = _Walk(starts, ends, measure, Marks(stops)), _Gallop(starts, ends, measure, Marks(stops))
    # Its aim learns from each chunk: ask in document order, as packing does, and out of it.
    for i in data.draw(st.permutations(range(len(spans) - 1))):
        first_new = data.draw(st.integers(i, min(i + 2, len(spans) - 2)))
        end = data.draw(st.integers(first_new, len(spans) - 1))
        size = measure.count(spans[i][0], spans[end][1]) + data.draw(st.integers(-1, 1))
        assert gallop.furthest(i, first_new, size) == walk.furthest(i, first_new, size)
        j = data.draw(st.integers(i, len(spans) - 2))
        overlap = data.draw(st.integers(0, max(0, size)))
        assert gallop.earliest(i + 1, j, overlap, size) == walk.earliest(i + 1, j, overlap, size)
