"""The chunk cards: one per chunk, with its sizes, heading path, preview and flags."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .docview import PALETTE
from .html import Utf16, esc, num, plural

__all__ = ["CARD_PAGE", "PREVIEW", "flag_label", "flag_badge", "preview", "tokens_label", "card_html", "cards_html"]

CARD_PAGE = 80
"""Cards that come with a view: the first screenfuls of the list."""

PREVIEW = 80
"""Characters of each chunk shown on its card."""


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
    embed = getattr(chunk, "embed_text", None)
    if embed is not None:
        # A pasted splitter's own text, not one slice of the document: the card previews what
        # the framework hands the embedder; the highlight is the slice that holds it.
        head.append(
            '<span class="num emb" title="the framework joins this chunk\'s pieces: what is embedded is not '
            'the highlighted slice itself">framework text</span>'
        )
        parts[1] = f'<div class="card-h">{"".join(head)}</div>'
    parts.append(f'<p class="prev">{esc(preview(embed if embed is not None else chunk.text))}</p>')
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
