"""Regexes written for Oniguruma (what HF `tokenizers` compiles Split and Replace patterns
with) translated to Python's `re`, or refused with a clear error.

What translates: ``\\p{X}``/``\\P{X}``/``\\p{^X}`` for general categories (L, Lu, N, Nd, P,
S, M, Z, C, ...) inside and outside classes, and the Unicode meanings of ``\\s``, ``\\S``,
``\\d``, ``\\w``, ``\\h``; ``(?i:...)``, lookarounds, atomic groups and possessive
quantifiers pass through (Python 3.11 has them). Scripts (``\\p{Han}``), POSIX brackets,
class intersection (``&&``), ``\\G``, ``\\K``, ``\\X``, ``\\R``, backreferences and named
groups are refused.

>>> rx = translate(r" ?\\p{L}+| ?\\p{N}+")
>>> rx.findall("Größe 42"), rx.findall("𐐷𐐸 7"), rx.spans("𐐷𐐸 7")
(['Größe', ' 42'], ['𐐷𐐸', ' 7'], [(0, 2), (2, 4)])
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from itertools import accumulate

from ..._errors import ChunkerError
from . import _ucd
from ._unicode import Ranges, category_ranges, complement, ranges_class, whitespace_ranges, word_ranges

_CATEGORY_NAMES = {
    "L",
    "Lu",
    "Ll",
    "Lt",
    "Lm",
    "Lo",
    "M",
    "Mn",
    "Mc",
    "Me",
    "N",
    "Nd",
    "Nl",
    "No",
    "P",
    "Pc",
    "Pd",
    "Ps",
    "Pe",
    "Pi",
    "Pf",
    "Po",
    "S",
    "Sm",
    "Sc",
    "Sk",
    "So",
    "Z",
    "Zs",
    "Zl",
    "Zp",
    "C",
    "Cc",
    "Cf",
    "Co",
    "Cn",
}
_LONG_NAMES = {
    "Letter": "L",
    "Mark": "M",
    "Number": "N",
    "Punctuation": "P",
    "Symbol": "S",
    "Separator": "Z",
    "Other": "C",
    "Uppercase_Letter": "Lu",
    "Lowercase_Letter": "Ll",
    "Decimal_Number": "Nd",
    "Alpha": "L",
    "Digit": "Nd",
}
_HEX = ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66))
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _refuse(pattern: str, what: str) -> ChunkerError:
    return ChunkerError(
        f"Split/Replace regex {pattern!r} uses {what}, which this pure-Python "
        "tokenizer cannot translate exactly; use a tokenizer.json without it"
    )


def _category(name: str, pattern: str) -> Ranges:
    name = _LONG_NAMES.get(name, name)
    if name not in _CATEGORY_NAMES:
        raise _refuse(pattern, f"the Unicode property \\p{{{name}}}")
    if name == "C":  # Cs has no code points in a str that came from UTF-8
        return category_ranges("Cc,Cf,Co,Cn")
    return category_ranges(name)


_SIMPLE: dict[str, tuple[Callable[[], Ranges], bool]] = {
    "s": (whitespace_ranges, False),
    "S": (whitespace_ranges, True),
    "d": (lambda: category_ranges("Nd"), False),
    "D": (lambda: category_ranges("Nd"), True),
    "w": (word_ranges, False),
    "W": (word_ranges, True),
    "h": (lambda: _HEX, False),
    "H": (lambda: _HEX, True),
}


def _escape_body(pattern: str, i: int, in_class: bool, bmp: bool) -> tuple[str, int, bool]:
    """Translate the escape at pattern[i] == '\\\\'; returns (text, next index, is_set) where
    is_set says the text is a class body (to wrap in [] outside a class)."""
    if i + 1 >= len(pattern):
        raise _refuse(pattern, "a trailing backslash")
    c = pattern[i + 1]
    ranges: Ranges | None = None
    end = i + 2
    if c in "pP":
        m = re.compile(r"\{(\^?)(\w+)\}").match(pattern, i + 2)
        if m is None:
            raise _refuse(pattern, "a \\p without {Name}")
        ranges, end = _category(m.group(2), pattern), m.end()
        negate = (c == "P") != bool(m.group(1))
    elif c in _SIMPLE:
        make, negate = _SIMPLE[c]
        ranges = make()
    if ranges is not None:
        if not negate:
            return ranges_class(ranges, bmp), end, True
        if in_class:
            return ranges_class(complement(ranges), bmp), end, True
        return f"[^{ranges_class(ranges, bmp)}]", end, False
    if c in "GKXRk" or c.isdigit() and c != "0":
        raise _refuse(pattern, f"\\{c}")
    if c == "z":
        return r"\Z", i + 2, False
    if c == "x" and i + 2 < len(pattern) and pattern[i + 2] == "{":
        m = re.compile(r"\{([0-9A-Fa-f]{1,8})\}").match(pattern, i + 2)
        if m is None or int(m.group(1), 16) > 0x10FFFF:
            raise _refuse(pattern, "a \\x{...} escape that is not a code point in hex")
        return ranges_class([(int(m.group(1), 16),) * 2]), m.end(), False
    if c in "abfnrtvAbB0xuU" or not c.isalnum():
        return pattern[i : i + 2], i + 2, False
    raise _refuse(pattern, f"the escape \\{c}")


def translate_source(pattern: str, bmp: bool = False) -> str:
    """The Python `re` source for an Onig pattern (raises ChunkerError when it cannot); with
    `bmp`, one that matches the same on text without characters above U+FFFF."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            text, i, is_set = _escape_body(pattern, i, False, bmp)
            out.append(f"[{text}]" if is_set else text)
        elif c == "[":
            body, i = _class(pattern, i, bmp)
            out.append(body)
        elif c == "(" and pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            raise _refuse(pattern, "a named group")
        elif c == "(" and pattern.startswith("(?", i) and i + 2 < n and pattern[i + 2] in "mx#":
            raise _refuse(pattern, f"the group ({pattern[i : i + 3]}")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _class(pattern: str, i: int, bmp: bool) -> tuple[str, int]:
    """Translate the bracket class starting at pattern[i] == '['."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] == "^"
    if negate:
        j += 1
    parts: list[str] = []
    first = True
    while True:
        if j >= len(pattern):
            raise _refuse(pattern, "an unterminated character class")
        c = pattern[j]
        if c == "]" and not first:
            break
        first = False
        if c == "[":
            raise _refuse(pattern, "a nested class or POSIX bracket")
        if c == "&" and pattern.startswith("&&", j):
            raise _refuse(pattern, "class intersection (&&)")
        if c == "\\":
            text, j, _ = _escape_body(pattern, j, True, bmp)
            parts.append(text)
        else:
            parts.append("\\" + c if c in "]^-&~|" and c != "-" else c)
            j += 1
    return ("[^" if negate else "[") + "".join(parts) + "]", j + 1


class Pattern:
    """A translated regex, compiled with its classes cut to code points below U+10000.

    Python's `re` tests a class's ranges above the BMP one by one for every character the
    class rejects (\\p{L} has hundreds of them), which makes the full classes ten to a
    hundred times slower. Every class here is a union of general categories and a few fixed
    sets (_unicode), so a character above U+FFFF can stand in for by one below it with the
    same category and memberships (`_stand_in`): the pattern runs on the text with those
    characters replaced, one for one, and the matches' spans are the same. Only a pattern
    that names such characters itself runs in full on text that has them.
    """

    def __init__(self, source: str, bmp_source: str, onig: str = "") -> None:
        self.onig = onig
        self.source = source
        self._full: re.Pattern[str] | None = None
        try:
            self.bmp = re.compile(bmp_source)
        except re.error as e:
            raise _refuse(onig or source, f"a construct Python's re rejects ({e})") from None
        if bmp_source == source:
            self._full = self.bmp
        self.groups = self.bmp.groups
        self.empty = _may_match_empty(self.bmp)
        self._literal = bmp_source  # stand-ins must not be characters the pattern names
        self._substitutes = "\\U" not in bmp_source and _ASTRAL.search(bmp_source) is None
        self._stand_ins: dict[str, str | None] = {}

    @property
    def full(self) -> re.Pattern[str]:
        if self._full is None:
            self._full = re.compile(self.source)
        return self._full

    def _prepare(self, s: str) -> tuple[re.Pattern[str], str]:
        """The compiled form to run, and the text to run it on (s, or s with its characters
        above U+FFFF replaced by stand-ins)."""
        if self._full is self.bmp or _ASTRAL.search(s) is None:
            return self.bmp, s
        if not self._substitutes:
            return self.full, s
        table: dict[int, str] = {}
        for c in set(_ASTRAL.findall(s)):
            if c not in self._stand_ins:
                self._stand_ins[c] = _stand_in(c, self._literal)
            r = self._stand_ins[c]
            if r is None:
                return self.full, s
            table[ord(c)] = r
        if len(table) <= 8:
            for k, r in table.items():
                s = s.replace(chr(k), r)
            return self.bmp, s
        return self.bmp, s.translate(table)

    def spans(self, s: str) -> list[tuple[int, int]]:
        rx, t = self._prepare(s)
        if self.empty:
            return _onig_spans(rx, t)
        return [m.span() for m in rx.finditer(t)]

    def findall(self, s: str) -> list[str]:
        if self.empty:
            return [s[a:b] for a, b in self.spans(s)]
        rx, t = self._prepare(s)
        found = rx.findall(t)
        if t is s:
            return found
        if sum(map(len, found)) == len(s):  # the matches cover s: cut it at their lengths
            ends = list(accumulate(map(len, found)))
            return [s[a:b] for a, b in zip([0, *ends], ends)]
        return [s[a:b] for a, b in (m.span() for m in rx.finditer(t))]

    def sub(self, repl: str, s: str) -> str:
        """s with each match replaced by the literal `repl`."""
        rx, t = self._prepare(s)
        if t is s and not self.empty:
            return rx.sub(repl.replace("\\", "\\\\"), s)
        out: list[str] = []
        last = 0
        for a, b in _onig_spans(rx, t) if self.empty else (m.span() for m in rx.finditer(t)):
            out += [s[last:a], repl]
            last = b
        out.append(s[last:])
        return "".join(out)


def _may_match_empty(rx: re.Pattern[str]) -> bool:
    """Whether the pattern can match the empty string somewhere (its least width is 0)."""
    try:
        parser = re._parser  # type: ignore[attr-defined]  # 3.11+
    except AttributeError:  # pragma: no cover - Python 3.10
        import sre_parse as parser
    try:
        return bool(parser.parse(rx.pattern, rx.flags).getwidth()[0] == 0)
    except Exception:  # pragma: no cover - compiled already; be safe
        return True


def _onig_spans(rx: re.Pattern[str], t: str) -> list[tuple[int, int]]:
    """Matches as Oniguruma's iteration (what HF uses) finds them: an empty match where the
    previous match ended is skipped, and the search goes on one character later (Python's
    re yields it, then looks for a non-empty match at the same place)."""
    out: list[tuple[int, int]] = []
    last = skip = -1
    for m in rx.finditer(t):
        a, b = m.span()
        if a == skip:
            continue
        if a == b == last:
            skip = a
            continue
        out.append((a, b))
        last = b
    return out


_STAND_IN_KEYS: dict[tuple[str, bool, bool], list[str]] = {}


def _stand_in(c: str, literal: str) -> str | None:
    """A character below U+10000 that every class of a translated pattern treats as c: the
    same general category in the Unicode 14 table, the same membership in the sets that
    amend categories (_unicode._OTHER_ALPHA, FLIP_PUNCT), not ASCII (literals and hex
    digits are), not whitespace, and not a character the pattern names (`literal`)."""
    from ._unicode import _OTHER_ALPHA, FLIP_PUNCT, WHITESPACE, in_ranges

    key = (_ucd.category(c), in_ranges(c, _OTHER_ALPHA), in_ranges(c, FLIP_PUNCT))
    found = _STAND_IN_KEYS.get(key)
    if found is None:
        found = _STAND_IN_KEYS[key] = [
            chr(cp)
            for cp in range(0x80, 0x10000)
            if not 0xD800 <= cp < 0xE000
            and _ucd.category(chr(cp)) == key[0]
            and in_ranges(chr(cp), _OTHER_ALPHA) == key[1]
            and in_ranges(chr(cp), FLIP_PUNCT) == key[2]
            and chr(cp) not in WHITESPACE
        ][:8]
    for r in found:
        if r not in literal and f"\\u{ord(r):04x}" not in literal:
            return r
    return None


_QUANTIFIER = re.compile(r"[*+?]|\{(\d*)(,?)(\d*)\}")


def _quantifier(pattern: str, i: int) -> tuple[bool, int]:
    """(whether the quantifier at pattern[i] repeats without being possessive or
    atomic-safe, where the atom's quantifiers end)."""
    m = _QUANTIFIER.match(pattern, i)
    if m is None or (m.group(0).startswith("{") and not (m.group(1) or m.group(3))):
        return False, i
    q = m.group(0)
    repeats = q in "*+" or (q.startswith("{") and ((m.group(2) and not m.group(3)) or int(m.group(3) or m.group(1) or 0) > 1))
    end = m.end()
    if end < len(pattern) and pattern[end] == "+":  # possessive: never backtracks
        return False, end + 1
    if end < len(pattern) and pattern[end] == "?":  # lazy: backtracks all the same
        end += 1
    return bool(repeats), end


def check_backtracking(pattern: str) -> None:
    """Refuse a pattern that repeats a group which can match the same text in more than one
    way: a group under * + or {n,m} that holds a repeated quantifier or an alternation, as
    in (a+)+ or (a|aa)*. Python's re backtracks through every way, exponentially (30
    characters can take hours, and re has no time limit); Oniguruma, in HF, gives up with
    an error. Atomic groups and possessive quantifiers, which do not backtrack, pass."""
    # Per open group: [has a repeated quantifier inside, has a top-level |, is atomic].
    stack: list[list[bool]] = [[False, False, False]]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        inner = False  # whether the atom just read holds a repeat or an alternation
        if c == "\\":
            m = re.compile(r"\\[pP]\{\^?\w+\}|\\x\{[^}]*\}").match(pattern, i)
            i = m.end() if m else i + 2
        elif c == "[":
            j = i + 1 + (pattern.startswith("^", i + 1))
            j += pattern.startswith("]", j)
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
        elif c == "(":
            stack.append([False, False, pattern.startswith("(?>", i)])
            i += 1
            continue
        elif c == ")" and len(stack) > 1:
            has_repeat, has_alt, atomic = stack.pop()
            inner = (has_repeat or has_alt) and not atomic
            i += 1
        elif c == "|":
            stack[-1][1] = True
            i += 1
            continue
        else:
            i += 1
        repeats, i = _quantifier(pattern, i)
        if repeats and inner:
            raise ChunkerError(
                f"Split/Replace regex {pattern[:80]!r} repeats a group that can match the same "
                "text in more than one way (a quantifier or | inside a group under * + or "
                "{n,m}), which can take exponential time on a short text (Hugging Face's "
                "tokenizers stops it with an error); make the group atomic (?>...) or its "
                "quantifier possessive (*+, ++)"
            )
        if repeats or inner:
            stack[-1][0] = True


@lru_cache(maxsize=64)
def translate(pattern: str) -> Pattern:
    """An Onig pattern as a Python regex (see Pattern), or ChunkerError."""
    check_backtracking(pattern)
    return Pattern(translate_source(pattern), translate_source(pattern, bmp=True), pattern)


@lru_cache(maxsize=64)
def classes(make: Callable[[bool], str]) -> Pattern:
    """A Pattern from a function that writes a regex with or without code points above the
    BMP (make(bmp))."""
    return Pattern(make(False), make(True))
