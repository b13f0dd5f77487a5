"""app/cards.py in CPython: each card's numbers, preview, flags and offsets."""

from __future__ import annotations

import pytest

import chunker
from app import cards
from app.html import Utf16
from tests.htmltree import INJECTIONS, Tree, harmless


def test_card_shows_sizes_preview_flags_and_explanations():
    text = "word " * 200
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=150, overlap=0)
    first = res.chunks[0]
    tree = Tree(cards.card_html(first, Utf16(text), chunker.FLAGS))
    joined = tree.joined()
    assert f"≈{first.tokens} tokens" in joined and f"{first.chars} chars" in joined
    assert cards.preview(first.text) in joined and cards.preview(first.text).endswith("…")
    assert len(cards.preview(first.text)) == cards.PREVIEW + 1
    for flag in first.flags:
        assert chunker.FLAGS[flag] in joined
        badge = next(a for t, a in tree.tags if a.get("data-flag") == flag)
        assert badge["tabindex"] == "0"  # the explanation also shows on keyboard focus


def test_one_is_singular():
    res = chunker.chunk("Hi", size=10, overlap=0, tokenizer="o200k")
    joined = Tree(cards.card_html(res.chunks[0], Utf16("Hi"), chunker.FLAGS)).joined()
    assert "1 token" in joined and "1 word" in joined and "1 tokens" not in joined and "1 words" not in joined


def test_cards_carry_code_point_and_utf16_offsets():
    text = "😀 one. 🎉 two. three 𝒜."
    res = chunker.chunk(text, strategy="sentence", unit="chars", size=0, overlap=0)
    tree = Tree(cards.cards_html(res.chunks, text, chunker.FLAGS))
    found = [a for tag, a in tree.tags if tag == "li"]
    assert [(int(a["data-start"]), int(a["data-end"])) for a in found] == [(c.start_char, c.end_char) for c in res.chunks]
    js = text.encode("utf-16-le")
    for a, c in zip(found, res.chunks):
        s16, e16 = int(a["data-start16"]), int(a["data-end16"])
        assert js[2 * s16 : 2 * e16].decode("utf-16-le") == c.text


def test_any_range_of_cards_can_be_made():
    # The page's list is virtual: it asks for the cards near what is visible, anywhere.
    text = "Short sentence. " * 600
    res = chunker.chunk(text, strategy="sentence", unit="chars", size=0, overlap=0)
    for start, count in ((0, 80), (350, 40), (590, 40), (-5, 3)):
        tree = Tree(cards.cards_html(res.chunks, text, chunker.FLAGS, start, count))
        indices = [int(a["data-chunk-index"]) for t, a in tree.tags if "data-chunk-index" in a]
        first = max(0, start)
        assert indices == list(range(first, min(len(res.chunks), first + count)))


@pytest.mark.parametrize("payload", INJECTIONS)
def test_markup_in_chunks_and_headings_stays_text(payload):
    text = f"# {payload}\n\nIntro paragraph.\n\n{payload}\n\nMore text after it. {payload}"
    res = chunker.chunk(text, strategy="markdown", unit="chars", size=40, overlap=0)
    made = cards.cards_html(res.chunks, text, chunker.FLAGS)
    assert harmless(made, {"span", "li", "div", "b", "p"})
    assert payload.replace("\n", "⏎")[:20] in Tree(made).joined()
