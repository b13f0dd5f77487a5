"""Normalizers: each maps a string to its normalized form, two ways.

`text(s)` is the fast path (counting). `aligned(s, al)` also carries `al`, the original
code-point offset of every character of `s`, and returns the offsets of the output: a
character another one turned into inherits that one's offset; an inserted one (Prepend,
Chinese-character padding) the offset of the character it was inserted next to. Both paths
give the same string.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

from .._errors import ChunkerError
from ._regex import translate
from ._unicode import (
    OLD_NOT_MN,
    OLD_NOT_OTHER,
    WHITESPACE,
    graphemes,
    in_ranges,
    joins_graphemes,
)

Aligned = tuple[str, list[int]]


class Normalizer:
    kind = ""

    def text(self, s: str) -> str:
        raise NotImplementedError

    def aligned(self, s: str, al: list[int]) -> Aligned:
        raise NotImplementedError


class CharMap(Normalizer):
    """A normalizer that maps each character on its own (`one`), via a translate table."""

    def __init__(self) -> None:
        self._table: dict[int, str] = {}
        self._seen: set[str] = set()

    def one(self, c: str) -> str:
        raise NotImplementedError

    def _learn(self, s: str) -> dict[int, str]:
        new = set(s) - self._seen
        if new:
            for c in new:
                out = self.one(c)
                if out != c:
                    self._table[ord(c)] = out
            self._seen |= new
        return self._table

    def text(self, s: str) -> str:
        table = self._learn(s)
        present = [c for c in set(s) if ord(c) in table] if table else []
        keys = set(present)
        if len(present) <= 8 and not any(keys.intersection(table[ord(c)]) - {c} for c in present):
            # A few distinct characters to change (newlines to spaces, say): str.replace
            # per character runs at memcpy speed, str.translate at a dict lookup per char.
            for c in present:
                s = s.replace(c, table[ord(c)])
            return s
        return s.translate(table)

    def aligned(self, s: str, al: list[int]) -> Aligned:
        table = self._learn(s)
        out: list[str] = []
        new_al: list[int] = []
        for c, o in zip(s, al):
            r = table.get(ord(c), c)
            out.append(r)
            new_al.extend([o] * len(r))
        return "".join(out), new_al


def _lower_one(c: str) -> str:
    # Rust lowercases each char alone: no final-sigma rule (Python's str.lower has one).
    return c.lower()


class Lowercase(Normalizer):
    kind = "Lowercase"

    def text(self, s: str) -> str:
        if "\u03a3" in s:
            s = s.replace("\u03a3", "\u03c3")
        return s.lower()

    def aligned(self, s: str, al: list[int]) -> Aligned:
        if s.isascii():
            return s.lower(), al
        out: list[str] = []
        new_al: list[int] = []
        for c, o in zip(s, al):
            r = _lower_one(c)
            out.append(r)
            new_al.extend([o] * len(r))
        return "".join(out), new_al


def _ascii_runs(s: str) -> list[tuple[int, int]]:
    """Spans of s that normalize independently: each ASCII char (no ASCII char composes
    with a neighbour or reorders) and each maximal run of non-ASCII characters."""
    return [m.span() for m in re.finditer(r"[\x00-\x7f]|[^\x00-\x7f]+", s)]


class Unicode(Normalizer):
    def __init__(self, form: str) -> None:
        self.form = self.kind = form

    def text(self, s: str) -> str:
        return s if s.isascii() else unicodedata.normalize(self.form, s)

    def aligned(self, s: str, al: list[int]) -> Aligned:
        if s.isascii() or unicodedata.is_normalized(self.form, s):
            return s, al
        return _normalize_aligned(self.form, s, al)


def _normalize_aligned(form: str, s: str, al: list[int]) -> Aligned:
    out: list[str] = []
    new_al: list[int] = []
    norm = unicodedata.normalize
    for a, b in _ascii_runs(s):
        seg = s[a:b]
        if b - a == 1 and seg.isascii():
            out.append(seg)
            new_al.append(al[a])
            continue
        whole = norm(form, seg)
        pieces = [norm(form, c) for c in seg]
        if "".join(pieces) == whole:  # no composition or reordering across characters
            for k, p in enumerate(pieces):
                new_al.extend([al[a + k]] * len(p))
        else:
            new_al.extend([al[a]] * len(whole))
        out.append(whole)
    return "".join(out), new_al


def _bert_control(c: str) -> bool:
    if c in "\t\n\r":
        return False
    return unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs") and not in_ranges(c, OLD_NOT_OTHER)


def _chinese(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B920 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


class _BertFirst(CharMap):
    """BertNormalizer's clean_text and Chinese padding: both per character."""

    def __init__(self, clean: bool, chinese: bool) -> None:
        super().__init__()
        self.clean, self.chinese = clean, chinese

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
        return "" if unicodedata.category(c) == "Mn" and not in_ranges(c, OLD_NOT_MN) else c


class _DropMarks(CharMap):
    def one(self, c: str) -> str:
        return "" if unicodedata.category(c)[0] == "M" else c


class Sequence(Normalizer):
    kind = "Sequence"

    def __init__(self, parts: list[Normalizer]) -> None:
        self.parts = parts

    def text(self, s: str) -> str:
        for p in self.parts:
            s = p.text(s)
        return s

    def aligned(self, s: str, al: list[int]) -> Aligned:
        for p in self.parts:
            s, al = p.aligned(s, al)
        return s, al


def BertNormalizer(clean_text: bool = True, handle_chinese_chars: bool = True,
                   strip_accents: bool | None = None, lowercase: bool = True) -> Normalizer:
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

    def aligned(self, s: str, al: list[int]) -> Aligned:
        a, b = self._span(s)
        return s[a:b], al[a:b]


class Prepend(Normalizer):
    kind = "Prepend"

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def text(self, s: str) -> str:
        return self.prefix + s if s else s

    def aligned(self, s: str, al: list[int]) -> Aligned:
        if not s:
            return s, al
        return self.prefix + s, [al[0]] * len(self.prefix) + al


class Replace(Normalizer):
    kind = "Replace"

    def __init__(self, pattern: dict[str, str], content: str) -> None:
        if "String" in pattern:
            self.literal: str | None = pattern["String"]
            self.rx = re.compile(re.escape(pattern["String"]))
        else:
            self.literal = None
            self.rx = translate(pattern["Regex"])
        self.content = content

    def text(self, s: str) -> str:
        if self.literal is not None:
            return s.replace(self.literal, self.content) if self.literal else s
        return self.rx.sub(self.content.replace("\\", "\\\\"), s)

    def aligned(self, s: str, al: list[int]) -> Aligned:
        if self.literal == "":
            return s, al
        out: list[str] = []
        new_al: list[int] = []
        last = 0
        n = len(self.content)
        for m in self.rx.finditer(s):
            a, b = m.span()
            out.append(s[last:a])
            new_al.extend(al[last:a])
            out.append(self.content)
            origin = al[a] if a < len(al) else (al[a - 1] if a else 0)
            new_al.extend([origin] * n)
            last = b
        out.append(s[last:])
        new_al.extend(al[last:])
        return "".join(out), new_al


class Precompiled(Normalizer):
    """SentencePiece's precompiled charsmap: a double-array trie over UTF-8 keys whose
    values index NUL-terminated replacements in a string blob, applied per grapheme
    cluster as HF does (a cluster under 6 bytes is looked up whole, taking the SHORTEST
    key that prefixes it; otherwise, or when nothing matches, each character alone)."""

    kind = "Precompiled"

    def __init__(self, charsmap: bytes) -> None:
        if len(charsmap) < 4:
            raise ChunkerError("Precompiled normalizer: precompiled_charsmap is too short; "
                               "the tokenizer.json is damaged")
        size = int.from_bytes(charsmap[:4], "little")
        if 4 + size > len(charsmap) or size % 4:
            raise ChunkerError("Precompiled normalizer: precompiled_charsmap has a bad trie "
                               "size; the tokenizer.json is damaged")
        import array

        units = array.array("I")
        units.frombytes(charsmap[4:4 + size])
        if units.itemsize != 4:  # pragma: no cover - no such platform here
            raise ChunkerError("Precompiled normalizer needs 32-bit array units")
        import sys

        if sys.byteorder != "little":  # pragma: no cover
            units.byteswap()
        self.units = units.tolist()
        self.blob = charsmap[4 + size:]
        self._char: dict[str, str | None] = {}
        self._table: dict[int, str] = {}

    def common_prefix_search(self, key: bytes) -> list[int]:
        """Values of the trie's keys that are prefixes of `key`, shortest first."""
        units = self.units
        results: list[int] = []
        pos = 0
        unit = units[0]
        pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
        for c in key:
            if c == 0:
                break
            pos ^= c
            if pos >= len(units):
                return results
            unit = units[pos]
            if unit & ((1 << 31) | 0xFF) != c:
                return results
            pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1:
                results.append(units[pos] & ((1 << 31) - 1))
        return results

    def transform(self, chunk: str) -> str | None:
        found = self.common_prefix_search(chunk.encode("utf-8", "surrogatepass"))
        if not found:
            return None
        start = found[0]
        end = self.blob.find(b"\x00", start)
        return self.blob[start:end if end >= 0 else len(self.blob)].decode("utf-8")

    def _one(self, c: str) -> str | None:
        try:
            return self._char[c]
        except KeyError:
            r = self._char[c] = self.transform(c)
            if r is not None:
                self._table[ord(c)] = r
            return r

    def _simple(self, s: str) -> bool:
        """No character of s can join another in a grapheme: each cluster is one char."""
        return not any(map(joins_graphemes, set(s)))

    def text(self, s: str) -> str:
        if self._simple(s):
            for c in set(s) - self._char.keys():
                self._one(c)
            return s.translate(self._table)
        return "".join(r for g in graphemes(s) for r in self._cluster(g))

    def _cluster(self, g: str) -> list[str]:
        """Replacement strings for one cluster, one per character it was taken as."""
        if len(g) == 1:
            r = self._one(g)
            return [g if r is None else r]
        if len(g.encode("utf-8", "surrogatepass")) < 6:
            r = self.transform(g)
            if r is not None:
                return [r]
        out = []
        for c in g:
            r = self._one(c)
            out.append(c if r is None else r)
        return out

    def aligned(self, s: str, al: list[int]) -> Aligned:
        out: list[str] = []
        new_al: list[int] = []
        k = 0
        for g in graphemes(s):
            parts = self._cluster(g)
            if len(parts) == 1 and len(g) > 1:  # the whole cluster was replaced
                out.append(parts[0])
                new_al.extend([al[k]] * len(parts[0]))
            else:
                for j, p in enumerate(parts):
                    out.append(p)
                    new_al.extend([al[k + j]] * len(p))
            k += len(g)
        return "".join(out), new_al


def _unsupported(kind: str) -> ChunkerError:
    return ChunkerError(f"normalizer type {kind!r} is not supported by the pure-Python HF "
                        "tokenizer; supported: " + ", ".join(sorted(_BUILDERS)))


def _bytes(b64: str) -> bytes:
    import base64

    return base64.b64decode(b64)


_BUILDERS: dict[str, Callable[[dict[str, Any]], Normalizer]] = {
    "BertNormalizer": lambda d: BertNormalizer(d.get("clean_text", True),
                                               d.get("handle_chinese_chars", True),
                                               d.get("strip_accents"), d.get("lowercase", True)),
    "NFC": lambda d: Unicode("NFC"), "NFD": lambda d: Unicode("NFD"),
    "NFKC": lambda d: Unicode("NFKC"), "NFKD": lambda d: Unicode("NFKD"),
    "Lowercase": lambda d: Lowercase(),
    "StripAccents": lambda d: StripAccents(),
    "Replace": lambda d: Replace(d["pattern"], d["content"]),
    "Prepend": lambda d: Prepend(d["prepend"]),
    "Strip": lambda d: Strip(d.get("strip_left", True), d.get("strip_right", True)),
    "Precompiled": lambda d: Precompiled(_bytes(d["precompiled_charsmap"] or "")),
    "Sequence": lambda d: Sequence([build(x) for x in d["normalizers"]]),
}


def build(d: dict[str, Any]) -> Normalizer:
    kind = d.get("type", "")
    if kind not in _BUILDERS:
        raise _unsupported(kind)
    n = _BUILDERS[kind](d)
    if kind != "BertNormalizer":
        n.kind = kind
    return n
