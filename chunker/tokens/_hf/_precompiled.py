"""SentencePiece's precompiled charsmap (the Precompiled normalizer).

A double-array trie over UTF-8 keys whose values index NUL-terminated replacements in a
string blob, applied per grapheme cluster as HF does: a cluster under 6 bytes is looked up
whole, taking the SHORTEST key that prefixes it; otherwise, or when nothing matches, each
character alone.

Most text has no character that can share a cluster with a neighbour (marks, joiners, Hangul
jamo, ...), and there every cluster is one character: a translate table does the work. Only
windows around such characters (the run and one character each side) are split into
clusters.
"""

from __future__ import annotations

import array
import sys

from ..._errors import ChunkerError
from ._chartable import Aligned, CharTable, Normalizer, find_all
from ._unicode import graphemes, joins_graphemes


class Precompiled(Normalizer):
    kind = "Precompiled"

    def __init__(self, charsmap: bytes) -> None:
        if len(charsmap) < 4:
            raise ChunkerError("Precompiled normalizer: precompiled_charsmap is too short; the tokenizer.json is damaged")
        size = int.from_bytes(charsmap[:4], "little")
        if 4 + size > len(charsmap) or size % 4:
            raise ChunkerError("Precompiled normalizer: precompiled_charsmap has a bad trie size; the tokenizer.json is damaged")
        units = array.array("I")
        units.frombytes(charsmap[4 : 4 + size])
        if units.itemsize != 4:  # pragma: no cover - no such platform here
            raise ChunkerError("Precompiled normalizer needs 32-bit array units")
        if sys.byteorder != "little":  # pragma: no cover
            units.byteswap()
        self.units = units.tolist()
        self.blob = charsmap[4 + size :]
        try:
            replacements = self.blob.decode("utf-8").split("\x00")
        except UnicodeDecodeError as e:
            raise ChunkerError(
                f"Precompiled normalizer: its replacement strings are not UTF-8 (byte {e.start:,} of them); "
                "the tokenizer.json is damaged"
            ) from None
        self.longest = max(map(len, replacements))  # in characters: what one key (a character or a cluster) becomes
        self._char: dict[str, str | None] = {}
        self._joins: dict[str, bool] = {}
        self._chars = CharTable(self._alone)

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
        try:
            return self.blob[start : end if end >= 0 else len(self.blob)].decode("utf-8")
        except UnicodeDecodeError:  # a trie value inside a character: the strings themselves decode
            raise ChunkerError(
                f"Precompiled normalizer: the replacement for {chunk!r} starts inside a character; the tokenizer.json is damaged"
            ) from None

    def _one(self, c: str) -> str | None:
        try:
            return self._char[c]
        except KeyError:
            r = self._char[c] = self.transform(c)
            return r

    def _alone(self, c: str) -> str:
        """What c becomes as a cluster of its own."""
        r = self._one(c)
        return c if r is None else r

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

    def _windows(self, s: str) -> list[tuple[int, int]]:
        """Spans where clusters may hold several characters; outside them every character
        is its own cluster."""
        if s.isascii() and "\r" not in s:
            return []
        joins = self._joins
        chars = set(s)
        for c in [c for c in chars if c not in joins]:
            joins[c] = joins_graphemes(c)
        joiners = [c for c in chars if joins[c]]
        if not joiners:
            return []
        out: list[tuple[int, int]] = []
        n = len(s)
        for i in find_all(s, joiners):
            a, b = max(i - 1, 0), min(i + 2, n)
            if out and a <= out[-1][1]:
                out[-1] = (out[-1][0], max(b, out[-1][1]))
            else:
                out.append((a, b))
        return out

    def text(self, s: str) -> str:
        windows = self._windows(s)
        apply = self._chars.apply
        if not windows:
            return apply(s)
        out: list[str] = []
        last = 0
        for a, b in windows:
            out.append(apply(s[last:a]))
            out.extend(r for g in graphemes(s[a:b]) for r in self._cluster(g))
            last = b
        out.append(apply(s[last:]))
        return "".join(out)

    def aligned(self, s: str) -> Aligned:
        windows = self._windows(s)
        chars = self._chars
        if not windows:
            return chars.run(s)
        parts: list[str] = []
        al: list[int] = []
        last = 0
        for a, b in [*windows, (len(s), len(s))]:
            mapped, step = chars.run(s[last:a])
            parts.append(mapped)
            al.extend(range(last, a) if step is None else [last + x for x in step])
            k = a
            for g in graphemes(s[a:b]):
                replaced = self._cluster(g)
                if len(replaced) == 1 and len(g) > 1:  # the whole cluster was replaced
                    al.extend([k] * len(replaced[0]))
                else:
                    for j, p in enumerate(replaced):
                        al.extend([k + j] * len(p))
                parts.extend(replaced)
                k += len(g)
            last = b
        return "".join(parts), al
