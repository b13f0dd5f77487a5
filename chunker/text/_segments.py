"""Segmentation shared by the strategies. Every function returns trimmed (start, end) spans:
offsets into the text it was given, never starting or ending on whitespace."""

from __future__ import annotations

import bisect
import contextlib
import itertools
import re
import sys
from array import array
from collections.abc import Callable, Iterator
from itertools import islice
from operator import itemgetter
from typing import Any

from .._errors import ChunkerError
from ._punct import CLOSERS, TERMINALS

__all__ = ["paragraph_spans", "line_spans", "word_spans", "is_heading_line", "Fences", "count_words", "stripped_length"]

Span = tuple[int, int]

# One non-blank line: from its first to its last non-whitespace character.
_LINE = re.compile(r"\S(?:[^\n]*\S)?")
# A blank line: a line break, then a line of nothing but whitespace.
_BLANK = re.compile(r"\n[^\S\n]*\n\s*")
_WORD = re.compile(r"\S+")
_LEADING_SPACE = re.compile(r"\s*")
_SPACE = re.compile(r"\s")

_TERMINAL_ENDS = frozenset(TERMINALS + CLOSERS)  # what a sentence's last character may be
_FENCE_CLOSE = re.compile(r"(?:^|\n)[ \t]{0,3}(?:```+|~~~+)[ \t]*\Z")
_ATX = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]+\S.*|[ \t]*)\Z")


# Bytes that str.split() treats as whitespace, mapped to 0; every other byte to 1. Multi-byte
# UTF-8 characters are all 1s, so a word starts exactly where 0 is followed by 1.
_WS_BYTES = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
_WORD_TABLE = bytes(0 if b in _WS_BYTES else 1 for b in range(256))
# Whitespace outside ASCII, which the byte trick cannot see: such text takes the slow path.
_WIDE_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate: what decoding with errors='surrogateescape' leaves, which no UTF-8 output can write."""


def check_text(text: object) -> str:
    """`text` itself when it is Unicode text a tokenizer can read, else `ChunkerError` saying
    what to pass instead: bytes and other types, and a str holding a lone surrogate (what
    decoding with errors='surrogateescape' leaves: no UTF-8 file can hold one, no tokenizer
    can encode one, no output can write one).

    >>> check_text("fine")
    'fine'
    >>> check_text(b"bytes")
    Traceback (most recent call last):
    ...
    chunker._errors.ChunkerError: text must be a str, got bytes: decode bytes as UTF-8 first
    """
    return checked_text(text)[0]


def checked_text(text: object) -> tuple[str, bool | None]:
    """`check_text`, and whether the text holds whitespace outside ASCII (`has_wide_space`)
    when the check found out at no cost, else None (ask `has_wide_space` when it matters)."""
    if not isinstance(text, str):
        raise ChunkerError(f"text must be a str, got {type(text).__name__}: decode bytes as UTF-8 first")
    if text.isascii():
        return text, False
    if type(text) is str and sys.getsizeof(text) - _COMPACT_HEADER < 4 * (len(text) + 1):
        # One or two bytes a character (PEP 393): UTF-16 is that string widened or copied, and
        # its encoder refuses a lone surrogate, at about a quarter of `non_ascii`'s cost (0.5
        # against 2.3 ms a MB), a megabyte at a time as `non_ascii` reads. The wide spaces are
        # left to whoever counts words. The size is only a guess at the storage: any string is
        # checked exactly, and a wrong guess only costs time. A subclass takes the path below,
        # which reads plain slices of it (its own encode or size may say anything).
        step = 1 << 20
        for i in range(0, len(text), step):
            try:
                text[i : i + step].encode("utf-16-le")
            except UnicodeEncodeError as e:
                raise surrogate_error("the text", text, i + e.start, _DECODE) from None
        return text, None
    # Four bytes a character: UTF-16 would pair every astral character, slower than the
    # non-ASCII characters alone, which the wide spaces are then found in too.
    rare = non_ascii(text)
    if LONE_SURROGATE.search(rare) is not None:
        bad = LONE_SURROGATE.search(text)
        if bad is not None:  # always: found where it is
            raise surrogate_error("the text", text, bad.start(), _DECODE)
    return text, _WIDE_SPACE.search(rare) is not None


# A str of one or two bytes a character takes this many bytes besides its characters and the
# terminating one (PEP 393's compact layout; measured, not assumed, on the running Python).
_COMPACT_HEADER = sys.getsizeof("\u0101") - 2 * 2


_DECODE = "decode the source with errors='replace', or fix it"


def surrogate_error(what: str, value: str, at: int, instead: str, **error: Any) -> ChunkerError:
    """The one message for a lone surrogate at `at` in `value`, which `what` names (the text, a
    source, a title, a context template), with what to give `instead`; `error`: the
    `ChunkerError`'s other fields."""
    return ChunkerError(
        f"{what} holds a lone surrogate (U+{ord(value[at]):04X}) at offset {at}, which is not Unicode text: {instead}",
        **error,
    )


class Deferred:
    """A regular expression compiled when first used. A class of a script's code points
    (Han, kana, Hangul, everything past U+3005) holds tens of thousands of them, which ``re``
    puts in its tables one by one, in Python: 3-5 ms each, paid at import by every process,
    the command line's included, though only the text in those scripts (the estimate's
    classes) or a retrieval check (BM25's terms) needs them."""

    __slots__ = ("pattern", "_compiled")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern)
        return self._compiled

    def findall(self, text: str) -> list[Any]:
        return self.compiled().findall(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled().fullmatch(text)

    def match(self, text: str) -> re.Match[str] | None:
        return self.compiled().match(text)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled().search(text, pos)

    def split(self, text: str) -> list[Any]:
        return self.compiled().split(text)


def position_kind(n: int) -> str:
    """The `array` type code for positions in a text of `n` characters: 4 bytes a position for
    any usual document, 8 past two billion characters."""
    return "i" if n < 2**31 else "q"


_ASCII_BYTES = bytes(range(128))


def non_ascii(text: str) -> str:
    """The characters of `text` outside ASCII, in order, lone surrogates included.

    The checks that look for rare characters (lone surrogates, wide spaces) search this
    instead of the text: a regular expression tests a character class at every position
    (some 4 ms a MB each), while deleting the ASCII bytes from the UTF-8 takes well under one,
    and prose holds a few non-ASCII characters per thousand. Done a megabyte at a time, so a
    long document is never copied whole.

    >>> non_ascii("naïve — café"), non_ascii("plain")
    ('ï—é', '')
    """
    if text.isascii():
        return ""
    step = 1 << 20
    return "".join(
        text[i : i + step].encode("utf-8", "surrogatepass").translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
        for i in range(0, len(text), step)
    )


def has_wide_space(text: str) -> bool:
    """Whether `text` holds whitespace outside ASCII (then `count_words` must split)."""
    return not text.isascii() and _WIDE_SPACE.search(non_ascii(text)) is not None


def count_words(text: str, wide_space: bool | None = None) -> int:
    """``len(text.split())``, without building the list (the records need it for every chunk).

    `wide_space` may pass on what `has_wide_space` said of a larger text this one is part of.

    >>> count_words("  two words\\n"), count_words("naïve café 日本"), count_words("a\\u3000b")
    (2, 3, 2)
    """
    if wide_space is None:
        wide_space = has_wide_space(text)
    if wide_space:
        return len(text.split())
    b = text.encode("utf-8", "surrogatepass").translate(_WORD_TABLE)
    return b.count(b"\x00\x01") + (b[:1] == b"\x01")


def word_counter(text: str, wide_space: bool | None = None, latin1: bytes | None = None) -> Callable[[int, int], int]:
    """``count_words(text[start:end])`` as a function of (start, end), for counting many spans
    of one text (the JSON Lines writer counts every chunk's words).

    The text is read once, one byte a character: every character outside Latin-1 becomes "?",
    which is no whitespace, and none of them is when the text holds no whitespace outside ASCII
    (`has_wide_space`; Latin-1's NEL and no-break space are such whitespace, so they are not
    there either). A span's words are then counted in those bytes, at C speed, with no copy
    of its text; a text with wide spaces counts each span as ``len(span.split())``.

    >>> words = word_counter("  two words\\nand three")
    >>> words(0, 11), words(5, 21), words(3, 3)
    (2, 3, 0)
    """
    if wide_space is None:
        wide_space = has_wide_space(text)
    if wide_space:
        return lambda start, end: len(text[start:end].split())
    # `latin1`: the caller's own ``text.encode("latin-1", "replace")``, when it has one.
    marks = (latin1 if latin1 is not None else text.encode("latin-1", "replace")).translate(_WORD_TABLE)
    count = marks.count

    def words(start: int, end: int) -> int:
        return count(b"\x00\x01", start, end) + (start < end and marks[start] == 1)

    return words


def paragraph_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Blocks separated by blank lines (a line holding only whitespace counts as blank).

    >>> t = "One.\\nStill one.\\n\\n  Two.  "
    >>> [t[s:e] for s, e in paragraph_spans(t)]
    ['One.\\nStill one.', 'Two.']
    """
    return list(iter_paragraph_spans(text, start, end))


def iter_paragraph_spans(text: str, start: int = 0, end: int | None = None) -> Iterator[Span]:
    """`paragraph_spans` one at a time, from their columns (a megabyte holds some 9,000
    paragraphs: 8 bytes each as columns, some 120 as a list of pairs)."""
    end = len(text) if end is None else end
    return zip(*paragraph_columns(text, start, end, position_kind(end)))


def paragraph_columns(text: str, start: int, end: int, kind: str) -> tuple[array[int], array[int]]:
    """`paragraph_spans(text, start, end)` as two arrays of typecode `kind`, starts and ends:
    the separators' positions go straight into the arrays, and the rare paragraph that ends in
    whitespace (spaces before a blank line, Windows line breaks), which must be trimmed, is
    found in one pass over the paragraphs' last characters, not by a test a paragraph.

    >>> t = "One.\\nStill one.\\n\\n  Two.  "
    >>> [list(a) for a in paragraph_columns(t, 0, len(t), "q")], paragraph_spans(t)
    ([[0, 19], [15, 23]], [(0, 15), (19, 23)])
    """
    starts, ends = array(kind), array(kind)
    pos = start
    if pos < end and text[pos].isspace():
        m = _LEADING_SPACE.match(text, pos, end)
        pos = m.end() if m is not None else pos  # r"\s*" always matches
    if pos >= end:
        return starts, ends
    # A separator takes the whitespace after it: every paragraph but the first starts where a
    # separator ends, on a character that is not whitespace, and ends where the next begins.
    starts.append(pos)
    # A plain loop: match objects taken in batches and their positions mapped into the arrays
    # took 25-35 % longer (each batch's objects are new to the cache, and the collector runs).
    to_start, to_end = starts.append, ends.append
    for m in _BLANK.finditer(text, pos, end):
        to_end(m.start())
        to_start(m.end())
    ends.append(end)
    # Trimmed in place: a paragraph starts on a character that is not whitespace, so only its
    # end moves, and only the last can be whitespace alone (the text ends in a blank line).
    # The last characters are read a batch of paragraphs at a time: a text of one-letter
    # paragraphs holds a third of its length in them, and their positions as a list cost 36
    # bytes each.
    step = 1 << 14
    for first in range(0, len(ends), step):
        last = "".join(itemgetter(*[e - 1 for e in ends[first : first + step]])(text))
        for m in _SPACE.finditer(last):
            k = first + m.start()
            at = starts[k]
            ends[k] = at + len(text[at : ends[k]].rstrip())
    if ends[-1] == starts[-1]:
        del starts[-1], ends[-1]
    return starts, ends


def line_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Non-blank lines, trimmed."""
    end = len(text) if end is None else end
    return [m.span() for m in _LINE.finditer(text, start, end)]


def word_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Maximal runs of non-whitespace."""
    end = len(text) if end is None else end
    return [m.span() for m in _WORD.finditer(text, start, end)]


def word_columns(text: str) -> tuple[array[int], array[int]]:
    """`word_spans` of the whole text as two arrays, starts and ends: 8 bytes a word, where a
    list of pairs costs about 120 (a megabyte holds some 150,000 words).

    >>> [list(a) for a in word_columns(" ab  c")]
    [[1, 5], [3, 6]]
    """
    kind = position_kind(len(text))
    starts, ends = array(kind), array(kind)
    found = _WORD.finditer(text)
    while True:
        batch = [m.span() for m in islice(found, 1 << 14)]
        if not batch:
            return starts, ends
        starts.extend([a for a, _ in batch])
        ends.extend([b for _, b in batch])


def stripped_length(text: str) -> int:
    """``len(text.strip())`` without copying a long `text` (the approx tokenizer counts whole
    documents this way, and whitespace at their ends is usually a few characters).

    >>> stripped_length("  two words \\n"), stripped_length(" \\t ")
    (9, 0)
    """
    start, end = 0, len(text)
    if end == 0 or not (text[0].isspace() or text[-1].isspace()):
        return end  # nothing to strip: the usual chunk
    if end < 1 << 16:  # copying a short text costs less than looking at its ends in Python
        return len(text.strip())
    while start < end and text[start].isspace():
        start += 1
        if start == 64:  # a long run: let strip() take the rest at C speed
            return len(text.strip())
    while end > start and text[end - 1].isspace():
        end -= 1
        if len(text) - end == 64:
            return len(text.strip())
    return end - start


def rstripped_tail(text: str, n: int = 256) -> str:
    """The last `n` characters of ``text.rstrip()``, without copying the rest of `text`
    (flags look at the end of every chunk, and chunks can be long)."""
    return tail_of(text, 0, len(text), n)


def tail_of(doc: str, start: int, end: int, n: int = 256) -> str:
    """`rstripped_tail` of doc[start:end], copying only its last `n` characters (more only
    when the span ends in over `n` characters of whitespace)."""
    first = end - n if end - start > n else start
    tail = doc[first:end].rstrip()
    if tail or first == start:
        return tail
    return doc[start:end].rstrip()[-n:]


def ends_sentence(text: str, fences: Fences | None = None, at: int = 0) -> bool:
    """True when `text` ends with terminal punctuation (closing quotes/brackets allowed after it)
    or with a closing code fence or a whole pipe-table row: the opposite of the `mid_sentence`
    flag.

    Whether a fence line closes a block is the document's to say: `fences` (`Fences.of` the
    document `text` is part of, at offset `at`) pairs its fence lines. Without it, `text` alone
    decides: a fence line closes when an odd number of fence lines precede it in `text`.

    >>> doc = "```\\ncode\\n\\nmore\\n```"
    >>> ends_sentence(doc[11:]), ends_sentence(doc[11:], Fences.of(doc), 11)
    (False, True)
    >>> ends_sentence("| a | b |\\n|---|---|\\n| 1 | 2 |"), ends_sentence("a | b |")
    (True, False)
    """
    return span_ends_sentence(text, 0, len(text), fences, at)


def span_ends_sentence(doc: str, start: int, end: int, fences: Fences | None = None, at: int = 0) -> bool:
    """`ends_sentence(doc[start:end], fences, at + start)`, reading only the span's last line
    or characters: the records judge every chunk, and a chunk can be long.

    >>> doc = "Intro.\\n\\n```\\ncode\\n```"
    >>> span_ends_sentence(doc, 0, 6), span_ends_sentence(doc, 8, 20, Fences.of(doc)), span_ends_sentence(doc, 0, 12)
    (True, True, False)
    """
    tail = tail_of(doc, start, end, 16)[-8:]
    if not tail:
        return True
    last = tail[-1]
    if last in _TERMINAL_ENDS:  # terminal punctuation, then any closing quotes or brackets
        stem = tail.rstrip(CLOSERS)
        if stem and stem[-1] in TERMINALS:
            return True
    if last == "|":  # a whole pipe-table row, "| a | b |", ends a unit as a sentence does
        line = doc[doc.rfind("\n", start, stripped_end(doc, start, end)) + 1 or start : end].strip()
        return len(line) > 1 and line[0] == "|"
    if last not in "`~":  # a closing fence line ends with one of these
        return False
    tail = tail_of(doc, start, end, 200)
    if _FENCE_CLOSE.search(tail) is None:
        return False
    if fences is None:
        return _closes_fence(doc[start:end].rstrip())
    marker = tail[tail.rfind("\n") + 1 :].lstrip()
    return fences.closes(at + stripped_end(doc, start, end) - len(marker))


def stripped_end(doc: str, start: int, end: int) -> int:
    """Where doc[start:end].rstrip() ends in `doc` (a chunk rarely ends on whitespace: cheap)."""
    while end > start and doc[end - 1].isspace():
        end -= 1
    return end


def _closes_fence(text: str) -> bool:
    # A fence line closes a block only when an odd number of fence lines precede it.
    fences = re.findall(r"(?m)^[ \t]{0,3}(?:```+|~~~+)", text)
    return len(fences) % 2 == 0 and len(fences) > 0


_FENCE_LINE = re.compile(r"(?m)^[ \t]{0,3}(`{3,}|~{3,})([^\n]*)")


# A fence line after a line break. Found in one scan: a pattern that begins with a literal
# character is skipped to at C speed, where one that begins with "^" is tried at every position.
_FENCE_AFTER_BREAK = re.compile(r"\n[ \t]{0,3}(`{3,}|~{3,})([^\n]*)")


def _fence_lines(text: str) -> Iterator[re.Match[str]]:
    """`_FENCE_LINE`'s matches in `text`, in order, each but the first line's with the line
    break before it (groups 1 and 2, the marker and the rest of the line, are the same)."""
    first = _FENCE_LINE.match(text)
    found = _FENCE_AFTER_BREAK.finditer(text)
    return found if first is None else itertools.chain((first,), found)


class Fences:
    """The fence lines of a document's fenced code blocks, paired as CommonMark pairs them: a
    block opens at a line of three or more backticks or tildes (indented at most three spaces;
    a backtick fence's info string holds no backtick) and closes at the next such line of the
    same character, at least as long, with nothing after it.

    `lines` maps where each fence line's marker starts to (whether it closes a block, where the
    line's text ends): a piece of the text that is exactly one fence line is found in one look.

    >>> Fences.of("```py\\nx = 1\\n```\\n").lines
    {0: (False, 5), 12: (True, 15)}
    """

    __slots__ = ("lines", "markers")

    # The document a chunking is running on and its fences (see `held_for`): the strategy and
    # the records both ask, and scanning a megabyte costs a few milliseconds each time.
    _held: tuple[str, Fences | None] | None = None

    def __init__(self, text: str) -> None:
        self.lines: dict[int, tuple[bool, int]] = {}
        opened = ""
        lines = self.lines
        for m in _fence_lines(text):
            run, rest = m.group(1, 2)
            if not opened:
                if run[0] == "`" and "`" in rest:
                    continue  # inline code at the start of a line, not a fence
                opened = run
                lines[m.start(1)] = (False, m.end(1) + len(rest.rstrip()))  # where the line's text ends
            elif run[0] == opened[0] and len(run) >= len(opened) and not rest.strip():
                opened = ""
                lines[m.start(1)] = (True, m.end(1) + len(rest.rstrip()))
        self.markers = list(lines)  # ascending, as found: where to bisect for a span's fence lines

    @classmethod
    def of(cls, text: str) -> Fences | None:
        """The fences of `text`, or None when it has none (most text: nothing is scanned)."""
        held = cls._held
        if held is not None and held[0] is text:
            return held[1]
        return cls(text) if "```" in text or "~~~" in text else None

    @classmethod
    @contextlib.contextmanager
    def held_for(cls, text: str) -> Iterator[None]:
        """Within the block, `of(text)` for this very string is scanned once. Nothing is kept
        after it; another thread's text (not this string) is scanned as usual."""
        cls._held = (text, cls.of(text))
        try:
            yield
        finally:
            cls._held = None

    def markers_in(self, start: int, end: int) -> list[int]:
        """Where the fence lines that start within [start, end] start (their markers), ascending."""
        markers = self.markers
        return markers[bisect.bisect_left(markers, start) : bisect.bisect_right(markers, end)]

    def closes(self, marker: int) -> bool:
        """Whether the fence line whose marker starts at `marker` closes a block."""
        found = self.lines.get(marker)
        return found is not None and found[0]

    def line(self, start: int, end: int) -> bool | None:
        """For a piece text[start:end] that is exactly one fence line: whether it closes a
        block (True) or opens one (False); None for any other piece."""
        found = self.lines.get(start)
        return found[0] if found is not None and found[1] == end else None


def indent_columns(line: str) -> int:
    """Columns of leading whitespace, a tab reaching the next multiple of four (CommonMark).

    >>> indent_columns("  \\t# x"), indent_columns("    code")
    (4, 4)
    """
    n = 0
    for c in line:
        if c == " ":
            n += 1
        elif c == "\t":
            n += 4 - n % 4
        else:
            break
    return n


def is_heading_line(line: str) -> bool:
    """An ATX heading (``# Title``) or a short ALL-CAPS line (see `is_caps_heading`). A line
    indented four columns or more is neither (Markdown reads it as code); a byte order mark
    before a document's first line is no part of it.

    >>> is_heading_line("## Chunk size"), is_heading_line("ASSUMPTIONS AND LIMITS")
    (True, True)
    >>> is_heading_line("NASA."), is_heading_line("Plain text"), is_heading_line("    # code")
    (False, False, False)
    """
    if line.startswith("\ufeff"):
        line = line[1:]
    s = line.strip()
    if not s or (line[0] in " \t" and indent_columns(line) >= 4):
        return False
    if s.startswith("#"):
        return _ATX.match(line.rstrip("\r\n")) is not None
    return is_caps_heading(s)


_ONE_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*\Z")


def is_caps_heading(s: str) -> bool:
    """A line of capitals that stands for a heading in plain text: `s` (stripped) has no
    lowercase letter, at least four letters, at most 60 characters, no sentence punctuation at
    its end and no Markdown marker at its start, and it is two words or more, or one word of
    letters only (a hyphen or an apostrophe inside).

    >>> [is_caps_heading(s) for s in ("TERMS AND CONDITIONS", "INTRODUCTION", "SUMMARY", "NASA.")]
    [True, True, True, False]
    >>> [is_caps_heading(s) for s in ("OK", "UTF8", "C++", "IMPORTANT:", "# NOTE", "NO")]
    [False, False, False, False, False, False]
    """
    if len(s) > 60 or s[-1] in ".,;:!?" or s.startswith(("|", "-", "*", "`", "#")):
        return False
    letters = [c for c in s if c.isalpha()]
    if len(letters) < 4 or any(c.islower() for c in letters) or not any(c.isupper() for c in letters):
        return False
    return " " in s or _ONE_WORD.match(s) is not None
