"""HFTokenizer: a tokenizer.json pipeline run in pure Python.

The pipeline is HF's: added tokens split the raw text; each piece between them is
normalized and split again on normalized added tokens; the pre-tokenizer cuts the rest into
words; the model turns each word into ids; the post-processor wraps specials around the
whole.

How it runs fast: `count`, `encode` and `offsets` share one path. The pre-tokenizer cuts a
normalized piece into keys, pieces of the normalized text with their positions (see
_pretokenizers); what the model makes of each distinct key (ids, count, where each token
starts in the key) is computed once (_words), and natural text repeats its words. offsets()
adds each key's position to its token starts; the normalizer's alignment maps those to the
text only where a normalizer changed lengths (_normalizers). So offsets() costs about twice
what count() does, not a per-character walk through every step.

Where a text may be cut so that its sides count as in the whole: see _cuts.
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate, chain
from typing import Any

from ..._errors import ChunkerError
from . import _added, _models, _normalizers, _pretokenizer_config, _pretokenizers, _processors
from ._cuts import Cuts
from ._pretokenizers import FIRST, positions
from ._words import Words

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_surrogates(text: str) -> str:
    """Lone surrogates (possible in a Python str, impossible in UTF-8) become U+FFFD, one
    for one, so offsets stay those of the caller's text. HF's Python binding refuses such a
    str; encoding it with errors="replace" to U+FFFD gives what we count."""
    return _SURROGATE.sub("\ufffd", text) if not text.isascii() else text


class HFTokenizer(Cuts):
    """A Hugging Face tokenizer.json, encoded with truncation and padding off.

    >>> tok = load_example()
    >>> tok.encode("hello world"), tok.count("hello world"), tok.specials
    ([0, 3, 4, 1], 4, 2)
    >>> list(tok.offsets("hello world"))
    [0, 6]
    >>> tok.boundary_at("hello world", 5), tok.boundary_at("hello world", 3)
    (True, False)
    """

    exact = True

    def __init__(self, config: dict[str, Any], name: str = "tokenizer.json", label: str | None = None) -> None:
        if not isinstance(config, dict) or "model" not in config:
            raise ChunkerError(
                f"{label or name} is not a tokenizer.json (no 'model'); pass the file Hugging Face's tokenizers saves"
            )
        self.name = name
        """Its identity in settings and caches (a loaded file's: its content hash)."""
        self.label = label or name
        """What a person is shown: the file's name."""
        self.normalizer = _normalizers.build(config["normalizer"]) if config.get("normalizer") else None
        self.pre = _pretokenizer_config.build(config["pre_tokenizer"]) if config.get("pre_tokenizer") else None
        self.model = _models.build(config["model"])
        self.before, self.after = _processors.build(config.get("post_processor"))
        self.specials = len(self.before) + len(self.after)
        trunc = config.get("truncation")
        self.model_max: int | None = trunc.get("max_length") if isinstance(trunc, dict) else None
        norm_text = self.normalizer.text if self.normalizer is not None else None
        self.raw_added, self.norm_added, self.added = _added.build(
            config.get("added_tokens") or [], self.model.vocab, norm_text, size=self.model.size
        )
        self._lead_precompiled = _lead_precompiled(self.normalizer)
        self.needs_first = self._uses_first(self.pre)
        self._tail = getattr(self.pre, "tail", None)
        self._tail_first = self._uses_first(self._tail)
        self.subsplit: re.Pattern[str] | None = None  # on the model's words
        self._key_subsplit: re.Pattern[str] | None = None  # on keys (see _words)
        self.cut_blockers: list[str] = []
        self._cut_ok = self._judge_cuts()
        self._words = Words(
            self.model,
            self.pre.transform if self.pre is not None else None,
            self._words_rep(),
            bool(self.pre is not None and self.pre.drops_ws),
            self._tail,
            self.subsplit if self._key_subsplit is None else None,
        )
        self._risky_raw = any(t.risky for t in self.raw_added.tokens.values())
        self._solid: dict[str, bool] = {}
        self._blocked_key: tuple[int, int] | None = None
        self._blocked: list[tuple[int, int]] = []

    def __repr__(self) -> str:
        return f"<HFTokenizer {self.label} {self.model.kind}>"

    # ------------------------------------------------------------------ structure

    @staticmethod
    def _uses_first(pre: Any) -> bool:
        if isinstance(pre, _pretokenizers.Sequence):
            return any(HFTokenizer._uses_first(p) for p in pre.parts)
        return bool(getattr(pre, "uses_first", False))

    # ------------------------------------------------------------------ pipeline

    def normalize(self, s: str) -> str:
        return self.normalizer.text(s) if self.normalizer is not None else s

    def norm_split(self, normed: str) -> list[tuple[int, int, int]]:
        """Normalized added tokens in a normalized piece: (start, end, id or -1) parts."""
        if self.norm_added.rx is None:
            return [(0, len(normed), -1)]
        parts: list[tuple[int, int, int]] = self.norm_added.split(normed)
        return parts

    def model_words(self, s: str, first: bool) -> list[str]:
        """The model's words for one normalized piece (the general path's split)."""
        if not s:
            return []
        words = self.pre.split(s, first) if self.pre is not None else [s]
        if self.subsplit is not None:
            fa = self.subsplit.findall
            words = [x for w in words for x in fa(w)]
        return words

    def first_flag(self, piece: str) -> bool:
        """HF's offsets_original().0 == 0 for the normalized first piece: its first
        character must come from the text's first character. Normalizers act locally, so a
        prefix of the piece answers unless it normalizes to nothing."""
        if self.normalizer is None:
            return True
        k = 64
        while True:
            normed, al = self.normalizer.aligned(piece[:k])
            if normed or k >= len(piece):
                return bool(normed) and self._starts_text(piece, al)
            k *= 8

    def _starts_text(self, piece: str, al: list[int] | None) -> bool:
        """Whether HF's alignment of a normalized piece starts at the piece's first character.
        A Precompiled normalizer that comes first books the characters it removes at the
        start nowhere (see the tests' _hf_offsets_sound), so for HF its output starts at 0
        whatever it removed there ("\x07beep" starts the input); ours keeps true offsets, so
        the count of those characters is taken off here."""
        if al is None:
            return True
        if not al:
            return False
        lead = self._lead_precompiled
        if lead is not None and al[0]:
            _, pal = lead.aligned(piece[: max(64, al[0] + 2)])
            return bool(pal) and al[0] - pal[0] == 0
        return al[0] == 0

    def _keys(self, s: str, first: bool) -> list[str]:
        keys = ([s] if s else []) if self.pre is None else self.pre.keys(s, first)
        if first and self._tail_first and keys:
            keys[0] = FIRST + keys[0]
        if self._key_subsplit is not None:
            fa = self._key_subsplit.findall
            keys = [x for k in keys for x in fa(k)]
        return keys

    def _keyed(self, s: str, first: bool, base: int) -> tuple[list[str], list[int]]:
        if self.pre is None:
            keys, pos = ([s], [base]) if s else ([], [])
        else:
            keys, pos = self.pre.keyed(s, first, base)
        if first and self._tail_first and keys:
            keys[0] = FIRST + keys[0]
            pos[0] -= 1
        if self._key_subsplit is not None:
            # BPE merges never join a symbol to a following space marker: each part merges
            # alone, and parts repeat far more often than whole keys.
            fa = self._key_subsplit.findall
            new_keys: list[str] = []
            new_pos: list[int] = []
            for k, p in zip(keys, pos):
                parts = fa(k)
                new_keys += parts
                new_pos += positions(parts, p)
            keys, pos = new_keys, new_pos
        return keys, pos

    def _pieces(self, text: str) -> Any:
        """(key lists and added-token ids), piece by piece, for count and encode."""
        for a, b, tid in self.raw_added.split(text):
            if tid >= 0:
                yield tid
                continue
            piece = text[a:b]
            first = a == 0 and self.needs_first and self.first_flag(piece)
            normed = self.normalize(piece)
            for k, (c, d, tid2) in enumerate(self.norm_split(normed)):
                yield tid2 if tid2 >= 0 else self._keys(normed[c:d], first and k == 0 and c == 0)

    # A long text is encoded in blocks cut at boundaries (see _cuts): each block counts as it
    # does inside the whole, so the result is the same, and the work on each block is that of
    # a text of `block` characters. In one call on megabytes, the normalizer's alignment, the
    # keys and the offsets are lists of millions of objects, and each megabyte then cost more
    # than the one before (8 MB took 1.3-2x what its eight parts fed in turn took).
    # A tokenizer whose components allow no boundary encodes a long text whole.
    block = 1 << 16

    def _blocks(self, text: str) -> list[tuple[int, int]]:
        """[start, end) spans that cover text, cut at boundaries about `block` apart."""
        n, size = len(text), self.block
        if n <= 2 * size or not self._cut_ok or not self._space_ok():
            return [(0, n)]
        cuts = [0]
        p = size
        while p < n - size:
            q = self.first_boundary(text, p, p + size)
            if q is None:  # no boundary in this stretch: the block grows
                p += size
                continue
            cuts.append(q)
            p = q + size
        cuts.append(n)
        return list(zip(cuts, cuts[1:]))

    def _each_block(self, text: str) -> Any:
        """(start, the block's text), block by block."""
        spans = self._blocks(text)
        if len(spans) == 1:
            yield 0, text
            return
        for a, b in spans:
            yield a, text[a:b]

    def encode(self, text: str) -> list[int]:
        """Ids as HF gives them with truncation and padding off, specials included."""
        text = clean_surrogates(text)
        ids = self._words.ids
        body: list[int] = []
        for _, block in self._each_block(text):
            for p in self._pieces(block):
                if isinstance(p, int):
                    body.append(p)
                else:
                    body += chain.from_iterable(map(ids.__getitem__, p))
        return self.before + body + self.after

    def count(self, text: str) -> int:
        """len(encode(text)), without building the ids."""
        text = clean_surrogates(text)
        counts = self._words.counts
        total = self.specials
        for _, block in self._each_block(text):
            for p in self._pieces(block):
                total += 1 if isinstance(p, int) else sum(map(counts.__getitem__, p))
        return total

    # ------------------------------------------------------------------ offsets

    def offsets(self, text: str, mid_chars: list[int] | None = None) -> array[int]:
        """Code-point start of each non-special token, non-decreasing.

        A token that starts inside a character (a byte of it) gets that character's offset
        and, when `mid_chars` is given, its index is appended there.
        """
        kind = "i" if len(text) < (1 << 31) else "q"
        out = array(kind)
        text = clean_surrogates(text)
        for shift, block in self._each_block(text):
            # A block's offsets as a list (what the loops below build fast), then packed: the
            # whole document's would hold a Python int per token.
            local: list[int] = []
            mids: list[int] | None = None if mid_chars is None else []
            self._block_offsets(block, shift, local, mids)
            if mid_chars is not None and mids:
                at = len(out)
                mid_chars.extend([at + k for k in mids])
            out.extend(local)
        return out

    def _block_offsets(self, text: str, shift: int, out: list[int], mid_chars: list[int] | None) -> None:
        """Appends to `out` the offsets of text's tokens, plus `shift` (where text starts in
        the caller's); `mid_chars` gets indices into `out`."""
        starts = self._words.starts
        for a, b, tid in self.raw_added.split(text):
            if tid >= 0:
                out.append(shift + a)
                continue
            piece = text[a:b]
            if self.normalizer is not None:
                normed, al = self.normalizer.aligned(piece)
            else:
                normed, al = piece, None
            # Without an alignment, positions in the normalized piece are the text's, shifted.
            first = a == 0 and self._starts_text(piece, al)
            at = shift + a
            base = at if al is None else 0
            local = out if al is None else []
            for k, (c, d, tid2) in enumerate(self.norm_split(normed)):
                if tid2 >= 0:
                    local.append(base + c)
                    continue
                keys, pos = self._keyed(normed[c:d], first and k == 0 and c == 0, base + c)
                if mid_chars is not None:
                    self._mids(keys, len(out) + (len(local) if local is not out else 0), mid_chars)
                local += [p + r for key, p in zip(keys, pos) for r in starts[key]]
            if al is not None:
                # Offsets can step back where a normalizer reorders; the contract wants them sorted.
                mapped = accumulate(map(al.__getitem__, local), max)
                out += [at + x for x in mapped] if at else mapped

    def _mids(self, keys: list[str], at: int, mid_chars: list[int]) -> None:
        mids, counts = self._words.mids, self._words.counts
        for key in keys:
            m = mids[key]
            if m:
                mid_chars.extend(at + x for x in m)
            at += counts[key]


def _lead_precompiled(n: Any) -> Any:
    """The Precompiled normalizer that runs first, if one does."""
    from ._precompiled import Precompiled

    while isinstance(n, _normalizers.Sequence) and n.parts:
        n = n.parts[0]
    return n if isinstance(n, Precompiled) else None


def load_example() -> HFTokenizer:
    """A tiny WordPiece tokenizer for examples."""
    vocab = {"[CLS]": 0, "[SEP]": 1, "[UNK]": 2, "hello": 3, "world": 4}
    return HFTokenizer(
        {
            "model": {"type": "WordPiece", "vocab": vocab, "unk_token": "[UNK]"},
            "normalizer": {"type": "BertNormalizer"},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 1], "cls": ["[CLS]", 0]},
        },
        name="example",
    )
