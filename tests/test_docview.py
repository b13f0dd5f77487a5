"""app/html.py and app/docview.py in CPython: escaping, UTF-16 offsets, the overlap sweep, and
the document view built in parts."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from app import docview
from app.html import Utf16, esc, plural
from tests.htmltree import INJECTIONS, Tree, harmless

spans_strategy = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)).map(sorted).map(tuple), max_size=8)


@pytest.mark.parametrize("payload", INJECTIONS)
def test_markup_in_the_document_stays_text(payload):
    text = f"Intro paragraph.\n\n{payload}\n\nMore text after it. {payload}"
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=20, overlap=5)
    view = docview.document_html(text, res.chunks.spans())
    assert harmless(view, {"span", "div"})
    assert Tree(view).joined() == text


def test_esc_covers_quotes_ampersands_cr_and_nul():
    assert esc("a&b<c>\"d'") == "a&amp;b&lt;c&gt;&quot;d&#x27;"
    # One character per character: CR survives the parser, NUL shows as a symbol.
    assert html.unescape(esc("a\r\nb\x00c")) == "a\r\nb\u2400c"


def test_plural():
    assert (plural(0, "chunk"), plural(1, "chunk"), plural(1, "token"), plural(2.5, "word")) == (
        "0 chunks",
        "1 chunk",
        "1 token",
        "2.5 words",
    )


def utf16_reference(text: str, offset: int) -> int:
    return len(text[:offset].encode("utf-16-le")) // 2


@given(st.text(alphabet=st.sampled_from("ab\n é中😀𝒜🎉\U0010fffd"), max_size=60))
def test_utf16_offsets_match_the_encoding(text):
    u16 = Utf16(text)
    for offset in range(len(text) + 1):
        assert u16(offset) == utf16_reference(text, offset)


@settings(max_examples=300)
@given(spans_strategy)
def test_sweep_matches_a_per_character_reference(spans):
    length = 45
    segments = docview.sweep(spans, length)
    # Segments tile the text with no gap and no overlap.
    assert [a for a, _, _ in segments] == [0] + [b for _, b, _ in segments][:-1]
    assert segments[-1][1] == length
    for a, b, active in segments:
        assert a < b
        for pos in range(a, b):
            assert active == tuple(i for i, (s, e) in enumerate(spans) if s <= pos < e)


def test_document_view_tints_chunks_and_stripes_overlap():
    text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota."
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=24, overlap=8)
    tree = Tree(docview.document_html(text, res.chunks.spans()))
    assert tree.joined() == text
    per_chunk: dict[int, str] = {}
    for attrs, data in tree.segments:
        chunk_ids = [int(i) for i in attrs.get("data-c", "").split()]
        classes = attrs.get("class", "").split()
        assert ("o" in classes) == (len(chunk_ids) > 1)
        if chunk_ids:
            assert f"t{chunk_ids[0] % docview.PALETTE}" in classes
        for i in chunk_ids:
            per_chunk[i] = per_chunk.get(i, "") + data
    assert per_chunk == {c.index: c.text for c in res.chunks}
    starts = [a["id"] for t, a in tree.tags if "id" in a]
    assert starts == [f"chunk-{c.index}" for c in res.chunks]
    assert any("o" in a.get("class", "").split() for _, a in tree.tags)


def test_each_number_badge_wears_its_own_chunks_tint():
    # A chunk that starts inside its predecessor's overlap: the segment is striped in both
    # tints (led by the predecessor's), the badge in the new chunk's own (class bN).
    text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota."
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=24, overlap=8)
    tree = Tree(docview.document_html(text, res.chunks.spans()))
    badges = [(int(a["data-n"]), a["class"].split()) for t, a in tree.tags if "data-n" in a]
    assert len(badges) == len(res.chunks)
    for n, classes in badges:
        tint = n % docview.PALETTE
        lead = next(c for c in classes if re.fullmatch(r"t\d", c))
        assert lead == f"t{tint}" or f"b{tint}" in classes
    assert any(f"b{n % docview.PALETTE}" in classes for n, classes in badges[1:])


def test_document_view_leaves_uncovered_text_bare():
    tree = Tree(docview.document_html("aa  bb", [(0, 2), (4, 6)]))
    assert tree.segments[1] == ({}, "  ")


@settings(max_examples=200)
@given(st.text(alphabet=st.sampled_from("ab \n<&😀\x00"), max_size=80), spans_strategy, st.integers(1, 12))
def test_a_sliced_document_view_keeps_text_chunks_and_line_ends(text, spans, every):
    spans = [(min(a, len(text)), min(b, len(text))) for a, b in spans]
    shown = text.replace("\x00", "\u2400")  # NUL shows as a symbol, one character still
    tree = Tree(docview.document_html(text, spans, every=every))
    assert tree.joined() == shown
    # Blocks are cut only just after a newline, so the lines break exactly as in one flow.
    blocks = docview.document_html(text, spans, every=every).split('</div><div class="slice">')
    for block in blocks[:-1]:
        assert html.unescape(re.sub("<[^>]*>", "", block)).endswith("\n")
    per_chunk: dict[int, str] = {}
    for attrs, data in tree.segments:
        for i in attrs.get("data-c", "").split():
            per_chunk[int(i)] = per_chunk.get(int(i), "") + data
    assert per_chunk == {i: shown[a:b] for i, (a, b) in enumerate(spans) if b > a}
    ids = [a["id"] for t, a in tree.tags if "id" in a]
    assert len(ids) == len(set(ids))  # a span cut in two keeps its id on the first piece only


def test_a_long_document_view_comes_in_slices():
    text = "A line of text that goes on for a while.\n" * 200
    view = docview.document_html(text, [(0, len(text))])
    assert view.count('<div class="slice">') == len(docview.slice_ends(text)) > 2
    assert docview.document_html("short\ntext", [(0, 4)]).count("slice") == 0


@settings(max_examples=200)
@given(
    st.text(alphabet=st.sampled_from("ab\n<"), max_size=80),
    spans_strategy,
    st.integers(1, 6),
    st.integers(1, 20),
    st.integers(1, 20),
)
def test_document_parts_join_to_the_view_and_are_counted_in_advance(text, spans, every, part, first):
    spans = [(min(a, len(text)), min(b, len(text))) for a, b in spans]
    parts = docview.document_parts(text, spans, every, part, first)
    assert "".join(parts) == docview.document_html(text, spans, every)
    assert len(parts) == docview.count_parts(text, every, part, first)
    assert all(parts[1:])  # no empty part after the first


@pytest.mark.parametrize("name", ["html", "docview", "cards", "panels", "snippets", "questions", "view"])
def test_the_worker_modules_docstring_examples_hold(name):
    # app/ is not collected for doctests (app/main.py and app/ui/ are MicroPython): the worker's
    # modules' examples run here.
    import doctest
    import importlib

    module = importlib.import_module(f"app.{name}")
    failures, _ = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert failures == 0
