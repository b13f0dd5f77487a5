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
import codecs
import re
import threading
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import accumulate, chain, repeat
from operator import add, mul

from .._errors import ChunkerError
from ..text._segments import Deferred, position_kind

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
    """`_run_spelled`, compiled."""
    return re.compile(_run_spelled(chars, least))


def _run_spelled(chars: str, least: int = 1) -> str:
    """A run of at least `least` characters of the class `chars`, spelled as the bare class
    and then its repetition ("[c][c]*", not "[c]+"): ``re`` skips at C speed over every
    position whose character cannot start a match only when a pattern begins with a bare
    class (or a literal); one that begins with a repeat or an alternation is tried at every
    position, which takes up to twice as long. The matches are the same.

    >>> _run_spelled("0-9", 2)
    '[0-9][0-9][0-9]*'
    """
    return f"[{chars}]" * least + f"[{chars}]*"


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


_HAN_RUN = Deferred(_run_spelled(_HAN))
_KANA_RUN = Deferred(_run_spelled(_KANA))
_HANGUL_RUN = Deferred(_run_spelled(_HANGUL))
_CJK_RUN = Deferred(_run_spelled(f"{_HAN}{_KANA}{_HANGUL}"))
_OTHER_RUN = Deferred(_run_spelled(f"^\\W\\d_A-Za-z\u00c0-\u024f{_HAN}{_KANA}{_HANGUL}"))
_EMOJI = Deferred("[^\\w\\s\u0000-\uffff]")  # symbols outside the BMP: emoji and the like

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
        # A few such characters (quotes, dashes, accents) are first looked up by kind: the
        # classes of other scripts are compiled only for text that holds some (see `text._segments.Deferred`).
        if len(rest) < 256 and rest.translate(_KIND_OF).count(".") == len(rest):
            return counts
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


class EstimateIndex:
    """``estimate_tokens`` of any span of one document, without re-reading the span.

    Every class is found once over the whole document as a bit mask: bit ``i`` of a Python
    integer says whether the match of a class starts at character ``i`` (or, for the classes
    counted in characters, covers it). A span's count of a class is then the set bits of
    the mask between its ends (`_pop`), and since no match runs across a seam, a span whose
    ends are seams, as the trimmed pieces strategies pack nearly always are, is counted from
    the masks alone; any other end adds the few characters to its nearest seam, counted as
    text. The result is the very same number as ``estimate_tokens(text[start:end])`` (a test
    holds that), in time that grows with the span by a few bit operations a machine word.

    The masks are made at C speed, no Python code run per character (see `_Masks`).

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
        w = dict(zip(FEATURES, weights))
        self._pair_weight = w["rare_pairs"]
        masks = _DocumentMasks(text)
        self._pairs = masks.pairs
        names = ["words"] + [name for name in masks.bits if name != "words"]
        self._totals = [(w[name], masks.totals.get(name, 0)) for name in names]
        # (weight, mask as little-endian bytes) of every class the document has, the words first;
        # the classes it has less than once a kilobyte of text (other scripts, accents in English,
        # emoji) are read as one: where their bits are, in order, and their weights summed from
        # the start, so that a span takes two look-ups for all of them instead of one each.
        rare = [name for name in names[1:] if masks.totals[name] * _RARE_CHARS < len(text)]
        dense = [name for name in names if name not in rare]
        self._masks = [(w[name], masks.bits.get(name, b"")) for name in dense]
        # The classes whitespace can hold: a run of blanks is counted from these alone (see `learn`).
        self._blank_masks = [(w[name], masks.bits[name]) for name in dense if name in _BLANK_CLASSES]
        held = sorted((p, w[name]) for name in rare for p in _set_bits(masks.bits[name]))
        self._rare_at = array(position_kind(len(text)), [p for p, _ in held])
        self._rare_sums = array("q", accumulate((weight for _, weight in held), initial=0))
        self._known: dict[int, tuple[int, int]] = {}  # seam -> `_before` it (see `_inside`)
        # Seams whose `_before` is learnt (see `learn`), ascending, and their sums.
        self._learnt_at = array(position_kind(len(text)))
        self._learnt_totals = array("q")
        self._learnt_words = array("q")
        self._learnt_pairs = array("q")
        self._asked: set[int] = set()
        self._stretches: list[tuple[int, int]] | None = None

    def _is_seam(self, p: int) -> bool:
        text = self.text
        if p <= 0 or p >= len(text):
            return True
        a, b = text[p - 1], text[p]
        if a.isspace() == b.isspace():
            return False
        return not (a in " \t" and b.isdecimal())

    def _between(self, a: int, b: int) -> tuple[int, int]:
        """(weighted counts but the pairs, words) of the masks' bits in [a, b)."""
        if a == 0 and b == len(self.text):
            counts = [n for _, n in self._totals]
            return sum(map(mul, (weight for weight, _ in self._totals), counts)), counts[0]
        lo, hi, shift, keep = a >> 3, (b + 7) >> 3, a & 7, (1 << (b - a)) - 1
        counts = [((int.from_bytes(mask[lo:hi], "little") >> shift) & keep).bit_count() for _, mask in self._masks]
        at, sums = self._rare_at, self._rare_sums
        rare = sums[bisect.bisect_left(at, b)] - sums[bisect.bisect_left(at, a)]
        return sum(map(mul, (weight for weight, _ in self._masks), counts)) + rare, counts[0]

    def _before(self, p: int) -> tuple[int, int]:
        """`_between(0, p)`, from the sums at the start of p's stretch of `_STRETCH` characters."""
        if self._stretches is None:
            self._stretches = [(0, 0)]
            for a in range(0, len(self.text), _STRETCH):
                total, words = self._stretches[-1]
                more, more_words = self._between(a, min(len(self.text), a + _STRETCH))
                self._stretches.append((total + more, words + more_words))
        a = p - p % _STRETCH
        total, words = self._stretches[a // _STRETCH]
        if a < p:
            more, more_words = self._between(a, p)
            return total + more, words + more_words
        return total, words

    def _inside(self, head: int, tail: int) -> tuple[int, int, int]:
        """(weighted counts but the pairs, words, pairs) of text[head:tail], for seams head < tail.

        Packing asks about the same edges again and again (each piece's end, tried with several
        starts; every setting a slider move tries): an edge asked about a second time has its
        sums from the document's start kept, and so has every end counted from a kept start,
        so that a span between kept edges costs two look-ups. A chunking that asks about each
        span once (records counted after a chunking by characters) keeps nothing."""
        pairs = bisect.bisect_left(self._pairs, tail) - bisect.bisect_left(self._pairs, head)
        known = self._known
        before, after = known.get(head), known.get(tail)
        if before is not None and after is not None:
            return after[0] - before[0], after[1] - before[1], pairs
        if before is None and after is None and head in self._asked:
            before = known[head] = self._before(head)
        total, words = self._between(head, tail)
        if before is not None:
            known[tail] = (before[0] + total, before[1] + words)
        elif after is not None:
            known[head] = (after[0] - total, after[1] - words)
        else:
            self._asked.add(head)
        if len(known) > _KNOWN_MAX or len(self._asked) > _KNOWN_MAX:
            known.clear()
            self._asked.clear()
        return total, words, pairs

    def counts(self, starts: Sequence[int], ends: Sequence[int]) -> list[int]:
        """`count` of every span (starts[k], ends[k]), the same numbers, a class at a time.

        A chunking by characters or words asks about each chunk once, after packing: its
        spans start at a non-space and end at seams, as trimmed pieces do, so each class's
        bits are counted over all of them in one pass (a third of the time of the spans one
        at a time, which look up kept sums and pairs for each). Any other span is `count`ed."""
        text, seam = self.text, self._is_seam
        n = len(text)
        plain = [k for k, (a, b) in enumerate(zip(starts, ends)) if a < b <= n and not text[a].isspace() and seam(a) and seam(b)]
        out = [0] * len(starts)
        if len(plain) < len(starts):
            done = set(plain)
            for k, (a, b) in enumerate(zip(starts, ends)):
                if k not in done:
                    out[k] = self.count(a, b)
        if not plain:
            return out
        heads = [starts[k] for k in plain]
        tails = [ends[k] for k in plain]
        totals, found_words = self._sums(heads, tails)
        left = bisect.bisect_left
        pairs_at = self._pairs
        pairs = [left(pairs_at, b) - left(pairs_at, a) for a, b in zip(heads, tails)]
        pair_weight = self._pair_weight
        # The words are the first class (see `_masks`): pairs count only beside a word (`_gate`).
        for k, total, words, held in zip(plain, totals, found_words, pairs):
            out[k] = _tokens(total + pair_weight * held if words else total)
        return out

    def _sums(
        self, heads: Sequence[int], tails: Sequence[int], masks: Sequence[tuple[int, bytes | bytearray]] | None = None
    ) -> tuple[list[int], list[int]]:
        """(weighted counts but the pairs, words) of every span [heads[k], tails[k]), a class at a
        time (`_between` of each). Given `masks`, those of the dense classes only, and no words:
        the spans hold no bit of any other (the blanks of `learn`)."""
        dense = self._masks if masks is None else masks
        # Where each span's bits are: its bytes, the bits to drop below its start, its width.
        where = [(a >> 3, (b + 7) >> 3, a & 7, (1 << (b - a)) - 1) for a, b in zip(heads, tails)]
        from_bytes = int.from_bytes
        found = [
            [((from_bytes(mask[lo:hi], "little") >> shift) & keep).bit_count() for lo, hi, shift, keep in where]
            for _, mask in dense
        ]
        weights = [weight for weight, _ in dense]
        at, sums, left = self._rare_at, self._rare_sums, bisect.bisect_left
        columns = zip(*found) if found else ((),) * len(heads)
        totals = [
            sum(map(mul, weights, column)) + sums[left(at, b)] - sums[left(at, a)] for column, a, b in zip(columns, heads, tails)
        ]
        return totals, found[0] if masks is None else [0] * len(heads)

    def learn(self, spans: Iterable[tuple[int, int]]) -> None:
        """Learn `_before` at both ends of every span: pieces of the text, ascending, with nothing
        but whitespace between them (a document's paragraphs). Packing asks for the spans
        between such ends again and again (is a piece over the size, how many pieces fit); each
        is then two look-ups. The sums run over the pieces and the blanks between them, taken a
        class at a time, and a blank only holds the classes of whitespace (`_BLANK_CLASSES`)."""
        ends = [0, *chain.from_iterable(spans), len(self.text)]
        blanks = (ends[0::2], ends[1::2])  # [0, first start), [an end, the next start), ...
        pieces = (ends[1:-1:2], ends[2:-1:2])
        blank_totals, blank_words = self._sums(*blanks, self._blank_masks)  # no words in a blank
        piece_totals, piece_words = self._sums(*pieces)
        totals = array("q", accumulate(chain.from_iterable(zip(blank_totals, piece_totals + [0]))))
        words = array("q", accumulate(chain.from_iterable(zip(blank_words, piece_words + [0]))))
        # Only seams: a piece starting with a digit after a space or tab has its edge counted as
        # text (`count`); every piece's end is one (the whitespace after it).
        keep = [k for k, p in enumerate(ends[1:-1]) if k % 2 or self._is_seam(p)]
        # The sums before the points: `count` looks at the points first (a count on another
        # thread meanwhile finds none learnt yet, never points without their sums).
        self._learnt_totals = array("q", [totals[k] for k in keep])
        self._learnt_words = array("q", [words[k] for k in keep])
        # And the rare pairs before each point: a span between learnt points takes them from
        # two look-ups too, not two searches of the pairs.
        points = [ends[1 + k] for k in keep]
        self._learnt_pairs = array("q", map(bisect.bisect_left, repeat(self._pairs), points))
        self._learnt_at = array(position_kind(len(self.text)), points)

    def count(self, start: int, end: int) -> int:
        """``estimate_tokens(text[start:end])`` for this index's target."""
        text = self.text
        at = self._learnt_at
        if at and start < end <= len(text) and not text[start].isspace():
            i = bisect.bisect_left(at, start)
            j = bisect.bisect_left(at, end, i)
            if j < len(at) and at[i] == start and at[j] == end:  # both ends learnt (see `learn`)
                total = self._learnt_totals[j] - self._learnt_totals[i]
                if self._learnt_words[j] - self._learnt_words[i]:
                    total += self._pair_weight * (self._learnt_pairs[j] - self._learnt_pairs[i])
                return _tokens(total)
        if end <= start or _NON_SPACE.search(text, start, end) is None:
            return 0
        head = start
        if not self._is_seam(start):
            m = _SEAM.search(text, start, end)
            head = m.start() if m is not None else end
        tail = end
        if not self._is_seam(end):
            if text[end - 1].isspace():
                # `end` inside a run of whitespace (indentation, a blank gap): the seam before it
                # is where the run starts. Without this the whole span was counted as text, some
                # forty regular-expression passes over a window of code for each gallop's count.
                kept = head + len(text[head:end].rstrip())
                tail = kept if kept > head and self._is_seam(kept) else head
            else:
                # The seam before `end` is at the last space or line break before it, or just after.
                w = max(text.rfind(" ", head, end), text.rfind("\n", head, end))
                tail = w + 1 if w >= head and self._is_seam(w + 1) else (w if w > head and self._is_seam(w) else head)
        if tail <= head:
            return _weigh(self._weights, _counts(text[start:end]))
        total, words, pairs = self._inside(head, tail)
        for a, b in ((start, head), (tail, end)):
            if a < b:
                counts = _raw_counts(text[a:b])
                total += sum(map(mul, self._weights, counts)) - self._pair_weight * counts[_RARE_PAIRS_AT]
                words += counts[_WORDS_AT]
                pairs += counts[_RARE_PAIRS_AT]
        if words:  # see _gate
            total += self._pair_weight * pairs
        return _tokens(total)


# -- the masks -------------------------------------------------------------------------------
# A document is encoded to Latin-1 with every other character replaced by one Latin-1
# character of the same classes (`_stand_in`), so that a position is a byte. `bytes.translate`
# then spells a class as "1"s and "0"s, and ``int(..., 2)`` reads that as a bit mask, both at C
# speed; every class is a few shifts, ANDs and ORs of such masks. The bytes are reversed first,
# so that bit i is character i: `<< 1` moves each bit to the next character (bit i then says
# what character i - 1 is) and `>> 1` to the previous one.


def _table(chars: str) -> bytes:
    """A `bytes.translate` table: b"1" for the Latin-1 characters of the class `chars`, else b"0"."""
    pattern = re.compile(f"[{chars}]")
    return bytes(0x31 if pattern.fullmatch(chr(i)) else 0x30 for i in range(256))


_T_LETTER = _table(_UP + _LOW)
_T_UPPER = _table(_UP)
_T_DIGIT = _table(r"\d")
_T_PUNCT = _table(r"^\w\s")
_T_UNDERSCORE = _table("_")
_T_SPACE = _table(r"\s")
_T_LINE = _table(r"\r\n")
_T_LINE_FEED = _table(r"\n")
_T_SPACE_OR_TAB = _table(" \t")
_T_ACCENTED = _table(_ACCENTED.pattern[1:-1])
# Printable ASCII, tab and line feed; and which of the other bytes are in a class the masks can
# otherwise leave out or work out from the rest.
_PLAIN = bytes([9, 10, *range(32, 127)])
_ACCENTED_BYTES = frozenset(i for i in range(256) if _T_ACCENTED[i] == 0x31)
_OTHER_SPACES = frozenset(i for i in range(256) if _T_SPACE[i] == 0x31 and i not in b" \t\r\n")
_OTHER_WORD_BYTES = frozenset(
    i for i in range(256) if re.fullmatch(r"\w", chr(i)) and _T_LETTER[i] == _T_DIGIT[i] == 0x30 and i != 95
)
_OTHER_WORD_SINGLES = [bytes([i]) for i in sorted(_OTHER_WORD_BYTES)]
# The lower-case letters a-z of `str.lower` as themselves, everything else as a space.
_T_LOWER = bytes(i + 32 if 65 <= i <= 90 else i if 97 <= i <= 122 else 32 for i in range(256))
# The non-ASCII classes, a letter each, "." for none: Han, kana, Hangul, other scripts'
# letters, emoji, and "F" for both Han and emoji (a code point of the Han planes that is no
# word character). Only OTHER_RUN's class holds Latin-1 characters ("ª", "µ", "²", "¼" ...);
# the rest are set from the runs beyond Latin-1.
_KINDS = {"H": (_HAN_RUN,), "K": (_KANA_RUN,), "G": (_HANGUL_RUN,), "O": (_OTHER_RUN,), "E": (_EMOJI,), "F": (_HAN_RUN, _EMOJI)}
_T_KINDS = {k: bytes(0x31 if i == ord(k) else 0x30 for i in range(256)) for k in _KINDS}


def _code_ranges(chars: str) -> tuple[tuple[int, int], ...]:
    """The ranges of a class spelled as ranges only ("a-zA-Z"), as code points."""
    found = tuple((ord(a), ord(b)) for a, b in re.findall("(.)-(.)", chars, re.DOTALL))
    assert "".join(f"{chr(a)}-{chr(b)}" for a, b in found) == chars
    return found


_HAN_CODES, _KANA_CODES, _HANGUL_CODES = map(_code_ranges, (_HAN, _KANA, _HANGUL))


def _together(*tables: bytes) -> tuple[int, bytes, int, list[bytes]]:
    """What reads two or four classes in one pass (see `_masks_together`): the base of the
    first pass's digits, the table that writes each byte as a digit whose bit j says it is in
    class j, the base of the second pass's, and each class's table of those bytes to its bits."""
    k = len(tables)
    assert k in (2, 4)
    per_byte = 8 // k  # characters a byte of the first pass's number holds
    first = bytes(_NUMERALS[sum(1 << j for j, t in enumerate(tables) if t[i] == 0x31)] for i in range(256))
    second = [bytes(_NUMERALS[sum(((b >> (j + k * c)) & 1) << c for c in range(per_byte))] for b in range(256)) for j in range(k)]
    return 1 << k, first, 1 << per_byte, second


_NUMERALS = b"0123456789abcdef"  # the digits of bases up to 16


def _masks_together(back: bytes, plan: tuple[int, bytes, int, list[bytes]]) -> list[int]:
    """The masks of two or four classes of the reversed bytes `back`, as `int(back.translate(t),
    2)` makes each, in less time: ``int`` of one translation packs a character's classes into a
    digit (base 4 or 16), so that a byte of that number holds four or two characters; each class
    is then a translation of those bytes to digits of its bits alone, and ``int`` of a quarter or
    half as many."""
    base, first, second_base, second = plan
    if not back:
        return [0] * len(second)
    per_byte = 8 // len(second)
    packed = int(back.translate(first), base).to_bytes((len(back) + per_byte - 1) // per_byte, "little")[::-1]
    return [int(packed.translate(table), second_base) for table in second]


# Letters, capitals, whitespace and line breaks ("\r" one too where the text has one), and
# digits with underscores, each read together (`_masks_together`).
_T_FOUR = _together(_T_LETTER, _T_UPPER, _T_SPACE, _T_LINE_FEED)
_T_FOUR_CR = _together(_T_LETTER, _T_UPPER, _T_SPACE, _T_LINE)
_T_DIGIT_UNDERSCORE = _together(_T_DIGIT, _T_UNDERSCORE)


def _kind(c: str) -> str:
    """The letter of `_KINDS` whose classes are exactly those `c` is in, read as ``re`` reads
    them, without compiling them: ``\\w`` is ``isalnum()`` or "_", ``\\d`` is ``isdecimal()``
    and ``\\s`` is ``isspace()`` (CPython's own rules; a test checks every code point)."""
    code = ord(c)
    word = c.isalnum() or c == "_"
    emoji = code > 0xFFFF and not word and not c.isspace()
    if any(a <= code <= b for a, b in _HAN_CODES):
        return "F" if emoji else "H"
    if any(a <= code <= b for a, b in _KANA_CODES):
        return "K"
    if any(a <= code <= b for a, b in _HANGUL_CODES):
        return "G"
    if word and not (c.isdecimal() or c.isascii() or "\u00c0" <= c <= "\u024f"):
        return "O"  # a letter or number of another script: _OTHER_RUN's class
    return "E" if emoji else "."


_T_KIND = bytes(0x4F if _kind(chr(i)) == "O" else 0x2E for i in range(256))


def _stand_in(c: str) -> str:
    """The Latin-1 character that stands in for `c`, beyond Latin-1, in every class the masks
    read from the encoded text: a lower-case accented letter (U+0100-U+024F), a digit of
    another script, a space (neither a line break nor a space or a tab), another word character
    ("ª": no letter, digit or underscore), or punctuation."""
    if re.fullmatch(f"[{_LOW}]", c):
        return "ø"
    if c.isdecimal():
        return "0"
    if c.isspace():
        return "\xa0"
    if re.fullmatch(r"\w", c):
        return "ª"
    return "!"


class _StandIns(dict[int, str]):
    """`_stand_in` of each character by code point, worked out once (str.translate reads it)."""

    def __missing__(self, code: int) -> str:
        s = self[code] = _stand_in(chr(code))
        return s


class _Kinds(dict[int, str]):
    """`_kind` of each character by code point, likewise."""

    def __missing__(self, code: int) -> str:
        s = self[code] = _kind(chr(code))
        return s


_STAND_INS = _StandIns()
_KIND_OF = _Kinds()
_A_KIND = re.compile("[^.]")  # a character of some kind, among the kinds of a text
# The characters beyond ASCII whose lower case holds a letter a-z: the Kelvin sign ("k") and
# "İ" ("i" and a combining dot, the only character whose lower case is longer); a test checks
# every code point.
_LOWER_TO_ASCII = re.compile("[\u0130\u212a]")
# The runs beyond Latin-1 an encoding met, for the thread that encodes (see `_encode`).
_MET = threading.local()


def _stand_ins_for(err: UnicodeError) -> tuple[str, int]:
    assert isinstance(err, UnicodeEncodeError)
    run = err.object[err.start : err.end]
    _MET.runs.append((err.start, run))
    return run.translate(_STAND_INS), err.end


codecs.register_error("chunker.estimate", _stand_ins_for)


def _encode(text: str) -> tuple[bytes, list[tuple[int, str]]]:
    """`text` as one byte a character (`_stand_in` beyond Latin-1), and the runs beyond
    Latin-1 (where each starts, and its text): the encoder hands each run to the error handler
    once, so only those runs are read in Python."""
    if text.isascii():
        return text.encode("ascii"), []
    runs: list[tuple[int, str]] = []
    _MET.runs = runs
    try:
        return text.encode("latin-1", "chunker.estimate"), runs
    finally:
        del _MET.runs


# The classes whose bits can fall on whitespace (a test checks that no other class's can).
_BLANK_CLASSES = frozenset({"newline_runs", "space_runs"})
_RARE_CHARS = 1 << 10  # a class of fewer bits than this many characters each is read from its positions (see EstimateIndex)
# Where the set bits of each byte value are; every byte value but 0 as 1.
_BITS_OF = [tuple(k for k in range(8) if value >> k & 1) for value in range(256)]
_MARK_NONZERO = bytes([0] + [1] * 255)


def _set_bits(bits: bytes | bytearray) -> list[int]:
    """The positions of the set bits of a little-endian mask, in order: the bytes holding any
    found by `find` (at C speed, past the zeros), their bits looked up (a few: `_RARE_CHARS`)."""
    marks = bits.translate(_MARK_NONZERO)
    found: list[int] = []
    j = marks.find(1)
    while j >= 0:
        found.extend(8 * j + k for k in _BITS_OF[bits[j]])
        j = marks.find(1, j + 1)
    return found


_KNOWN_MAX = 1 << 15  # edges whose sums an index keeps (some 150 bytes each), then starts afresh
_STRETCH = 1 << 12  # characters between the sums `_before` starts from
_BLOCK = 1 << 16  # characters whose masks are made at a time (their strings stay in the cache)


class _DocumentMasks:
    """The classes' masks of a whole document (`bits`: little-endian bytes, bit i for character
    i, of the classes it has), their totals, and where its rare pairs start (`pairs`).

    Made a block at a time, each block cut at a seam (no class's match runs across one, so a
    block's masks are the document's there), and written into the document's bytes at the
    block's bit offset."""

    def __init__(self, text: str) -> None:
        n = len(text)
        self.bits: dict[str, bytearray] = {}
        self.totals: dict[str, int] = {}
        self.pairs = array(position_kind(n))
        start = 0
        while start < n:
            stop = n
            if start + _BLOCK < n:
                m = _SEAM.search(text, start + _BLOCK)
                stop = m.start() if m is not None else n
            block = _Masks(text[start:stop])
            self.pairs.extend(map(add, block.pairs, repeat(start)))
            for name, mask in block.classes.items():
                if mask:
                    self._write(name, mask, start, n)
            start = stop

    def _write(self, name: str, mask: int, at: int, n: int) -> None:
        bits = self.bits.get(name)
        if bits is None:
            bits = self.bits[name] = bytearray((n + 7) >> 3)
        self.totals[name] = self.totals.get(name, 0) + mask.bit_count()
        raw = (mask << (at & 7)).to_bytes(((mask.bit_length() + (at & 7)) + 7) >> 3, "little")
        first = at >> 3
        bits[first] |= raw[0]  # the byte the block before may have bits in
        bits[first + 1 : first + len(raw)] = raw[1:]


class _Masks:
    """Every class's mask of one text (`classes`, in `FEATURES` order but the rare pairs), and
    where its rare letter pairs start (`pairs`, sorted)."""

    def __init__(self, text: str) -> None:
        n = len(text)
        self.classes: dict[str, int] = {f: 0 for f in FEATURES if f != "rare_pairs"}
        if not n:
            self.pairs = array(position_kind(0))
            return
        data, runs = _encode(text)
        back = data[::-1]

        def mask(table: bytes) -> int:
            return int(back.translate(table), 2)

        c = self.classes
        # The bytes beyond printable ASCII, tabs and line feeds, a few in common text: the
        # classes that only they can be in are looked for only when they are there, and two
        # classes follow from the others when none of those is.
        extra = data.translate(None, _PLAIN)
        rare = set(extra)
        letter, upper, space, line = _masks_together(back, _T_FOUR_CR if 13 in rare else _T_FOUR)
        lower = letter ^ upper
        # A word starts at a letter after no letter, and at a capital after a lower-case letter
        # (camelCase); the rest of its letters go on from the letter before.
        starts = (letter & ~(letter << 1)) | (upper & (lower << 1))
        c["words"] = starts
        on = letter ^ starts
        on = on & (on << 1)  # two letters going on: from the third letter of a word
        on = on & (on << 2)  # four
        on = on & (on << 3)  # seven: the letter is the eighth or later, if the seventh back is a letter
        over7 = on & (letter << 7)
        c["letters_over_7"] = over7
        c["letters_over_10"] = over7 & (over7 << 3)
        c["caps"] = upper & ((upper << 1) | (upper >> 1))
        if not rare.isdisjoint(_ACCENTED_BYTES):
            c["accented"] = mask(_T_ACCENTED)
        flat = space & ~line
        digit, under = _masks_together(back, _T_DIGIT_UNDERSCORE) if b"_" in data else (mask(_T_DIGIT), 0)
        if digit:
            first = digit & ~(digit << 1)
            c["digit_groups"] = _every_third(digit, first)
            # Spaces and tabs are the flat whitespace unless the text has another kind.
            spaced = flat if rare.isdisjoint(_OTHER_SPACES) else mask(_T_SPACE_OR_TAB)
            c["space_digits"] = first & (spaced << 1)
        c["underscores"] = under
        c["dunders"] = under & ~(under << 1) & (under >> 1)
        if rare.isdisjoint(_OTHER_WORD_BYTES):
            # Punctuation is whatever is no word character and no space, and a word character
            # is a letter, a digit or "_" unless the text has another kind.
            punct = ((1 << n) - 1) & ~(letter | digit | under | space)
        else:
            punct = mask(_T_PUNCT)
        c["punct_runs"] = punct & ~(punct << 1)
        c["punct_chars"] = punct
        c["newline_runs"] = line & ~(_spread(line, space) << 1)  # the first line break of a run
        c["space_runs"] = flat & ~(flat << 1) & (flat >> 1)
        if runs or not data.isascii():
            self._non_ascii(data, runs, extra)
        self.pairs = _pairs(data, runs)

    def _non_ascii(self, data: bytes, runs: list[tuple[int, str]], extra: bytes) -> None:
        # The runs translated as one text: in common text most are a quote or a dash, and one
        # translation of them all costs less than one a run.
        joined = "".join([run for _, run in runs])
        codes = joined.translate(_KIND_OF)
        beyond = len(codes)
        # Latin-1's own word characters of other scripts ("ª", "²", "¼"...) are in `extra`, and
        # so are the stand-ins "ª" of the runs' word characters: are there more of them?
        latin = sum(map(extra.count, _OTHER_WORD_SINGLES)) > joined.translate(_STAND_INS).count("ª")
        found: dict[str, int] = {}
        if latin or 16 * beyond > len(data):
            # Many: every kind from the text translated, as the other classes are.
            kinds = bytearray(data.translate(_T_KIND))
            taken = 0
            for at, run in runs:
                kinds[at : at + len(run)] = codes[taken : taken + len(run)].encode("ascii")
                taken += len(run)
            back = bytes(kinds[::-1])
            found = {k: int(back.translate(table), 2) for k, table in _T_KINDS.items() if k.encode() in kinds}
        elif codes.count(".") < beyond:
            # A few (a name, an arrow): their bits set one by one, where the runs put them.
            firsts = list(accumulate((len(run) for _, run in runs[:-1]), initial=0))
            bits: dict[str, bytearray] = {}
            for m in _A_KIND.finditer(codes):
                i = m.start()
                r = bisect.bisect_right(firsts, i) - 1
                p = runs[r][0] + i - firsts[r]
                held = bits.get(m.group())
                if held is None:
                    held = bits[m.group()] = bytearray((len(data) + 7) >> 3)
                held[p >> 3] |= 1 << (p & 7)
            found = {k: int.from_bytes(held, "little") for k, held in bits.items()}
        both = found.get("F", 0)
        han, kana, hangul = found.get("H", 0) | both, found.get("K", 0), found.get("G", 0)
        cjk = han | kana | hangul
        other = found.get("O", 0)
        c = self.classes
        c["han"], c["kana"], c["hangul"] = han, kana, hangul
        c["cjk_runs"] = cjk & ~(cjk << 1)
        c["other_letters"] = other
        c["other_runs"] = other & ~(other << 1)
        c["emoji"] = found.get("E", 0) | both


def _every_third(digit: int, first: int) -> int:
    """The first digit of each group of three of every run of digits: ``first`` (the runs'
    first digits), then every third digit on, found by doubling the stride (a run of a million
    digits takes twenty steps)."""
    groups, stride = first, 3
    whole = digit & (digit << 1) & (digit << 2) & (digit << 3)  # digits from stride back to here
    while whole:
        groups |= (groups << stride) & whole
        whole &= whole << stride
        stride <<= 1
    return groups


def _spread(found: int, within: int) -> int:
    """Each bit of `found` carried forward over the run of `within` it lies in, by doubling."""
    stride, whole = 1, within & (within << 1)
    while whole:
        found |= (found << stride) & whole
        whole &= whole << stride
        stride <<= 1
    return found


# The rare pairs as characters of a UTF-16 text: a pair of bytes read as one code unit (the
# first letter the low byte).
_PAIR_UNITS = re.compile(
    "["
    + "".join(
        chr(ord(first) + 256 * ord(second)) for first, seconds in (i.split(":") for i in RARE_PAIRS.split()) for second in seconds
    )
    + "]"
)


def _pairs(data: bytes, runs: list[tuple[int, str]]) -> array[int]:
    """Where the rare letter pairs of ``text.lower()`` start, as positions in the text, taken as
    `re` takes them: leftmost first, never overlapping.

    The text's letters are lower-cased (everything else a space) a byte each; read as UTF-16,
    those bytes are the pairs at even positions, and read from the second byte, at odd ones: a
    character class finds them. "İ" lower-cases to "i" and a combining dot: it ends a pair but
    starts none.
    """
    low = data.translate(_T_LOWER)
    dotted: set[int] = set()
    # Past Latin-1, only the Kelvin sign and "İ" lower-case to letters a-z: looked for in all the
    # runs at once (in prose, thousands of quotes and dashes), then where they are.
    if runs and _LOWER_TO_ASCII.search("".join([run for _, run in runs])) is not None:
        patched = bytearray(low)
        for at, run in runs:
            for m in _LOWER_TO_ASCII.finditer(run):
                patched[at + m.start()] = ord("i") if m.group() == "\u0130" else ord("k")
                if m.group() == "\u0130":
                    dotted.add(at + m.start())
        low = bytes(patched)
    n = len(low)
    even = [2 * p for p in map(re.Match.start, _PAIR_UNITS.finditer(low[: n - n % 2].decode("utf-16-le")))]
    odd = [2 * p + 1 for p in map(re.Match.start, _PAIR_UNITS.finditer(low[1 : n - (n - 1) % 2].decode("utf-16-le")))]
    starts = array(position_kind(n))
    after = -1  # the first position the next pair may start at
    for p in sorted(even + odd) if odd and even else even or odd:
        if p >= after and p not in dotted:
            starts.append(p)
            after = p + 2
    return starts
