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
tokens. When the model is a BPE whose merges never join a symbol to a following space marker,
a key is first cut before each such marker (`subsplit`, a regex over the key's characters):
the merges run on the shorter parts, which repeat far more often than whole keys.

Natural text repeats its words, so after the first few thousand words nearly every lookup
hits; keys longer than LONG are computed but not kept, and the dicts are emptied when they
hold more than LIMIT keys, so memory stays bounded on any input.
"""

from __future__ import annotations

import re
from typing import Any

from ._pretokenizers import VIRTUAL, _latin1_to_bytechars
from ._unicode import WHITESPACE

LONG = 128
LIMIT = 1 << 18
Entry = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
_EMPTY: Entry = ((), (), ())


class _Cache(dict):  # type: ignore[type-arg]
    def __init__(self, owner: Words, field: int) -> None:
        super().__init__()
        self.owner, self.field = owner, field

    def __missing__(self, key: str) -> Any:
        return self.owner.entry(key)[self.field]


class Words:
    def __init__(self, model: Any, transform: str | None, replacement: str, drops_ws: bool,
                 subsplit: re.Pattern[str] | None) -> None:
        self.model = model
        self.transform = transform
        self.rep = replacement
        self.drops_ws = drops_ws
        self.subsplit = subsplit
        self.ids = _Cache(self, 0)
        self.starts = _Cache(self, 1)
        self.mids = _Cache(self, 2)
        self.counts = _Cache(self, 3)

    def entry(self, key: str) -> tuple[Any, ...]:
        if self.subsplit is not None:
            parts = self.subsplit.findall(key)
            e = self._joined(parts) if len(parts) > 1 else self._compute(key)
        else:
            e = self._compute(key)
        out = (*e, len(e[0]))
        if len(key) <= LONG:
            if len(self.ids) >= LIMIT:
                for d in (self.ids, self.starts, self.mids, self.counts):
                    d.clear()
            self.ids[key], self.starts[key], self.mids[key], self.counts[key] = out
        return out

    def _joined(self, parts: list[str]) -> Entry:
        ids: list[int] = []
        starts: list[int] = []
        mids: list[int] = []
        at = 0
        for p in parts:
            n = len(ids)
            ids += self.ids[p]
            starts += [at + x for x in self.starts[p]]
            mids += [n + x for x in self.mids[p]]
            at += len(p)
        return tuple(ids), tuple(starts), tuple(mids)

    def _compute(self, key: str) -> Entry:
        if not key or (self.drops_ws and key[0] in WHITESPACE):
            return _EMPTY
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
        for k, (t, i, mid) in enumerate(self.model.starts(word)):
            ids.append(t)
            if cont is not None:
                mid = mid or cont[i]
            if index is not None:
                i = index[i]
            starts.append(i or int(virtual))
            if mid:
                mids.append(k)
        return tuple(ids), tuple(starts), tuple(mids)
