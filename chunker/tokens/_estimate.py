"""The ``estimate`` tokenizer: token counts from character classes, no vocabulary.

BPE tokenizers (o200k, cl100k) first cut text into pre-tokens with one regular
expression (a word with the space before it, runs of up to three digits, a run of
punctuation, a run of whitespace), then merge bytes inside each pre-token. Most
pre-tokens of common text become exactly one token, so counting pre-tokens by class,
and adding what long words, capitals, accents and non-Latin scripts cost beyond one
token, predicts the count well. Every class is counted with ``re`` at C speed.

A word is one token only if the vocabulary holds it. Words of languages the vocabulary
saw little of (cl100k learned mostly English) split into pieces of two to four letters,
and the letter pairs they contain tell them apart: pairs that occur in none of the
vocabulary's frequent words ("aa", "ij", "kk", "tz", "zw") are where merging stops, and
a text full of them is a text whose words are cut up. Those pairs are counted too.

The estimate is a weighted sum of counts, so it is additive up to what happens where
two texts meet (a word or a run of punctuation joined across the seam). It never falls
when text is added before or after: no count can shrink when its text is extended
(runs only grow or multiply) and every weight is non-negative (a test holds both).

>>> estimate_tokens("Chunk size is a balance between context and precision.")
10
>>> estimate_tokens("   ")
0
"""

from __future__ import annotations

import bisect
import re
import sys
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import accumulate, islice, repeat
from operator import add, mul, sub

from .._errors import ChunkerError
from ..text._segments import position_kind

__all__ = ["estimate_tokens", "EstimateIndex", "FEATURES", "TARGETS"]

# -- character classes ---------------------------------------------------------------------
# Latin letters split like the tokenizers' pre-tokenizer: an upper-case run followed by
# lower case is one word ("HTTPServer"), camelCase splits before each capital.
_UP = "A-Z\u00c0-\u00d6\u00d8-\u00de"
_LOW = "a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u024f"
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"


def _run(chars: str, least: int = 1) -> re.Pattern[str]:
    """A run of at least `least` characters of the class `chars`, spelled as the bare class
    and then its repetition ("[c][c]*", not "[c]+"): ``re`` skips at C speed over every
    position whose character cannot start a match only when a pattern begins with a bare
    class (or a literal); one that begins with a repeat or an alternation is tried at every
    position, which takes up to twice as long. The matches are the same.

    >>> _run("0-9", 2).pattern
    '[0-9][0-9][0-9]*'
    """
    return re.compile(f"[{chars}]" * least + f"[{chars}]*")


# Every pattern begins with a bare character class or a literal, for the reason `_run` gives.
# A Latin word: an upper-case run then a lower-case run, or either alone. Spelled so that it
# begins with one class; the look-behind is tried only where a word begins, and says the
# word's first letter was a capital.
_WORD = re.compile(f"[{_UP}{_LOW}](?:(?<=[{_UP}])[{_UP}]*[{_LOW}]*|[{_LOW}]*)")
_CAPS = _run(_UP, 2)
_DIGITS = _run(r"\d")
_SPACE_DIGIT = re.compile(r"[ \t]\d")  # the space before a number is a token of its own
# Punctuation and symbols: neither word character nor space. "_" is a word character to
# ``re`` but not to the tokenizers: it is counted on its own (str.count).
_PUNCT = _run(r"^\w\s")
_DUNDER = re.compile(r"__+")
_NEWLINES = re.compile(r"[\r\n]\s*")  # one run of whitespace holding line breaks
# The same in a text without "\r": a pattern that begins with one literal character is
# skipped to in a tight loop, three times as fast as to either of two (re, CPython 3.11).
_LINE_FEEDS = re.compile(r"\n\s*")
_SPACES = _run(r"^\S\r\n", 2)
# Applied only to the non-ASCII runs of a text, joined by spaces:
_NON_ASCII = _run(r"^\x00-\x7f")
_ACCENTED = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]")
_HAN_RUN = _run(_HAN)
_KANA_RUN = _run(_KANA)
_HANGUL_RUN = _run(_HANGUL)
_CJK_RUN = _run(f"{_HAN}{_KANA}{_HANGUL}")
_OTHER_RUN = _run(f"^\\W\\d_A-Za-z\u00c0-\u024f{_HAN}{_KANA}{_HANGUL}")
_EMOJI = re.compile("[^\\w\\s\u0000-\uffff]")  # symbols outside the BMP: emoji and the like

# Letter pairs found in none of the first 4,000 tokens of three or more letters in
# cl100k's vocabulary (lower-cased, leading space dropped), as "first:seconds". Token ids
# are merge ranks, so those are the most frequent words and word pieces: a pair inside
# one ("dt" in " width", "kn" in " know") is merged in common words, a pair in none of
# them ("aa", "ij", "kk", "tz", "zw") is where BPE stops merging a word it does not
# know. Derived from the vocabulary by bench/estimate_error.py (rare_letter_pairs), not
# from text; 4,000 was chosen by cross-validation inside the calibration half
# (--choose-pairs; 3,000 to 12,000 all meet the targets). cl100k's pairs serve both
# targets: text where cl100k cuts words, o200k cuts too, less often (a smaller weight).
RARE_PAIRS = (
    "a:aehoqz b:bcdfghkmnpqvwxz c:bdfgjmnpqvwxz d:bcfhjkpqwxz e:juz "
    "f:bcdghjkmnpqvwxz g:bcdfjkmpqvwxz h:bcdfghjklmqsvwxz i:hijwy "
    "j:bcdfghijklmnpqrtvwxyz k:bcdfghjklmopqrstuvwxyz l:cghjmnqvxz m:cdfhjkqrtvwxyz "
    "n:bhjqrwxz o:qz p:bcfgjkmnqvwxz q:abcdefghijkmnopqrstvwxyz r:bhjpqwxz s:bdfjvxz "
    "t:bgjkqvz u:hjkquvwxz v:bcdfghjklmnpqrstuvwxyz w:bcdfgjklmpqtuvxyz "
    "x:bdfghjklmnoqrsuvwxyz y:abcdfghjkquvwxyz z:bcdfghijklmnopqrstuvwxyz"
)


def rare_pair_pattern(pairs: str) -> re.Pattern[str]:
    """The regular expression matching any pair of ``pairs`` ("first:seconds ...").

    One branch per first letter, each a literal then a class: ``re`` skips every
    position that cannot start a pair and rejects a wrong first letter in one compare.

    >>> rare_pair_pattern("q:abc x:y").findall("quiet qatar taxy")
    ['qa', 'xy']
    """
    return re.compile("|".join(f"{first}[{seconds}]" for first, seconds in (item.split(":") for item in pairs.split())))


_RARE_PAIR = rare_pair_pattern(RARE_PAIRS)

#: Names of the counts the estimate weighs, in the order of ``_counts``'s result.
FEATURES = (
    "words",  # Latin words (pre-tokens), each about one token
    "letters_over_7",  # letters beyond the 7th of each word: long words split
    "letters_over_10",  # letters beyond the 10th: very long words split more
    "caps",  # letters in runs of two or more capitals (ALL-CAPS splits)
    "accented",  # non-ASCII Latin letters (ä, é, ß, ...)
    "rare_pairs",  # letter pairs rare inside vocabulary tokens (RARE_PAIRS), any case
    "digit_groups",  # runs of digits, in groups of three (the tokenizers' rule)
    "space_digits",  # numbers preceded by a space or tab
    "punct_runs",  # runs of punctuation and symbols (emoji included)
    "punct_chars",  # characters in those runs
    "underscores",  # "_": mostly inside identifiers, where it merges into the next word
    "dunders",  # runs of two or more "_" ("__init__"): a token each
    "newline_runs",  # runs of whitespace holding line breaks
    "space_runs",  # runs of two or more spaces or tabs (indentation)
    "han",  # Chinese characters (kanji, hanzi)
    "kana",  # Hiragana and Katakana
    "hangul",  # Korean syllables and jamo
    "cjk_runs",  # runs of CJK characters
    "other_letters",  # letters of other scripts (Cyrillic, Greek, Arabic, ...)
    "other_runs",  # words of other scripts
    "emoji",  # symbols outside the Basic Multilingual Plane, beyond a punctuation char
)

# Where the non-ASCII counts go (filled only for non-ASCII text); the order above is
# han, kana, hangul, cjk_runs, other_letters, other_runs, emoji.
_ACCENTED_AT = FEATURES.index("accented")
_HAN_AT = FEATURES.index("han")
assert FEATURES[_HAN_AT:] == ("han", "kana", "hangul", "cjk_runs", "other_letters", "other_runs", "emoji")

# -- weights -------------------------------------------------------------------------------
# Fitted by bench/estimate_error.py --calibrate (weighted least squares on relative error,
# iteratively reweighted toward the median) on the calibration half of bench/corpus.py's
# passages of about 3 KB: English prose and Markdown from the Python 3.11 docs (Debian
# python3.11-doc), CPython 3.11 stdlib code, German and Dutch man pages (manpages-de/-nl),
# Japanese and Chinese man pages (manpages-ja/-zh), plus, at a quarter weight, the Korean,
# Russian and Ukrainian man pages Debian's base packages ship. Emoji: the mean token count
# of the 1,818 pictographs U+1F300-U+1FAFF. Errors on the held-out half: see the README
# and `python bench/estimate_error.py`. A rare pair costs cl100k about two tokens more
# (the word around it falls apart, not just the pair) and o200k, whose vocabulary holds
# more of other languages' words, under one.
_WEIGHTS = {
    "o200k": (
        0.9316,  # words
        0.1254,  # letters_over_7
        0.1384,  # letters_over_10
        0.1219,  # caps
        1.1360,  # accented
        0.7248,  # rare_pairs
        1.0831,  # digit_groups
        1.1738,  # space_digits
        0.8026,  # punct_runs
        0.1195,  # punct_chars
        0.0481,  # underscores
        0.5449,  # dunders
        0.5108,  # newline_runs
        0.6547,  # space_runs
        0.6844,  # han
        0.6361,  # kana
        0.3531,  # hangul
        0.9776,  # cjk_runs
        0.1552,  # other_letters
        1.2374,  # other_runs
        1.5674,  # emoji
    ),
    "cl100k": (
        0.9071,  # words
        0.1591,  # letters_over_7
        0.2185,  # letters_over_10
        0.0658,  # caps
        1.1399,  # accented
        1.9330,  # rare_pairs
        0.8347,  # digit_groups
        1.5832,  # space_digits
        0.7098,  # punct_runs
        0.1606,  # punct_chars
        0.0283,  # underscores
        0.6658,  # dunders
        0.3312,  # newline_runs
        0.7017,  # space_runs
        0.9357,  # han
        0.8924,  # kana
        0.6137,  # hangul
        1.4229,  # cjk_runs
        0.2711,  # other_letters
        2.0844,  # other_runs
        2.0437,  # emoji
    ),
}


def _counts(text: str) -> list[int]:
    """Counts of every class in ``FEATURES`` order (C-speed passes, no loop over characters)."""
    counts = _raw_counts(text)
    _gate(counts)
    return counts


_WORDS_AT = FEATURES.index("words")
_RARE_PAIRS_AT = FEATURES.index("rare_pairs")


def _gate(counts: list[int]) -> None:
    # Rare pairs are letter pairs of text.lower(): a text with no Latin word has none that
    # count, even where lower-casing makes ASCII letters of something else (the Kelvin sign).
    if not counts[_WORDS_AT]:
        counts[_RARE_PAIRS_AT] = 0


def _raw_counts(text: str) -> list[int]:
    """`_counts` before `_gate`: every entry is a sum over the text's pieces (see `EstimateIndex`)."""
    words = _WORD.findall(text)
    over7 = over10 = 0
    if words:
        for n, k in Counter(map(len, words)).items():
            if n > 7:
                over7 += (n - 7) * k
                if n > 10:
                    over10 += (n - 10) * k
    digit_groups = sum((len(d) + 2) // 3 for d in _DIGITS.findall(text))
    punct = _PUNCT.findall(text)
    counts = [
        len(words),
        over7,
        over10,
        sum(map(len, _CAPS.findall(text))),
        0,
        # Non-overlapping matches of two-letter patterns, leftmost first: the most pairs
        # that fit, so the count never falls when text is added on either side.
        len(_RARE_PAIR.findall(text.lower())),
        digit_groups,
        len(_SPACE_DIGIT.findall(text)) if digit_groups else 0,
        len(punct),
        sum(map(len, punct)),
        text.count("_"),
        len(_DUNDER.findall(text)) if "__" in text else 0,
        len(_NEWLINES.findall(text)),
        len(_SPACES.findall(text)),
        0,
        0,
        0,
        0,
        0,
        0,
        0,
    ]
    if not text.isascii():  # O(1) in CPython: ASCII text skips the rest
        # The remaining classes are all non-ASCII: scan only those runs (kept apart by a
        # space so runs from different places never join).
        rest = " ".join(_NON_ASCII.findall(text))
        counts[_ACCENTED_AT] = len(_ACCENTED.findall(rest))
        cjk = _CJK_RUN.findall(rest)
        if cjk:
            cjk_text = " ".join(cjk)
            counts[_HAN_AT] = sum(map(len, _HAN_RUN.findall(cjk_text)))
            counts[_HAN_AT + 1] = sum(map(len, _KANA_RUN.findall(cjk_text)))
            counts[_HAN_AT + 2] = sum(map(len, _HANGUL_RUN.findall(cjk_text)))
            counts[_HAN_AT + 3] = len(cjk)
        other = _OTHER_RUN.findall(rest)
        counts[_HAN_AT + 4] = sum(map(len, other))
        counts[_HAN_AT + 5] = len(other)
        counts[_HAN_AT + 6] = len(_EMOJI.findall(rest))
    return counts


#: The encodings the estimate has weights for, the default first.
TARGETS = tuple(_WEIGHTS)


def estimate_tokens(text: str, *, target: str = "o200k") -> int:
    """Estimated token count of ``text`` for o200k (default) or cl100k; 0 for blank text.

    Never below 1 for text with any non-space character. ``target="cl100k"`` uses
    weights fitted to cl100k the same way (``TARGETS`` lists both).

    >>> estimate_tokens("Hello, world!")
    4
    >>> text = "Geef de standaarduitvoer van het pakket weer."  # 11 o200k tokens, 15 cl100k
    >>> estimate_tokens(text), estimate_tokens(text, target="cl100k")
    (12, 16)
    >>> estimate_tokens("日本語のテキスト")
    6
    >>> estimate_tokens("")
    0
    """
    weights = _WEIGHTS.get(target)
    if weights is None:
        raise ChunkerError(f"unknown estimate target {target!r}: use 'o200k' or 'cl100k'")
    if not text or text.isspace():
        return 0
    return _weigh(_INT_WEIGHTS[target], _counts(text))


# The weights in ten-thousandths, as integers: every weight above has four decimals, so the
# weighted sum is exact, and the same however it is summed (running sums over a document
# included; see EstimateIndex).
_SCALE = 10_000
_INT_WEIGHTS = {target: tuple(round(w * _SCALE) for w in ws) for target, ws in _WEIGHTS.items()}
assert all(abs(w * _SCALE - iw) < 1e-6 for t in _WEIGHTS for w, iw in zip(_WEIGHTS[t], _INT_WEIGHTS[t]))


def _weigh(weights: tuple[int, ...], counts: list[int]) -> int:
    """The estimate from gated counts and integer weights: the weighted sum, rounded half up."""
    return _tokens(sum(map(mul, weights, counts)))


def _tokens(scaled: int) -> int:
    return max(1, (scaled + _SCALE // 2) // _SCALE)


# Where a text can be cut without changing any count ("a seam"): between a space and a
# non-space, either way round, except between a space or tab and a digit (the space before
# a number is a class of its own). No class's match runs across a seam: words, capitals,
# digits, punctuation, underscores, letter pairs and other scripts never hold a space, and a
# run of whitespace ends where the non-space begins. So each count of a text is the sum of its
# counts on the two sides of a seam, and on a document the sums run from its start.
_SEAM = re.compile(r"(?<=\S)(?=\s)|(?<=[^\S \t])(?=\S)|(?<=[ \t])(?=[^\s\d])")
_NON_SPACE = re.compile(r"\S")
_UNDERSCORE = re.compile("_")
_DOTTED_I = re.compile("\u0130")


class EstimateIndex:
    """``estimate_tokens`` of any span of one document, without re-reading the span.

    Every class's matches are found once over the whole document, and each match's weighted
    count is summed from the document's start. Since no match runs across a seam, the
    weighted counts of the text before a seam are those running sums at the matches that
    start before it, found by bisection. A span whose ends are seams, as the trimmed pieces
    strategies pack nearly always are, is counted from those sums alone; any other end adds
    the few characters to its nearest seam, counted as text. The result is the very same
    number as ``estimate_tokens(text[start:end])`` (a test holds that), in time that does not
    grow with the span.

    >>> doc = "Chunk size is a balance between context and precision. " * 40
    >>> index = EstimateIndex(doc, target="cl100k")
    >>> index.count(3, 1500) == estimate_tokens(doc[3:1500], target="cl100k")
    True
    """

    def __init__(self, text: str, *, target: str = "o200k") -> None:
        weights = _INT_WEIGHTS.get(target)
        if weights is None:
            raise ChunkerError(f"unknown estimate target {target!r}: use 'o200k' or 'cl100k'")
        self.text = text
        self._weights = weights
        # Packing asks about the same edges again and again (each paragraph's end, tried with
        # several starts; every setting a slider move tries): their sums, once each.
        self._known: dict[int, tuple[int, int, int]] = {}
        w = dict(zip(FEATURES, weights))
        pairs = _pair_starts(text)
        self._indexed = pairs is not None
        if pairs is None:
            return
        self._pairs = pairs
        self._pair_weight = w["rare_pairs"]

        # Words and runs of punctuation are most of the matches: a table each. Words are also
        # counted on their own (the letter pairs count only in a text that has a word), and
        # so are the pairs, which that rule may drop.
        ww, w7, w10 = w["words"], w["letters_over_7"], w["letters_over_10"]
        self._words, self._word_sums = _table(
            _WORD, text, lambda n: ww + (w7 * (n - 7) if n > 7 else 0) + (w10 * (n - 10) if n > 10 else 0)
        )
        wr, wc = w["punct_runs"], w["punct_chars"]
        tables = [_table(_PUNCT, text, lambda n: wr + wc * n)]
        # Every other class, few matches each, in one table sorted by position.
        caps = w["caps"]
        found = [
            _events(_CAPS, text, lambda n: caps * n),
            _numbers(text, w["digit_groups"], w["space_digits"]),
            _events(_UNDERSCORE, text, w["underscores"]),
            _events(_DUNDER, text, w["dunders"]),
            _events(_NEWLINES if "\r" in text else _LINE_FEEDS, text, w["newline_runs"]),
            _events(_SPACES, text, w["space_runs"]),
        ]
        if not text.isascii():
            found += _non_ascii_events(text, w)
        starts, weighed = _merge(found, len(text))
        tables.append((starts, _running(weighed)))
        self._tables = tables

    def _before(self, p: int) -> tuple[int, int, int]:
        """(weighted counts but the pairs, words, pairs) of text[:p], for a seam p."""
        known = self._known.get(p)
        if known is not None:
            return known
        bl = bisect.bisect_left  # no match runs across a seam
        k = bl(self._words, p)
        total = self._word_sums[k]
        for at, sums in self._tables:
            total += sums[bl(at, p)]
        found = self._known[p] = (total, k, bl(self._pairs, p))
        if len(self._known) > _KNOWN_MAX:
            self._known.clear()
        return found

    def _is_seam(self, p: int) -> bool:
        text = self.text
        if p <= 0 or p >= len(text):
            return True
        a, b = text[p - 1], text[p]
        if a.isspace() == b.isspace():
            return False
        return not (a in " \t" and b.isdecimal())

    def count(self, start: int, end: int) -> int:
        """``estimate_tokens(text[start:end])`` for this index's target."""
        text = self.text
        if end <= start or _NON_SPACE.search(text, start, end) is None:
            return 0
        if not self._indexed:
            return _weigh(self._weights, _counts(text[start:end]))
        head = start
        if not self._is_seam(start):
            m = _SEAM.search(text, start, end)
            head = m.start() if m is not None else end
        tail = end
        if not self._is_seam(end):
            # The seam before `end` is at the last space or line break before it, or just after.
            w = max(text.rfind(" ", head, end), text.rfind("\n", head, end))
            tail = w + 1 if w >= head and self._is_seam(w + 1) else (w if w > head and self._is_seam(w) else head)
        if tail <= head:
            return _weigh(self._weights, _counts(text[start:end]))
        (t0, w0, p0), (t1, w1, p1) = self._before(head), self._before(tail)
        total, words, pairs = t1 - t0, w1 - w0, p1 - p0
        for a, b in ((start, head), (tail, end)):
            if a < b:
                counts = _raw_counts(text[a:b])
                total += sum(map(mul, self._weights, counts)) - self._pair_weight * counts[_RARE_PAIRS_AT]
                words += counts[_WORDS_AT]
                pairs += counts[_RARE_PAIRS_AT]
        if words:  # see _gate
            total += self._pair_weight * pairs
        return _tokens(total)


_BATCH = 1 << 10  # matches held as Python objects at a time while an index is built
_KNOWN_MAX = 1 << 15  # edges whose sums an index keeps (some 170 bytes each), then starts afresh
_TABLE = 1 << 8  # match lengths whose weights are looked up in a table

# A class's weight: the same for every match, or a function of the match's length.
_Weigh = int | Callable[[int], int]
_Events = tuple["array[int]", "array[int]"]


def _events(pattern: re.Pattern[str], text: str, weigh: _Weigh) -> _Events:
    """Where the pattern's matches start in `text`, and what each weighs (see `_scan`)."""
    found: _Events = (array(position_kind(len(text))), array("q"))
    _scan(pattern, text, weigh, found)
    return found


def _table(pattern: re.Pattern[str], text: str, weigh: _Weigh) -> _Events:
    """Where the pattern's matches start in `text`, and the running sum of their weights: the
    sum before each match, then the total."""
    found: _Events = (array(position_kind(len(text))), array("q", [0]))
    _scan(pattern, text, weigh, found, running=True)
    return found


def _scan(
    pattern: re.Pattern[str],
    text: str,
    weigh: _Weigh,
    found: _Events,
    pos: int = 0,
    endpos: int = sys.maxsize,
    *,
    running: bool = False,
) -> None:
    """Add the starts of the pattern's matches in ``text[pos:endpos]`` to ``found[0]``, and
    `weigh` (or `weigh` of each match's length) to ``found[1]``, or with `running`, the sums
    of those weights running on from its last entry.

    The matches are read a batch at a time (a 10 MB document has about 1.6 million words, and
    a list of their spans alone would hold 180 MB), and each batch is taken apart by `map`
    over C-level methods, no Python code run per match: the starts, the lengths, and the
    weights looked up by length in a table (a match too long for it has a batch weighed
    by `weigh` itself). Lists, not arrays, in between: an array fills from a list at twice
    the speed it fills from an iterator.
    """
    starts, weighed = found
    table = [] if isinstance(weigh, int) else [weigh(n) for n in range(_TABLE)]
    matches = pattern.finditer(text, pos, endpos)
    while batch := list(islice(matches, _BATCH)):
        at = list(map(re.Match.start, batch))
        starts.fromlist(at)
        if isinstance(weigh, int):
            weights: Iterator[int] = repeat(weigh, len(at))
        else:
            lengths = list(map(sub, map(re.Match.end, batch), at))
            weights = map(table.__getitem__ if max(lengths) < _TABLE else weigh, lengths)
        if running:
            weights = islice(accumulate(weights, initial=weighed[-1]), 1, None)
        weighed.fromlist(list(weights))


def _numbers(text: str, per_group: int, spaced: int) -> _Events:
    """Runs of digits, weighed in groups of three, each with the space or tab before it if
    there is one (a token of its own, `_SPACE_DIGIT`): no seam falls between the two."""
    starts, weighed = _events(_DIGITS, text, lambda n: per_group * ((n + 2) // 3))
    # The character before each run; before a run at the text's start, the run's own first
    # digit (no space), not text[-1].
    before = map(text.__getitem__, map(max, map(sub, starts, repeat(1)), repeat(0)))
    return starts, array("q", map(add, weighed, map(mul, map(_SPACE_OR_TAB.__contains__, before), repeat(spaced))))


_SPACE_OR_TAB = frozenset(" \t")
_PIECE = 1 << 16  # characters of text whose non-ASCII classes are found at a time
_ASCII_CHAR = re.compile(r"[\x00-\x7f]")


def _non_ascii_events(text: str, w: dict[str, int]) -> list[_Events]:
    """The non-ASCII classes' matches and weights, as `_events` finds them, in the order
    accented, CJK runs, Han, kana, Hangul, other scripts, emoji.

    These classes hold no ASCII character, so the text is read a piece at a time, each cut
    before an ASCII character (`_pieces`), and a piece that is all ASCII is skipped. One that
    is dense with other characters (Chinese, Russian, a mix) is scanned in place. In one
    where they are a few quotes, dashes or accents, its runs of them are joined by spaces
    (as `_raw_counts` joins them) and scanned as one short text, and each match's position is
    mapped back: the run it lies in is found by bisection, and its start in the text is that
    run's. Measured: on English Markdown with typographic quotes, that takes a fifth of the
    time of scanning in place, on German a half, but with one character in four not ASCII,
    twice the time: hence the line at one in eight. Han, kana and Hangul lie inside CJK
    runs: a piece without CJK runs skips them.
    """
    han, kana, hangul = w["han"], w["kana"], w["hangul"]
    runs, letters = w["other_runs"], w["other_letters"]
    classes: list[tuple[re.Pattern[str], _Weigh]] = [
        (_ACCENTED, w["accented"]),
        (_CJK_RUN, w["cjk_runs"]),
        (_HAN_RUN, lambda n: han * n),
        (_KANA_RUN, lambda n: kana * n),
        (_HANGUL_RUN, lambda n: hangul * n),
        # Other scripts' runs and their letters: one scan for the two classes.
        (_OTHER_RUN, lambda n: runs + letters * n),
        (_EMOJI, w["emoji"]),
    ]
    kind = position_kind(len(text))
    found: list[_Events] = [(array(kind), array("q")) for _ in classes]
    cjk_starts = found[1][0]  # the CJK runs', second in `classes`
    for start, stop, dense in _pieces(text):
        cjk_before = len(cjk_starts)
        if not dense:
            matches = list(_NON_ASCII.finditer(text, start, stop))
            runs_found = list(map(re.Match.group, matches))
            joined = " ".join(runs_found)
            # Where each run starts and ends in the joined text, and how far its start in
            # `text` is from its start there.
            lengths = list(map(len, runs_found))
            at = list(accumulate(map(add, lengths, repeat(1)), initial=0))
            ends = list(map(add, at, lengths))
            shifts = list(map(sub, map(re.Match.start, matches), at))
        for (pattern, weigh), events in zip(classes, found):
            if pattern in (_HAN_RUN, _KANA_RUN, _HANGUL_RUN) and len(cjk_starts) == cjk_before:
                continue  # no CJK run in this piece
            if dense:
                _scan(pattern, text, weigh, events, start, stop)
                continue
            here: _Events = (array(kind), array("q"))
            _scan(pattern, joined, weigh, here)
            # The run a match lies in: the number of runs that end at or before its start.
            runs_of = map(bisect.bisect_right, repeat(ends), here[0])
            events[0].fromlist(list(map(add, here[0], map(shifts.__getitem__, runs_of))))
            events[1].extend(here[1])
    return found


def _pieces(text: str) -> Iterator[tuple[int, int, bool]]:
    """(start, stop, dense) of each piece of `text` that holds a non-ASCII character, and
    whether one character in eight or more is: pieces of about `_PIECE` characters, each cut
    before an ASCII character (or longer, where there is none)."""
    start, n = 0, len(text)
    while start < n:
        stop = _block_end(text, start, _PIECE, _ASCII_CHAR)
        if stop - start >= 2 * _PIECE:
            # Everything past its first `_PIECE` characters is not ASCII: dense, without a
            # copy of a long run of Chinese.
            yield start, stop, True
        else:
            piece = text[start:stop]
            if not piece.isascii():
                non_ascii = len(piece) - len(piece.encode("ascii", "ignore"))
                yield start, stop, 8 * non_ascii >= len(piece)
        start = stop


def _block_end(text: str, start: int, size: int, cut: re.Pattern[str]) -> int:
    """Where a block of `text` from `start` ends: at the first match of `cut` at least `size`
    characters on, or at the text's end.

    >>> _block_end("ab cd ef", 0, 3, re.compile(" ")), _block_end("ab cd", 0, 9, re.compile(" "))
    (5, 5)
    """
    if start + size < len(text):
        m = cut.search(text, start + size)
        if m is not None:
            return m.start()
    return len(text)


_STRETCH = 1 << 15  # positions whose events `_merge` sorts at a time


def _merge(found: list[_Events], n: int) -> _Events:
    """The events of several classes, each sorted by position, in one sequence sorted by
    position (those at one position in any order: `_before` counts all of them or none).

    Sorted a stretch of the text's positions at a time, so that only a stretch's events are
    Python objects at once, by `sorted` with a C-level key, which finds each class's sorted
    run and merges them (`heapq.merge` runs Python code for every event).
    """
    found = [events for events in found if events[0]]
    if len(found) <= 1:
        return found[0] if found else (array(position_kind(n)), array("q"))
    merged: _Events = (array(position_kind(n)), array("q"))
    done = [0] * len(found)
    for stop in range(_STRETCH, n + _STRETCH, _STRETCH):
        starts: list[int] = []
        weights: list[int] = []
        for k, (at, weighed) in enumerate(found):
            i, j = done[k], bisect.bisect_left(at, stop, done[k])
            starts += at[i:j].tolist()
            weights += weighed[i:j].tolist()
            done[k] = j
        order = sorted(range(len(starts)), key=starts.__getitem__)
        merged[0].fromlist(list(map(starts.__getitem__, order)))
        merged[1].fromlist(list(map(weights.__getitem__, order)))
    return merged


_WHITESPACE = re.compile(r"\s")


def _pair_starts(text: str, block: int = 1 << 16) -> array[int] | None:
    """Where the rare letter pairs of ``text.lower()`` start, as positions in `text`.

    Lower-cased a block at a time, cut at whitespace (no pair spans it): CPython lower-cases
    text beyond Latin-1 through a buffer three times its size, 120 MB for 10 MB of it. In a
    block holding "İ", which lower-cases to "i" and a combining dot (no other character
    grows), positions after it are mapped back. None if lower-casing grows anything else.
    """
    starts = array(position_kind(len(text)))
    pos, n = 0, len(text)
    while pos < n:
        stop = _block_end(text, pos, block, _WHITESPACE)
        lower = text[pos:stop].lower()
        found = [m.start() for m in _RARE_PAIR.finditer(lower)]
        if len(lower) != stop - pos:
            dots = [m.start() - pos + k + 1 for k, m in enumerate(_DOTTED_I.finditer(text, pos, stop))]
            if len(lower) - (stop - pos) != len(dots):
                return None
            found = [p - bisect.bisect_left(dots, p) for p in found]
        starts.extend([p + pos for p in found])
        pos = stop
    return starts


def _running(values: array[int]) -> array[int]:
    return array("q", accumulate(values, initial=0))
