"""The playground's main flow, against serve.py and against a --build site on a plain server.

Paste a document, and the page must show the very records `chunker.chunk` gives in CPython for
the settings on screen; every request must stay on the page's own origin; and once loaded the
page must keep chunking with the network cut. Each test starts from the page as newly opened
(tests/pagekit.py: one page per module, opened again between tests).
"""

from __future__ import annotations

import re

import pytest
from conftest import Page

import chunker
from tests.pagekit import SharedPage, shared_page_fixture
from tests.texts import PRIMER, debian_documents, sample_document

pytestmark = pytest.mark.browser

SAMPLE = sample_document()

# Prose written by people, plus characters the DOM counts differently from Python: emoji and
# other astral characters are one code point but two UTF-16 units.
PROSE = next((text[:6000] for name, text in debian_documents() if name.startswith("python-docs")), PRIMER * 8)
ASTRAL = (
    "# Emoji 😀 and friends 🚀\n\n"
    "Mathematical 𝒜𝒷𝒸 letters and 𠀋 CJK extension B sit outside the BMP. 🎉 Each is one code point. "
    "Offsets must still land on the right characters.\n\n"
    "日本語の文も入ります。絵文字🍣も。Zweiter Absatz mit Umlauten: äöü ß.\n\n" * 6
)


def card_tokens(label: str) -> int:
    return int(re.sub(r"[^\d]", "", label))


def utf16(text: str, offset: int) -> int:
    return len(text[:offset].encode("utf-16-le")) // 2


def assert_same_as_python(app: Page, text: str) -> chunker.ChunkResult:
    """The page's chunks are the records CPython's chunker gives for the controls' settings:
    the cards the list holds now, the summary, and every chunk's text in the document view."""
    settings = app.controls()
    expected = chunker.chunk(text, **settings)
    assert app.page.eval_on_selector("#summary", "e => e.textContent") == (
        f"{len(expected.chunks):,} chunk{'' if len(expected.chunks) == 1 else 's'}"
        if expected.chunks
        else "No chunks: the document is empty."
    )
    cards = app.cards()
    assert cards or not expected.chunks
    for card in cards:
        chunk = expected.chunks[card["index"]]
        assert (card["start"], card["end"]) == (chunk.start_char, chunk.end_char), settings
        assert card_tokens(card["tokens"]) == chunk.tokens
        assert card["tokens"].startswith("≈") == chunk.tokens_estimated
        assert card["flags"] == list(chunk.flags)
        # UTF-16 offsets address the same text in the text box (JS strings count UTF-16).
        assert (card["start16"], card["end16"]) == (utf16(text, chunk.start_char), utf16(text, chunk.end_char))
    view = app.view_texts()
    for chunk in expected.chunks:
        assert view[str(chunk.index)] == chunk.text
    # The view holds the whole document, character for character (chunk numbers are CSS only).
    if expected.chunks:
        assert app.page.eval_on_selector("#doc-view", "e => e.textContent") == text
    return expected


@pytest.fixture(scope="module", params=["serve", "build"])
def site(request, chromium):
    url = request.getfixturevalue("serve_url" if request.param == "serve" else "build_url")
    shared = SharedPage(chromium, url, kind=request.param)
    yield shared
    shared.close()


app = shared_page_fixture()


def test_loads_the_sample_and_shows_its_chunks(app):
    assert app.page.input_value("#document") == SAMPLE
    assert app.page.get_attribute("body", "data-ready") == "true"
    assert_same_as_python(app, SAMPLE)
    assert app.page.is_hidden("#error")
    assert app.console_errors == []
    # Python has loaded: no placeholder says otherwise anywhere.
    assert "once Python has loaded" not in app.page.eval_on_selector("#results", "e => e.textContent")


def test_the_worker_runs_the_webassembly_the_page_compiled(app):
    # static/fast-start.js compiles Pyodide on the page, where Chromium caches the optimized code,
    # and static/pyodide.mjs hands it to the worker's Pyodide; "worker" would mean it fell back.
    assert app.page.get_attribute("body", "data-wasm") == "page"


def test_pasted_text_gives_the_same_records_as_python(app):
    app.set_text(PROSE)
    assert_same_as_python(app, PROSE)
    strategies = list(chunker.STRATEGIES) if app.kind == "serve" else ["fixed", "markdown"]
    for name in strategies:
        app.select("strategy", name)
        assert_same_as_python(app, PROSE)


def test_emoji_and_cjk_land_on_the_right_characters(app):
    app.select("strategy", "fixed")
    app.fill("#size", "40")
    app.set_text(ASTRAL)
    expected = assert_same_as_python(app, ASTRAL)
    assert len(expected.chunks) > 5
    # The text box, addressed with the cards' UTF-16 offsets, holds each chunk's text.
    for card in app.cards():
        got = app.page.evaluate(
            "([a, b]) => document.getElementById('document').value.substring(a, b)", [card["start16"], card["end16"]]
        )
        assert got == expected.chunks[card["index"]].text


def test_every_request_stays_on_the_own_origin(app):
    app.select("tokenizer", "o200k")
    assert app.requests, "no request was recorded"
    assert app.foreign_requests() == []
    assert app.console_errors == []  # includes CSP violations


def test_chunking_keeps_working_offline(app):
    app.select("tokenizer", "o200k")  # once chosen, the exact tokenizer's vocabulary is local
    app.context.set_offline(True)
    app.context.route("**/*", lambda route: route.abort())
    try:
        text = PROSE[:3000] + "\n\nWritten while offline. 🛰️"
        app.select("strategy", "sentence")
        app.set_text(text)
        assert_same_as_python(app, text)
        app.select("tokenizer", "cl100k")
        assert_same_as_python(app, text)
        assert app.page.is_hidden("#error")
    finally:
        app.context.unroute("**/*")
        app.context.set_offline(False)


def test_a_long_document_view_arrives_whole_in_parts(app):
    """Past app/docview.py's DOC_FIRST the view comes in parts; once idle it holds every one."""
    from app import docview

    text = "\n\n".join(f"Section {i}. " + PROSE[:2500] for i in range(60))
    assert docview.count_parts(text) >= 3
    app.set_text(text)
    expected = assert_same_as_python(app, text)
    assert app.page.locator("#doc-view > .slice").count() == len(docview.slice_ends(text))
    assert app.page.locator("#doc-view [id^=chunk-]").count() == len(expected.chunks)
    app.fill("#size", "90")  # a new view replaces all of the old one
    assert_same_as_python(app, text)
