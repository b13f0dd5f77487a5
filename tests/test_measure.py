"""Measures: `advance` and `retreat` agree with their definitions for every unit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chunker._measure import make_measure
from chunker._tokenizers import get_tokenizer

_text = st.lists(st.sampled_from(list("ab c\n日😀.,") + ["word ", "  ", "\n\n", "x" * 30]),
                 min_size=1, max_size=100).map("".join)
_kinds = st.sampled_from([("chars", "approx"), ("words", "approx"), ("tokens", "approx"),
                          ("tokens", "estimate"), ("tokens", "o200k")])


@settings(max_examples=500, deadline=None)
@given(_text, _kinds, st.data())
def test_advance_is_the_furthest_end_that_fits(text, kind, data):
    m = make_measure(text, kind[0], get_tokenizer(kind[1]))
    start = data.draw(st.integers(0, len(text) - 1))
    limit = data.draw(st.integers(start + 1, len(text)))
    n = data.draw(st.integers(1, 8))  # small enough that most windows stop before the limit
    fits = [e for e in range(start + 1, limit + 1) if m.count(start, e) <= n]
    assert m.advance(start, limit, n) == (max(fits) if fits else start + 1)


@settings(max_examples=500, deadline=None)
@given(_text, st.sampled_from(["approx", "estimate"]), st.data())
def test_retreat_is_the_earliest_start_that_fits(text, tokenizer, data):
    m = make_measure(text, "tokens", get_tokenizer(tokenizer))
    end = data.draw(st.integers(1, len(text)))
    floor = data.draw(st.integers(0, end))
    n = data.draw(st.integers(0, 8))
    assert m.retreat(end, floor, n) == min(p for p in range(floor, end + 1) if m.count(p, end) <= n)


@settings(max_examples=500, deadline=None)
@given(_text, st.sampled_from(["approx", "estimate"]), st.data())
def test_estimated_counts_are_the_spans_own(text, tokenizer, data):
    # The approx measure answers trimmed spans from their length alone; any span must still
    # count as its own text does.
    m = make_measure(text, "tokens", get_tokenizer(tokenizer))
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert m.count(start, end) == get_tokenizer(tokenizer).count(text[start:end])
