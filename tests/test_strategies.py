"""Each strategy's own rules, flags and stats, on small documents whose answer is known."""

from __future__ import annotations

import pytest

import chunker
from tests.texts import PRIMER, ROOT, real_documents

LONG_SENTENCE = (
    "This sentence keeps going with many plain words so that it cannot possibly fit "
    "inside a small chunk of forty characters without being cut somewhere."
)


def texts(res):
    return [c.text for c in res]


# --- fixed -------------------------------------------------------------------------------


def test_fixed_tokens_are_windows_of_exactly_size_tokens():
    res = chunker.chunk(PRIMER * 3, strategy="fixed", unit="tokens", size=64, overlap=16, tokenizer="cl100k")
    assert [c.tokens for c in res.chunks[:-1]] == [64] * (len(res) - 1)
    assert res.chunks[-1].end_char == len(PRIMER * 3)
    assert res.stats.duplicated_tokens == pytest.approx(16 * (len(res) - 1), abs=len(res))


def test_fixed_tokens_never_cut_inside_a_character():
    text = "😀日本語のテキスト" * 50
    res = chunker.chunk(text, strategy="fixed", unit="tokens", size=7, overlap=2, tokenizer="o200k")
    assert "".join(c.text for c in res).replace("\ufffd", "") != ""
    for c in res:
        assert "\ufffd" not in c.text and text[c.start_char : c.end_char] == c.text


def test_fixed_words_counts_words():
    doc = " ".join(f"w{i}" for i in range(25))
    res = chunker.chunk(doc, strategy="fixed", unit="words", size=10, overlap=2)
    assert [c.words for c in res] == [10, 10, 9]
    assert res.chunks[1].text.startswith("w8 ")


def test_fixed_with_estimated_tokens_stays_within_size():
    res = chunker.chunk(PRIMER, strategy="fixed", unit="tokens", size=50, overlap=5, tokenizer="approx")
    assert all(c.tokens <= 50 for c in res) and res.chunks[-1].end_char == len(PRIMER)


# --- sentence ----------------------------------------------------------------------------


def test_sentence_handles_abbreviations_decimals_quotes_and_cjk():
    doc = (
        'Dr. Smith paid $3.50, e.g. for the U.S. office. "Is it done?" she asked. '
        'He said "yes." Then he left... Later, J. R. R. Tolkien wrote.\n\n今日は晴れ。明日は雨！本当？'
    )
    got = texts(chunker.chunk(doc, strategy="sentence", size=0))
    assert got[0] == "Dr. Smith paid $3.50, e.g. for the U.S. office."
    assert got[-3:] == ["今日は晴れ。", "明日は雨！", "本当？"]
    assert 'He said "yes."' in got


def test_sentence_packs_whole_sentences_and_overlaps_whole_sentences():
    res = chunker.chunk(PRIMER, strategy="sentence", unit="chars", size=200, overlap=100)
    for c in res:
        assert c.text[-1] == "." and "mid_sentence" not in c.flags
    for a, b in zip(res.chunks, res.chunks[1:]):
        if b.overlap_chars:
            shared = PRIMER[b.start_char : a.end_char]
            assert shared.endswith(".") and len(shared) <= 100


def test_sentence_longer_than_size_is_cut_between_words_and_flagged():
    res = chunker.chunk("Short one. " + LONG_SENTENCE + " Tail.", strategy="sentence", unit="chars", size=40, overlap=0)
    cut = [c for c in res if "split_sentence" in c.flags]
    assert len(cut) >= 3 and all(c.chars <= 40 for c in res)
    for c in cut:  # between words: each piece starts and ends on a whole word
        assert c.text == c.text.strip()
        assert LONG_SENTENCE[LONG_SENTENCE.index(c.text) - 1 : LONG_SENTENCE.index(c.text)] in ("", " ")
    assert texts(res)[0] == "Short one."


def test_sentence_break_points():
    doc = "Alpha, beta; gamma: delta.\nEpsilon zeta.\n\nEta theta."
    by = lambda breaks, size=0: texts(chunker.chunk(doc, strategy="sentence", size=size, breaks=breaks))
    assert by(["paragraph"]) == ["Alpha, beta; gamma: delta.\nEpsilon zeta.", "Eta theta."]
    assert by(["paragraph", "line"]) == ["Alpha, beta; gamma: delta.", "Epsilon zeta.", "Eta theta."]
    assert by(["sentence", "clause"])[:4] == ["Alpha,", "beta;", "gamma:", "delta."]
    assert by("paragraph,line,sentence") == by(["line", "sentence", "paragraph"])


# --- paragraph ---------------------------------------------------------------------------


def test_paragraph_never_splits_and_flags_oversize():
    doc = "Short.\n\n" + LONG_SENTENCE + "\n\nAlso short.\n\nTiny."
    res = chunker.chunk(doc, strategy="paragraph", unit="chars", size=40, overlap=0)
    assert texts(res) == ["Short.", LONG_SENTENCE, "Also short.\n\nTiny."]
    assert "oversize" in res.chunks[1].flags and "split_sentence" not in res.chunks[1].flags


def test_paragraph_blank_lines_may_hold_spaces_and_crlf():
    doc = "One.\r\n \t\r\nTwo.\r\nstill two.\r\n\r\nThree."
    assert texts(chunker.chunk(doc, strategy="paragraph", size=0)) == ["One.", "Two.\r\nstill two.", "Three."]


# --- recursive ---------------------------------------------------------------------------


def test_recursive_cascade_levels():
    para = "- item one\n- item two\n- item three"
    res = chunker.chunk(para, strategy="recursive", unit="chars", size=12, overlap=0)
    assert texts(res) == ["- item one", "- item two", "- item three"]  # lines
    res = chunker.chunk("One two. Three four. Five six.", strategy="recursive", unit="chars", size=12, overlap=0)
    assert texts(res) == ["One two.", "Three four.", "Five six."]  # sentences
    res = chunker.chunk("alpha beta gamma delta", strategy="recursive", unit="chars", size=11, overlap=0)
    assert texts(res) == ["alpha beta", "gamma delta"]  # words
    res = chunker.chunk("abcdefghij", strategy="recursive", unit="chars", size=4, overlap=0)
    assert texts(res) == ["abcd", "efgh", "ij"]  # characters
    assert all("split_sentence" in c.flags for c in res)


def test_recursive_skips_line_breaks_inside_wrapped_sentences():
    doc = (
        "The quick brown fox jumps over the lazy dog and keeps\nrunning through the field until it\n"
        "reaches the river. Then it rests by\nthe water for a while."
    )
    res = chunker.chunk(doc, strategy="recursive", unit="chars", size=110, overlap=0)
    assert [c.text.replace("\n", " ") for c in res] == [
        "The quick brown fox jumps over the lazy dog and keeps running through the field until it reaches the river.",
        "Then it rests by the water for a while.",
    ]


def test_recursive_reports_real_overlap_and_where_it_dropped():
    doc = "First sentence here. Second sentence here. Third sentence here.\n\n" + "x" * 30 + "\n\nLast one."
    res = chunker.chunk(doc, strategy="recursive", unit="chars", size=45, overlap=25)
    assert res.chunks[1].overlap_chars == len("Second sentence here.")
    # The 30 x's may not join the sentences' run, and the last sentence plus them is too big
    # to carry over: that boundary has no overlap, and the record says so.
    assert res.chunks[2].text == "x" * 30 + "\n\nLast one." and res.chunks[2].overlap_chars == 0
    for a, b in zip(res.chunks, res.chunks[1:]):
        assert b.overlap_chars == max(0, a.end_char - b.start_char)


# --- markdown ----------------------------------------------------------------------------

MD = """# Guide

Intro text.

## Install

```bash
pip install chunker

chunker --help
```

| a | b |
|---|---|
| 1 | 2 |

## Use

Call it. Then read the output.

API REFERENCE

Everything else.
"""


def test_markdown_heading_paths_and_blocks_kept_whole():
    res = chunker.chunk(MD, strategy="markdown", unit="chars", size=60, overlap=0)
    heads = [c.headings for c in res]
    assert heads[0] == ("Guide",)
    assert ("Guide", "Install") in heads and ("Guide", "Use") in heads
    assert heads[-1] == ("Guide", "Use", "API REFERENCE")
    code = [c for c in res if "pip install" in c.text][0]
    assert "chunker --help\n```" in code.text  # the fence and its blank line stay together
    assert any(c.text.startswith("| a | b |") and c.text.endswith("| 1 | 2 |") for c in res)
    for c in res:
        assert "orphan_heading" not in c.flags


def test_markdown_sections_never_share_a_chunk_or_overlap():
    res = chunker.chunk(MD, strategy="markdown", unit="chars", size=1000, overlap=100)
    assert [c.text.split("\n")[0] for c in res] == ["# Guide", "## Install", "## Use", "API REFERENCE"]
    assert all(c.overlap_chars == 0 for c in res)


def test_markdown_oversized_code_block_is_cut_by_lines():
    code = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(40)) + "\n```"
    res = chunker.chunk("# Code\n\n" + code, strategy="markdown", unit="chars", size=80, overlap=0)
    assert res.chunks[0].text.startswith("# Code\n\n```python")
    assert all(c.chars <= 80 for c in res) and len(res) > 3
    assert all(c.headings == ("Code",) for c in res)


def test_markdown_setext_and_consecutive_headings():
    doc = "Title\n=====\n\nSub\n---\n\n### Deeper\n\nBody text."
    res = chunker.chunk(doc, strategy="markdown", unit="chars", size=1000, overlap=0)
    assert texts(res) == [doc] and res.chunks[0].headings == ("Title", "Sub", "Deeper")


# --- flags and stats ---------------------------------------------------------------------


def test_each_flag():
    res = chunker.chunk(
        "Ends without a stop\n\n## Heading\n\n" + "Long words here. " * 70,
        strategy="paragraph",
        unit="chars",
        size=1000,
        overlap=0,
    )
    c = res.chunks[0]
    assert {"mid_sentence", "fragment", "orphan_heading"} <= set(c.flags)
    res = chunker.chunk("A closed block:\n\n```\ncode\n```", strategy="paragraph", unit="chars", size=10, overlap=0)
    assert "mid_sentence" not in res.chunks[-1].flags and "oversize" in res.chunks[-1].flags
    assert set(chunker.FLAGS) == {
        "mid_sentence",
        "fragment",
        "orphan_heading",
        "oversize",
        "split_sentence",
        "truncated",
        "tiny",
        "table_continued",
        "row_cut",
        "framework_offset",
    }  # the table flags are made in tests/test_tables.py, framework_offset in tests/test_splitters.py
    res = chunker.chunk("One two three four.\n\nFive.", unit="chars", size=19, overlap=0, min_size=6)
    assert [c.flags for c in res] == [(), ("tiny",)]
    res = chunker.chunk("word " * 300, unit="chars", size=600, overlap=0, model_max=100)
    assert [("truncated" in c.flags) for c in res] == [c.tokens > 100 for c in res] and res.stats.flag_counts["truncated"]


def test_a_chunk_that_is_the_whole_document_is_no_fragment():
    # Nothing could be merged with the only chunk: however short, it is not a fragment.
    for strategy in chunker.STRATEGIES:
        res = chunker.chunk("A short note.", strategy=strategy, unit="tokens", size=512, overlap=0)
        assert len(res.chunks) == 1 and "fragment" not in res.chunks[0].flags, strategy
        assert "fragment" not in res.stats.flag_counts
    # Two short chunks are still fragments.
    res = chunker.chunk("abc " * 8, strategy="fixed", unit="chars", size=30, overlap=0)
    assert len(res.chunks) == 2 and "fragment" in res.chunks[-1].flags


def test_stats_count_duplicated_and_embedding_tokens():
    res = chunker.chunk(PRIMER, strategy="fixed", unit="chars", size=300, overlap=45, tokenizer="o200k")
    s = res.stats
    assert s.exact and s.chunks == 4 and s.embedding_tokens == sum(c.tokens for c in res)
    dup = sum(chunker.count_tokens(PRIMER[b.start_char : a.end_char], "o200k") for a, b in zip(res.chunks, res.chunks[1:]))
    assert s.duplicated_tokens == dup
    assert s.duplicated_pct == round(100 * dup / s.document_tokens, 2)
    last = len(PRIMER) - res.chunks[-1].start_char
    assert (s.min_chars, s.max_chars) == (min(300, last), 300)
    assert s.flag_counts["mid_sentence"] == sum(not c.text.rstrip().endswith(".") for c in res)
    assert (s.avg_overlap, s.max_overlap) == (45.0, 45)  # in the unit: characters


def test_estimated_counts_are_marked():
    res = chunker.chunk(PRIMER, size=100, overlap=10)
    assert not res.stats.exact and all(c.tokens_estimated for c in res)
    assert all(r["tokens_estimated"] for r in chunker.records(res))


@pytest.mark.parametrize("strategy", list(chunker.STRATEGIES))
def test_a_chunk_volume_limit_refuses_settings_that_repeat_the_document(strategy):
    # An overlap of nearly the whole size repeats the text thousands of times over; with a
    # limit, that is a one-line error naming the numbers and what to change, made before any
    # chunk text is (fixed: before its windows are made at all).
    doc = PRIMER * 4
    limit = 5 * len(doc)
    heavy = dict(strategy=strategy, unit="chars", size=200, overlap=199)
    unlimited = chunker.chunk(doc, **heavy)
    total = sum(c.chars for c in unlimited)
    if total <= limit:
        assert chunker.chunk(doc, **heavy, max_chunk_chars=limit) == unlimited
    else:
        with pytest.raises(chunker.ChunkerError) as refused:
            chunker.chunk(doc, **heavy, max_chunk_chars=limit)
        message = str(refused.value)
        assert "\n" not in message and f"past the limit of {limit:,}" in message
        assert message.endswith("lower the overlap (199 of 200 chars now) or raise the size")
        if strategy != "fixed":  # fixed estimates the volume before making its windows
            assert f"holding {total:,} characters" in message
    # Ordinary settings pass the same limit untouched.
    usual = dict(strategy=strategy, unit="chars", size=200, overlap=20)
    assert chunker.chunk(doc, **usual, max_chunk_chars=limit) == chunker.chunk(doc, **usual)


def test_fixed_volume_estimate_refuses_a_stride_of_one_at_once():
    doc = "word " * 200_000  # a megabyte: a stride of one would make a million windows
    with pytest.raises(chunker.ChunkerError, match=r"about 2,000,000,000 characters in all, 2,000 times"):
        chunker.chunk(doc, strategy="fixed", unit="chars", size=2000, overlap=1999, max_chunk_chars=20 * len(doc))


def test_a_registered_strategy_may_return_span_tuples_or_columns():
    # Strategies in this package return columns (Spans); one registered from outside may
    # still return a list of Span, with its cut flag and heading path.
    from chunker.strategies import STRATEGIES, Span, Spans, Strategy, register_strategy

    def halves(text, *, size, overlap, measure, breaks=()):
        mid = text.index(" ", len(text) // 2)
        return [Span(0, mid, False, ("Top",)), Span(mid + 1, len(text), True, ("Top", "Sub"))]

    def halves_as_columns(text, **kw):
        return Spans.of(halves(text, **kw), len(text))

    try:
        for fn in (halves, halves_as_columns):
            register_strategy(Strategy("halves", "Two halves.", function=fn))
            res = chunker.chunk("One two three. Four five six.", strategy="halves", unit="chars", size=100, overlap=0)
            assert [(c.text, c.headings, "split_sentence" in c.flags) for c in res] == [
                ("One two three.", ("Top",), False),
                ("Four five six.", ("Top", "Sub"), True),
            ]
    finally:
        STRATEGIES.pop("halves", None)


def test_page_strategy_gives_each_pdf_page_its_chunks_and_never_merges_pages():
    pytest.importorskip("pypdf")
    doc = chunker.Document.open(ROOT / "docs" / "examples" / "handbook.pdf")
    assert len(doc.pages) > 1
    whole = doc.chunk(strategy="page", size=0)
    bounds = [*doc.pages, len(doc.text)]
    assert [c.text for c in whole] == [doc.text[a:b].strip() for a, b in zip(bounds, bounds[1:]) if doc.text[a:b].strip()]
    assert [c.page_start for c in whole] == list(range(1, len(whole) + 1))
    small = doc.chunk(strategy="page", unit="chars", size=120, overlap=20, min_size=60)
    assert len(small) > len(whole)
    for c in small:
        assert c.page_start == c.page_end and doc.text[c.start_char : c.end_char] == c.text
        assert c.chars <= 120 or "oversize" in c.flags
    # A text without pages is one page.
    assert [c.text for c in chunker.chunk("One. Two.\n\nThree.", strategy="page", size=100)] == ["One. Two.\n\nThree."]


def test_min_size_never_merges_across_a_markdown_heading_and_defaults_to_todays_output():
    merged = 0
    for name, text in real_documents():
        if not name.endswith(".md"):
            continue
        for size in (60, 200):
            base = chunker.chunk(text, strategy="markdown", size=size, overlap=0)
            assert base == chunker.chunk(text, strategy="markdown", size=size, overlap=0, min_size=0)
            res = chunker.chunk(text, strategy="markdown", size=size, overlap=0, min_size=size // 3)
            merged += len(base) - len(res)
            sections = {c.start_char for c in base if c.text.lstrip().startswith("#")}
            for c in res:
                assert c.tokens <= size or "oversize" in c.flags
                inner = [s for s in sections if c.start_char < s < c.end_char]
                assert not inner, (name, c.index, "merged across a heading")
    assert merged > 0
