"""The pre-tokenizers that rewrite the text the model sees: ByteLevel (GPT-2's byte
alphabet) and Metaspace (spaces as a marker, often one prepended). Their keys stay pieces of
the normalized text (see _pretokenizers); the rewriting happens once per key, in _words.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from ._pretokenizers import ISOLATES, LOCAL, VIRTUAL, AlPiece, Keyed, PreTokenizer, positions
from ._regex import Pattern, translate

_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"


@lru_cache(maxsize=1)
def byte_chars() -> tuple[str, ...]:
    """GPT-2's printable stand-in for each byte value."""
    keep = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    out = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in out:
            out[b] = chr(256 + n)
            n += 1
    return tuple(out[b] for b in range(256))


@lru_cache(maxsize=1)
def _latin1_to_bytechars() -> dict[int, str]:
    return dict(enumerate(byte_chars()))


def to_byte_chars(s: str) -> str:
    return s.encode("utf-8", "surrogatepass").decode("latin-1").translate(_latin1_to_bytechars())


class Metaspace(PreTokenizer):
    kind = "Metaspace"
    transform = "metaspace"

    def __init__(self, replacement: str, scheme: str, split: bool) -> None:
        self.rep, self.scheme, self.split_on = replacement, scheme, split
        self.cut = ISOLATES if split else LOCAL
        self.uses_first = scheme == "first"
        r = re.escape(replacement)
        self.cover = Pattern(f"[ {r}][^ {r}]*|[^ {r}]+", f"[ {r}][^ {r}]*|[^ {r}]+")

    def _prepend(self, s: str, first: bool) -> bool:
        if s.startswith(self.rep) or not s:
            return False
        return self.scheme == "always" or (self.scheme == "first" and first)

    def split(self, s: str, first: bool) -> list[str]:
        s = s.replace(" ", self.rep)
        if self._prepend(s, first):
            s = self.rep + s
        if not self.split_on:
            return [s] if s else []
        parts = s.split(self.rep)
        rep = self.rep
        out = [rep + p for p in parts[1:]]
        if parts[0]:
            out.insert(0, parts[0])
        return out

    def split_aligned(self, s: str, al: list[int], first: bool) -> list[AlPiece]:
        s = s.replace(" ", self.rep)
        if self._prepend(s, first):
            s, al = self.rep + s, al[:1] + al
        if not self.split_on:
            return [(s, al)] if s else []
        starts = [i for i, c in enumerate(s) if c == self.rep and i > 0]
        bounds = [0, *starts, len(s)]
        return [(s[a:b], al[a:b]) for a, b in pairwise(bounds) if b > a]

    def keyed(self, s: str, first: bool, base: int) -> Keyed:
        if not s:
            return [], []
        keys = self.cover.findall(s) if self.split_on else [s]
        if s[0] != " " and self._prepend(s, first):
            keys[0] = VIRTUAL + keys[0]
            base -= 1
        return keys, positions(keys, base)


class ByteLevel(PreTokenizer):
    kind = "ByteLevel"
    transform = "bytes"

    def __init__(self, add_prefix_space: bool, use_regex: bool) -> None:
        self.add_prefix_space, self.use_regex = add_prefix_space, use_regex
        self.rx = translate(_GPT2) if use_regex else None
        self.cut = ISOLATES if use_regex else LOCAL
        self.splits = use_regex or add_prefix_space

    def _words(self, s: str) -> list[str]:
        if self.add_prefix_space and not s.startswith(" "):
            s = " " + s
        if self.rx is None:
            return [s] if s else []
        return self.rx.findall(s)

    def split(self, s: str, first: bool) -> list[str]:
        return [to_byte_chars(w) for w in self._words(s)]

    def split_aligned(self, s: str, al: list[int], first: bool) -> list[AlPiece]:
        if self.add_prefix_space and not s.startswith(" ") and s:
            s, al = " " + s, al[:1] + al
        words = self.rx.findall(s) if self.rx is not None else ([s] if s else [])
        out = []
        a = 0
        for word in words:
            b = a + len(word)
            if word.isascii():
                w_al = al[a:b]
            else:
                w_al = []
                for c, o in zip(word, al[a:b]):
                    w_al.append(o)
                    n = len(c.encode("utf-8", "surrogatepass"))
                    if n > 1:
                        w_al.extend([-o - 1] * (n - 1))
            out.append((to_byte_chars(word), w_al))
            a = b
        return out

    def keyed(self, s: str, first: bool, base: int) -> Keyed:
        if not s:
            return [], []
        virtual = self.add_prefix_space and s[0] != " "
        if self.rx is None:
            keys = [VIRTUAL + s if virtual else s]
        elif virtual:
            keys = self.rx.findall(" " + s)
            keys[0] = VIRTUAL + keys[0][1:]
        else:
            keys = self.rx.findall(s)
        return keys, positions(keys, base - virtual)
