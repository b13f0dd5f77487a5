"""What the model makes of each pre-token key, computed once per distinct key.

A key is a piece of normalized text as the pre-tokenizer cut it (see _pretokenizers.keyed);
the model sees it rewritten by the pre-tokenizer's transform (ByteLevel's byte alphabet,
Metaspace's replacement for spaces, a VIRTUAL first character as the prepended one). For
each key this module keeps, in plain dicts so the hot loops are C-level lookups:

- `ids[key]`: the token ids;
- `counts[key]`: how many;
- `starts[key]`: where each token starts, as an index into the key (a token that starts on
  the virtual character starts on the first real one);
- `mids[key]`: which tokens start inside a character (a byte of it, byte-level models).

Keys the pre-tokenizer drops (whitespace that BertPreTokenizer and friends remove) map to no
tokens. A key that starts with FIRST is the input's first word, for a tail pre-tokenizer that
treats it differently (Metaspace's prepend_scheme "first").

Natural text repeats its words, so after the first few thousand words nearly every lookup
hits; keys longer than LONG are computed but not kept, and the dicts are emptied when they
hold more than LIMIT keys, so memory stays bounded on any input.
"""

from __future__ import annotations

import re
from typing import Any

from ._pretokenizers import FIRST, VIRTUAL
from ._rewriting import _latin1_to_bytechars
from ._unicode import WHITESPACE

LONG = 128
LIMIT = 1 << 17
Entry = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
_EMPTY: Entry = ((), (), ())


class _Cache(dict[str, Any]):
    def __init__(self, owner: Words, field: int) -> None:
        super().__init__()
        self.owner, self.field = owner, field

    def __missing__(self, key: str) -> Any:
        return self.owner.entry(key)[self.field]


class Words:
    """`tail`: pre-tokenizer parts that run on each key (a Sequence's parts from its first
    transform on, when more follow it, see _pretokenizers.Sequence); `subsplit`: a regex
    over the model's words that cuts them where no merge reaches across (when the tokenizer
    could not cut the keys themselves)."""

    def __init__(
        self,
        model: Any,
        transform: str | None,
        replacement: str,
        drops_ws: bool,
        tail: Any = None,
        subsplit: re.Pattern[str] | None = None,
    ) -> None:
        self.model = model
        self.transform = transform
        self.rep = replacement
        self.drops_ws = drops_ws
        self.tail = tail
        self.subsplit = subsplit
        self._by_word: dict[str, list[tuple[int, int, bool]]] = {}  # the model's words, when not keys
        self._last: tuple[str | None, tuple[Any, ...]] = (None, ())
        self.ids = _Cache(self, 0)
        self.starts = _Cache(self, 1)
        self.mids = _Cache(self, 2)
        self.counts = _Cache(self, 3)

    def entry(self, key: str) -> tuple[Any, ...]:
        if self._last[0] == key:  # a long key, asked again for another field
            return self._last[1]
        e = self._compute(key)
        out = (*e, len(e[0]))
        if len(key) > LONG:
            self._last = (key, out)
        else:
            if len(self.ids) >= LIMIT:
                for d in (self.ids, self.starts, self.mids, self.counts):
                    d.clear()
            self.ids[key], self.starts[key], self.mids[key], self.counts[key] = out
        return out

    def _starts(self, word: str) -> list[tuple[int, int, bool]]:
        """The model's (id, index, mid) for one of its words, cut by subsplit first."""
        if self.subsplit is None:
            return self._model(word)
        out = []
        for m in self.subsplit.finditer(word):
            at = m.start()
            out += [(t, at + i, mid) for t, i, mid in self._model(m.group())]
        return out

    def _model(self, word: str) -> list[tuple[int, int, bool]]:
        if self.tail is None and self.subsplit is None:  # keys are the words: cached above
            starts: list[tuple[int, int, bool]] = self.model.starts(word)
            return starts
        known = self._by_word.get(word)
        if known is None:
            known = self.model.starts(word)
            if len(word) <= LONG:
                if len(self._by_word) >= LIMIT:
                    self._by_word.clear()
                self._by_word[word] = known
        return known

    def _compute(self, key: str) -> Entry:
        if not key or (self.drops_ws and key[0] in WHITESPACE):
            return _EMPTY
        if self.tail is not None:
            return self._through_tail(key)
        virtual = key[0] == VIRTUAL
        index: list[int] | None = None
        cont: list[bool] | None = None
        if self.transform == "bytes":
            src = " " + key[1:] if virtual else key
            raw = src.encode("utf-8", "surrogatepass")
            word = raw.decode("latin-1").translate(_latin1_to_bytechars())
            if len(raw) != len(src):
                index = [i for i, c in enumerate(src) for _ in range(len(c.encode("utf-8", "surrogatepass")))]
                cont = [b & 0xC0 == 0x80 for b in raw]
        elif self.transform == "metaspace":
            word = (self.rep + key[1:] if virtual else key).replace(" ", self.rep)
        else:
            word = key
        ids: list[int] = []
        starts: list[int] = []
        mids: list[int] = []
        for k, (t, i, mid) in enumerate(self._starts(word)):
            ids.append(t)
            if cont is not None:
                mid = mid or cont[i]
            if index is not None:
                i = index[i]
            starts.append(i or int(virtual))
            if mid:
                mids.append(k)
        return tuple(ids), tuple(starts), tuple(mids)

    def _through_tail(self, key: str) -> Entry:
        """The tail pre-tokenizer on the key, each character carrying its index (a byte
        that continues a character: -index-1), then the model on each word."""
        first = key[0] == FIRST
        shift = int(first)
        src = key[shift:]
        ids: list[int] = []
        starts: list[int] = []
        mids: list[int] = []
        for word, al in self.tail.split_aligned(src, list(range(shift, len(key))), first):
            for t, i, mid in self._starts(word):
                o = al[i]
                if o < 0:
                    o, mid = -o - 1, True
                if mid:
                    mids.append(len(ids))
                ids.append(t)
                starts.append(o)
        return tuple(ids), tuple(starts), tuple(mids)
