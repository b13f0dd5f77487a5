"""The three subword models: WordPiece, BPE and Unigram, each on one pre-token.

`ids(word)` gives the token ids; `starts(word)` gives, per token, (id, index of the word's
character it starts at, whether it starts inside that character). The tokenizer caches
per word, so these run once per distinct word.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable
from typing import Any

from ..._errors import ChunkerError

Start = tuple[int, int, bool]
_ID_MASK = (1 << 32) - 1
_NONE = 1 << 62


_SHORT = 24  # prefixes up to this many characters are kept in a set (see `Prefixes`)


class Prefixes:
    """Whether some token is longer than a string and starts with it (a proper prefix), in
    memory linear in the vocabulary's characters: the prefixes of up to `_SHORT` characters
    in a set, longer ones found by bisection among the sorted tokens longer than that (every
    prefix of a token in a set would hold the square of its length: a 100 KB file with one
    long token took gigabytes). Real vocabularies' tokens are nearly all short: the set
    answers, and the bisection is for the rare long ones."""

    __slots__ = ("short", "_long")

    def __init__(self, tokens: Iterable[str]) -> None:
        tokens = list(tokens)
        self.short = {t[:k] for t in tokens for k in range(1, min(len(t), _SHORT + 1))}
        self._long = sorted(t for t in tokens if len(t) > _SHORT + 1)

    def extends(self, s: str) -> bool:
        if len(s) <= _SHORT:
            return s in self.short
        found, i = self._long, bisect.bisect_left(self._long, s)
        if i < len(found) and found[i] == s:  # s itself, the first of those starting with it
            i += 1
        return i < len(found) and found[i].startswith(s)


class Model:
    kind = ""
    vocab: dict[str, int]

    @property
    def size(self) -> int:
        """HF's ``get_vocab_size()``: where the added tokens' ids begin."""
        return len(self.vocab)

    def ids(self, word: str) -> list[int]:
        return [t for t, _, _ in self.starts(word)]

    def starts(self, word: str) -> list[Start]:
        raise NotImplementedError


class WordPiece(Model):
    """Greedy longest-match-first. At each position the candidate grows one character at a
    time while some token starts with it (`_ext`, see `Prefixes`), keeping the longest token
    met: a few lookups per position instead of one per possible length."""

    kind = "WordPiece"

    def __init__(self, d: dict[str, Any]) -> None:
        self.vocab = d["vocab"]
        self.unk = d.get("unk_token", "[UNK]")
        self.prefix = d.get("continuing_subword_prefix", "##") or ""
        self.max_chars = d.get("max_input_chars_per_word", 100)
        if self.unk not in self.vocab:
            raise ChunkerError(f"WordPiece unk_token {self.unk!r} is not in the vocabulary; the tokenizer.json is inconsistent")
        self.unk_id = self.vocab[self.unk]
        p = self.prefix
        # Continuing tokens by their text after the prefix, so no prefix is glued on per lookup.
        self._cont = {t[len(p) :]: i for t, i in self.vocab.items() if p and t.startswith(p) and len(t) > len(p)}
        if not p:
            self._cont = self.vocab
        self._ext = Prefixes(self.vocab)
        self._cont_ext = Prefixes(self._cont)

    def starts(self, word: str) -> list[Start]:
        n = len(word)
        if n > self.max_chars:
            return [(self.unk_id, 0, False)]
        out: list[Start] = []
        start = 0
        get, ext = self.vocab.get, self._ext
        while start < n:
            found = None
            end = k = start
            short, longer = ext.short, ext.extends
            while k < n:
                k += 1
                sub = word[start:k]
                t = get(sub)
                if t is not None:
                    found, end = t, k
                if (sub not in short) if k - start <= _SHORT else not longer(sub):
                    break
            if found is None:
                return [(self.unk_id, 0, False)]
            out.append((found, start, False))
            start = end
            get, ext = self._cont.get, self._cont_ext
        return out


class BPE(Model):
    kind = "BPE"

    def __init__(self, d: dict[str, Any]) -> None:
        self.vocab = d["vocab"]
        self.unk = d.get("unk_token")
        self.prefix = d.get("continuing_subword_prefix") or ""
        self.suffix = d.get("end_of_word_suffix") or ""
        self.fuse_unk = bool(d.get("fuse_unk", False))
        self.byte_fallback = bool(d.get("byte_fallback", False))
        self.ignore_merges = bool(d.get("ignore_merges", False))
        vocab = self.vocab
        merges: dict[tuple[int, int], tuple[int, int]] = {}
        cut = len(self.prefix)
        for rank, m in enumerate(d.get("merges", [])):
            if isinstance(m, str):
                parts = m.split(" ")
                if len(parts) != 2:
                    raise ChunkerError(f"BPE merge {m!r} is not two tokens separated by one space; the tokenizer.json is damaged")
                a, b = parts
            else:
                a, b = m
            new = a + b[cut:]
            try:
                merges[(vocab[a], vocab[b])] = (rank, vocab[new])
            except KeyError as e:
                raise ChunkerError(
                    f"BPE merge {a!r} + {b!r} names a token missing from the "
                    f"vocabulary ({e.args[0]!r}); the tokenizer.json is damaged"
                ) from None
        self.merges = merges
        # (a, b) -> rank << 32 | merged id: min() over a word's pairs finds the next merge.
        self.packed = {pair: (rank << 32) | new for pair, (rank, new) in merges.items()}
        self._bytes = [vocab.get(f"<0x{b:02X}>") for b in range(256)]
        if self.unk is not None and self.unk not in vocab:
            self.unk_id: int | None = None
            self._unk_missing = True
        else:
            self.unk_id = vocab.get(self.unk) if self.unk is not None else None
            self._unk_missing = False

    def _symbols(self, word: str) -> tuple[list[int], list[int], list[bool]]:
        """Initial symbols: ids, the character each starts at, and mid-character flags."""
        vocab = self.vocab
        if not self.prefix and not self.suffix:
            ids = [vocab.get(c) for c in word]
            if None not in ids:  # the usual case: every character is a symbol
                return ids, list(range(len(word))), [False] * len(word)  # type: ignore[return-value]
        syms: list[tuple[int, int, bool]] = []
        unk: tuple[int, int, bool] | None = None  # a pending unknown
        n = len(word)
        for i, c in enumerate(word):
            s = c
            if i and self.prefix:
                s = self.prefix + s
            if i == n - 1 and self.suffix:
                s = s + self.suffix
            t = vocab.get(s)
            if t is not None:
                if unk is not None:
                    syms.append(unk)
                    unk = None
                syms.append((t, i, False))
                continue
            if self.byte_fallback:
                bs = [self._bytes[b] for b in s.encode("utf-8", "surrogatepass")]
                if None not in bs:
                    # Like HF, a pending unknown is not flushed here: it lands after these.
                    syms += [(b, i, k > 0) for k, b in enumerate(bs)]  # type: ignore[misc]
                    continue
            if self.unk is not None:
                if self._unk_missing:
                    raise ChunkerError(f"BPE unk_token {self.unk!r} is not in the vocabulary; the tokenizer.json is inconsistent")
                if unk is not None and not self.fuse_unk:
                    syms.append(unk)
                    unk = None
                if unk is None:
                    unk = (self.unk_id, i, False)  # type: ignore[assignment]
        if unk is not None:
            syms.append(unk)
        return [t for t, _, _ in syms], [i for _, i, _ in syms], [m for _, _, m in syms]

    def starts(self, word: str) -> list[Start]:
        if not word:
            return []
        if self.ignore_merges:
            t = self.vocab.get(word)
            if t is not None:
                return [(t, 0, False)]
        ids, at, mid = self._symbols(word)
        if len(ids) > 1:
            keep = self._merge(ids) if len(ids) < 48 else self._merge_heap(ids)
            return [(ids[k], at[k], mid[k]) for k in keep] if keep is not None else list(zip(ids, at, mid))
        return list(zip(ids, at, mid))

    def _merge(self, ids: list[int]) -> list[int] | None:
        """Lowest-rank pair first, leftmost among equals (as HF's queue); merges in place.

        Returns the indices (into the initial symbols) where surviving symbols start."""
        get = self.packed.get
        cur = ids[:]
        ranks = [get(p, _NONE) for p in zip(cur, cur[1:])]
        best = min(ranks)
        if best == _NONE:
            return None
        pos = list(range(len(ids)))
        while best != _NONE:
            i = ranks.index(best)
            new = best & _ID_MASK
            cur[i : i + 2] = [new]
            del pos[i + 1]
            # Only the pairs around the new symbol change.
            del ranks[i]
            if i < len(ranks):
                ranks[i] = get((new, cur[i + 1]), _NONE)
            if i:
                ranks[i - 1] = get((cur[i - 1], new), _NONE)
            best = min(ranks) if ranks else _NONE
        ids[:] = [0] * len(ids)
        for p, t in zip(pos, cur):
            ids[p] = t
        return pos

    def _merge_heap(self, ids: list[int]) -> list[int] | None:
        merges = self.merges
        n = len(ids)
        sym = ids[:]
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        alive = [True] * n
        heap = []
        for i in range(n - 1):
            m = merges.get((sym[i], sym[i + 1]))
            if m is not None:
                heap.append((m[0], i, m[1]))
        heapq.heapify(heap)
        while heap:
            _, i, new = heapq.heappop(heap)
            if not alive[i] or nxt[i] >= n:
                continue
            j = nxt[i]
            m = merges.get((sym[i], sym[j]))
            if m is None or m[1] != new:
                continue
            sym[i] = new
            alive[j] = False
            nxt[i] = nxt[j]
            if nxt[j] < n:
                prv[nxt[j]] = i
            p = prv[i]
            if p >= 0:
                m = merges.get((sym[p], new))
                if m is not None:
                    heapq.heappush(heap, (m[0], p, m[1]))
            if nxt[i] < n:
                m = merges.get((new, sym[nxt[i]]))
                if m is not None:
                    heapq.heappush(heap, (m[0], i, m[1]))
        keep = [i for i in range(n) if alive[i]]
        for i in keep:
            ids[i] = sym[i]
        return keep


_UNK_PENALTY = 10.0
_MINUS_INF = float("-inf")


class Unigram(Model):
    kind = "Unigram"

    @property
    def size(self) -> int:
        return self._size

    def __init__(self, d: dict[str, Any]) -> None:
        vocab = d["vocab"]
        self.vocab = {}
        self.scores: list[float] = []
        maxlen: dict[str, int] = {}
        for i, (piece, score) in enumerate(vocab):
            self.vocab.setdefault(piece, i)  # HF's map keeps the last; see below
            self.vocab[piece] = i
            self.scores.append(float(score))
            if piece:
                c = piece[0]
                if len(piece) > maxlen.get(c, 0):
                    maxlen[c] = len(piece)
        self.maxlen = maxlen
        # Every proper prefix of a piece: the Viterbi stops extending a candidate as soon as
        # no piece starts with it (most positions then try two or three lengths, not the
        # longest piece's).
        self.extends = Prefixes(self.vocab)
        self._size = len(vocab)  # the pieces, a piece given twice included (HF counts its list)
        self.unk_id = d.get("unk_id")
        if self.unk_id is not None and not 0 <= self.unk_id < len(vocab):
            raise ChunkerError(f"Unigram unk_id {self.unk_id} is outside the vocabulary; the tokenizer.json is inconsistent")
        self.byte_fallback = bool(d.get("byte_fallback", False))
        self.unk_score = min(self.scores, default=0.0) - _UNK_PENALTY
        self._bytes = [self.vocab.get(f"<0x{b:02X}>") for b in range(256)]

    def _best_path(self, word: str) -> list[tuple[int, int, int]]:
        """Viterbi over characters: (start, end, id) pieces, unknowns fused. Ties keep the
        first candidate found, as HF's lattice does."""
        n = len(word)
        get, scores = self.vocab.get, self.scores
        short, longer = self.extends.short, self.extends.extends
        best: list[float] = [_MINUS_INF] * (n + 1)
        best[0] = 0.0
        back: list[int] = [-1] * (n + 1)
        tok: list[int] = [0] * (n + 1)
        unk_id, unk_score = self.unk_id, self.unk_score
        for i in range(n):
            here = best[i]
            sub = word[i]
            t = get(sub)
            if t is None:
                if unk_id is None:
                    raise ChunkerError(
                        "Unigram model met a character outside its vocabulary and the tokenizer.json has no unk_id"
                    )
                t, cand = unk_id, unk_score + here
            else:
                cand = scores[t] + here
            if cand > best[i + 1]:
                best[i + 1], back[i + 1], tok[i + 1] = cand, i, t
            j = i + 1
            while ((sub in short) if j - i <= _SHORT else longer(sub)) and j < n:
                j += 1
                sub = word[i:j]
                t = get(sub)
                if t is not None:
                    cand = scores[t] + here
                    if cand > best[j]:
                        best[j], back[j], tok[j] = cand, i, t
        out: list[tuple[int, int, int]] = []
        end = n
        pending = -1  # start of fused unknowns, their end is `fused_end`
        fused_end = 0
        while end > 0:
            start, t = back[end], tok[end]
            if t == unk_id:
                if pending < 0:
                    fused_end = end
                pending = start
            else:
                if pending >= 0:
                    out.append((pending, fused_end, -1))
                    pending = -1
                out.append((start, end, t))
            end = start
        if pending >= 0:
            out.append((pending, fused_end, -1))
        out.reverse()
        return out

    def starts(self, word: str) -> list[Start]:
        if not word:
            return []
        out: list[Start] = []
        for a, b, t in self._best_path(word):
            if t < 0:  # fused unknown characters
                piece = word[a:b]
                t2 = self.vocab.get(piece)
                if t2 is not None:
                    out.append((t2, a, False))
                    continue
                if self.byte_fallback:
                    bs = [self._bytes[x] for x in piece.encode("utf-8", "surrogatepass")]
                    if None not in bs:
                        # HF gives every byte token the whole piece's offsets.
                        out.extend((x, a, False) for x in bs)  # type: ignore[misc]
                        continue
                out.append((self.unk_id, a, False))  # type: ignore[arg-type]
            else:
                out.append((t, a, False))
        return out


def build(d: dict[str, Any]) -> Model:
    kind = d.get("type")
    if kind is None:  # old files name no type; HF guesses from the keys
        kind = "Unigram" if isinstance(d.get("vocab"), list) else ("BPE" if "merges" in d else "WordPiece")
    if kind == "WordPiece":
        return WordPiece(d)
    if kind == "BPE":
        dropout = d.get("dropout")
        if dropout:  # null and 0: no dropout
            raise ChunkerError(
                f"BPE dropout {dropout!r}: Hugging Face's tokenizers then drops "
                "merges at random on every encoding, so no count is exact; set "
                '"dropout": null in the file'
            )
        return BPE(d)
    if kind == "Unigram":
        return Unigram(d)
    raise ChunkerError(
        f"model type {kind!r} is not supported by the pure-Python HF tokenizer; supported: BPE, Unigram, WordPiece"
    )
