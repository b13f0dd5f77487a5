"""Normalizers: each maps a string to its normalized form, two ways.

`text(s)` is the fast path (counting). `aligned(s)` also returns the alignment: for each
character of the output, the index in `s` of the character it came from, or None when the
output has s's length and character i came from character i (what nearly every normalizer
does to nearly all text, so the common case builds no per-character list). A character that
another one turned into inherits that one's index; an inserted one (Prepend, Chinese padding)
the index of the character it was inserted next to. Both paths give the same string.

>>> BertNormalizer().aligned("Héllo 中")
('hello  中 ', [0, 1, 2, 3, 4, 5, 6, 6, 6])

(NFD splits "é" in two and the mark is dropped again; the Chinese character is padded with
spaces that take its index.)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

from ..._errors import ChunkerError
from ._chartable import Aligned, Alignment, CharTable, Normalizer, compose, expand, find_all
from ._regex import Pattern, translate
from ._unicode import WHITESPACE, hf_mark, hf_nonspacing, hf_other, unknown_to_hf_normalizers

# What normalization may make of a text, two ways. A file decides what its Replace and Prepend
# steps insert: a Sequence of k Replace 'a' -> 'a'*10 multiplies a text's length by 10**k
# (k=8 took 16 s and 4.4 GB on 53 characters), so a file whose steps can multiply it by more
# than MAX_GROWTH, or add more than MAX_ADDED characters, is refused when it is loaded
# (`check_growth`). The other steps grow a text by Unicode's rules (NFKD makes 18 characters
# of U+FDFA, Chinese padding 3 of one), which chained can still compound: while a Sequence
# normalizes, a step that leaves more than CAP_FACTOR x the input plus CAP_ADDED characters
# stops it with an error. CAP_FACTOR is above anything one real step does to real text, and
# at least what check_growth lets through, so a real file never meets it.
MAX_GROWTH = 16
MAX_ADDED = 1024
CAP_FACTOR = 32
CAP_ADDED = MAX_ADDED


def _cap(n: int) -> int:
    return CAP_FACTOR * n + CAP_ADDED


def _too_long(step: Normalizer, n: int, got: int) -> ChunkerError:
    return ChunkerError(
        f"normalizer {describe(step)} turned {n:,} characters into {got:,}, more than the "
        f"{CAP_FACTOR} times plus {CAP_ADDED:,} normalization may expand a text to: use a "
        "tokenizer.json whose normalizers do not multiply a text's length"
    )


class CharMap(Normalizer):
    """A normalizer that maps each character on its own (`one`)."""

    def __init__(self) -> None:
        self.chars = CharTable(self.one)

    def one(self, c: str) -> str:
        raise NotImplementedError

    def text(self, s: str) -> str:
        return self.chars.apply(s)

    def aligned(self, s: str) -> Aligned:
        return self.chars.run(s)


class Lowercase(Normalizer):
    """Rust lowercases each char alone: no final-sigma rule (Python's str.lower has one).
    Only U+0130 lowercases to two characters."""

    kind = "Lowercase"

    def text(self, s: str) -> str:
        if "\u03a3" in s:
            s = s.replace("\u03a3", "\u03c3")
        return s.lower()

    def aligned(self, s: str) -> Aligned:
        out = self.text(s)
        if len(out) == len(s):
            return out, None
        return out, expand(s, ["\u0130"], lambda c: 2)


# Starters that compose with a starter before them (second halves of primary composites,
# Unicode 14, and the Hangul vowel and trailing jamo).
_SECOND_STARTERS = frozenset(
    map(
        chr,
        [
            0x9BE,
            0x9D7,
            0xB3E,
            0xB56,
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
            0x102E,
            0x1B35,
            0x11127,
            0x1133E,
            0x11357,
            0x114B0,
            0x114BA,
            0x114BD,
            0x115AF,
            0x11930,
            *range(0x1161, 0x1176),
            *range(0x11A8, 0x11C3),
        ],
    )
)
_NON_ASCII = re.compile("[^\x00-\x7f]+")


def _cuts_before(c: str, known: dict[str, bool]) -> bool:
    """Whether normalization never reaches across the start of c: its compatibility
    decomposition starts with a starter that composes with nothing before it (or HF's tables
    do not know it)."""
    r = known.get(c)
    if r is None:
        d = unicodedata.normalize("NFKD", c)[0]
        r = known[c] = unknown_to_hf_normalizers(c) or (unicodedata.combining(d) == 0 and d not in _SECOND_STARTERS)
    return r


class Unicode(Normalizer):
    """NFC, NFD, NFKC or NFKD as HF computes it: with Python's unicodedata, except that
    characters HF's older tables do not know stay as they are and keep their neighbours
    apart (see unknown_to_hf_normalizers)."""

    def __init__(self, form: str) -> None:
        self.form = self.kind = form
        self._cuts: dict[str, bool] = {}
        self._unknown: dict[str, bool] = {}
        self._chars = CharTable(self._nf)

    def _nf(self, s: str) -> str:
        out = unicodedata.normalize(self.form, s)  # type: ignore[arg-type]
        if out == s:
            return s
        unknown = self._unknown
        chars = set(s)
        for c in chars:
            if c not in unknown:
                unknown[c] = unknown_to_hf_normalizers(c)
        odd = [c for c in chars if unknown[c]]
        if not odd:
            return out
        parts: list[str] = []
        last = 0
        for i in find_all(s, odd):
            parts += [unicodedata.normalize(self.form, s[last:i]), s[i]]  # type: ignore[arg-type]
            last = i + 1
        parts.append(unicodedata.normalize(self.form, s[last:]))  # type: ignore[arg-type]
        return "".join(parts)

    def text(self, s: str) -> str:
        return s if s.isascii() else self._nf(s)

    def aligned(self, s: str) -> Aligned:
        out = self.text(s)
        if out == s:
            return s, None
        # Usually each character normalizes on its own (no composition or reordering
        # across characters): then the alignment is a per-character map's.
        alone, al = self._chars.run(s)
        return out, al if alone == out else self._align(s)

    def _align(self, s: str) -> list[int]:
        """Cut s before every character normalization cannot reach across (ASCII included;
        the ASCII character before a non-ASCII run stays with it, a mark may follow it);
        each segment maps per character when its characters normalize alone to its whole
        normalization, else to its first character."""
        norm, known = self._nf, self._cuts
        al: list[int] = []
        last = 0
        for m in _NON_ASCII.finditer(s):
            i, j = m.span()
            a = max(i - 1, last)
            al.extend(range(last, a))
            start = a
            for k in range(i, j + 1):
                if k < j and (k == start or not _cuts_before(s[k], known)):
                    continue
                seg = s[start:k]
                pieces = [norm(c) for c in seg]
                if len(seg) == 1 or "".join(pieces) == norm(seg):
                    for x, p in enumerate(pieces):
                        al.extend([start + x] * len(p))
                else:
                    al.extend(self._positions(seg, start))
                start = k
            last = j
        al.extend(range(last, len(s)))
        return al

    def _positions(self, seg: str, start: int) -> list[int]:
        """The alignment HF gives a segment whose marks reorder or compose across characters.

        HF decomposes each character (its first character replaces it, the others are
        inserted), sorts the marks by combining class taking that bookkeeping along, and
        composes (a composed mark's share goes to its starter); then it hands out the
        original characters in order: each output character takes the next one, or as
        many as it replaced, an inserted one the last one taken. So after reordering a mark
        is aligned by position, not with the character it came from ("\u0628\u0651\u0650"
        is \u0628\u0650\u0651 at 0, 1, 2)."""
        form = self.form
        unknown = unknown_to_hf_normalizers
        items: list[list[Any]] = []  # [character, combining class, change]
        for c in seg:
            d = c if unknown(c) else unicodedata.normalize("NFKD" if "K" in form else "NFD", c)
            items += [[x, 0 if unknown(x) else unicodedata.combining(x), int(j > 0)] for j, x in enumerate(d)]
        for i in range(1, len(items)):  # a stable sort of each run of marks
            j = i
            while j > 0 and items[j - 1][1] > items[j][1] > 0:
                items[j - 1], items[j] = items[j], items[j - 1]
                j -= 1
        if form in ("NFC", "NFKC"):
            out: list[list[Any]] = []
            starter = -1
            for it in items:
                if starter >= 0:
                    prev = out[-1][1] if len(out) - 1 > starter else None
                    if prev is None or (prev != 0 and prev < it[1]):
                        both = unicodedata.normalize("NFC", out[starter][0] + it[0])
                        if len(both) == 1 and not unknown(both):
                            out[starter][0] = both
                            out[starter][2] += it[2] - 1
                            continue
                if it[1] == 0:
                    starter = len(out)
                out.append(it)
            items = out
        if "".join(it[0] for it in items) != self._nf(seg):
            return [start] * len(self._nf(seg))
        al: list[int] = []
        p = start
        for _, _, change in items:
            if change > 0:
                al.append(max(p - 1, 0))
            else:
                al.append(p)
                p += 1 - change
        return al


def _bert_control(c: str) -> bool:
    if c in "\t\n\r":
        return False
    return hf_other(c)


def _chinese(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B920 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


class _BertFirst(CharMap):
    """BertNormalizer's clean_text and Chinese padding: both per character."""

    def __init__(self, clean: bool, chinese: bool) -> None:
        self.clean, self.chinese = clean, chinese
        super().__init__()

    def one(self, c: str) -> str:
        if self.clean:
            if c in "\x00\ufffd" or _bert_control(c):
                return ""
            if c in WHITESPACE:
                c = " "
        if self.chinese and _chinese(ord(c)):
            return f" {c} "
        return c


class _DropMn(CharMap):
    def one(self, c: str) -> str:
        return "" if hf_nonspacing(c) else c


class _DropMarks(CharMap):
    def one(self, c: str) -> str:
        return "" if hf_mark(c) else c


class Sequence(Normalizer):
    """Normalizers one after the other; runs of per-character ones go as one (_Fused)."""

    kind = "Sequence"

    def __init__(self, parts: list[Normalizer], fuse: bool = True) -> None:
        self.parts = parts
        self._runs: list[Normalizer] = []
        group: list[Normalizer] = []
        for p in [*parts, None]:
            if p is not None and fuse and _per_char(p):
                group.append(p)
                continue
            if len(group) > 1:
                self._runs.append(_Fused(group))
            else:
                self._runs += group
            group = []
            if p is not None:
                self._runs.append(p)

    # Each step's length is held to the cap of the outermost input: a nested Sequence gets
    # the same budget (the input's length, the cap, the outer step it is part of), so one step
    # at most, never a chain, runs past it. A BertNormalizer (a Sequence) is named as itself.
    def text(self, s: str, budget: tuple[int, int, Normalizer | None] | None = None) -> str:
        n, limit, named = budget or (len(s), _cap(len(s)), None)
        named = named or (self if self.kind not in ("", "Sequence") else None)
        for p in self._runs:
            s = p.text(s, (n, limit, named or p)) if isinstance(p, Sequence) else p.text(s)
            if len(s) > limit:
                raise _too_long(named or p, n, len(s))
        return s

    def aligned(self, s: str, budget: tuple[int, int, Normalizer | None] | None = None) -> Aligned:
        n, limit, named = budget or (len(s), _cap(len(s)), None)
        named = named or (self if self.kind not in ("", "Sequence") else None)
        al: Alignment = None
        for p in self._runs:
            s, step = p.aligned(s, (n, limit, named or p)) if isinstance(p, Sequence) else p.aligned(s)
            if len(s) > limit:
                raise _too_long(named or p, n, len(s))
            al = compose(al, step)
        return s, al


def _per_char(n: Normalizer) -> bool:
    """Whether n maps each character on its own (NFD and NFKD up to the order of marks)."""
    return (
        isinstance(n, (CharMap, Lowercase))
        or (isinstance(n, Replace) and n.literal is not None and len(n.literal) == 1)
        or (isinstance(n, Unicode) and n.form in ("NFD", "NFKD"))
    )


class _Fused(Normalizer):
    """Consecutive per-character normalizers as one table (BertNormalizer's four steps in
    one pass). A decomposition can reorder combining marks across characters; that changes
    the result only when a later step keeps such a mark, so a text holding a character whose
    decomposition has a kept mark goes through the steps one by one."""

    def __init__(self, parts: list[Normalizer]) -> None:
        self.parts = parts
        self._steps = Sequence(parts, fuse=False)
        self._risky: set[str] = set()
        self.chars = CharTable(self._one)

    def _one(self, c: str) -> str:
        r = c
        for k, p in enumerate(self.parts):
            r = p.text(r)
            # One character's entry is held to CAP_FACTOR characters, so the table's output
            # is within the Sequence's cap (chained Chinese padding would make 3**k of one).
            if len(r) > CAP_FACTOR:
                raise _too_long(p, 1, len(r))
            if isinstance(p, Unicode):
                rest = Sequence(self.parts[k + 1 :], fuse=False)
                if any(unicodedata.combining(x) and rest.text(x) for x in r):
                    self._risky.add(c)
        return r

    def _plain(self, s: str) -> bool:
        return not self._risky or self._risky.isdisjoint(s)

    def text(self, s: str) -> str:
        out = self.chars.apply(s)  # learns s's characters, and so which are risky
        return out if self._plain(s) else self._steps.text(s)

    def aligned(self, s: str) -> Aligned:
        out = self.chars.run(s)
        return out if self._plain(s) else self._steps.aligned(s)


def BertNormalizer(
    clean_text: bool = True, handle_chinese_chars: bool = True, strip_accents: bool | None = None, lowercase: bool = True
) -> Normalizer:
    parts: list[Normalizer] = []
    if clean_text or handle_chinese_chars:
        parts.append(_BertFirst(clean_text, handle_chinese_chars))
    if lowercase if strip_accents is None else strip_accents:
        parts += [Unicode("NFD"), _DropMn()]
    if lowercase:
        parts.append(Lowercase())
    seq = Sequence(parts)
    seq.kind = "BertNormalizer"
    return seq


def StripAccents() -> Normalizer:
    n = _DropMarks()
    n.kind = "StripAccents"
    return n


class Strip(Normalizer):
    kind = "Strip"

    def __init__(self, left: bool, right: bool) -> None:
        self.left, self.right = left, right

    def _span(self, s: str) -> tuple[int, int]:
        a, b = 0, len(s)
        if self.left:
            while a < b and s[a] in WHITESPACE:
                a += 1
        if self.right:
            while b > a and s[b - 1] in WHITESPACE:
                b -= 1
        return a, b

    def text(self, s: str) -> str:
        a, b = self._span(s)
        return s[a:b]

    def aligned(self, s: str) -> Aligned:
        a, b = self._span(s)
        return s[a:b], None if (a, b) == (0, len(s)) else list(range(a, b))


class Prepend(Normalizer):
    kind = "Prepend"

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def text(self, s: str) -> str:
        return self.prefix + s if s else s

    def aligned(self, s: str) -> Aligned:
        if not s or not self.prefix:
            return s, None
        return self.prefix + s, [0] * len(self.prefix) + list(range(len(s)))


class Replace(Normalizer):
    kind = "Replace"

    def __init__(self, pattern: dict[str, str], content: str) -> None:
        if "String" in pattern:
            self.literal: str | None = pattern["String"]
            self.onig = re.escape(pattern["String"])
            self.rx = Pattern(self.onig, self.onig)
        else:
            self.literal = None
            self.onig = pattern["Regex"]
            self.rx = translate(pattern["Regex"])
        self.content = content
        # At most how much longer it makes a text: (factor, characters added). Each match
        # of a string is len(literal) characters; a regex's match is taken as 1 (a bound,
        # not its shortest), and one that can match empty inserts between any two.
        n = len(content)
        if self.literal is not None:
            self.growth = (max(1.0, n / len(self.literal)) if self.literal else 1.0), 0
        elif self.rx.empty:
            self.growth = 1.0 + n, n
        else:
            self.growth = max(1.0, float(n)), 0

    def text(self, s: str) -> str:
        if self.literal is not None:
            return s.replace(self.literal, self.content) if self.literal else s
        return self.rx.sub(self.content, s)

    def aligned(self, s: str) -> Aligned:
        out = self.text(s)
        if self.literal == "" or out == s or (self.literal is not None and len(self.literal) == len(self.content) == 1):
            return out, None
        al: list[int] = []
        last = 0
        n = len(self.content)
        for a, b in self.rx.spans(s):
            al.extend(range(last, a))
            # HF aligns the replacement with the match's last character.
            al.extend([b - 1 if b > a else min(a, max(len(s) - 1, 0))] * n)
            last = b
        al.extend(range(last, len(s)))
        return out, al


def _unsupported(kind: str) -> ChunkerError:
    return ChunkerError(
        f"normalizer type {kind!r} is not supported by the pure-Python HF tokenizer; supported: " + ", ".join(sorted(_BUILDERS))
    )


def _precompiled(d: dict[str, Any]) -> Normalizer:
    import base64
    import binascii

    from ._precompiled import Precompiled

    try:
        charsmap = base64.b64decode(d["precompiled_charsmap"] or "", validate=True)
    except (binascii.Error, ValueError):
        raise ChunkerError("Precompiled normalizer: precompiled_charsmap is not base64; the tokenizer.json is damaged") from None
    step = Precompiled(charsmap)
    # Its replacements are the file's to choose, like Replace's content, but made by Unicode's
    # rules (NFKC makes 18 characters of U+FDFA). One of a megabyte would make a megabyte of
    # every character of a text before any cap could see the result. The bound is on each
    # replacement, whatever its key's length: a rule of SentencePiece's own making that turns
    # a few characters into more than 32 is refused too (none of the nmt_nfkc kind does).
    if step.longest > CAP_FACTOR:
        raise ChunkerError(
            f"Precompiled normalizer: a replacement of {step.longest:,} characters, more than the {CAP_FACTOR} "
            "normalization may make of one character; the tokenizer.json is damaged"
        )
    return step


_BUILDERS: dict[str, Callable[[dict[str, Any]], Normalizer]] = {
    "BertNormalizer": lambda d: BertNormalizer(
        d.get("clean_text", True), d.get("handle_chinese_chars", True), d.get("strip_accents"), d.get("lowercase", True)
    ),
    "NFC": lambda d: Unicode("NFC"),
    "NFD": lambda d: Unicode("NFD"),
    "NFKC": lambda d: Unicode("NFKC"),
    "NFKD": lambda d: Unicode("NFKD"),
    "Lowercase": lambda d: Lowercase(),
    "StripAccents": lambda d: StripAccents(),
    "Replace": lambda d: Replace(d["pattern"], d["content"]),
    "Prepend": lambda d: Prepend(d["prepend"]),
    "Strip": lambda d: Strip(d.get("strip_left", True), d.get("strip_right", True)),
    "Precompiled": _precompiled,
    "Sequence": lambda d: _sequence([build(x) for x in d["normalizers"]]),
}


def describe(n: Normalizer) -> str:
    """A normalizer as an error names it: its type, and what it inserts."""
    if isinstance(n, Replace):
        return f"Replace {n.onig[:30]!r} -> {n.content[:30]!r}" + ("..." if len(n.content) > 30 else "")
    if isinstance(n, Prepend):
        return f"Prepend {n.prefix[:30]!r}" + ("..." if len(n.prefix) > 30 else "")
    if isinstance(n, _Fused):
        return " + ".join(p.kind for p in n.parts if p.kind) or "BertNormalizer"
    return n.kind


def _growth(n: Normalizer) -> tuple[float, int]:
    """(factor, added): n makes a text of L characters at most factor x L + added long, as far
    as the file decides it (Replace and Prepend; see MAX_GROWTH). Raises ChunkerError naming
    the step at which a Sequence passes the limits."""
    if isinstance(n, Replace):
        return n.growth
    if isinstance(n, Prepend):
        return 1.0, len(n.prefix)
    if not isinstance(n, Sequence):
        return 1.0, 0
    return _chain(n.parts)


def _chain(parts: list[Normalizer]) -> tuple[float, int]:
    factor, added = 1.0, 0
    for k, p in enumerate(parts):
        f, a = _growth(p)
        factor, added = factor * f, int(min(f * added + a, 1e18))
        if factor > MAX_GROWTH or added > MAX_ADDED:
            raise _grows(p, factor, added, chained=k > 0)
    return factor, added


def _grows(step: Normalizer, factor: float, added: int, chained: bool = False) -> ChunkerError:
    times = f"{factor:,.0f}" if factor < 1e12 else f"{factor:.1e}"
    plus = f" plus {added:,} characters" if added else ""
    return ChunkerError(
        f"normalizer {describe(step)} can make a text {times} times longer{plus}"
        f"{' (with the steps before it)' if chained else ''}, more than the {MAX_GROWTH} times plus {MAX_ADDED:,} allowed: use a "
        "tokenizer.json whose Replace and Prepend normalizers do not multiply a text's length"
    )


def check_growth(n: Normalizer) -> None:
    """Refuse a normalizer that can expand a text past MAX_GROWTH x its length plus MAX_ADDED."""
    factor, added = _growth(n)
    if factor > MAX_GROWTH or added > MAX_ADDED:
        raise _grows(n, factor, added)


def _sequence(parts: list[Normalizer]) -> Normalizer:
    _chain(parts)  # before the Sequence learns its tables, which runs the steps
    return Sequence(parts)


def build(d: dict[str, Any]) -> Normalizer:
    kind = d.get("type", "")
    if kind not in _BUILDERS:
        raise _unsupported(kind)
    n = _BUILDERS[kind](d)
    if kind != "BertNormalizer":
        n.kind = kind
    check_growth(n)
    return n
