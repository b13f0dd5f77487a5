"""Unicode facts the Rust `tokenizers` crates take from their own tables.

The standard library's `re` knows no ``\\p{L}``, and Python's ideas of "whitespace" and
"word character" differ from Rust's, so this module gives what the pipeline needs: code-point
ranges (and regex class bodies) for general categories, read from the compact Unicode 14 table
in `_ucd` (no walk over every code point at load), the White_Space set, Rust's `\\w`, and a
small extended-grapheme-cluster splitter (the Precompiled normalizer works per grapheme).

HF's own tables are newer (its Oniguruma knows Unicode 16): characters assigned after Unicode
14 are unassigned here, so they may be classified differently than HF does.

>>> import re
>>> re.fullmatch("[" + category_class("L") + "]+", "Größe") is not None
True
"""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache

from . import _ucd

_MAX = 0x110000

# Rust's char::is_whitespace, Onig's and Rust regex's \s: the White_Space property.
WHITESPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
                       + "".join(map(chr, range(0x2000, 0x200B))))

# Grapheme_Cluster_Break=Prepend (Unicode 14), which unicodedata does not expose.
PREPEND = frozenset(map(chr, [*range(0x600, 0x606), 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0xD4E,
                              0x110BD, 0x110CD, 0x111C2, 0x111C3, 0x1193F, 0x11941, 0x11A3A,
                              *range(0x11A84, 0x11A8A), 0x11D46]))
# Other_Grapheme_Extend characters that are not nonspacing or enclosing marks.
_OTHER_EXTEND = frozenset(map(chr, [0x9BE, 0x9D7, 0xB3E, 0xB57, 0xBBE, 0xBD7, 0xCC2, 0xCD5, 0xCD6,
                                    0xD3E, 0xD57, 0xDCF, 0xDDF, 0x1B35, 0x200C, 0x302E, 0x302F,
                                    0xFF9E, 0xFF9F, 0x1133E, 0x11357, 0x114B0, 0x114BD, 0x115AF,
                                    0x11930, 0x1D165, *range(0x1D16E, 0x1D173),
                                    *range(0x1F3FB, 0x1F400), *range(0xE0020, 0xE0080)]))
# Alphabetic characters outside the letter, mark and Nl categories (circled and squared
# letters): Rust's \w includes them, Python's does not.
_OTHER_ALPHA = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))


# HF's Bert normalizer and Bert/Punctuation pre-tokenizers classify with the
# `unicode_categories` crate, whose tables predate Unicode 14: these characters, P / Mn /
# Cc-Cf-Co in Python's tables, are not so there (found by probing every code point with
# tokenizers 0.23.3). Unassigned code points (Cn) are not "other" there either.
OLD_NOT_PUNCT = ((1565, 1565), (2557, 2557), (2678, 2678), (3191, 3191), (3204, 3204),
                 (7037, 7038), (11843, 11855), (11858, 11869), (69293, 69293), (69461, 69465),
                 (69510, 69513), (70731, 70735), (70746, 70747), (70749, 70749), (71264, 71276),
                 (71353, 71353), (71739, 71739), (72004, 72006), (72162, 72162), (72255, 72262),
                 (72346, 72348), (72350, 72354), (72769, 72773), (72816, 72817), (73463, 73464),
                 (73727, 73727), (77809, 77810), (93847, 93850), (94178, 94178), (125278, 125279))
OLD_NOT_MN = ((2045, 2045), (2200, 2207), (2250, 2273), (2558, 2558), (2810, 2815), (2901, 2901),
              (3076, 3076), (3132, 3132), (3328, 3328), (3387, 3388), (3457, 3457), (3770, 3770),
              (6159, 6159), (6277, 6278), (6847, 6862), (7670, 7675), (43052, 43052),
              (43205, 43205), (43263, 43263), (43453, 43453), (68900, 68903), (69291, 69292),
              (69446, 69456), (69506, 69509), (69744, 69744), (69747, 69748), (69826, 69826),
              (70089, 70089), (70095, 70095), (70206, 70206), (70459, 70459), (70712, 70719),
              (70722, 70724), (70726, 70726), (70750, 70750), (71727, 71735), (71737, 71738),
              (71995, 71996), (71998, 71998), (72003, 72003), (72148, 72151), (72154, 72155),
              (72160, 72160), (72193, 72202), (72243, 72248), (72251, 72254), (72263, 72263),
              (72273, 72278), (72281, 72283), (72330, 72342), (72344, 72345), (72752, 72758),
              (72760, 72765), (72767, 72767), (72850, 72871), (72874, 72880), (72882, 72883),
              (72885, 72886), (73009, 73014), (73018, 73018), (73020, 73021), (73023, 73029),
              (73031, 73031), (73104, 73105), (73109, 73109), (73111, 73111), (73459, 73460),
              (94031, 94031), (94180, 94180), (118528, 118573), (118576, 118598),
              (122880, 122886), (122888, 122904), (122907, 122913), (122915, 122916),
              (122918, 122922), (123184, 123190), (123566, 123566), (123628, 123631),
              (125252, 125258))
OLD_NOT_OTHER = ((2192, 2193), (2274, 2274), (69837, 69837), (78896, 78904))


def in_ranges(c: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    cp = ord(c)
    return any(a <= cp <= b for a, b in ranges)


# HF's NFC/NFD/NFKC/NFKD (and BertNormalizer's NFD) use Unicode 12.1 tables (probed with
# tokenizers 0.23.3): a character assigned later is, to them, a starter that neither
# decomposes nor composes. These are the ones Unicode 14 (Python 3.11) gives a decomposition,
# a combining class or a place in a composition (computed against Python 3.8's 12.1 data).
NEW_FOR_HF_NORMALIZERS = (
    (0x898, 0x89F), (0x8CA, 0x8D2), (0xC3C, 0xC3C), (0x1715, 0x1715), (0x1ABF, 0x1ACE),
    (0x1DFA, 0x1DFA), (0xA7F2, 0xA7F4), (0xA82C, 0xA82C), (0xAB69, 0xAB69), (0x10781, 0x10785),
    (0x10787, 0x107B0), (0x107B2, 0x107BA), (0x10EAB, 0x10EAC), (0x10F82, 0x10F85),
    (0x11070, 0x11070), (0x11930, 0x11930), (0x11935, 0x11935), (0x11938, 0x11938),
    (0x1193D, 0x1193E), (0x11943, 0x11943), (0x16FF0, 0x16FF1), (0x1E2AE, 0x1E2AE),
    (0x1FBF0, 0x1FBF9))


def unknown_to_hf_normalizers(c: str) -> bool:
    """Whether HF's Unicode normalizers leave c alone as a starter while a Python's may not:
    assigned after Unicode 12.1, or unassigned in Unicode 14 (a newer Python, like Pyodide's,
    knows more)."""
    return not c.isascii() and (in_ranges(c, NEW_FOR_HF_NORMALIZERS) or _ucd.category(c) == "Cn")


Ranges = tuple[tuple[int, int], ...]


def _subtract(ranges: list[tuple[int, int]], minus: Ranges) -> list[tuple[int, int]]:
    out = []
    for a, b in ranges:
        pieces = [(a, b)]
        for x, y in minus:
            nxt = []
            for p, q in pieces:
                if y < p or x > q:
                    nxt.append((p, q))
                    continue
                if p < x:
                    nxt.append((p, x - 1))
                if y < q:
                    nxt.append((y + 1, q))
            pieces = nxt
        out.extend(pieces)
    return out


def merge(ranges: list[tuple[int, int]] | Ranges) -> Ranges:
    """Sorted, disjoint, non-adjacent ranges covering the same code points."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return tuple(out)


def complement(ranges: Ranges) -> Ranges:
    """The code points not in `ranges` (merged)."""
    out: list[tuple[int, int]] = []
    nxt = 0
    for a, b in merge(ranges):
        if a > nxt:
            out.append((nxt, a - 1))
        nxt = b + 1
    if nxt < _MAX:
        out.append((nxt, _MAX - 1))
    return tuple(out)


def _escape(cp: int) -> str:
    return f"\\U{cp:08x}" if cp > 0xFFFF else f"\\u{cp:04x}"


def ranges_class(ranges: Ranges | list[tuple[int, int]], bmp: bool = False) -> str:
    """The inside of a regex character class (no brackets) holding these code-point ranges;
    with `bmp`, only their part below U+10000 (see _regex: a class with code points above
    the BMP makes Python's `re` test every one of those ranges for each character it
    rejects, several times slower)."""
    out = []
    for a, b in ranges:
        if bmp:
            if a > 0xFFFF:
                continue
            b = min(b, 0xFFFF)
        out.append(_escape(a) if a == b else f"{_escape(a)}-{_escape(b)}")
    return "".join(out)


@cache
def category_ranges(names: str) -> Ranges:
    """Code-point ranges of the general categories named (comma-separated; "L" means L*),
    from the Unicode 14 table in _ucd."""
    table = _ucd.runs()
    wanted = [c for c in _ucd.CATEGORIES for n in names.split(",") if c == n or (len(n) == 1 and c[0] == n)]
    return merge([r for c in wanted for r in table[c]])


def category_class(names: str, bmp: bool = False) -> str:
    """A regex class body matching the general categories in `names` ("L", "N", "Lu,Lt")."""
    return ranges_class(category_ranges(names), bmp)


def whitespace_ranges() -> Ranges:
    return merge([(ord(c), ord(c)) for c in WHITESPACE])


def whitespace_class() -> str:
    return ranges_class(whitespace_ranges())


@cache
def word_ranges() -> Ranges:
    """Rust regex's Unicode \\w: Alphabetic, marks, Nd, Pc and the joiners."""
    return merge(list(category_ranges("L,Nl,M,Nd,Pc")) + list(_OTHER_ALPHA) + [(0x200C, 0x200D)])


def word_class(bmp: bool = False) -> str:
    return ranges_class(word_ranges(), bmp)


def is_word_char(c: str) -> bool:
    """Rust regex's \\w for one character (added tokens' single_word test)."""
    cat = unicodedata.category(c)
    if cat[0] in "LM" or cat in ("Nd", "Nl", "Pc") or c in "\u200c\u200d":
        return True
    cp = ord(c)
    return any(a <= cp <= b for a, b in _OTHER_ALPHA)


def is_rust_punctuation(c: str) -> bool:
    """char::is_ascii_punctuation or a P* category (Bert and Punctuation pre-tokenizers)."""
    return ("!" <= c <= "/" or ":" <= c <= "@" or "[" <= c <= "`" or "{" <= c <= "~"
            or (unicodedata.category(c)[0] == "P" and not in_ranges(c, OLD_NOT_PUNCT)))


@cache
def punctuation_ranges() -> Ranges:
    ascii_punct = [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)]
    return merge(_subtract(list(category_ranges("P")), OLD_NOT_PUNCT) + ascii_punct)


def punctuation_class(bmp: bool = False) -> str:
    return ranges_class(punctuation_ranges(), bmp)


# ------------------------------------------------------------------ graphemes

def _gcb(c: str) -> str:
    """A Grapheme_Cluster_Break value, for the rules that can matter here."""
    if c == "\r":
        return "CR"
    if c == "\n":
        return "LF"
    if c == "\u200d":
        return "ZWJ"
    if c in _OTHER_EXTEND:
        return "Extend"
    if c in PREPEND:
        return "Prepend"
    cp = ord(c)
    if 0x1100 <= cp <= 0x115F or 0xA960 <= cp <= 0xA97C:
        return "L"
    if 0x1160 <= cp <= 0x11A7 or 0xD7B0 <= cp <= 0xD7C6:
        return "V"
    if 0x11A8 <= cp <= 0x11FF or 0xD7CB <= cp <= 0xD7FB:
        return "T"
    if 0xAC00 <= cp <= 0xD7A3:
        return "LV" if (cp - 0xAC00) % 28 == 0 else "LVT"
    if 0x1F1E6 <= cp <= 0x1F1FF:
        return "RI"
    cat = unicodedata.category(c)
    if cat in ("Mn", "Me"):
        return "Extend"
    if cat == "Mc" or c in "\u0e33\u0eb3":
        return "SpacingMark"
    if cat in ("Cc", "Zl", "Zp", "Cs") or (cat == "Cf" and c != "\u200c"):
        return "Control"
    return "Other"


_gcb_cached = lru_cache(maxsize=1 << 16)(_gcb)


def joins_graphemes(c: str) -> bool:
    """Whether `c` can share a grapheme cluster with a neighbour (so per-character work on a
    text without such characters sees every cluster as one character)."""
    return _gcb_cached(c) not in ("Other", "Control", "LF")


def graphemes(text: str) -> list[str]:
    """Extended grapheme clusters (UAX #29), without the emoji-sequence rule GB11.

    GB11 only joins clusters of six UTF-8 bytes or more, which the Precompiled normalizer
    treats character by character anyway.

    >>> [len(g) for g in graphemes("e\\u0301a\\r\\nb")]
    [2, 1, 2, 1]
    """
    out: list[str] = []
    gcb = _gcb_cached
    start = 0
    prev = ""
    ri_run = 0
    for i, c in enumerate(text):
        b = gcb(c)
        if i == 0:
            prev, ri_run = b, int(b == "RI")
            continue
        if prev == "CR" and b == "LF":
            join = True
        elif prev in ("Control", "CR", "LF") or b in ("Control", "CR", "LF"):
            join = False
        elif (prev == "L" and b in ("L", "V", "LV", "LVT") or prev in ("LV", "V") and b in ("V", "T")
              or prev in ("LVT", "T") and b == "T" or b in ("Extend", "ZWJ", "SpacingMark")
              or prev == "Prepend"):
            join = True
        elif prev == "RI" and b == "RI":
            join = ri_run % 2 == 1
        else:
            join = False
        if not join:
            out.append(text[start:i])
            start = i
        ri_run = ri_run + 1 if b == "RI" else 0
        prev = b
    if text:
        out.append(text[start:])
    return out
