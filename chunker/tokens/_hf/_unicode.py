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
from bisect import bisect_right
from functools import cache, lru_cache

from . import _ucd

_MAX = 0x110000

# Rust's char::is_whitespace, Onig's and Rust regex's \s: the White_Space property.
WHITESPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(map(chr, range(0x2000, 0x200B))))

# Grapheme_Cluster_Break=Prepend (Unicode 14), which unicodedata does not expose.
PREPEND = frozenset(
    map(
        chr,
        [
            *range(0x600, 0x606),
            0x6DD,
            0x70F,
            0x890,
            0x891,
            0x8E2,
            0xD4E,
            0x110BD,
            0x110CD,
            0x111C2,
            0x111C3,
            0x1193F,
            0x11941,
            0x11A3A,
            *range(0x11A84, 0x11A8A),
            0x11D46,
        ],
    )
)
# Other_Grapheme_Extend characters that are not nonspacing or enclosing marks.
_OTHER_EXTEND = frozenset(
    map(
        chr,
        [
            0x9BE,
            0x9D7,
            0xB3E,
            0xB57,
            0xBBE,
            0xBD7,
            0xCC2,
            0xCD5,
            0xCD6,
            0xD3E,
            0xD57,
            0xDCF,
            0xDDF,
            0x1B35,
            0x200C,
            0x302E,
            0x302F,
            0xFF9E,
            0xFF9F,
            0x1133E,
            0x11357,
            0x114B0,
            0x114BD,
            0x115AF,
            0x11930,
            0x1D165,
            *range(0x1D16E, 0x1D173),
            *range(0x1F3FB, 0x1F400),
            *range(0xE0020, 0xE0080),
        ],
    )
)
# Alphabetic characters outside the letter, mark and Nl categories (circled and squared
# letters): Rust's \w includes them, Python's does not.
_OTHER_ALPHA = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))


# HF classifies with old tables of its own (found by probing every code point with tokenizers
# 0.23.3; tools/hf_unicode.py regenerates these, a test holds them). Each FLIP_ table lists
# the code points where HF's answer and the Unicode 14 category in _ucd disagree, so HF's set
# is "category in _ucd, unless flipped", the same under every Python (Pyodide's is newer).
# Code points unassigned in Unicode 14 are in none of HF's sets.
#
# StripAccents removes combining marks (category M) as `unicode-normalization-alignments`
# has them: Unicode 9.0 (U+0D3B, of Unicode 10, is kept; U+1CF2, M until Unicode 12.1, is
# removed).
FLIP_MARK = (
    (0x7FD, 0x7FD),
    (0x898, 0x89F),
    (0x8CA, 0x8D3),
    (0x9FE, 0x9FE),
    (0xAFA, 0xAFF),
    (0xB55, 0xB55),
    (0xC04, 0xC04),
    (0xC3C, 0xC3C),
    (0xD00, 0xD00),
    (0xD3B, 0xD3C),
    (0xD81, 0xD81),
    (0xEBA, 0xEBA),
    (0x1715, 0x1715),
    (0x180F, 0x180F),
    (0x1ABF, 0x1ACE),
    (0x1CF2, 0x1CF3),
    (0x1CF7, 0x1CF7),
    (0x1DF6, 0x1DFA),
    (0xA82C, 0xA82C),
    (0xA8FF, 0xA8FF),
    (0x10D24, 0x10D27),
    (0x10EAB, 0x10EAC),
    (0x10F46, 0x10F50),
    (0x10F82, 0x10F85),
    (0x11070, 0x11070),
    (0x11073, 0x11074),
    (0x110C2, 0x110C2),
    (0x11145, 0x11146),
    (0x111C9, 0x111C9),
    (0x111CE, 0x111CF),
    (0x1133B, 0x1133B),
    (0x1145E, 0x1145E),
    (0x1182C, 0x1183A),
    (0x11930, 0x11935),
    (0x11937, 0x11938),
    (0x1193B, 0x1193E),
    (0x11940, 0x11940),
    (0x11942, 0x11943),
    (0x119D1, 0x119D7),
    (0x119DA, 0x119E0),
    (0x119E4, 0x119E4),
    (0x11A01, 0x11A0A),
    (0x11A33, 0x11A39),
    (0x11A3B, 0x11A3E),
    (0x11A47, 0x11A47),
    (0x11A51, 0x11A5B),
    (0x11A8A, 0x11A99),
    (0x11D31, 0x11D36),
    (0x11D3A, 0x11D3A),
    (0x11D3C, 0x11D3D),
    (0x11D3F, 0x11D45),
    (0x11D47, 0x11D47),
    (0x11D8A, 0x11D8E),
    (0x11D90, 0x11D91),
    (0x11D93, 0x11D97),
    (0x11EF3, 0x11EF6),
    (0x16F4F, 0x16F4F),
    (0x16F7F, 0x16F87),
    (0x16FE4, 0x16FE4),
    (0x16FF0, 0x16FF1),
    (0x1CF00, 0x1CF2D),
    (0x1CF30, 0x1CF46),
    (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF),
)
# Bert's normalizer (strip_accents: Mn; clean_text: Cc, Cf, Co) and its and the Punctuation
# pre-tokenizers (P) use the `unicode_categories` crate, older still (Unicode 8.0: U+1E000,
# a Glagolitic mark of 9.0, is not Mn there; U+1734 is, U+111C9 and U+166D are punctuation).
FLIP_MN = (
    (0x7FD, 0x7FD),
    (0x898, 0x89F),
    (0x8CA, 0x8E1),
    (0x9FE, 0x9FE),
    (0xAFA, 0xAFF),
    (0xB55, 0xB55),
    (0xC04, 0xC04),
    (0xC3C, 0xC3C),
    (0xD00, 0xD00),
    (0xD3B, 0xD3C),
    (0xD81, 0xD81),
    (0xEBA, 0xEBA),
    (0x1734, 0x1734),
    (0x180F, 0x180F),
    (0x1885, 0x1886),
    (0x1ABF, 0x1ACE),
    (0x1DF6, 0x1DFB),
    (0xA82C, 0xA82C),
    (0xA8C5, 0xA8C5),
    (0xA8FF, 0xA8FF),
    (0xA9BD, 0xA9BD),
    (0x10D24, 0x10D27),
    (0x10EAB, 0x10EAC),
    (0x10F46, 0x10F50),
    (0x10F82, 0x10F85),
    (0x11070, 0x11070),
    (0x11073, 0x11074),
    (0x110C2, 0x110C2),
    (0x111C9, 0x111C9),
    (0x111CF, 0x111CF),
    (0x1123E, 0x1123E),
    (0x1133B, 0x1133B),
    (0x11438, 0x1143F),
    (0x11442, 0x11444),
    (0x11446, 0x11446),
    (0x1145E, 0x1145E),
    (0x1182F, 0x11837),
    (0x11839, 0x1183A),
    (0x1193B, 0x1193C),
    (0x1193E, 0x1193E),
    (0x11943, 0x11943),
    (0x119D4, 0x119D7),
    (0x119DA, 0x119DB),
    (0x119E0, 0x119E0),
    (0x11A01, 0x11A0A),
    (0x11A33, 0x11A38),
    (0x11A3B, 0x11A3E),
    (0x11A47, 0x11A47),
    (0x11A51, 0x11A56),
    (0x11A59, 0x11A5B),
    (0x11A8A, 0x11A96),
    (0x11A98, 0x11A99),
    (0x11C30, 0x11C36),
    (0x11C38, 0x11C3D),
    (0x11C3F, 0x11C3F),
    (0x11C92, 0x11CA7),
    (0x11CAA, 0x11CB0),
    (0x11CB2, 0x11CB3),
    (0x11CB5, 0x11CB6),
    (0x11D31, 0x11D36),
    (0x11D3A, 0x11D3A),
    (0x11D3C, 0x11D3D),
    (0x11D3F, 0x11D45),
    (0x11D47, 0x11D47),
    (0x11D90, 0x11D91),
    (0x11D95, 0x11D95),
    (0x11D97, 0x11D97),
    (0x11EF3, 0x11EF4),
    (0x16F4F, 0x16F4F),
    (0x16FE4, 0x16FE4),
    (0x1CF00, 0x1CF2D),
    (0x1CF30, 0x1CF46),
    (0x1E000, 0x1E006),
    (0x1E008, 0x1E018),
    (0x1E01B, 0x1E021),
    (0x1E023, 0x1E024),
    (0x1E026, 0x1E02A),
    (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF),
    (0x1E944, 0x1E94A),
)
FLIP_OTHER = ((0x890, 0x891), (0x8E2, 0x8E2), (0x110CD, 0x110CD), (0x13430, 0x13438))
FLIP_PUNCT = (
    (0x61D, 0x61D),
    (0x9FD, 0x9FD),
    (0xA76, 0xA76),
    (0xC77, 0xC77),
    (0xC84, 0xC84),
    (0x166D, 0x166D),
    (0x1B7D, 0x1B7E),
    (0x2E43, 0x2E4F),
    (0x2E52, 0x2E5D),
    (0x10EAD, 0x10EAD),
    (0x10F55, 0x10F59),
    (0x10F86, 0x10F89),
    (0x111C9, 0x111C9),
    (0x1144B, 0x1144F),
    (0x1145A, 0x1145B),
    (0x1145D, 0x1145D),
    (0x11660, 0x1166C),
    (0x116B9, 0x116B9),
    (0x1183B, 0x1183B),
    (0x11944, 0x11946),
    (0x119E2, 0x119E2),
    (0x11A3F, 0x11A46),
    (0x11A9A, 0x11A9C),
    (0x11A9E, 0x11AA2),
    (0x11C41, 0x11C45),
    (0x11C70, 0x11C71),
    (0x11EF7, 0x11EF8),
    (0x11FFF, 0x11FFF),
    (0x12FF1, 0x12FF2),
    (0x16E97, 0x16E9A),
    (0x16FE2, 0x16FE2),
    (0x1E95E, 0x1E95F),
)


def in_ranges(c: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    """Whether c is in `ranges` (sorted and disjoint, as every table here is)."""
    cp = ord(c)
    k = bisect_right(ranges, (cp, _MAX)) - 1
    return k >= 0 and ranges[k][1] >= cp


def hf_mark(c: str) -> bool:
    """A combining mark to HF's StripAccents."""
    return (_ucd.category(c)[0] == "M") != in_ranges(c, FLIP_MARK)


def hf_nonspacing(c: str) -> bool:
    """A nonspacing mark (Mn) to HF's BertNormalizer."""
    return (_ucd.category(c) == "Mn") != in_ranges(c, FLIP_MN)


def hf_other(c: str) -> bool:
    """Cc, Cf, Co or Cs to HF's BertNormalizer (clean_text)."""
    return (_ucd.category(c) in ("Cc", "Cf", "Co", "Cs")) != in_ranges(c, FLIP_OTHER)


# HF's NFC/NFD/NFKC/NFKD (and BertNormalizer's NFD) use Unicode 9.0 tables, those of
# `unicode-normalization-alignments` (probed with tokenizers 0.23.3, see tools/hf_unicode.py):
# a character assigned later is, to them, a starter that neither decomposes nor composes.
# These are the ones Unicode 14 gives a decomposition, a combining class or a place in a
# composition (U+32FF and U+1F16C have compatibility forms, U+0D3B a combining class).
NEW_FOR_HF_NORMALIZERS = (
    (0x7FD, 0x7FD),
    (0x898, 0x89F),
    (0x8CA, 0x8D3),
    (0x9FE, 0x9FE),
    (0xC3C, 0xC3C),
    (0xD3B, 0xD3C),
    (0xEBA, 0xEBA),
    (0x1715, 0x1715),
    (0x1ABF, 0x1ACE),
    (0x1DF6, 0x1DFA),
    (0x32FF, 0x32FF),
    (0xA7F2, 0xA7F4),
    (0xA82C, 0xA82C),
    (0xAB69, 0xAB69),
    (0x10781, 0x10785),
    (0x10787, 0x107B0),
    (0x107B2, 0x107BA),
    (0x10D24, 0x10D27),
    (0x10EAB, 0x10EAC),
    (0x10F46, 0x10F50),
    (0x10F82, 0x10F85),
    (0x11070, 0x11070),
    (0x1133B, 0x1133B),
    (0x1145E, 0x1145E),
    (0x11839, 0x1183A),
    (0x11930, 0x11930),
    (0x11935, 0x11935),
    (0x11938, 0x11938),
    (0x1193D, 0x1193E),
    (0x11943, 0x11943),
    (0x119E0, 0x119E0),
    (0x11A34, 0x11A34),
    (0x11A47, 0x11A47),
    (0x11A99, 0x11A99),
    (0x11D42, 0x11D42),
    (0x11D44, 0x11D45),
    (0x11D97, 0x11D97),
    (0x16FF0, 0x16FF1),
    (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF),
    (0x1F16C, 0x1F16C),
    (0x1FBF0, 0x1FBF9),
)


def unknown_to_hf_normalizers(c: str) -> bool:
    """Whether HF's Unicode normalizers leave c alone as a starter while a Python's may not:
    assigned after Unicode 9.0, or unassigned in Unicode 14 (a newer Python, like Pyodide's,
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
    return (
        "!" <= c <= "/"
        or ":" <= c <= "@"
        or "[" <= c <= "`"
        or "{" <= c <= "~"
        or (_ucd.category(c)[0] == "P") != in_ranges(c, FLIP_PUNCT)
    )


@cache
def punctuation_ranges() -> Ranges:
    ascii_punct = [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)]
    p = list(category_ranges("P"))
    return merge(_subtract(p, FLIP_PUNCT) + _subtract(list(FLIP_PUNCT), tuple(p)) + ascii_punct)


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
        elif (
            prev == "L"
            and b in ("L", "V", "LV", "LVT")
            or prev in ("LV", "V")
            and b in ("V", "T")
            or prev in ("LVT", "T")
            and b == "T"
            or b in ("Extend", "ZWJ", "SpacingMark")
            or prev == "Prepend"
        ):
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
