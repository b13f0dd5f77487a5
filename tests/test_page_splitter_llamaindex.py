"""Paste your splitter, LlamaIndex's: on the page served by serve.py, a pasted SentenceSplitter or
MarkdownNodeParser gives the installed llama-index-core's own nodes in the view, the cards and
the advice (the page runs chunker/splitters/llamaindex.py and chunker/text/_punkt.py in Pyodide,
where neither LlamaIndex nor nltk can run)."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core")
from llama_index.core import Document
from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter

import chunker
from tests.pagekit import page_fixtures, params, text_of
from tests.test_page import SAMPLE

pytestmark = pytest.mark.browser

site, app = page_fixtures()


def paste_splitter(app, line: str) -> None:
    app.act(lambda: (app.page.fill("#opt-splitter", line), app.page.locator("#opt-splitter").blur()))


def test_a_pasted_sentence_splitter_gives_llama_indexs_nodes(app):
    line = "from llama_index.core.node_parser import SentenceSplitter\nSentenceSplitter(chunk_size=96, chunk_overlap=16)"
    paste_splitter(app, line)
    theirs = [n.text for n in SentenceSplitter(chunk_size=96, chunk_overlap=16).get_nodes_from_documents([Document(text=SAMPLE)])]
    expected = chunker.chunk(SAMPLE, splitter=line)
    assert [c.text for c in expected.chunks] == theirs
    assert text_of(app, "#summary") == f"{len(theirs)} chunks"
    view = app.view_texts()
    assert [view[str(k)] for k in range(len(theirs))] == theirs
    cards = app.cards()
    assert (
        cards and [(c["start"], c["end"]) for c in cards] == [(c.start_char, c.end_char) for c in expected.chunks][: len(cards)]
    )
    advice = text_of(app, "#advice")
    assert "Punkt" in advice and "cl100k" in advice
    assert params(app)["splitter"].endswith("SentenceSplitter(chunk_size=96, chunk_overlap=16)")
    assert "get_nodes_from_documents" in text_of(app, "#snip-llama_index")


def test_a_pasted_markdown_node_parser_gives_its_sections(app):
    paste_splitter(app, "MarkdownNodeParser()")
    theirs = [n.text for n in MarkdownNodeParser().get_nodes_from_documents([Document(text=SAMPLE)])]
    view = app.view_texts()
    assert [view[str(k)] for k in range(len(theirs))] == theirs
    assert app.console_errors == []
