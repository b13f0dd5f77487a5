"""Measures: `advance` and `retreat` agree with their definitions for every unit; a measure
kept between calls gives the same chunks."""

from __future__ import annotations

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker.tokens._measure import make_measure
from chunker.tokens._tokenizers import get_tokenizer

_text = st.lists(st.sampled_from(list("ab c\n日😀.,") + ["word ", "  ", "\n\n", "x" * 30]), min_size=1, max_size=100).map("".join)
_kinds = st.sampled_from(
    [("chars", "approx"), ("words", "approx"), ("tokens", "approx"), ("tokens", "estimate"), ("tokens", "o200k")]
)


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


# -- the kept measure (the playground's worker keeps the last document's encoding) ------------


def _encoded_chars(monkeypatch, name):
    tok = get_tokenizer(name)
    seen = []
    encode = tok._encode
    monkeypatch.setattr(tok, "_encode", lambda text: seen.append(len(text)) or encode(text))
    return seen


@pytest.mark.parametrize("tokenizer", ["o200k", "estimate"])
def test_a_document_keeps_its_measure_and_gives_the_same_chunks(monkeypatch, tokenizer):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    settings = [
        dict(strategy=s, unit=u, size=n, overlap=o)
        for s, u, n, o in (
            ("recursive", "tokens", 200, 20),
            ("sentence", "tokens", 120, 0),
            ("markdown", "chars", 900, 90),
            ("langchain", "tokens", 300, 30),
            ("fixed", "words", 150, 15),
        )
    ]
    fresh = [chunker.chunk(text, tokenizer=tokenizer, **kw) for kw in settings]
    doc = chunker.Document(text)
    doc.chunk(tokenizer=tokenizer)  # measured once here
    seen = _encoded_chars(monkeypatch, tokenizer) if tokenizer == "o200k" else []
    kept = [doc.chunk(tokenizer=tokenizer, **kw) for kw in settings]
    assert kept == fresh
    if tokenizer == "o200k":
        # Never the document again: only the odd chunk-edge word.
        assert sum(seen) < 0.05 * len(text)
    measure = doc._measure[1]
    # The same document with another tokenizer is measured afresh, and stays right.
    switched = "cl100k" if tokenizer == "o200k" else "approx"
    assert doc.chunk(tokenizer=switched, size=200) == chunker.chunk(text, tokenizer=switched, size=200)
    assert doc._measure is None or doc._measure[1] is not measure


def test_chunk_keeps_no_measure():
    import subprocess
    import sys

    code = (
        "import chunker, chunker.session._api as api; seen = []; real = api.Document.run\n"
        "def spy(self, *a, **k):\n    seen.append(self); return real(self, *a, **k)\n"
        "api.Document.run = spy; chunker.chunk('Some text to chunk. ' * 50, tokenizer='o200k')\n"
        "print(seen[0]._measure)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None"]


def _exact_tokenizers():
    from hf_fixtures import wordpiece  # a BERT-style file: [CLS] and [SEP] on every count

    return ["o200k", chunker.load_tokenizer(wordpiece(True))]


@pytest.mark.parametrize("which", [0, 1])
def test_chunks_counted_one_by_one_match_the_documents_encoding(monkeypatch, which):
    # chunk() sizes chunks in characters or words, then counts each chunk's own text with the
    # exact tokenizer, never encoding the document whole; a kept Document counts them from its
    # one encoding. Every record and every figure of the stats must be the same.
    tok = _exact_tokenizers()[which]
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    settings = [
        dict(strategy="recursive", unit="chars", size=700, overlap=70),
        dict(strategy="markdown", unit="words", size=120, overlap=12, min_size=30),
        dict(strategy="fixed", unit="chars", size=300, overlap=0),
        dict(strategy="sentence", unit="chars", size=400, overlap=40, context="{headings}: "),
    ]
    doc = chunker.Document(text)
    kept = [doc.chunk(tokenizer=tok, **kw) for kw in settings]
    assert doc._measure is not None  # counted from the document's encoding
    tokenizer = get_tokenizer(tok)
    monkeypatch.setattr(tokenizer, "offsets", lambda *a, **k: pytest.fail("the document was encoded whole"))
    alone = [chunker.chunk(text, tokenizer=tok, **kw) for kw in settings]
    assert alone == kept
    assert [r.stats for r in alone] == [r.stats for r in kept]
    assert chunker.to_jsonl(alone) == chunker.to_jsonl(kept)


@pytest.mark.parametrize("strategy", ["recursive", "sentence", "paragraph", "markdown", "fixed"])
@pytest.mark.parametrize("text", ["\x1b", "\x1b\x1b\n\nA line.", "Two words."])
def test_a_size_below_the_special_tokens_still_chunks_every_character(strategy, text):
    # A BERT-style tokenizer counts [CLS] and [SEP] in every span: with a size of 1, not even an
    # empty span fits. Packing by token offsets then asks how far a count reaches (`reach`, `back`)
    # for a count below those two: no end and no start fits. A text the normalizer drops (a lone
    # control character) has no token offsets at all; the fixed windows start at tokens, and the
    # characters before the first are the first window's. Every character is still in a chunk.
    from hf_fixtures import wordpiece

    tok = chunker.load_tokenizer(wordpiece(True))
    res = chunker.chunk(text, strategy=strategy, unit="tokens", size=1, overlap=0, tokenizer=tok)
    assert "".join("".join(c.text.split()) for c in res.chunks) == "".join(text.split())
    assert all(text[c.start_char : c.end_char] == c.text for c in res.chunks)
