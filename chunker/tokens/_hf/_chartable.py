"""Alignments, and per-character maps learned lazily (the fast core of most normalizers).

An alignment gives, for each character of a normalizer's output, the index in its input of
the character it came from; None means same length, character i from character i.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Alignment = list[int] | None
Aligned = tuple[str, Alignment]


def compose(first: Alignment, second: Alignment) -> Alignment:
    """The alignment of two steps run one after the other."""
    if second is None:
        return first
    if first is None:
        return second
    return list(map(first.__getitem__, second))


def find_all(s: str, chars: list[str]) -> list[int]:
    """Ascending indices of the characters of s that are in `chars`."""
    if len(chars) <= 8:  # str.find beats compiling a class (re builds a 64K-entry map for it)
        at: list[int] = []
        for c in chars:
            i = s.find(c)
            while i >= 0:
                at.append(i)
                i = s.find(c, i + 1)
        at.sort()
        return at
    if len(s) < 4096:
        wanted = set(chars)
        return [i for i, c in enumerate(s) if c in wanted]
    return [m.start() for m in char_class(chars).finditer(s)]


def expand(s: str, odd: list[str], width: Callable[[str], int]) -> list[int]:
    """The alignment of a per-character map in which the characters `odd` become width(c)
    characters and every other character stays one."""
    al: list[int] = []
    last = 0
    for i in find_all(s, odd):
        al.extend(range(last, i))
        al.extend([i] * width(s[i]))
        last = i + 1
    al.extend(range(last, len(s)))
    return al


def map_chars(s: str, table: dict[int, str], present: list[str]) -> str:
    """s.translate(table), where `present` are the characters of s the table changes."""
    if len(present) <= 8:
        keys = set(present)
        if not any(keys.intersection(table[ord(c)]) - {c} for c in present):
            # A few distinct characters to change (newlines to spaces, say): str.replace
            # per character runs at memcpy speed, str.translate at a dict lookup per char.
            for c in present:
                s = s.replace(c, table[ord(c)])
            return s
    return s.translate(table)


def char_class(chars: set[str] | list[str]) -> re.Pattern[str]:
    return re.compile("[" + "".join(map(re.escape, sorted(chars))) + "]")


class CharTable:
    """A per-character map (`one`), learned lazily as a translate table of the characters it
    changes, and the set of those it does not map to exactly one character (`odd`). ASCII
    text, when every ASCII character maps to one ASCII character or to nothing, goes
    through bytes.translate."""

    def __init__(self, one: Callable[[str], str]) -> None:
        self.one = one
        self.table: dict[int, str] = {}
        self.seen: set[str] = set()
        self.changed: set[str] = set()
        self.odd: set[str] = set()
        amap = bytearray(range(256))
        delete = bytearray()
        self.ascii_ok = True
        for k in range(128):
            r = self._learn(chr(k))
            if len(r) == 1 and r.isascii():
                amap[k] = ord(r)
            elif not r:
                delete.append(k)
            else:
                self.ascii_ok = False
        self.ascii_same = amap == bytearray(range(256)) and not delete
        self.ascii_deletes = bool(delete)
        self._amap, self._adelete = bytes(amap), bytes(delete)

    def _learn(self, c: str) -> str:
        r = self.one(c)
        if r != c:
            self.table[ord(c)] = r
            self.changed.add(c)
            if len(r) != 1:
                self.odd.add(c)
        self.seen.add(c)
        return r

    def present(self, s: str) -> list[str]:
        """The characters of s that change, learning new ones."""
        chars = set(s)
        for c in chars - self.seen:
            self._learn(c)
        return list(chars & self.changed)

    def apply(self, s: str) -> str:
        if self.ascii_ok and s.isascii():
            if self.ascii_same:
                return s
            return s.encode("ascii").translate(self._amap, self._adelete).decode("ascii")
        return map_chars(s, self.table, self.present(s))

    def run(self, s: str) -> Aligned:
        """apply(s) and its alignment."""
        if self.ascii_ok and s.isascii():
            if self.ascii_same:
                return s, None
            out = s.encode("ascii").translate(self._amap, self._adelete).decode("ascii")
            if len(out) == len(s):
                return out, None
            present = [c for c in self._adelete.decode("ascii") if c in s]  # all odd
        else:
            present = self.present(s)
            out = map_chars(s, self.table, present)
        odd = [c for c in present if c in self.odd] if self.odd else []
        if not odd:
            return out, None
        table = self.table
        return out, expand(s, odd, lambda c: len(table[ord(c)]))


class Normalizer:
    kind = ""

    def text(self, s: str) -> str:
        raise NotImplementedError

    def aligned(self, s: str) -> Aligned:
        raise NotImplementedError
