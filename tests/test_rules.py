"""The rules competing playgrounds publish for their strategies and counts, checked on a text
written for these tests (tests/texts.py: PRIMER, eleven sentences in four paragraphs)."""

from __future__ import annotations

import chunker
from tests.texts import PRIMER, PRIMER_SENTENCES


def test_primer_shape():
    assert PRIMER.count("\n\n") == 3 and len(PRIMER_SENTENCES) == 11


def test_fixed_windows_start_every_size_minus_overlap_and_the_last_ends_the_text():
    # Windows of `size` characters, each starting size - ⌊size × overlap%⌋ after the last; the
    # last one ends at the end of the text.
    n = len(PRIMER)
    res = chunker.chunk(PRIMER, strategy="fixed", unit="chars", size=300, overlap="15%")
    stride = 300 - 45
    expected = list(range(0, n, stride))
    expected = [s for s in expected if s == 0 or s + 45 < n]  # no window wholly inside the last
    assert [c.start_char for c in res] == expected
    assert all(c.chars == 300 for c in res.chunks[:-1]) and res.chunks[-1].end_char == n
    for a, b in zip(res.chunks, res.chunks[1:]):
        shared = PRIMER[b.start_char : a.end_char]
        assert len(shared) == 45 and a.text.endswith(shared) and b.text.startswith(shared)


def test_by_sentence_is_one_chunk_per_sentence():
    res = chunker.chunk(PRIMER, strategy="sentence", unit="chars", size=0, overlap=0)
    assert [c.text for c in res] == PRIMER_SENTENCES


def test_by_paragraph_is_one_chunk_per_paragraph():
    res = chunker.chunk(PRIMER, strategy="paragraph", unit="chars", size=0)
    assert [c.text for c in res] == PRIMER.split("\n\n")


def test_approx_tokens_are_trimmed_characters_over_four_at_least_one():
    for c in chunker.chunk(PRIMER, strategy="sentence", size=0, tokenizer="approx"):
        assert c.tokens == max(1, int(len(c.text.strip()) / 4 + 0.5))
    assert chunker.count_tokens("  ", "approx") == 0
    assert chunker.count_tokens("ab", "approx") == 1  # 0.5 rounds half up


def test_sentence_packing_keeps_sentences_whole_and_the_text_between_them():
    res = chunker.chunk(PRIMER, strategy="sentence", unit="chars", size=300, overlap=0)
    assert all(c.chars <= 300 for c in res)
    assert [c.text for c in res] == [PRIMER[c.start_char : c.end_char] for c in res]
    joined = " ".join(c.text.replace("\n\n", " ") for c in res)
    assert joined == " ".join(PRIMER_SENTENCES)
    for c in res:  # each chunk is whole sentences, in order
        assert c.text.replace("\n\n", " ") in " ".join(PRIMER_SENTENCES)
        assert c.text.endswith(".") and not c.flags


def test_recursive_keeps_paragraphs_that_fit_whole():
    res = chunker.chunk(PRIMER, strategy="recursive", unit="chars", size=300, overlap=0)
    assert [c.text for c in res] == PRIMER.split("\n\n")


def test_character_windows_of_a_long_word_free_text():
    # Word counts of fixed windows count the words a window touches, cut words included.
    doc = ("lorem ipsum dolor " * 70).strip()
    res = chunker.chunk(doc, strategy="fixed", unit="chars", size=500, overlap=50)
    assert [c.chars for c in res][:2] == [500, 500]
    assert all(c.words == len(c.text.split()) for c in res)
