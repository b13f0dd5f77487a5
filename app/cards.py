"""The chunk cards: one per chunk, with its sizes, heading path, preview and flags."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .docview import PALETTE
from .html import Utf16, esc, num, plural

__all__ = [
    "CARD_PAGE",
    "PREVIEW",
    "EMBEDDED",
    "flag_label",
    "flag_badge",
    "preview",
    "tokens_label",
    "card_html",
    "cards_html",
    "embedded_html",
]

CARD_PAGE = 24
"""Cards that come with a view: the first screenful of the list and a little more (about ten
cards fit in it). Every card sent is HTML the main thread parses while the reader waits; the
list asks for the cards near what it shows as it scrolls (static/chunklist.js)."""

PREVIEW = 80
"""Characters of each chunk shown on its card."""

CONTEXT_PREVIEW = 40
"""Characters of a chunk's context shown before its preview."""

EMBEDDED = 30
"""Chunks the "as embedded" view shows in full, from the first."""

EMBEDDED_CHARS = 4000
"""Characters of one chunk's embed text that view shows (a chunk of a whole page can be long)."""


def flag_label(flag: str) -> str:
    """A flag's badge text.

    >>> flag_label("mid_sentence")
    'mid-sentence'
    """
    return {"mid_sentence": "mid-sentence"}.get(flag, flag.replace("_", " "))


def flag_badge(flag: str, explanations: dict[str, str]) -> str:
    """A focusable badge; its explanation shows on hover and on keyboard focus (see app.css)."""
    tip = explanations.get(flag, flag)
    return (
        f'<span class="flag f-{esc(flag)}" tabindex="0" data-flag="{esc(flag)}">'
        f"{esc(flag_label(flag))}"
        f'<span class="tip" role="tooltip">{esc(tip)}</span></span>'
    )


def preview(text: str, limit: int = PREVIEW) -> str:
    """The first `limit` characters, line breaks shown as ⏎, with … when cut.

    >>> preview("one\\ntwo", 5), preview("abc", 5)
    ('one⏎t…', 'abc')
    """
    head = text[:limit].replace("\r\n", "\n").replace("\n", "⏎")
    return head + ("…" if len(text) > limit else "")


def tokens_label(tokens: int, estimated: bool) -> str:
    """``≈123`` when the count is an estimate, ``123`` when exact.

    >>> tokens_label(1234, True), tokens_label(5, False)
    ('≈1,234', '5')
    """
    return ("≈" if estimated else "") + num(tokens)


def card_html(chunk: Any, u16: Utf16, explanations: dict[str, str]) -> str:
    """One chunk card. ``data-start``/``data-end`` are code points (the test contract);
    ``data-start16``/``data-end16`` address the same span in the text box."""
    i = chunk.index
    head = [
        f'<b class="idx">#{i}</b>',
        f'<span class="num" title="tokens">{tokens_label(chunk.tokens, chunk.tokens_estimated)} '
        f"{'token' if chunk.tokens == 1 else 'tokens'}</span>",
        f'<span class="num">{plural(chunk.chars, "char")}</span>',
        f'<span class="num">{plural(chunk.words, "word")}</span>',
    ]
    if getattr(chunk, "page_start", None):
        first, last = chunk.page_start, chunk.page_end
        head.append(
            f'<span class="num pages" title="pages of the document">'
            f"{'p. ' + str(first) if first == last else f'pp. {first}–{last}'}</span>"
        )
    context = getattr(chunk, "context", "")
    if context:
        head.append(
            f'<span class="num emb" title="tokens the embedding model receives: the context, then the text">'
            f"{tokens_label(chunk.embed_tokens, chunk.tokens_estimated)} embedded</span>"
        )
    if chunk.overlap_chars:
        head.append(
            f'<span class="num ovl" title="characters shared with the previous chunk">+{num(chunk.overlap_chars)} shared</span>'
        )
    parts = [
        f'<li class="card t{i % PALETTE}" tabindex="0" data-chunk-index="{i}" '
        f'data-start="{chunk.start_char}" data-end="{chunk.end_char}" '
        f'data-start16="{u16(chunk.start_char)}" data-end16="{u16(chunk.end_char)}">',
        f'<div class="card-h">{"".join(head)}</div>',
    ]
    if chunk.headings:
        parts.append(f'<div class="crumbs">§ {" › ".join(esc(h) for h in chunk.headings)}</div>')
    prefix = ""
    if context:  # muted: the embedder reads it before the text; the document does not hold it
        tip = "context: what the embedder reads before the text"
        prefix = f'<span class="ctx" title="{tip}">{esc(preview(context, CONTEXT_PREVIEW))}</span>'
    own = chunk.framework_text
    if own is not None:
        # A pasted splitter's own text, not one slice of the document: the card previews what
        # the framework hands the embedder; the highlight is the slice that holds it.
        head.append(
            '<span class="num emb" title="the framework joins this chunk\'s pieces: what is embedded is not '
            'the highlighted slice itself">framework text</span>'
        )
        parts[1] = f'<div class="card-h">{"".join(head)}</div>'
    parts.append(f'<p class="prev">{prefix}{esc(preview(own if own is not None else chunk.text))}</p>')
    if chunk.flags:
        parts.append('<div class="flags">' + "".join(flag_badge(f, explanations) for f in chunk.flags) + "</div>")
    parts.append("</li>")
    return "".join(parts)


def cards_html(
    chunks: Sequence[Any],
    text: str,
    explanations: dict[str, str],
    start: int = 0,
    count: int = CARD_PAGE,
    u16: Utf16 | None = None,
) -> str:
    """Cards ``start`` to ``start + count`` (the page's chunk list is virtual: it shows the cards
    near what is visible, static/chunklist.js)."""
    u16 = u16 or Utf16(text)
    start = max(0, start)
    return "".join(card_html(chunks[k], u16, explanations) for k in range(start, min(len(chunks), start + count)))


def embedded_html(chunks: Sequence[Any], limit: int = EMBEDDED) -> str:
    """The "as embedded" view: the first `limit` chunks as the embedding model receives them,
    each its context (muted) then its text, line breaks kept."""
    n = len(chunks)
    if not n:
        return ""
    items = []
    for k in range(min(n, limit)):
        c = chunks[k]
        context, text = getattr(c, "context", ""), c.text
        room = max(0, EMBEDDED_CHARS - len(context))
        body = esc(text[:room]) + ("…" if len(text) > room else "")
        tokens = getattr(c, "embed_tokens", c.tokens)
        prefix = f'<span class="ctx">{esc(context)}</span>' if context else ""
        items.append(
            f'<li data-chunk-index="{c.index}"><div class="card-h"><b class="idx">#{c.index}</b>'
            f'<span class="num">{tokens_label(tokens, c.tokens_estimated)} {"token" if tokens == 1 else "tokens"}</span></div>'
            f'<pre class="embed">{prefix}{body}</pre></li>'
        )
    shown = f"the first {num(min(n, limit))} of {plural(n, 'chunk')}" if n > limit else plural(n, "chunk")
    intro = f'<p class="help">What the embedding model receives: {shown}, the context muted.</p>'
    return f'{intro}<ol class="embedded">{"".join(items)}</ol>'
