"""Sentence and clause boundaries as code-point offsets, in linear time.

The detector is rule-based and English-first, with CJK full stops. One compiled
regular expression finds every *candidate* boundary at C speed (terminal
punctuation followed by whitespace, CJK full stops, blank lines, list markers);
each candidate is then accepted or rejected by a handful of O(1) look-ups at
the text around it: the token before the full stop (abbreviation? initial?
list number?) and the first word after it (lowercase? digit? a word that
usually starts a sentence?). Nothing is ever rescanned, so the cost is linear
in the length of the text, which matters because this runs on every paragraph
of multi-megabyte documents.

Measured against the 48 English "golden rules" of the Pragmatic Segmenter
(``python bench/golden_rules.py``).

>>> text = 'Dr. Smith paid $3.50 at 5 p.m. in the U.S. He left. "Why?" she asked.'
>>> [text[s:e] for s, e in sentence_spans(text)]
['Dr. Smith paid $3.50 at 5 p.m. in the U.S.', 'He left.', '"Why?" she asked.']
"""

import re

from .._errors import ChunkerError
from ._punct import CJK_STOPS as _CJK_STOPS
from ._punct import CLOSERS as _CLOSERS
from ._punct import LATIN_TERMINALS as _TERMINALS
from ._punct import OPENERS as _OPENERS
from ._punct import QUESTION_MARKS as _MARKS

Span = tuple[int, int]

__all__ = ["sentence_spans", "clause_spans"]

#: Bullet symbols that start a list item wherever they follow whitespace.
_BULLETS = "\u2022\u2043\u2023\u25e6\u25aa"

_CL = "[" + re.escape(_CLOSERS) + "]*"
_T = re.escape(_TERMINALS)  # inside a character class

# NOTE: every alternative is written so that a failed attempt costs at most
# the length of one run of punctuation or whitespace, and the look-behinds sit
# after the first consumed character, so an attempt starts only at one of a
# few characters; without that, a long run of dots or commas would make
# finditer quadratic. The leading look-ahead names those characters so the
# engine skips everything else at C speed (about four times faster here).
# The alternatives carry no named groups (they slow the scan too); the first
# character of a match tells them apart.
_SCAN = re.compile(
    r"(?=[\n)" + _T + _CJK_STOPS + _BULLETS + r"])(?:"
    # A blank line: always a boundary.
    r"\n(?:[^\S\n]*\n)+"
    # A line that starts a list item or a Markdown heading.
    r"|\n(?=[^\S\n]*(?:[-*+" + _BULLETS + r"]|\#{1,6}|\d{1,3}[.)]|[a-z][.)])[^\S\n])"
    # A bullet symbol inside a line: "• first item • second item".
    r"|[" + _BULLETS + r"](?<=\s.)"
    # The ")" of a "2)" list marker inside a line ("2.)" is a full stop
    # with a closer, judged with the other full stops).
    r"|\)(?=\s)(?:(?<=\s[a-z0-9]\))|(?<=\s\d\d\))|(?<=\s\d\d\d\)))"
    # CJK full stops need no space after them.
    r"|[\u3002\uff01\uff1f\uff61]+"
    + _CL
    +
    # Latin terminal punctuation, spaced ellipses included, then closers,
    # then whitespace or the end: "3.14", "e.g.," and "example.com" are no
    # candidates at all.
    r"|(?:\.(?<!["
    + _T
    + r"]\.)(?<!\.[ ]\.)(?:[ ]\.){2,}"
    r"|[" + _T + r"](?<![" + _T + r"].)[" + _T + r"]*)" + _CL + r"(?=\s|\Z))"
)

_NONWS = re.compile(r"\S")
_WORD = re.compile(r"[^\W\d_]+")
#: A list marker at the start of a sentence: "1.", "2)", "3.)", "a.", "• 9.".
_MARKER_AT = re.compile(
    r"(?:[-*+" + _BULLETS + r"][^\S\n]*)?"
    r"(?:(?P<num>\d{1,3})|(?P<alpha>[a-z]))(?P<p>\.\)|\)|\.)(?=\s)"
)
#: What may precede the full stop of a list marker opening a sentence.
_LIST_LEAD = re.compile(r"(?:[-*+" + _BULLETS + r"]\s*)?(?:\d{1,3}|[a-zA-Z])")
#: A line that is a heading or a list item ends at its newline.
_LINE_ITEM = re.compile(r"(?:[-*+" + _BULLETS + r"]|\#{1,6}|\d{1,3}[.)]|[a-z][.)])[^\S\n]")
#: Letter-dot sequences: "U.S", "e.g", "a.m", "P.M" (the final dot is the candidate).
_MULTI = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_CLAUSE = re.compile(
    r"(?=[,;:\uff0c\uff1b\uff1a\u3001])(?:[,;:](?<![,;:].)[,;:]*" + _CL + r"(?=\s)|[\uff0c\uff1b\uff1a\u3001]+" + _CL + ")"
)

#: Titles written before a name: a full stop after them never ends a sentence.
_TITLES = frozenset(
    "Mr Mrs Ms Mx Messrs Mmes Mme Mlle Dr Drs Prof Profs Rev Revd Hon St Ste Mt Ft "
    "Gen Col Lt Capt Cpt Cmdr Cdr Sgt Maj Adm Brig Cpl Pvt Gov Sen Rep Reps Pres "
    "Supt Insp Atty Amb Fr Br".split()
)
#: Abbreviations that introduce what follows (lowercase): never a boundary.
_PREFIXES = frozenset("e.g i.e eg ie cf viz vs approx ca incl esp resp".split())
#: Abbreviations that may end a sentence (lowercase): a boundary only when the
#: next word usually starts a sentence ("Co. It closed" but "U.S. Government").
_GENERAL = frozenset(
    "etc inc ltd co corp llc plc jr sr bros al jan feb apr jun jul aug sep sept oct "
    "nov dec tues thurs vol vols pp ch chap fig figs eq eqs sec dept govt univ assn "
    "intl natl misc ibid ph.d mfg ave blvd hwy mgr est eds op cit dist div hr hrs sq ft".split()
)
#: Abbreviations that are also ordinary words, so recognised capitalised only.
_GENERAL_CASED = frozenset("Mon Tue Wed Thu Fri Sat Sun Mar Ed".split())
#: Names spelled with an exclamation mark; treated like an abbreviation.
_BANG_NAMES = frozenset(("Yahoo", "Jeopardy"))
#: Abbreviations that only ever stand before a number ("No. 5", "N°. 12").
_NUMERIC = frozenset("no nos nr nrs n\u00b0 n\u00ba \u2116".split())
#: Words that commonly open an English sentence (lowercase). After an
#: abbreviation that may end a sentence, only these (or a title) make it end.
_STARTERS = frozenset(
    """a an the this that these those there then thus therefore however but and or so
    yet nor if when whenever where wherever what whatever who whom whose why how which
    while whilst although though because since after before as at in on of for from to
    by with without within under over during until till once also still even many most
    some several each every all both no not none neither either one two three i we you
    he she it they me us him them my our your his her its their is are was were be
    being been do does did can could will would shall should may might must have has
    had let please yes here now today yesterday tomorrow meanwhile moreover furthermore
    finally first second third next last later instead otherwise indeed nevertheless
    nonetheless besides hence accordingly consequently unfortunately fortunately such
    other another among despite like unlike only just perhaps maybe few more less
    mr mrs ms dr prof""".split()
)


def _check_range(text: str, start: int, end: int | None) -> tuple[int, int]:
    """Validate ``text[start:end]`` and return concrete bounds."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}; decode bytes first")
    n = len(text)
    if end is None:
        end = n
    for name, value in (("start", start), ("end", end)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{name} must be an int offset, got {value!r}")
    if not 0 <= start <= end <= n:
        raise ChunkerError(f"range start={start}, end={end} is outside the text of length {n}; pass 0 <= start <= end <= {n}")
    return start, end


def _rtrim(t: str, lo: int, p: int) -> int:
    """Offset just after the last non-whitespace char in ``t[lo:p]`` (``lo`` if none)."""
    # Widening windows: a long blank run costs C time, not a Python step per char.
    step = 64
    while p > lo:
        a = max(lo, p - step)
        kept = t[a:p].rstrip()
        if kept:
            return a + len(kept)
        p = a
        step *= 2
    return lo


def _split(t: str) -> list[Span]:
    """Sentence spans of the whole string ``t``."""
    n = len(t)
    out: list[Span] = []
    nonws = _NONWS.search
    m = nonws(t)
    if m is None:
        return out
    # State of the sentence being built: where it starts, the list it belongs
    # to (marker style and last value, to spot the next marker inside a line)
    # and, for a heading or list-item line, the newline that ends it (-1: none).
    s = m.start()
    list_style: tuple[bool, str] | None = None
    list_val = 0
    pending = -1
    next_nl = -2  # cached offset of the first newline at or after s; -1: none

    def begin(p: int) -> None:
        """Open a sentence at the non-space ``p``; ``pending`` is -1 on entry."""
        nonlocal list_style, list_val, pending, next_nl
        if t[p].isupper():
            return  # the common case: no list marker, no heading
        mk = _MARKER_AT.match(t, p)
        if mk is not None:
            num = mk.group("num")
            list_style = (num is not None, mk.group("p"))
            list_val = int(num) if num is not None else ord(mk.group("alpha"))
        if _LINE_ITEM.match(t, p) is not None and _at_line_start(t, p):
            if next_nl != -1 and next_nl < p:
                # Cached, so text without newlines is searched once in all.
                next_nl = t.find("\n", p)
            if next_nl > 0:
                nxt = t[next_nl + 1 : next_nl + 2]
                # An indented or lowercase next line continues the item;
                # anything else ends it.
                if nxt and nxt not in " \t" and not nxt.islower():
                    pending = next_nl

    def cut(c: int) -> None:
        """End the current sentence at ``c`` and open the next one after it."""
        nonlocal s, pending
        if c <= s:
            return
        e = c if not t[c - 1].isspace() else _rtrim(t, s, c)
        out.append((s, e))
        pending = -1
        m2 = nonws(t, c)
        if m2 is None:
            s = n
        else:
            s = m2.start()
            if not t[s].isupper():  # most sentences open with a capital: skip the call
                begin(s)

    begin(s)
    for m in _SCAN.finditer(t):
        a = m.start()
        while 0 <= pending <= a:
            p, pending = pending, -1
            cut(p)
        ch = t[a]
        if ch in _TERMINALS:
            c = _decide(t, m, s, list_style, list_val)
            if c is not None:
                # A negative result is -(k + 1) for a list marker at k that
                # opens the next sentence: "item 2. The second item".
                cut(c if c >= 0 else -c - 1)
        elif ch == "\n":
            if m.end() - a > 1:  # a blank line
                cut(a)
                list_style = None
                if a < s < n:
                    begin(s)  # a list may restart after the blank line
            else:
                cut(a)
        elif ch == ")":
            if list_style is None:
                continue
            tok = t[max(s, a - 3) : a].rsplit(None, 1)[-1]
            k = a - len(tok)
            if k <= s or list_style[1] != ")":
                continue
            if list_style[0]:
                follows = tok.isdigit() and int(tok) == list_val + 1
            else:
                follows = len(tok) == 1 and ord(tok) == list_val + 1
            if follows:
                cut(k)
        elif ch in _CJK_STOPS:
            cut(m.end())
        else:  # a bullet
            cut(a)
    while 0 <= pending:
        p, pending = pending, -1
        cut(p)
    if s < n:
        out.append((s, _rtrim(t, s, n)))
    return out


def _at_line_start(t: str, p: int) -> bool:
    """True when only spaces or tabs (at most 16) separate ``p`` from a line start."""
    j = p
    while j > 0 and t[j - 1] in " \t" and p - j < 16:
        j -= 1
    return j == 0 or t[j - 1] in "\r\n"


def _decide(t: str, m: re.Match[str], s: int, list_style: tuple[bool, str] | None, list_val: int) -> int | None:
    """Where a terminal-punctuation candidate ends the sentence, if it does.

    Returns None for no boundary, an offset ``c`` to cut at, or ``-(c + 1)``
    to cut before a list marker at ``c``.
    """
    i = m.start()
    j = m.end()
    if i <= s or (i - s <= 16 and not t[s:i].strip(" " + _TERMINALS)):
        return None  # punctuation alone is no sentence: "... The", "! ! !"
    g = m.group()
    core = g.rstrip(_CLOSERS)
    closed = len(core) < len(g)
    n = len(t)
    nm = _NONWS.search(t, j)
    if nm is None:
        return None  # the end of the text ends the sentence anyway
    k = nm.start()
    c = t[k]
    opened = False
    limit = k + 4
    while c in _OPENERS and k + 1 < n and k < limit:
        k += 1
        c = t[k]
        opened = True
    lower = c.islower()

    if "\u2026" in core or ".." in core or " " in core:
        # Ellipses.
        if lower:
            return None
        if " " in core:
            dots = core.count(".")
            if dots < 4:
                return None  # ". . ." marks an omission inside a sentence
            if not closed and not t[i - 1].isspace():
                # "compounds. . . . The": the word's own full stop ends the
                # sentence; the spaced ellipsis opens the next one.
                return i + 1
            return j
        if t[i - 1] in "[(":
            return None  # "[...]" is an editorial omission
        return j
    if any(mark in core for mark in _MARKS):
        if lower:
            return None
        if core == "!" and not (opened or _starts_sentence(t, k)):
            name = (t[max(s, i - 9) : i].rsplit(None, 1) or [""])[-1]
            if name.lstrip(_OPENERS) in _BANG_NAMES:
                return None  # "at Yahoo! Research": the name, not the end
        return j

    # A single full stop, maybe with closers after it.
    if t[i - 1].isspace():
        tok = ""
        before = ""
    else:
        parts = t[max(s, i - 40) : i].rsplit(None, 2)
        tok = parts[-1]
        before = parts[-2] if len(parts) > 1 else ""
    tok_start = i - len(tok)
    if list_style is not None and tok_start > s and list_style[1] == g and len(tok) <= 3 and t[tok_start - 1].isspace():
        if list_style[0]:
            if tok.isdigit() and int(tok) == list_val + 1:
                return -(tok_start + 1)
        elif len(tok) == 1 and ord(tok) == list_val + 1:
            return -(tok_start + 1)
    if lower:
        return None
    if i - s <= 8 and _LIST_LEAD.fullmatch(t, s, i):
        return None  # "1. The first item", "a. The", "• 9. The"
    if closed:
        return j  # 'He left." Then': the closing quote settles it
    word = tok.lstrip(_OPENERS)
    low = word.lower()
    if word in _TITLES or (word[:1].isupper() and word.capitalize() in _TITLES):
        return None
    if low in _PREFIXES:
        return None
    single = len(word) == 1 and word.isalpha()
    general = low in _GENERAL or word in _GENERAL_CASED or ("." in word and _MULTI.fullmatch(word) is not None)
    if c.isdigit():
        if single or general or low in _NUMERIC:
            return None  # "p. 55", "No. 5", "Jan. 12", "U.S. 2020"
        return j
    if single:
        # An initial ("E. Smith", "Roe v. Wade") unless it ends a run of
        # lowercase words: "you and I. Did you", "got an A. The teacher".
        prev = before.lstrip(_OPENERS)
        if prev[:1].islower() and (word == "I" or _starts_sentence(t, k)):
            return j
        return None
    if general:
        if not (opened or _starts_sentence(t, k)):
            return None
        # "At 5 a.m. Mr. Smith went": three words ending in an abbreviation
        # are a fragment, not a sentence.
        if i - s < 40 and len(t[s:i].split()) <= 3:
            return None
        return j
    return j


def _starts_sentence(t: str, k: int) -> bool:
    w = _WORD.match(t, k)
    return w is not None and w.group().lower() in _STARTERS


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Sentences of ``text[start:end]`` as ``(s, e)`` offsets into ``text``.

    Each span runs from the sentence's first non-whitespace character to just
    after its last character (terminal punctuation plus closing quotes or
    brackets). Spans ascend, never overlap, and together cover every
    non-whitespace character of the range. A blank line always ends a
    sentence; so does the end of a heading or list-item line.

    >>> text = "See p. 55. It costs $3.14! J. R. R. Tolkien wrote it\\n\\nNext."
    >>> [text[s:e] for s, e in sentence_spans(text)]
    ['See p. 55.', 'It costs $3.14!', 'J. R. R. Tolkien wrote it', 'Next.']
    >>> sentence_spans("ab. Cd. Ef.", 4)
    [(4, 7), (8, 11)]
    """
    lo, hi = _check_range(text, start, end)
    if lo == 0 and hi == len(text):
        return _split(text)
    # Work on the slice so the result depends on the range alone, not on
    # what happens to lie around it.
    return [(a + lo, b + lo) for a, b in _split(text[lo:hi])]


def clause_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Like :func:`sentence_spans`, but also split after ``,`` ``;`` ``:``.

    Latin clause marks count when whitespace follows them (so "3,000" and
    "12:30" stay whole); CJK ones (，；：、) count directly. Clauses never cross
    a sentence boundary.

    >>> text = "First, we wait; then: go. 然后，我们走。"
    >>> [text[s:e] for s, e in clause_spans(text)]
    ['First,', 'we wait;', 'then:', 'go.', '然后，', '我们走。']
    """
    lo, hi = _check_range(text, start, end)
    t = text if (lo == 0 and hi == len(text)) else text[lo:hi]
    out: list[Span] = []
    nonws = _NONWS.search
    # One scan for clause marks over the whole range, merged with the
    # sentences: a mark at or past a sentence's end belongs to a later one.
    marks = _CLAUSE.finditer(t)
    m = next(marks, None)
    for s, e in _split(t):
        cs = s
        while m is not None and m.start() < e:
            c = m.end()
            if cs < c < e:
                out.append((cs + lo, c + lo))
                after = nonws(t, c, e)
                assert after is not None  # a clause mark inside a sentence has more after it
                cs = after.start()
            m = next(marks, None)
        out.append((cs + lo, e + lo))
    return out
