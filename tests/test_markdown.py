"""Markdown's edge cases, each decided in chunker/strategies/markdown.py's docstring: what is a
heading, what is one block, and where a code fence line goes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker.strategies.markdown import blocks
from chunker.text._segments import Fences, is_caps_heading, is_heading_line
from tests.texts import ROOT, debian_documents, sample_document

STRUCTURED = ["recursive", "sentence", "paragraph", "markdown"]  # fixed and langchain ignore structure


def md(text, **kw):
    return chunker.chunk(text, strategy="markdown", **{"unit": "chars", "size": 1000, "overlap": 0, **kw})


# --- an HTML block is one block, and nothing in it is a heading ---------------------------------


def test_an_html_comment_is_one_block_without_headings():
    doc = "<!--\n# not heading\n-->"
    res = md(doc)
    assert [(c.text, c.headings) for c in res] == [(doc, ())]
    res = md(doc + "\n\n# Real\n\nBody text.", size=30)
    assert [c.headings for c in res] == [(), ("Real",)]
    assert res.chunks[0].text == doc


@pytest.mark.parametrize(
    "doc",
    [
        "<div>\n# inside a div\n</div>",
        "<pre>\n# pre\n\n# still pre\n</pre>",
        "<script>\n# x\n</script>",
        "<?php\n# x\n?>",
        "<!DOCTYPE html>",
        "<![CDATA[\n# x\n]]>",
        "<custom-tag>\n# x",
    ],
)
def test_every_kind_of_html_block_hides_its_headings(doc):
    assert [b.kind for b in blocks(doc)] == ["html"]
    assert all(c.headings == () for c in md(doc + "\n\nAfter.", size=20))


def test_an_inline_tag_line_does_not_interrupt_a_paragraph():
    # CommonMark's seventh kind cannot interrupt a paragraph: the heading after it is one.
    assert [b.kind for b in blocks("Some text\n<span>\n# Heading")] == ["text", "heading"]


# --- indented code is code --------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRUCTURED)
def test_an_indented_code_line_is_not_an_orphan_heading(strategy):
    doc = "Para one is here.\n\n    # code comment\n\nPara two is here."
    res = chunker.chunk(doc, strategy=strategy, unit="chars", size=18, overlap=0)
    code = [c for c in res if c.text == "# code comment"]
    assert code, [c.text for c in res]
    assert "orphan_heading" not in code[0].flags
    assert all(c.headings == () for c in res)
    # At most three spaces it is a heading, whose body went to the next chunk.
    res = chunker.chunk(doc.replace("    #", "   #"), strategy=strategy, unit="chars", size=18, overlap=0)
    if strategy != "markdown":  # markdown glues a heading to its body instead
        assert "orphan_heading" in [c for c in res if c.text == "# code comment"][0].flags


def test_indented_code_is_one_block_but_list_content_is_not():
    assert [b.kind for b in blocks("Text.\n\n    # a\n\n    # b\n\nMore.")] == ["text", "code", "text"]
    assert [b.kind for b in blocks("- item\n\n    continued item\n")] == ["text", "text"]
    assert [b.kind for b in blocks("A paragraph\n    goes on here")] == ["text"]  # no code inside a paragraph
    assert not is_heading_line("    # code") and not is_heading_line("\t# code")
    assert is_heading_line("   # heading")


# --- a byte order mark does not hide the first heading ------------------------------------------


@pytest.mark.parametrize("size", [20, 40, 1000])
def test_a_heading_after_a_byte_order_mark(size):
    doc = "\ufeff# Title\n\nIntro text.\n\n## Part\n\nBody text here."
    res = md(doc, size=size)
    assert res.chunks[0].start_char == 0 and res.chunks[0].headings == ("Title",)
    assert all(c.headings[:1] == ("Title",) for c in res)
    assert res.chunks[-1].headings == ("Title", "Part")
    assert blocks(doc)[0].title == "Title"
    assert is_heading_line("\ufeff# Title")
    # The setext form too.
    assert [b.title for b in blocks("\ufeffTitle\n=====\n\nText.") if b.kind == "heading"] == ["Title"]


@pytest.mark.parametrize(
    "doc, first",
    [
        ("\ufeff", "\ufeff"),
        ("\ufeff  \n \n", "\ufeff"),
        ("\ufeff\n\nHello there.", "\ufeff\n\nHello there."),
        ("\ufeff\n# Title\n\nBody.", "\ufeff\n# Title\n\nBody."),
        ("\ufeff\n    indented code\n", "\ufeff\n    indented code"),
    ],
)
def test_a_byte_order_mark_alone_on_the_first_line_is_kept(doc, first):
    """It is no whitespace: the first block takes it in (the other strategies keep it too)."""
    res = md(doc, size=1000)
    assert res.chunks[0].start_char == 0 and res.chunks[0].text == first
    assert res.chunks[0].headings == (("Title",) if "# Title" in doc else ())


# --- one word of capitals -----------------------------------------------------------------------


def test_one_word_all_caps_lines_are_headings():
    doc = "INTRODUCTION\n\nSome text here.\n\nSUMMARY\n\nMore text here."
    res = md(doc, size=30)
    assert [c.headings for c in res] == [("INTRODUCTION",), ("SUMMARY",)]


@pytest.mark.parametrize("line", ["NASA.", "OK", "NO", "UTF8", "C++", "IMPORTANT:", "A/B", "X-1"])
def test_short_or_punctuated_caps_lines_are_not_headings(line):
    assert not is_caps_heading(line.strip())
    assert all(c.headings == () for c in md(line + "\n\nSome text here.", size=12))


def test_caps_heading_rule_on_words():
    assert all(
        map(
            is_caps_heading,
            ["INTRODUCTION", "SUMMARY", "ÜBERSICHT", "TABLE OF CONTENTS", "Q AND A", "DON'T PANIC", "SELF-TEST", "NAME"],
        )
    )
    assert not any(map(is_caps_heading, ["Introduction", "NASA.", "OK", "ABC", "V2", "HTTP/2", "__INIT__", "# NOTE"]))


# --- a code fence line never stands alone ------------------------------------------------------

FENCED = (
    "Intro paragraph that explains the example below in a sentence or two.\n\n"
    "```python\nimport chunker\n\nres = chunker.chunk(text, size=100)\n\nprint(res.stats)\n\n```\n\n"
    "After the code, a paragraph of prose ends the section.\n\n"
    "~~~\nplain block\n\n~~~\n\nTail."
)


def _lone_fences(res, doc):
    """Chunks that are exactly one fence line of the document (as CommonMark pairs them)."""
    fences = Fences.of(doc)
    return [c.text for c in res if fences is not None and fences.line(c.start_char, c.end_char) is not None]


def _docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    docs = [("README.md", readme), ("sample.md", sample_document()), ("fenced", FENCED)]
    docs += [(n, t) for n, t in debian_documents() if n.startswith("python-docs")][:1]
    return docs


@pytest.mark.parametrize("strategy", STRUCTURED)
def test_no_chunk_is_a_lone_fence_line(strategy):
    # The reported case: recursive on the README at 150 tokens made a chunk that was "```".
    for name, doc in _docs():
        for unit, sizes in (("tokens", (40, 150, 500)), ("chars", (60, 300, 2000)), ("words", (12, 80))):
            for tokenizer in ("estimate", "cl100k") if unit == "tokens" else ("estimate",):
                for size in sizes:
                    res = chunker.chunk(doc, strategy=strategy, unit=unit, size=size, overlap=size // 10, tokenizer=tokenizer)
                    assert not _lone_fences(res, doc), (name, unit, tokenizer, size, _lone_fences(res, doc))


@pytest.mark.parametrize("strategy", STRUCTURED)
def test_a_chunk_that_ends_with_a_closing_fence_ends_no_sentence_early(strategy):
    # Its opening fence may be in an earlier chunk: the document says which fence closes.
    for size in (60, 120, 200):
        res = chunker.chunk(FENCED, strategy=strategy, unit="chars", size=size, overlap=0)
        fences = Fences.of(FENCED)
        for c in res:
            last = c.text.rstrip().rsplit("\n", 1)[-1]
            marker = c.end_char - len(c.text) + len(c.text.rstrip()) - len(last.lstrip())
            if fences.closes(marker):
                assert "mid_sentence" not in c.flags, (size, c.text)
    # An opening fence at a chunk's end is no closing one.
    res = chunker.chunk("Text.\n\n```\ncode", strategy="sentence", unit="chars", size=0)
    assert all("mid_sentence" in c.flags for c in res if c.text.endswith("code"))


def test_fences_pair_as_commonmark_does():
    doc = "````\n```\nstill code\n````\n~~~ text\n```\n~~~\n``` a`b\n"
    assert {k: v[0] for k, v in Fences.of(doc).lines.items()} == {0: False, 20: True, 25: False, 38: True}


_fenced_blocks = st.lists(
    st.sampled_from(
        [
            "Some prose here.",
            "More words in a sentence.",
            "```",
            "```python",
            "~~~",
            "x = 1",
            "print(x)",
            "",
            "# Heading",
            "    indented",
            "- item",
        ]
    ),
    min_size=1,
    max_size=30,
).map("\n".join)


@settings(max_examples=200, deadline=None)
@given(_fenced_blocks, st.sampled_from(STRUCTURED), st.integers(30, 200))
def test_fence_lines_join_a_neighbour(text, strategy, size):
    # Every word here is shorter than the size, so a fence line always has a neighbour to join.
    res = chunker.chunk(text, strategy=strategy, unit="chars", size=size, overlap=0)
    if len([line for line in text.splitlines() if line.strip()]) > 1:
        assert not _lone_fences(res, text), [c.text for c in res]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["```", "~~~", "````", "`", "~", " ", "   ", "    ", "\t", "\n", "\r\n", "py", "x ```", "é", "\u2028"]),
        max_size=40,
    ).map("".join)
)
def test_fence_lines_are_found_where_the_pattern_matches_at_every_line(text):
    # The scanner skips from line break to line break; the pattern tried at every line start
    # finds the same fence lines (their markers and the rest of their lines).
    from chunker.text._segments import _FENCE_LINE, _fence_lines

    def lines(found):
        return [(m.span(1), m.group(2)) for m in found]

    assert lines(_fence_lines(text)) == lines(_FENCE_LINE.finditer(text))


def test_a_chunking_scans_its_fences_once_and_keeps_nothing():

    text = "# T\n\n```py\nx = 1\n\ny = 2\n```\n\nAfter the code."
    made = []
    original = Fences.__init__

    def counting(self, t):
        made.append(len(t))
        original(self, t)

    Fences.__init__ = counting
    try:
        res = chunker.chunk(text, strategy="paragraph", unit="chars", size=20, overlap=0)
    finally:
        Fences.__init__ = original
    assert made == [len(text)]
    assert Fences._held is None
    assert [c.text for c in res] == ["# T\n\n```py\nx = 1", "y = 2\n```", "After the code."]


def test_a_lone_cr_ends_a_line_as_in_commonmark():
    # Lines ended only at LF: in a text with classic Mac OS line ends the first heading took
    # the whole rest of the document as its title, in every chunk's heading path.
    lf = "# Title\n\nPara one is here.\n\n## Sub\n\nMore text, the end.\n"
    for text in (lf.replace("\n", "\r"), lf.replace("\n", "\r\n"), lf):
        res = chunker.chunk(text, strategy="markdown", size=8, overlap=0)
        assert [c.headings for c in res.chunks] == [("Title",), ("Title", "Sub")], text
        assert all(text[c.start_char : c.end_char] == c.text for c in res.chunks)
