"""PDF page lines to one text: running headers dropped, headings found, lines rejoined into
paragraphs, hyphenated words mended, pages marked.

Works on plain data (`Line` records, one per line pypdf wrote), so it is tested without pypdf.
The rules, each chosen to need no dictionary, model or download:

Page breaks
    Every page boundary holds exactly one form feed ``"\\f"`` (a page's own text never does),
    so ``text.count("\\f", 0, i) + 1`` is the page of offset ``i``. Where a paragraph ends with
    the page the boundary is ``"\\n\\n\\f\\n\\n"``: a blank line, which every splitter reads as
    a paragraph break, around the form feed. Where a paragraph runs on to the next page (the
    page's last line is full and does not end a sentence) it is ``"\\f\\n"``, so the paragraph
    and its sentence stay whole. ``str.isspace()`` holds for ``"\\f"``: chunks are trimmed of it,
    and inside a chunk it is one whitespace character, not a word an embedding would weigh.

Running headers and footers
    A line near the top or bottom of a page (the first or last three in reading order, or the
    two highest or lowest on the page) is running if, with digits normalised ("Page 3 of 9" is
    "Page # of #", a lone roman numeral is a number too) and case folded, it stands there on
    at least three pages and on more than half of the pages, or of the pages (or only the odd
    or only the even pages: books alternate headers) between the first and last page it
    stands on, so a header that changes with the chapter goes too. A line of numbers and
    punctuation alone (a page number) at an edge of three pages goes. A heading (larger type)
    or a line ending a sentence is running only if it repeats word for word, digits included:
    pages that open on "Section 1", "Section 2"... keep those headings. Running lines are
    dropped from the page's edges inwards only, so a body line between two of them stays.
    When that would leave no text at all (every page holds only the same lines), nothing is
    dropped: those lines are the document.

Headings (from font size)
    The body size is the size most characters are set in. A short line (at most 150
    characters, holding a letter, no dot leaders of a table of contents) set at least 15% and
    1 pt larger is a heading; heading sizes
    rank into levels, largest first (``#``, ``##``, ... ``######``). Consecutive heading lines
    of one size are one heading. Bold headings at body size are not found.

Paragraphs
    Lines are rejoined with a space unless a paragraph ends between them: a change of font
    size, a vertical gap over 1.5 times the usual line spacing, a first-line indent, a line
    back at the left of a list item's bullet, or a short line (under 75% of a full line, which
    is the 90th percentile of body line lengths) ending with ``.``, ``!``, ``?``, ``:`` or
    ``;``. A short line that does not end so keeps its line break (table rows, code,
    addresses), as does a table-of-contents line. A bullet (``•``, ``▪``, ...) starts a list
    item, written ``- ``; a dash or ``1.`` does only after a line that ended a sentence, since a
    wrapped line may start with either. Without positions and sizes (when pypdf's pieces do
    not add up to its text) only the text rules apply.

Characters
    Control characters become spaces, and half of a UTF-16 surrogate pair (a font may map a
    glyph to one) becomes U+FFFD, one character for one, so offsets are unchanged.

Hyphenation
    A line ending in letter + ``-`` followed by a line starting with a lower-case letter is
    joined without the hyphen only if the joined word occurs elsewhere in the document without
    a hyphen (and the hyphenated form does not); otherwise the hyphen is kept and the halves
    joined ("well-known"). A soft hyphen (U+00AD) at a line end is always removed.

>>> page1 = [Line("Report", 20.0, 72, 700), Line("This sentence runs across the page and", 10.0, 72, 670)]
>>> page2 = [Line("ends here.", 10.0, 72, 700)]
>>> text, starts = lines_to_text([page1, page2])
>>> text == "# Report\\n\\nThis sentence runs across the page and\\f\\nends here.", starts
(True, (0, 50))
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from typing import NamedTuple

from ._html import escape_block_start

__all__ = ["PAGE_BREAK", "PAGE_CONTINUES", "Line", "lines_to_text"]

PAGE_BREAK = "\n\n\f\n\n"
PAGE_CONTINUES = "\f\n"


class Line(NamedTuple):
    text: str
    size: float | None = None  # rendered font size in points, None when unknown
    x: float | None = None  # where the line starts on the page (PDF points, y grows upwards)
    y: float | None = None


_DIGITS = re.compile(r"\d+")
_ROMAN = re.compile(r"[ivxlc]{1,7}")
# A table of contents line: dot leaders, then a page number.
_LEADERS = re.compile(r"(?:\.\s?){4,}\s*\d+\Z|…\s*\d+\Z")
_BULLET = re.compile(r"[•◦▪▫●○■□‣⁃∙·*]\s+(?=\S)")
_DASH = re.compile(r"[–—-]\s+(?=\S)")
_NUMBERED = re.compile(r"\d{1,3}[.)]\s+(?=\S)")
_ENDS_SENTENCE = re.compile(r"[.!?:;…][\"'’”)\]]*\Z")
_HYPHEN_END = re.compile(r"(\w*[^\W\d_])-\Z")
_HEAD_WORD = re.compile(r"[^\W\d_]\w*")
_WORDS = re.compile(r"\w+(?:-\w+)*")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# A font may map a glyph to half of a UTF-16 pair, which is no character: U+FFFD stands for it.
_SURROGATE = re.compile("[\ud800-\udfff]")
_SPACES = re.compile(r"\s+")
_LETTER = re.compile(r"[^\W\d_]")


def lines_to_text(pages: list[list[Line]], *, keep_running: bool = False) -> tuple[str, tuple[int, ...]]:
    """The document's text and the offset where each page starts (see the module docstring)."""
    pages = [[ln._replace(text=t) for ln in page if (t := _clean(ln.text))] for page in pages]
    if not keep_running:
        pages = _drop_running(pages)
    body = _body_size(pages)
    levels = _heading_levels(pages, body)
    words = _word_counts(pages)
    full = _full_length(pages, body)
    leading = _leading(pages, body)
    out: list[str] = []
    starts: list[int] = []
    total = 0  # len("".join(out)), kept as pieces are added or mended
    prev: _Para | None = None  # the line written last, when the next line may continue it
    item_x: float | None = None  # where the list item being written starts, if one is
    in_list = False
    for number, page in enumerate(pages):
        if number:
            if prev is not None and page and _continues(prev, page[0], levels, full):
                mended, page = _mend_across(out[-1], page, words)
                total += len(mended) - len(out[-1])
                out[-1] = mended
                out.append(PAGE_CONTINUES)
            else:
                out.append(PAGE_BREAK)
                prev, in_list = None, False
            total += len(out[-1])
        starts.append(total)
        for line in page:
            cur = _Para(line, _level(line, levels), _item(line.text, prev))
            if prev is None:
                sep, text = "", _start(cur)
            elif out[-1] == PAGE_CONTINUES:
                sep, text = "", line.text
            else:
                sep, text = _join(prev, cur, full, leading, item_x if in_list else None, in_list)
                if sep == " ":
                    broken = _broken_word(out[-1], text, words)
                    if broken is not None:
                        total += len(broken) - len(out[-1])
                        out[-1], sep = broken, ""
            in_list = cur.item or (in_list and "\n\n" not in sep)
            if cur.item:
                item_x = line.x
            out.append(sep + text)
            total += len(out[-1])
            prev = cur
    return "".join(out), tuple(starts)


class _Para(NamedTuple):
    line: Line
    level: int  # heading level, 0 for body text
    item: bool  # starts a list item


def _clean(text: str) -> str:
    return _SPACES.sub(" ", _CONTROL.sub(" ", _SURROGATE.sub("\ufffd", text))).strip()


def _key(text: str) -> str:
    text = text.casefold()
    return "#" if _ROMAN.fullmatch(text) else _DIGITS.sub("#", text)


def _drop_running(pages: list[list[Line]]) -> list[list[Line]]:
    body = _body_size(pages)
    seen: dict[str, list[int]] = {}  # key -> pages where it stands at an edge
    edges = [_edges(page) for page in pages]
    for number, (page, edge) in enumerate(zip(pages, edges)):
        keys = set()
        for i in edge:
            keys.add(_key(page[i].text))
            keys.add("=" + page[i].text.casefold())  # the exact text, digits and all
        for key in keys:
            seen.setdefault(key, []).append(number)
    running = {key for key, where in seen.items() if _is_running(key, where, len(pages))}
    if not running:
        return pages

    def is_running(line: Line) -> bool:
        # A heading, or a line that ends a sentence, is running only word for word: "Section 2"
        # opening page 2 and "Section 3" opening page 3 are the document's own text.
        exact = "=" + line.text.casefold() in running
        larger = body is not None and line.size is not None and line.size >= body * 1.15 + 1
        if larger or line.text.endswith(tuple(".!?:;")):
            return exact
        return exact or _key(line.text) in running

    out = []
    for page, edge in zip(pages, edges):
        # Only from the page's edges inwards: a running line sits outside the body, so the
        # first line that is not running ends the run (at the top, and at the bottom).
        top = 0
        while top < len(page) and top in edge and is_running(page[top]):
            top += 1
        bottom = len(page)
        while bottom > top and bottom - 1 in edge and is_running(page[bottom - 1]):
            bottom -= 1
        out.append(page[top:bottom])
    # Pages that hold nothing but the same lines are the document, not its running headers.
    return out if any(out) else pages


def _is_running(key: str, where: list[int], count: int) -> bool:
    """Whether a line seen at the edge of pages `where` (of `count`) is a running one."""
    if len(where) < 3:
        return False
    if not _LETTER.search(key):
        return True  # a page number, alone or as "- # -" or "# / #"
    if len(where) * 2 > count:
        return True
    # A header that changes with the chapter, or alternates between odd and even pages, is
    # on most pages of the stretch where it appears (or of that stretch's odd or even pages).
    stretch = where[-1] - where[0] + 1
    if len({n % 2 for n in where}) == 1:
        stretch = (stretch + 1) // 2
    return len(where) * 2 > stretch


def _edges(page: list[Line]) -> set[int]:
    edge = set(range(min(3, len(page)))) | set(range(max(0, len(page) - 3), len(page)))
    placed = [(ln.y, i) for i, ln in enumerate(page) if ln.y is not None]
    placed.sort()
    edge.update(i for _, i in placed[:2] + placed[-2:])
    return edge


def _round(size: float) -> float:
    return round(size * 2) / 2


def _body_size(pages: list[list[Line]]) -> float | None:
    chars: Counter[float] = Counter()
    for page in pages:
        for ln in page:
            if ln.size is not None:
                chars[_round(ln.size)] += len(ln.text)
    return chars.most_common(1)[0][0] if chars else None


def _heading_levels(pages: list[list[Line]], body: float | None) -> dict[float, int]:
    if body is None:
        return {}
    sizes = {
        _round(ln.size)
        for page in pages
        for ln in page
        if ln.size is not None and _headlike(ln.text) and ln.size >= body * 1.15 and ln.size >= body + 1
    }
    return {size: min(rank, 6) for rank, size in enumerate(sorted(sizes, reverse=True), 1)}


def _headlike(text: str) -> bool:
    return len(text) <= 150 and _LETTER.search(text) is not None and not _LEADERS.search(text)


def _level(line: Line, levels: dict[float, int]) -> int:
    if line.size is None or not _headlike(line.text):
        return 0
    return levels.get(_round(line.size), 0)


def _item(text: str, prev: _Para | None) -> bool:
    if _BULLET.match(text):
        return True
    # "1." or a dash opens an item only where a line ended: mid-sentence, a wrapped line may
    # well start with a number and a full stop ("section\n3. The ...") or a dash.
    return bool(_DASH.match(text) or _NUMBERED.match(text)) and (
        prev is None or prev.item or prev.level > 0 or _ENDS_SENTENCE.search(prev.line.text) is not None
    )


def _word_counts(pages: list[list[Line]]) -> Counter[str]:
    words: Counter[str] = Counter()
    for page in pages:
        for ln in page:
            words.update(w.casefold() for w in _WORDS.findall(ln.text))
    return words


def _full_length(pages: list[list[Line]], body: float | None) -> int:
    """How many characters a full body line holds: 75% of the 90th percentile of lengths."""
    lengths = sorted(len(ln.text) for page in pages for ln in page if body is None or ln.size is None or _round(ln.size) == body)
    if not lengths:
        return 0
    return math.ceil(0.75 * lengths[min(len(lengths) - 1, int(len(lengths) * 0.9))])


def _leading(pages: list[list[Line]], body: float | None) -> float | None:
    """The usual distance between two lines of body text, in points."""
    gaps: Counter[float] = Counter()
    for page in pages:
        for a, b in itertools.pairwise(page):
            if (
                a.y is not None
                and b.y is not None
                and a.size is not None
                and b.size is not None
                and _round(a.size) == body == _round(b.size)
                and 0 < a.y - b.y < 4 * body
            ):
                gaps[_round(a.y - b.y)] += 1
    return gaps.most_common(1)[0][0] if gaps else None


def _start(cur: _Para) -> str:
    if cur.level:
        return "#" * cur.level + " " + cur.line.text
    m = (_BULLET.match(cur.line.text) or _DASH.match(cur.line.text)) if cur.item else None
    if m:
        return "- " + cur.line.text[m.end() :]
    return cur.line.text if cur.item else escape_block_start(cur.line.text)


def _join(prev: _Para, cur: _Para, full: int, leading: float | None, item_x: float | None, in_list: bool) -> tuple[str, str]:
    """The separator before line `cur` and its text, given the line before it on the page."""
    a, b = prev.line, cur.line
    if prev.level or cur.level:
        if prev.level == cur.level and not _gap(a, b, leading, 2.0):
            return " ", b.text  # a heading set on two lines is still one heading
        return "\n\n", _start(cur)
    if cur.item:
        return ("\n" if in_list else "\n\n"), _start(cur)
    if a.size is not None and b.size is not None and _round(a.size) != _round(b.size):
        return "\n\n", _start(cur)
    # Under a list item the lines hang indented, so a line back at the item's start ends it.
    if in_list and item_x is not None and b.x is not None and b.size is not None and b.x < item_x + 0.3 * b.size:
        return "\n\n", _start(cur)
    if _gap(a, b, leading, 1.5) or (not in_list and _indented(a, b)):
        return "\n\n", _start(cur)
    if _LEADERS.search(a.text):
        return "\n", _start(cur)
    if len(a.text) < full:
        return ("\n\n" if _ENDS_SENTENCE.search(a.text) else "\n"), _start(cur)
    return " ", b.text


def _gap(a: Line, b: Line, leading: float | None, factor: float) -> bool:
    if a.y is None or b.y is None or leading is None:
        return False
    return a.y - b.y > factor * leading


def _indented(a: Line, b: Line) -> bool:
    if a.x is None or b.x is None or b.size is None or a.y is None or b.y is None:
        return False
    return b.x - a.x > 0.8 * b.size and a.y > b.y


def _broken_word(last: str, text: str, words: Counter[str]) -> str | None:
    """When `last` ends with a word broken at the line end and `text` holds the rest: `last`
    as it must read right before `text` (hyphen dropped or kept); else None."""
    if last.endswith("\xad") and text[:1].isalpha():
        return last[:-1]
    m = _HYPHEN_END.search(last)
    rest = _HEAD_WORD.match(text) if m and text[:1].islower() else None
    if m is None or rest is None:
        return None
    head, tail = m.group(1), rest.group()
    if words[(head + tail).casefold()] and not words[f"{head}-{tail}".casefold()]:
        return last[:-1]
    return last


def _continues(prev: _Para, first: Line, levels: dict[float, int], full: int) -> bool:
    """Whether the paragraph at the end of a page runs on to the next page's first line."""
    if prev.level or _level(first, levels) or _item(first.text, prev):
        return False
    if _ENDS_SENTENCE.search(prev.line.text):
        return False
    return len(prev.line.text) >= full or first.text[:1].islower()


def _mend_across(last: str, page: list[Line], words: Counter[str]) -> tuple[str, list[Line]]:
    """Mend a word hyphenated across a page break on the earlier page, so that the break never
    falls inside a word; without one, add the space that joins the lines."""
    first = page[0].text
    mended = _broken_word(last, first, words)
    if mended is None:
        return last, page
    word = _HEAD_WORD.match(first)
    assert word is not None  # _broken_word saw a word there
    rest = first[word.end() :].lstrip()
    return mended + word.group(), ([page[0]._replace(text=rest)] if rest else []) + page[1:]
