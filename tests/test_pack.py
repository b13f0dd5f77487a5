"""The packer's fast path (bisection) gives exactly the reference walk's chunks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chunker._measure import make_measure
from chunker._text import line_spans, word_spans
from chunker._tokenizers import get_tokenizer
from chunker.strategies._pack import pack

_text = st.lists(st.sampled_from(["a", "bb", "word", "longerword", " ", "  ", "\n", "\n\n", ".", "😀", "日本",
                                  "x" * 25]), min_size=1, max_size=80).map("".join)


@settings(max_examples=600, deadline=None)
@given(_text, st.sampled_from(["chars", "words", "o200k", "cl100k"]), st.booleans(), st.data())
def test_bisect_equals_walk(text, unit, by_line, data):
    tokenizer = unit if unit in ("o200k", "cl100k") else "approx"
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
