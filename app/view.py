"""One whole view of a chunking: every fragment the page shows, as a dict of strings and numbers.

Runs in the worker; the main thread only sets these fragments as they come (app/main.py,
static/bridge.js). Everything here is plain string building, tested in CPython.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chunker

from .cards import CARD_PAGE, cards_html, embedded_html
from .docview import count_parts, iter_document_parts
from .html import esc, plural, utf16
from .panels import advice_html, counts_html, records_preview, stats_html
from .snippets import code_html, snippets

__all__ = ["view"]


def view(
    document: Any, result: Any, advice: Any, flags: dict[str, str], *, filename: str = "document.md"
) -> tuple[dict[str, Any], Iterator[str]]:
    """The view of `result` (a chunking of the `chunker.Document` `document`), and an iterator
    over the parts of the document view after the first (the page asks for them one by one).
    """
    text = document.text
    chunks = result.chunks
    stats = result.stats
    spans = chunks.spans() if hasattr(chunks, "spans") else [(c.start_char, c.end_char) for c in chunks]
    doc_parts = iter_document_parts(text, spans)
    n = len(chunks)
    out = {
        "ok": True,
        "chunks": n,
        "doc_chars": len(text),
        "counts": counts_html(
            stats.document_chars,
            stats.document_words,
            stats.document_tokens,
            chunker.tokenizer_label(result.settings.tokenizer),
            stats.exact,
        ),
        "stats": stats_html(stats, result.settings) if n else "",
        "doc": next(doc_parts),
        "doc_parts": count_parts(text),
        "cards": cards_html(chunks, text, flags, 0, CARD_PAGE, utf16(text)),
        "advice": advice_html(advice),
        "preview": records_preview(result),
        "code": code_html(snippets(result.settings, filename)),
        "summary": plural(n, "chunk") if n else "No chunks: the document is empty.",
        "embedded": embedded_html(chunks),
        # What the strategy tells the reader (a Python file that does not parse, cut otherwise).
        "notes": "".join(f'<p class="note">Note: {esc(n)}</p>' for n in getattr(result, "notes", ())),
    }
    return out, doc_parts
