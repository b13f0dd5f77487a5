"""The general path, for pre-tokenizers the key path cannot run: a Sequence with a ByteLevel or
Metaspace before its last part (Falcon's Punctuation, ByteLevel, Digits), whose later parts
split the rewritten text. Every character carries its original offset through each step
(a byte that continues a character as -offset-1); the model runs once per distinct word.
"""

from __future__ import annotations

from itertools import accumulate, chain
from typing import Any

from ._pretokenizers import Sequence


class _ModelCache(dict):  # type: ignore[type-arg]
    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def __missing__(self, word: str) -> Any:
        v = self[word] = self.fn(word)
        return v


class General:
    def __init__(self, tok: Any) -> None:
        self.tok = tok
        model = tok.model
        self.starts = _ModelCache(lambda w: tuple(model.starts(w)))
        self.counts = _ModelCache(lambda w: len(self.starts[w]))

    def words(self, s: str, first: bool) -> list[str]:
        """The model's words for one normalized piece."""
        tok = self.tok
        if not s:
            return []
        words = tok.pre.split(s, first) if tok.pre is not None else [s]
        if tok.subsplit is not None:
            fa = tok.subsplit.findall
            words = [x for w in words for x in fa(w)]
        return words

    def _segments(self, text: str) -> list[Any]:
        """Words (str) and added-token ids (int), in order."""
        tok = self.tok
        out: list[Any] = []
        for a, b, tid in tok.raw_added.split(text):
            if tid >= 0:
                out.append(tid)
                continue
            piece = text[a:b]
            first = a == 0 and tok.needs_first and tok.first_flag(piece)
            normed = tok.normalize(piece)
            for k, (c, d, tid2) in enumerate(tok.norm_split(normed)):
                if tid2 >= 0:
                    out.append(tid2)
                else:
                    out.extend(self.words(normed[c:d], first and k == 0 and c == 0))
        return out

    def encode(self, text: str) -> list[int]:
        starts = self.starts
        return list(chain.from_iterable(
            (s,) if isinstance(s, int) else (t for t, _, _ in starts[s]) for s in self._segments(text)))

    def count(self, text: str) -> int:
        counts = self.counts
        return sum(1 if isinstance(s, int) else counts[s] for s in self._segments(text))

    def offsets(self, text: str, mid_chars: list[int] | None) -> list[int]:
        tok = self.tok
        out: list[int] = []
        for a, b, tid in tok.raw_added.split(text):
            if tid >= 0:
                out.append(a)
                continue
            piece = text[a:b]
            if tok.normalizer is not None:
                normed, step = tok.normalizer.aligned(piece)
            else:
                normed, step = piece, None
            al = list(range(a, b)) if step is None else [a + x for x in step]
            first = a == 0 and bool(al) and al[0] == 0
            for k, (c, d, tid2) in enumerate(tok.norm_split(normed)):
                if tid2 >= 0:
                    out.append(al[c] if c < len(al) else (al[-1] if al else a))
                    continue
                self._word_offsets(normed[c:d], al[c:d], first and k == 0 and c == 0, out, mid_chars)
        # Offsets can step back where a normalizer reorders; the contract wants them sorted.
        return list(accumulate(out, max))

    def _word_offsets(self, s: str, al: list[int], first: bool, out: list[int],
                      mid_chars: list[int] | None) -> None:
        tok = self.tok
        if not s:
            return
        words = tok.pre.split_aligned(s, al, first) if tok.pre is not None else [(s, al)]
        if tok.subsplit is not None:
            words = [(w[m.start():m.end()], wal[m.start():m.end()])
                     for w, wal in words for m in tok.subsplit.finditer(w)]
        starts = self.starts
        for w, wal in words:
            for _, i, mid in starts[w]:
                o = wal[i]
                if o < 0:  # a byte that continues a character (byte-level alphabet)
                    o, mid = -o - 1, True
                if mid and mid_chars is not None:
                    mid_chars.append(len(out))
                out.append(o)


def needs_general(pre: Any) -> bool:
    return isinstance(pre, Sequence) and not pre.fast
