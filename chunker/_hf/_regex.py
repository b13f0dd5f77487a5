"""Regexes written for Oniguruma (what HF `tokenizers` compiles Split and Replace patterns
with) translated to Python's `re`, or refused with a clear error.

What translates: ``\\p{X}``/``\\P{X}``/``\\p{^X}`` for general categories (L, Lu, N, Nd, P,
S, M, Z, C, ...) inside and outside classes, and the Unicode meanings of ``\\s``, ``\\S``,
``\\d``, ``\\w``, ``\\h``; ``(?i:...)``, lookarounds, atomic groups and possessive
quantifiers pass through (Python 3.11 has them). Scripts (``\\p{Han}``), POSIX brackets,
class intersection (``&&``), ``\\G``, ``\\K``, ``\\X``, ``\\R``, backreferences and named
groups are refused.

>>> rx = translate(r" ?\\p{L}+| ?\\p{N}+")
>>> [m.group() for m in rx.finditer("Größe 42")]
['Größe', ' 42']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from .._errors import ChunkerError
from ._unicode import Ranges, category_ranges, complement, ranges_class, whitespace_ranges, word_ranges

_CATEGORY_NAMES = {
    "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc",
    "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C",
    "Cc", "Cf", "Co", "Cn",
}
_LONG_NAMES = {"Letter": "L", "Mark": "M", "Number": "N", "Punctuation": "P", "Symbol": "S",
               "Separator": "Z", "Other": "C", "Uppercase_Letter": "Lu",
               "Lowercase_Letter": "Ll", "Decimal_Number": "Nd", "Alpha": "L", "Digit": "Nd"}
_HEX = ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66))
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _refuse(pattern: str, what: str) -> ChunkerError:
    return ChunkerError(f"Split/Replace regex {pattern!r} uses {what}, which this pure-Python "
                        "tokenizer cannot translate exactly; use a tokenizer.json without it")


def _category(name: str, pattern: str) -> Ranges:
    name = _LONG_NAMES.get(name, name)
    if name not in _CATEGORY_NAMES:
        raise _refuse(pattern, f"the Unicode property \\p{{{name}}}")
    if name == "C":  # Cs has no code points in a str that came from UTF-8
        return category_ranges("Cc,Cf,Co,Cn")
    return category_ranges(name)


_SIMPLE: dict[str, tuple[Callable[[], Ranges], bool]] = {
    "s": (whitespace_ranges, False), "S": (whitespace_ranges, True),
    "d": (lambda: category_ranges("Nd"), False), "D": (lambda: category_ranges("Nd"), True),
    "w": (word_ranges, False), "W": (word_ranges, True),
    "h": (lambda: _HEX, False), "H": (lambda: _HEX, True),
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
        end = pattern.index("}", i + 3)
        return ranges_class([(int(pattern[i + 3:end], 16),) * 2]), end + 1, False
    if c in "abfnrtvAbB0xuU" or not c.isalnum():
        return pattern[i:i + 2], i + 2, False
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
            raise _refuse(pattern, f"the group ({pattern[i:i + 3]}")
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
    """A regex compiled twice: as given, and with its classes cut to code points below
    U+10000. Python's `re` tests a class's ranges above the BMP one by one for every
    character the class rejects (\\p{L} has hundreds), so on text without such characters
    (nearly all text) the second is several times faster, and it matches the same there."""

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

    @property
    def full(self) -> re.Pattern[str]:
        if self._full is None:
            self._full = re.compile(self.source)
        return self._full

    def pick(self, s: str) -> re.Pattern[str]:
        """The compiled form to run on s."""
        return self.bmp if self._full is self.bmp or _ASTRAL.search(s) is None else self.full

    def findall(self, s: str) -> list[Any]:
        return self.pick(s).findall(s)

    def finditer(self, s: str) -> Iterator[re.Match[str]]:
        return self.pick(s).finditer(s)

    def sub(self, repl: str, s: str) -> str:
        return self.pick(s).sub(repl, s)


@lru_cache(maxsize=64)
def translate(pattern: str) -> Pattern:
    """An Onig pattern as a Python regex (see Pattern), or ChunkerError."""
    return Pattern(translate_source(pattern), translate_source(pattern, bmp=True), pattern)


@lru_cache(maxsize=64)
def classes(make: Callable[[bool], str]) -> Pattern:
    """A Pattern from a function that writes a regex with or without code points above the
    BMP (make(bmp))."""
    return Pattern(make(False), make(True))
