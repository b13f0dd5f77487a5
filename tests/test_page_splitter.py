"""Paste your splitter: on the page served by serve.py, a LangChain line pasted into its field
gives LangChain's own chunks in the view, the cards, the stats, the exports, the comparison and
the advice, checked against the installed langchain-text-splitters."""

from __future__ import annotations

import json

import pytest
from langchain_text_splitters import CharacterTextSplitter, RecursiveCharacterTextSplitter

import chunker
from tests.pagekit import page_fixtures, params, text_of
from tests.test_page import SAMPLE

pytestmark = pytest.mark.browser

site, app = page_fixtures()

FROM_LANGUAGE = "RecursiveCharacterTextSplitter.from_language(Language.MARKDOWN, chunk_size=400, chunk_overlap=40)"


def paste_splitter(app, line: str) -> None:
    # Typed into the field, then left: the field's change runs the page.
    app.act(lambda: (app.page.fill("#opt-splitter", line), app.page.locator("#opt-splitter").blur()))


def test_a_pasted_line_gives_langchains_chunks(app):
    line = "from langchain_text_splitters import RecursiveCharacterTextSplitter, Language\n" + FROM_LANGUAGE
    paste_splitter(app, line)
    theirs = RecursiveCharacterTextSplitter.from_language("markdown", chunk_size=400, chunk_overlap=40).split_text(SAMPLE)
    expected = chunker.chunk(SAMPLE, splitter=line)
    assert [c.text for c in expected.chunks] == theirs  # these separators keep every chunk one slice
    assert text_of(app, "#summary") == f"{len(theirs)} chunks"
    cards = app.cards()
    assert (
        cards and [(c["start"], c["end"]) for c in cards] == [(c.start_char, c.end_char) for c in expected.chunks][: len(cards)]
    )
    view = app.view_texts()
    assert [view[str(k)] for k in range(len(theirs))] == theirs
    # The stats are the result's: its chunks, in characters (chunk_size counts characters).
    stats = text_of(app, "#stats")
    assert f"Chunks{expected.stats.chunks}" in stats
    assert f"Chars min / avg / max{expected.stats.min_chars:,} / " in stats and f" / {expected.stats.max_chars:,}" in stats
    assert f"Overlap asked / achieved40 / {expected.stats.avg_overlap:g} chars" in stats
    # The advice says what the pasted settings do.
    advice = text_of(app, "#advice")
    assert "Markdown's separators" in advice and "count characters" in advice
    # The link keeps the line; copy-as-code gives it back.
    assert params(app)["splitter"].endswith(FROM_LANGUAGE)
    assert FROM_LANGUAGE in text_of(app, "#snip-langchain")
    assert "from langchain_text_splitters import RecursiveCharacterTextSplitter, Language" in text_of(app, "#snip-langchain")


def test_the_framework_text_reaches_the_cards_and_the_export(app):
    text = "One.\n\n\n\nTwo.\n\nThree.\n\n" + SAMPLE
    app.set_text(text)
    line = "CharacterTextSplitter(chunk_size=12, chunk_overlap=0)"
    paste_splitter(app, line)
    theirs = CharacterTextSplitter(chunk_size=12, chunk_overlap=0).split_text(text)
    first = app.cards()[0]
    assert first["preview"] == "One.⏎⏎Two."  # LangChain's text; the slice has four line breaks
    assert (first["start"], first["end"]) == (0, len("One.\n\n\n\nTwo."))
    assert app.page.locator("#cards .card").first.locator(".emb").count() == 1
    # The JSON export: every record's text the slice, embed_text LangChain's where it differs.
    with app.page.expect_download() as done:
        app.page.click("#export button.dl[data-format=json]")
    with open(done.value.path(), encoding="utf-8") as f:
        records = json.load(f)
    chunks = records["chunks"] if isinstance(records, dict) else records
    assert [r.get("embed_text", r["text"]) for r in chunks] == theirs
    assert all(text[r["start_char"] : r["end_char"]] == r["text"] for r in chunks)


def test_the_comparison_sets_the_splitter_beside_the_strategies(app):
    paste_splitter(app, FROM_LANGUAGE)
    app.wait_compare()
    rows = app.page.evaluate(
        "() => [...document.querySelectorAll('#compare-table tbody tr')]"
        ".map(r => [r.className, r.querySelector('th').textContent])"
    )
    assert rows[0] == ["current", "Your splitter: RecursiveCharacterTextSplitter.from_language"]
    assert [name for _, name in rows[1:]] == list(chunker.STRATEGIES)
    assert all(cls != "current" for cls, _ in rows[1:])
    # Picking a strategy there lets the splitter go: the strategy's own chunks come back.
    app.click("#compare-table button[data-strategy=sentence]")
    assert app.page.input_value("#opt-splitter") == ""
    assert app.controls()["strategy"] == "sentence"
    assert "splitter" not in params(app)


def test_a_bad_line_is_one_message_naming_it(app):
    paste_splitter(app, "RecursiveCharacterTextSplitter(chunk_size=size)")
    error = text_of(app, "#error")
    assert "chunk_size=size is not a literal" in error and "Traceback" not in error
    paste_splitter(app, "SemanticChunker(embeddings)")
    assert "unknown splitter class 'SemanticChunker': supported are" in text_of(app, "#error")
    assert app.console_errors == []
