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

from .._errors import ChunkerError
from ._unicode import category_class, ranges_class, whitespace_class, word_class

_CATEGORY_NAMES = {
    "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc",
    "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C",
    "Cc", "Cf", "Co", "Cn",
}
_LONG_NAMES = {"Letter": "L", "Mark": "M", "Number": "N", "Punctuation": "P", "Symbol": "S",
               "Separator": "Z", "Other": "C", "Uppercase_Letter": "Lu",
               "Lowercase_Letter": "Ll", "Decimal_Number": "Nd", "Alpha": "L", "Digit": "Nd"}
_HEX = "0-9A-Fa-f"


def _refuse(pattern: str, what: str) -> ChunkerError:
    return ChunkerError(f"Split/Replace regex {pattern!r} uses {what}, which this pure-Python "
                        "tokenizer cannot translate exactly; use a tokenizer.json without it")


def _class_body(name: str, pattern: str) -> str:
    name = _LONG_NAMES.get(name, name)
    if name not in _CATEGORY_NAMES:
        raise _refuse(pattern, f"the Unicode property \\p{{{name}}}")
    if name == "C":  # Cs has no code points in a str that came from UTF-8
        return category_class("Cc,Cf,Co,Cn")
    return category_class(name)


def _negated(body: str) -> str:
    """A class body for the complement of `body` (a union of ranges)."""
    rx = re.compile(f"[{body}]")
    ranges, start = [], -1
    for cp in range(0x110000):
        inside = rx.match(chr(cp)) is not None
        if not inside and start < 0:
            start = cp
        elif inside and start >= 0:
            ranges.append((start, cp - 1))
            start = -1
    if start >= 0:
        ranges.append((start, 0x10FFFF))
    return ranges_class(ranges)


def _escape_body(pattern: str, i: int, in_class: bool) -> tuple[str, int, bool]:
    """Translate the escape at pattern[i] == '\\\\'; returns (text, next index, is_set) where
    is_set says the text is a class body (to wrap in [] outside a class)."""
    if i + 1 >= len(pattern):
        raise _refuse(pattern, "a trailing backslash")
    c = pattern[i + 1]
    if c in "pP":
        m = re.compile(r"\{(\^?)(\w+)\}").match(pattern, i + 2)
        if m is None:
            raise _refuse(pattern, "a \\p without {Name}")
        body = _class_body(m.group(2), pattern)
        negate = (c == "P") != bool(m.group(1))
        if negate:
            if in_class:
                body = _negated(body)
            else:
                return f"[^{body}]", m.end(), False
        return body, m.end(), True
    simple = {"s": (whitespace_class(), False), "S": (whitespace_class(), True),
              "d": (category_class("Nd"), False), "D": (category_class("Nd"), True),
              "w": (word_class(), False), "W": (word_class(), True),
              "h": (_HEX, False), "H": (_HEX, True)}
    if c in simple:
        body, negate = simple[c]
        if negate:
            if in_class:
                return _negated(body), i + 2, True
            return f"[^{body}]", i + 2, False
        return body, i + 2, True
    if c in "GKXRk" or c.isdigit() and c != "0":
        raise _refuse(pattern, f"\\{c}")
    if c == "z":
        return r"\Z", i + 2, False
    if c == "x" and i + 2 < len(pattern) and pattern[i + 2] == "{":
        end = pattern.index("}", i + 3)
        return _escape_cp(int(pattern[i + 3:end], 16)), end + 1, False
    if c in "abfnrtvAbB0xuU" or not c.isalnum():
        return pattern[i:i + 2], i + 2, False
    raise _refuse(pattern, f"the escape \\{c}")


def _escape_cp(cp: int) -> str:
    return f"\\U{cp:08x}" if cp > 0xFFFF else f"\\u{cp:04x}"


def translate_source(pattern: str) -> str:
    """The Python `re` source for an Onig pattern (raises ChunkerError when it cannot)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            text, i, is_set = _escape_body(pattern, i, False)
            out.append(f"[{text}]" if is_set else text)
        elif c == "[":
            body, i = _class(pattern, i)
            out.append(body)
        elif c == "(" and pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            raise _refuse(pattern, "a named group")
        elif c == "(" and pattern.startswith("(?", i) and i + 2 < n and pattern[i + 2] in "mx#":
            raise _refuse(pattern, f"the group ({pattern[i:i + 3]}")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _class(pattern: str, i: int) -> tuple[str, int]:
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
            text, j, _ = _escape_body(pattern, j, True)
            parts.append(text)
        else:
            parts.append("\\" + c if c in "]^-&~|" and c != "-" else c)
            j += 1
    return ("[^" if negate else "[") + "".join(parts) + "]", j + 1


def translate(pattern: str) -> re.Pattern[str]:
    """Compile an Onig pattern as a Python regex, or raise ChunkerError."""
    source = translate_source(pattern)
    try:
        return re.compile(source)
    except re.error as e:
        raise _refuse(pattern, f"a construct Python's re rejects ({e})") from None
