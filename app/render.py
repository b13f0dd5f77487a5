"""Turn a `chunker` result into the page's HTML fragments. Runs in the Pyodide worker.

Everything here is plain string building, so it is tested in CPython (tests/test_render.py).
Two rules hold throughout:

* every piece of text that reaches the DOM goes through :func:`esc` (the document, chunk
  previews, headings, error messages); markup in a pasted document stays text;
* offsets in records are code points; the DOM counts UTF-16 code units, so every offset the
  page uses to address the text box (``data-start16``/``data-end16``) goes through
  :class:`Utf16`. The document view needs no conversion: it is built from Python slices.

No chunking logic: the numbers come from the result's records and stats.

>>> print(document_html("ab cd", [(0, 2), (1, 5)]))
<span class="s t0" data-c="0" id="chunk-0" data-n="0">a</span><span class="s o t0 u1" data-c="0 1" id="chunk-1" data-n="1">b</span><span class="s t1" data-c="1"> cd</span>
"""

from __future__ import annotations

import html
import json
import re
from bisect import bisect_left
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

PALETTE = 6
"""Number of tints; neighbouring chunks always get different ones (index modulo PALETTE)."""

CARD_PAGE = 200
"""Cards rendered per batch: a long list is rendered incrementally ("Show more")."""

PREVIEW = 80

SLICE = 2000
"""Characters per block of a long document view (cut at the next line end after this many).

Each block is a ``<div class="slice">`` that the stylesheet renders with ``content-visibility:
auto``: the browser lays out only the blocks near the visible part of the view, so a megabyte
of text costs the layout of a screenful. Cutting just after a newline keeps the text's lines
exactly as one flow would break them."""

DOC_PART = 100_000
"""Characters of the document per part of its view. The first part comes with the view, the
others follow one by one (worker.more_doc), so a megabyte is never parsed or sent in one go."""

DOC_FIRST = 20_000
"""Characters in the first part: several screenfuls, so the view on screen is complete at once
and the rest of the text follows a moment later."""
"""Characters of each chunk shown on its card."""

STRATEGY_ORDER = ("recursive", "fixed", "sentence", "paragraph", "markdown", "langchain")

EMBEDDING_LIMITS: Dict[str, Tuple[str, int]] = {
    "minilm": ("all-MiniLM-L6-v2", 256),
    "bge": ("BGE / E5 base models", 512),
    "cohere": ("Cohere embed v3", 512),
    "nomic": ("nomic-embed-text", 8192),
    "openai": ("OpenAI text-embedding-3", 8191),
}
"""Embedding-model input limits (tokens) offered for the "chunks over the limit" warning."""


def esc(text: Any) -> str:
    r"""Escape text for HTML element content and quoted attribute values.

    A carriage return becomes a character reference: the HTML parser turns a literal CR LF
    into LF, and the view must hold a file's text character for character.

    >>> esc('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    >>> esc("line\r\n")
    'line&#13;\n'
    """
    return html.escape(str(text), quote=True).replace("\r", "&#13;")


def _num(n: float) -> str:
    """Group thousands; floats keep at most one decimal.

    >>> _num(12345), _num(150.44), _num(3.0)
    ('12,345', '150.4', '3')
    """
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,.1f}"
    return f"{int(n):,}"


def per_text(fn):
    """Remember ``fn(text)`` for the last text object it saw.

    A slider move re-renders the same document with new chunks: what depends on the text alone
    (its UTF-16 map, what it looks like, its pitfalls) is worked out once per document. The
    check is identity, which is free, not equality, which would read a megabyte each time.

    >>> calls = []
    >>> twice = per_text(lambda t: calls.append(t) or t * 2)
    >>> text = "ab" * 3
    >>> twice(text), twice(text), len(calls)
    ('abababababab', 'abababababab', 1)
    """
    last: List[Any] = [None, None]

    def cached(text: str) -> Any:
        if last[0] is not text:
            last[1] = fn(text)
            last[0] = text
        return last[1]

    cached.__doc__ = fn.__doc__
    cached.__name__ = getattr(fn, "__name__", "cached")
    return cached


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class Utf16:
    """Maps code-point offsets of one text to UTF-16 offsets (what the DOM and JS count).

    Characters outside the Basic Multilingual Plane (emoji, many CJK extensions) are one code
    point but two UTF-16 units, so every offset after one shifts by one.

    >>> u = Utf16("a😀b")
    >>> u(0), u(1), u(2), u(3)
    (0, 1, 3, 4)
    """

    def __init__(self, text: str) -> None:
        self._astral = [m.start() for m in _ASTRAL.finditer(text)]

    def __call__(self, offset: int) -> int:
        return offset + bisect_left(self._astral, offset)


_utf16 = per_text(Utf16)


# ---------------------------------------------------------------- the document view


def sweep(spans: Sequence[Tuple[int, int]], length: int) -> List[Tuple[int, int, Tuple[int, ...]]]:
    """Cut ``[0, length)`` into segments, each with the chunks covering it (in index order).

    Chunk starts and ends become sorted boundary events, swept once: overlapping chunks need no
    pairwise comparison, and gaps (text in no chunk) come out with an empty tuple.

    >>> sweep([(0, 4), (2, 6)], 8)
    [(0, 2, (0,)), (2, 4, (0, 1)), (4, 6, (1,)), (6, 8, ())]
    """
    events: List[Tuple[int, int, int]] = []
    for i, (start, end) in enumerate(spans):
        if end > start:
            events.append((start, 1, i))
            events.append((end, 0, i))  # 0 sorts first: a chunk ends before the next starts
    events.sort()
    segments: List[Tuple[int, int, Tuple[int, ...]]] = []
    active: List[int] = []
    pos = 0
    k = 0
    while k < len(events):
        at = events[k][0]
        if at > pos:
            segments.append((pos, at, tuple(active)))
            pos = at
        while k < len(events) and events[k][0] == at:
            _, kind, i = events[k]
            if kind:
                active.append(i)
                active.sort()
            else:
                active.remove(i)
            k += 1
    if length > pos:
        segments.append((pos, length, tuple(active)))
    return segments


def slice_ends(text: str, every: int = SLICE) -> List[int]:
    r"""Where the view's blocks end: just after the first newline at least ``every`` characters
    into each block, then the end of the text. A text with no newline stays one block.

    >>> slice_ends("aaa\nbb\ncc\ndd", 4)
    [4, 10, 12]
    """
    ends: List[int] = []
    pos = 0
    while len(text) - pos > every:
        cut = text.find("\n", pos + every - 1)
        if cut < 0 or cut + 1 >= len(text):
            break
        pos = cut + 1
        ends.append(pos)
    ends.append(len(text))
    return ends


def document_html(text: str, spans: Sequence[Tuple[int, int]], every: int = SLICE) -> str:
    r"""The document with each chunk's span tinted and overlaps striped.

    A segment covered by one chunk is ``<span class="s tN" data-c="i">``; by several, it is
    also ``o`` (striped between the first two chunks' tints, ``tN uM``) with ``data-c="i j"``.
    The segment where chunk i starts carries ``id="chunk-i"`` (the scroll target) and
    ``data-n`` (its number, drawn by CSS so it never enters the text). Text in no chunk is
    left bare.

    A text longer than ``every`` characters is cut into ``<div class="slice">`` blocks at line
    ends (see :data:`SLICE`); a segment crossing a cut becomes two spans with the same chunks,
    and only the first carries the id.

    >>> print(document_html("ab\ncd", [(0, 5)], every=2))
    <div class="slice"><span class="s t0" data-c="0" id="chunk-0" data-n="0">ab
    </span></div><div class="slice"><span class="s t0" data-c="0">cd</span></div>
    """
    return "".join(document_parts(text, spans, every))


def document_parts(text: str, spans: Sequence[Tuple[int, int]], every: int = SLICE,
                   part: int = DOC_PART, first: int = DOC_FIRST) -> List[str]:
    r""":func:`document_html` as consecutive pieces of whole blocks, the first covering at least
    ``first`` characters of text, the others ``part`` (the last one may hold fewer). Joined,
    they are the whole view; there are :func:`count_parts` of them.

    >>> document_parts("ab\ncd\nef", [(0, 8)], every=2, part=2, first=2)[1]
    '<div class="slice"><span class="s t0" data-c="0">cd\n</span></div>'
    """
    return list(iter_document_parts(text, spans, every, part, first))


def count_parts(text: str, every: int = SLICE, part: int = DOC_PART, first: int = DOC_FIRST) -> int:
    r"""How many parts :func:`document_parts` makes of ``text`` (it depends on the text alone).

    >>> count_parts("ab\ncd\nef", every=2, part=2, first=2)
    3
    """
    count, part_start = 1, 0
    for b in slice_ends(text, every)[:-1]:
        if b - part_start >= (part if count > 1 else first):
            count += 1
            part_start = b
    return count


def iter_document_parts(text: str, spans: Sequence[Tuple[int, int]], every: int = SLICE,
                        part: int = DOC_PART, first: int = DOC_FIRST) -> Iterator[str]:
    """:func:`document_parts`, built as they are asked for: the worker sends the first part at
    once and builds the others only when the page asks for them."""
    starts = {start: i for i, (start, end) in reversed(list(enumerate(spans))) if end > start}
    ends = slice_ends(text, every)
    sliced = len(ends) > 1
    made = 0
    out: List[str] = ['<div class="slice">'] if sliced else []
    k = 0  # the block being written: it ends at ends[k]
    part_start = 0
    for seg_a, seg_b, active in sweep(spans, len(text)):
        a = seg_a
        while a < seg_b:
            b = min(seg_b, ends[k])
            piece = esc(text[a:b])
            if not active:
                out.append(piece)
            else:
                lead = active[0]
                if len(active) == 1:
                    cls = f"s t{lead % PALETTE}"
                else:
                    cls = f"s o t{lead % PALETTE} u{active[1] % PALETTE}"
                attrs = f'class="{cls}" data-c="{" ".join(map(str, active))}"'
                n = starts.get(a)
                if n is not None and n in active:
                    attrs += f' id="chunk-{n}" data-n="{n}"'
                out.append(f"<span {attrs}>{piece}</span>")
            a = b
            if b == ends[k] and k + 1 < len(ends):
                k += 1
                out.append("</div>")
                if b - part_start >= (part if made else first):
                    made += 1
                    yield "".join(out)
                    out = []
                    part_start = b
                out.append('<div class="slice">')
    if sliced:
        out.append("</div>")
    yield "".join(out)


# ---------------------------------------------------------------- chunk cards


def flag_label(flag: str) -> str:
    """A flag's badge text.

    >>> flag_label("mid_sentence")
    'mid-sentence'
    """
    return {"mid_sentence": "mid-sentence"}.get(flag, flag.replace("_", " "))


def flag_badge(flag: str, explanations: Dict[str, str]) -> str:
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
    return ("≈" if estimated else "") + _num(tokens)


def card_html(chunk: Any, u16: Utf16, explanations: Dict[str, str]) -> str:
    """One chunk card. ``data-start``/``data-end`` are code points (the test contract);
    ``data-start16``/``data-end16`` address the same span in the text box."""
    i = chunk.index
    head = [
        f'<b class="idx">#{i}</b>',
        f'<span class="num" title="tokens">{tokens_label(chunk.tokens, chunk.tokens_estimated)} tokens</span>',
        f'<span class="num">{_num(chunk.chars)} chars</span>',
        f'<span class="num">{_num(chunk.words)} words</span>',
    ]
    if chunk.overlap_chars:
        head.append(f'<span class="num ovl" title="characters shared with the previous chunk">'
                    f"+{_num(chunk.overlap_chars)} shared</span>")
    parts = [
        f'<li class="card t{i % PALETTE}" tabindex="0" data-chunk-index="{i}" '
        f'data-start="{chunk.start_char}" data-end="{chunk.end_char}" '
        f'data-start16="{u16(chunk.start_char)}" data-end16="{u16(chunk.end_char)}">',
        f'<div class="card-h">{"".join(head)}</div>',
    ]
    if chunk.headings:
        parts.append(f'<div class="crumbs">§ {" › ".join(esc(h) for h in chunk.headings)}</div>')
    parts.append(f'<p class="prev">{esc(preview(chunk.text))}</p>')
    if chunk.flags:
        parts.append('<div class="flags">' + "".join(flag_badge(f, explanations) for f in chunk.flags) + "</div>")
    parts.append("</li>")
    return "".join(parts)


def cards_html(chunks: Sequence[Any], text: str, explanations: Dict[str, str], start: int = 0,
               count: int = CARD_PAGE, u16: Optional[Utf16] = None) -> str:
    """Cards ``start`` to ``start + count``, followed by a "Show more" button if any remain."""
    u16 = u16 or Utf16(text)
    out = [card_html(c, u16, explanations) for c in chunks[start:start + count]]
    rest = len(chunks) - (start + count)
    if rest > 0:
        out.append(f'<li class="more"><button type="button" id="more-cards" data-next="{start + count}">'
                   f"Show {_num(min(rest, count))} more of {_num(rest)} remaining chunks</button></li>")
    return "".join(out)


# ---------------------------------------------------------------- stats, counts, compare


def counts_html(chars: int, words: int, tokens: Optional[int], tokenizer: str, exact: bool) -> str:
    """The live counts under the text box (``≈`` unless the tokenizer is exact).

    >>> counts_html(1200, 190, 300, "approx", False)
    '1,200 chars · 190 words · ≈300 tokens (approx)'
    """
    out = f"{_num(chars)} chars · {_num(words)} words"
    if tokens is not None:
        out += f" · {'' if exact else '≈'}{_num(tokens)} tokens ({esc(tokenizer)})"
    return out


def stats_html(stats: Any) -> str:
    """Seed 001's stats strip: chunks, sizes, duplicated and embedding tokens (≈ when estimated)."""
    a = "" if stats.exact else "≈"
    tiles = [
        ("Chunks", _num(stats.chunks), ""),
        ("Tokens min / avg / max", f"{a}{_num(stats.min_tokens)} / {a}{_num(stats.avg_tokens)} / "
                                   f"{a}{_num(stats.max_tokens)}", ""),
        ("Chars min / avg / max", f"{_num(stats.min_chars)} / {_num(stats.avg_chars)} / {_num(stats.max_chars)}", ""),
        ("Duplicated tokens", f"{a}{_num(stats.duplicated_tokens)}",
         f"{_num(stats.duplicated_pct)}% of the document, embedded twice"),
        ("Embedding tokens total", f"{a}{_num(stats.embedding_tokens)}",
         "what you pay to embed every chunk"),
    ]
    out = []
    for label, value, note in tiles:
        note_html = f'<span class="note">{esc(note)}</span>' if note else ""
        out.append(f'<div class="tile"><span class="label">{esc(label)}</span>'
                   f'<span class="value">{esc(value)}</span>{note_html}</div>')
    if a:
        out.append('<p class="tile-note">≈ estimated counts: pick the o200k or cl100k tokenizer for exact ones.</p>')
    return "".join(out)


def compare_html(rows: Dict[str, Any], current: str, flags: Iterable[str]) -> str:
    """Every strategy on the same document and settings. ``rows`` maps a strategy to its
    Stats, to an error message (str), or is missing (still computing)."""
    flags = list(flags)
    head = "".join(f'<th scope="col" title="{esc(f)}">{esc(flag_label(f))}</th>' for f in flags)
    out = ['<table class="compare"><caption class="sr-only">Every strategy on this document</caption>'
           '<thead><tr><th scope="col">Strategy</th><th scope="col">Chunks</th>'
           '<th scope="col">Avg tokens</th><th scope="col">Min</th><th scope="col">Max</th>'
           f"{head}</tr></thead><tbody>"]
    for name in STRATEGY_ORDER:
        row = rows.get(name)
        mark = ' class="current" aria-current="true"' if name == current else ""
        label = (f'<th scope="row"><button type="button" class="linkish" data-strategy="{esc(name)}" '
                 f'title="Switch to {esc(name)}">{esc(name)}</button></th>')
        if row is None:
            cells = f'<td colspan="{4 + len(flags)}" class="pending">computing…</td>'
        elif isinstance(row, str):
            cells = f'<td colspan="{4 + len(flags)}" class="err">{esc(row)}</td>'
        else:
            a = "" if row.exact else "≈"
            cells = (f"<td>{_num(row.chunks)}</td><td>{a}{_num(row.avg_tokens)}</td>"
                     f"<td>{a}{_num(row.min_tokens)}</td><td>{a}{_num(row.max_tokens)}</td>")
            counts = [row.flag_counts.get(f, 0) for f in flags]
            cells += "".join(f"<td>{_num(n)}</td>" if n else '<td class="zero">0</td>' for n in counts)
        out.append(f"<tr{mark}>{label}{cells}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


# ---------------------------------------------------------------- advice


def advice(result: Any, text: str, limit: Optional[str] = None) -> List[Tuple[str, str]]:
    """Warnings and tips for this result, as (level, message) with level warn or tip.

    ``limit`` is a key of :data:`EMBEDDING_LIMITS` (or a number of tokens), or None.
    """
    s = result.settings
    stats = result.stats
    chunks = result.chunks
    out: List[Tuple[str, str]] = []
    if not chunks:
        return out
    a = "" if stats.exact else "≈"
    if s.size and s.overlap_count * 2 > s.size:
        pct = round(100 * s.overlap_count / s.size)
        out.append(("warn", f"Overlap is {pct}% of the chunk size (over 50%): most text is embedded "
                            "two or more times. 10–20% is the usual starting point."))
    if limit:
        name, max_tokens = EMBEDDING_LIMITS.get(limit, (f"{limit}-token model", 0))
        if not max_tokens and str(limit).isdigit():
            max_tokens = int(limit)
        over = [c for c in chunks if c.tokens > max_tokens] if max_tokens else []
        if over:
            biggest = max(c.tokens for c in over)
            out.append(("warn", f"{len(over)} of {len(chunks)} chunks exceed the {_num(max_tokens)}-token "
                                f"input limit of {name} (largest {a}{_num(biggest)} tokens): the model "
                                "would truncate them. Lower the size or switch the unit to tokens."))
        elif max_tokens:
            out.append(("tip", f"Every chunk fits the {_num(max_tokens)}-token input limit of {name}."))
    mid = stats.flag_counts.get("mid_sentence", 0)
    if mid and mid * 4 >= len(chunks) and len(chunks) > 1:
        candidates = ("markdown", "recursive", "sentence") if _looks_like_markdown(text) else ("recursive", "sentence", "paragraph")
        better = " or ".join([c for c in candidates if c != s.strategy][:2])
        out.append(("warn", f"{mid} of {len(chunks)} chunks end mid-sentence. A structure-aware "
                            f"strategy ({better}) fixes the cause; more overlap only hides it."))
    frag = stats.flag_counts.get("fragment", 0)
    if frag and frag * 5 >= len(chunks) and len(chunks) > 2:
        out.append(("warn", f"{frag} chunks are fragments (under a fifth of the size): they embed as "
                            "noise. Try a larger size or the paragraph strategy."))
    orphans = stats.flag_counts.get("orphan_heading", 0)
    if orphans and s.strategy != "markdown":
        out.append(("warn", f"{orphans} chunks end with a heading whose body went to the next chunk. "
                            "The markdown strategy keeps headings with their sections."))
    oversize = stats.flag_counts.get("oversize", 0)
    if oversize:
        out.append(("tip", f"{oversize} chunks are larger than the size: a block that cannot be cut "
                           "(a long paragraph, table or code block) stayed whole."))
    if _looks_like_markdown(text) and s.strategy not in ("markdown", "recursive"):
        out.append(("tip", "This looks like Markdown: the markdown strategy splits at headings and "
                           "keeps code blocks and tables whole."))
    if s.unit == "chars" and max(c.tokens for c in chunks) > 2 * (stats.avg_tokens or 1):
        out.append(("tip", "Sizes are in characters, but token counts vary a lot between chunks: "
                           "size in tokens to stay under a model's limit."))
    if not stats.exact:
        out.append(("tip", "Token counts are estimates; the o200k and cl100k tokenizers are exact."))
    return out


_MD = re.compile(r"^(#{1,6} \S|```|\|.*\|\s*$)", re.M)


@per_text
def _looks_like_markdown(text: str) -> bool:
    return len(_MD.findall(text[:200_000])) >= 2


CONTENT_TYPES: Dict[str, Tuple[str, str, str]] = {
    "faq": ("FAQ or short Q&A", "300,15%", "300 tokens with 15% overlap keeps each answer with its question"),
    "chat": ("chat history", "384,0", "split by turn; 384 tokens with no overlap"),
    "technical": ("technical documentation", "1024,10%", "1,024 tokens with 10% overlap keeps code samples and procedures together"),
    "general": ("general prose", "500,10%", "500 tokens with 10% overlap is the common first setting"),
}
"""Content types the advice recognises: label, settings for its Apply button, why."""

_SPEAKER = re.compile(r"^(user|assistant|human|ai|system|bot|agent|customer|q|a)\s*:", re.I)
_QUESTION = re.compile(r"^(\*\*|#+\s*|q[:.]\s*)?[^.!?\n]{4,160}\?")
_CODE = re.compile(r"^\s*(def |class |import |from \S+ import |function |const |let |var |#include|public |private "
                   r"|return\b|if .*:$|for .*:$|elif |else:|try:|except|with .*:$|[{}]\s*$)|[;{]\s*$")
_INVISIBLE = re.compile("[\u00a0\u200b\u200c\u200d\u2060\u00ad]")


@per_text
def content_type(text: str) -> str:
    r"""A guess at what the document is, to pick a starting point (seed 002's table).

    >>> content_type("User: hi\nAssistant: hello\nUser: help?\nAssistant: sure")
    'chat'
    >>> content_type("# Setup\n\nRun it:\n\n```sh\nmake\n```\n")
    'technical'
    """
    lines = [line.strip() for line in text[:200_000].splitlines() if line.strip()]
    if not lines:
        return ""
    speakers = sum(bool(_SPEAKER.match(line)) for line in lines)
    if speakers >= 4 and speakers * 2 >= len(lines):
        return "chat"
    questions = sum(bool(_QUESTION.match(line)) for line in lines)
    if questions >= 3 and questions * 3 >= len(lines):
        return "faq"
    if "```" in text or (_looks_like_markdown(text) and sum(bool(_CODE.search(l)) for l in lines) >= 3):
        return "technical"
    return "general"


@per_text
def pitfalls(text: str) -> List[Tuple[str, str]]:
    """Seed 004's pitfalls, detected: structured data, source code, a BOM, invisible characters."""
    out: List[Tuple[str, str]] = []
    head = text[:200_000]
    stripped = head.strip()
    lines = [line for line in head.splitlines() if line.strip()]
    if stripped[:1] in "[{" and stripped:
        try:
            json.loads(text)
            out.append(("warn", "This is JSON: a text chunker cuts its records in half and the pieces embed as "
                                "noise. Split it at record boundaries first (one object per chunk)."))
        except ValueError:
            pass
    if len(lines) >= 5 and not out:
        for sep, name in ((",", "CSV"), ("\t", "TSV")):
            counts = [line.count(sep) for line in lines[:50]]
            if counts[0] >= 2 and sum(c == counts[0] for c in counts) * 10 >= len(counts) * 8:
                out.append(("warn", f"This looks like {name}: chunk structured rows by record (or embed a text "
                                    "rendering of each row), not by size."))
                break
    if lines and "```" not in head:
        code = sum(bool(_CODE.search(line)) for line in lines)
        if code * 5 >= len(lines) and code >= 5:
            out.append(("tip", "This looks like source code: split it at function or class boundaries "
                               "(a syntax-aware splitter); size-based windows cut functions apart."))
    if text.startswith("\ufeff"):
        out.append(("tip", "The text starts with a byte-order mark (U+FEFF). It counts as a character in the "
                           "offsets; strip it if your pipeline does."))
    invisible = len(_INVISIBLE.findall(head))
    if invisible:
        out.append(("tip", f"The text holds {invisible:,} invisible or non-breaking characters (no-break spaces, "
                           "zero-width or soft hyphens). They change token counts: normalise them before embedding."))
    return out


def advice_html(result: Any, text: str, limit: Optional[str] = None) -> str:
    """The advice list: what the document looks like (with an Apply button), then warnings and tips."""
    if not text.strip():
        return ('<p class="ok">Paste some text to start. A common starting point is 400 to 512 tokens '
                "with 10% to 20% overlap; test it against your own questions.</p>")
    parts = []
    kind = content_type(text)
    if kind:
        label, apply, why = CONTENT_TYPES[kind]
        size, overlap = apply.split(",")
        parts.append(f'<li class="tip"><span class="lvl">Looks like {esc(label)}:</span> {esc(why)}. '
                     f'<button type="button" data-apply="{esc(apply)}">Use {esc(size)} / {esc(overlap)}</button></li>')
    for level, message in pitfalls(text) + advice(result, text, limit):
        parts.append(f'<li class="{level}"><span class="lvl">{"Warning" if level == "warn" else "Tip"}:</span> '
                     f"{esc(message)}</li>")
    return '<ul class="advice">' + "".join(parts) + "</ul>"


def records_preview(result: Any, count: int = 3) -> str:
    """The first records exactly as the JSON export writes them (seed 003 shows its output inline)."""
    records = [c.to_dict() for c in result.chunks[:count]]
    return esc(json.dumps(records, ensure_ascii=False, indent=2))


# ---------------------------------------------------------------- copy as code


def _py(value: Any) -> str:
    """A Python literal for a setting, in double quotes like the rest of the snippet.

    >>> _py("15%"), _py(("paragraph",)), _py(500)
    ('"15%"', '("paragraph",)', '500')
    """
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_py, value)) + ("," if len(value) == 1 else "") + ")"
    return json.dumps(value) if isinstance(value, str) else repr(value)


def snippets(settings: Any, defaults: Dict[str, Any], filename: str = "document.md") -> Dict[str, str]:
    """The `chunker` call, the CLI line and (for langchain) the LangChain code for ``settings``.

    ``breaks`` only changes the sentence strategy, so it is written out for that strategy or when
    it differs from the default.

    >>> from types import SimpleNamespace as S
    >>> s = S(strategy="fixed", unit="chars", size=300, overlap="15%", tokenizer="approx",
    ...       breaks=("paragraph", "line", "sentence"), overlap_count=45)
    >>> print(snippets(s, {"breaks": ("paragraph", "line", "sentence")})["cli"])
    python -m chunker document.md --strategy fixed --unit chars --size 300 --overlap 15% --tokenizer approx --format jsonl
    """
    with_breaks = settings.strategy == "sentence" or tuple(settings.breaks) != tuple(defaults["breaks"])
    args = [
        ("strategy", settings.strategy), ("unit", settings.unit), ("size", settings.size),
        ("overlap", settings.overlap), ("tokenizer", settings.tokenizer),
    ]
    if with_breaks:
        args.append(("breaks", tuple(settings.breaks)))
    call = ",\n".join(f"    {k}={_py(v)}" for k, v in args)
    python = (
        "import chunker\n\n"
        "# newline=\"\" keeps \\r\\n as is, so offsets match the file byte for byte as text\n"
        f'with open({_py(filename)}, encoding="utf-8", newline="") as f:\n'
        "    text = f.read()\n\n"
        f"result = chunker.chunk(\n    text,\n{call},\n)\n"
        "for c in result.chunks:\n"
        "    print(c.index, c.start_char, c.end_char, c.tokens, c.flags)\n"
    )
    cli = (f"python -m chunker {filename} --strategy {settings.strategy} --unit {settings.unit} "
           f"--size {settings.size} --overlap {settings.overlap} --tokenizer {settings.tokenizer}")
    if with_breaks:
        cli += " --breaks " + ",".join(settings.breaks)
    cli += " --format jsonl"
    out = {"python": python, "cli": cli}
    if settings.strategy == "langchain":
        out["langchain"] = _langchain_snippet(settings, filename)
    return out


def _langchain_snippet(settings: Any, filename: str) -> str:
    size, overlap = settings.size, settings.overlap_count
    head = "from langchain_text_splitters import RecursiveCharacterTextSplitter\n\n"
    read = f'text = open({_py(filename)}, encoding="utf-8", newline="").read()\n'
    encodings = {"o200k": "o200k_base", "cl100k": "cl100k_base"}
    if settings.unit == "tokens" and settings.tokenizer in encodings:
        make = ("splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(\n"
                f'    encoding_name="{encodings[settings.tokenizer]}", chunk_size={size}, chunk_overlap={overlap}\n)\n')
    elif settings.unit == "tokens":
        head += "import chunker\n"
        make = ("splitter = RecursiveCharacterTextSplitter(\n"
                f"    chunk_size={size}, chunk_overlap={overlap},\n"
                f'    length_function=lambda s: chunker.count_tokens(s, tokenizer="{settings.tokenizer}"),\n)\n')
    elif settings.unit == "words":
        make = ("splitter = RecursiveCharacterTextSplitter(\n"
                f"    chunk_size={size}, chunk_overlap={overlap},\n"
                "    length_function=lambda s: len(s.split()),\n)\n")
    else:
        make = f"splitter = RecursiveCharacterTextSplitter(chunk_size={size}, chunk_overlap={overlap})\n"
    return head + read + make + "chunks = splitter.split_text(text)  # the same texts as this view\n"


def code_html(snips: Dict[str, str]) -> str:
    """The snippets as labelled, copyable code blocks."""
    titles = {"python": "Python (chunker)", "cli": "Command line", "langchain": "LangChain equivalent"}
    out = []
    for key in ("python", "cli", "langchain"):
        if key in snips:
            out.append(f'<div class="snip"><div class="snip-h"><span>{titles[key]}</span>'
                       f'<button type="button" class="copy-snip" data-snip="{key}">Copy</button></div>'
                       f'<pre><code id="snip-{key}">{esc(snips[key])}</code></pre></div>')
    return "".join(out)


# ---------------------------------------------------------------- one whole view


def view(text: str, result: Any, explanations: Dict[str, str], defaults: Dict[str, Any],
         limit: Optional[str] = None, keep: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Every fragment the page shows for one result, as a dict of strings and numbers.

    The document view holds its first part only (``doc``, of ``doc_parts``); ``keep``, if
    given, receives the iterator of the others under ``"doc_rest"``.
    """
    chunks = result.chunks
    u16 = _utf16(text)
    spans = [(c.start_char, c.end_char) for c in chunks]
    doc_parts = iter_document_parts(text, spans)
    if keep is not None:
        keep["doc_rest"] = doc_parts
    snips = snippets(result.settings, defaults)
    return {
        "ok": True,
        "chunks": len(chunks),
        "doc_chars": len(text),
        "counts": counts_html(result.stats.document_chars, result.stats.document_words,
                              result.stats.document_tokens, result.settings.tokenizer, result.stats.exact),
        "stats": stats_html(result.stats) if chunks else "",
        # The first part of the document view; the worker keeps the rest (keep) and hands it
        # out part by part: the page shows the top at once and appends the others.
        "doc": next(doc_parts),
        "doc_parts": count_parts(text),
        "cards": cards_html(chunks, text, explanations, 0, CARD_PAGE, u16),
        "advice": advice_html(result, text, limit),
        "preview": records_preview(result),
        "code": code_html(snips),
        "settings": result.settings.to_dict(),
        "overlap_count": result.settings.overlap_count,
        "summary": f"{len(chunks)} chunks" if chunks else "No chunks: the document is empty.",
    }
