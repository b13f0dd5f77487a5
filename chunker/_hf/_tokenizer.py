"""HFTokenizer: a tokenizer.json pipeline run in pure Python.

The pipeline is HF's: added tokens split the raw text; each piece between them is
normalized and split again on normalized added tokens; the pre-tokenizer cuts the rest into
words; the model turns each word into ids; the post-processor wraps specials around the
whole. Words are cached, so natural text (which repeats its words) runs the model rarely.

Boundaries (see `boundary_at`): a position just before a space (U+0020) that follows a
"solid" character (letter, number, punctuation or symbol whose normalized form is non-empty
and ends in no whitespace) is a boundary when every component keeps the two sides apart:
the normalizers act locally there, the pre-tokenizer puts the cut between words (or the BPE
vocabulary has no token that would merge across it), and no added token reaches across it.
Components that rule out every boundary: a Prepend normalizer (every slice would gain the
prefix the document has once), a Strip normalizer that strips leading whitespace ahead of a
pre-tokenizer that keeps spaces, a Replace whose pattern spans a space and other text, a
Split/Punctuation/Digits with a merging behaviour or a Split regex not known to keep the cut
clean, and a model that sees words across the cut (WordPiece, Unigram) when the
pre-tokenizer does not split there; an added token with normalized=true that can match
whitespace (or has lstrip/rstrip/single_word) also does.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from itertools import accumulate, chain
from typing import Any

from .._errors import ChunkerError
from . import _added, _models, _normalizers, _pretokenizers, _processors
from ._pretokenizers import FIRST, ISOLATES, LOCAL, byte_chars, positions
from ._unicode import PREPEND, WHITESPACE
from ._words import Words

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_surrogates(text: str) -> str:
    """Lone surrogates (possible in a Python str, impossible in UTF-8) become U+FFFD, one
    for one, so offsets stay those of the caller's text. HF's Python binding refuses such a
    str; encoding it with errors="replace" to U+FFFD gives what we count."""
    return _SURROGATE.sub("\ufffd", text) if not text.isascii() else text


class HFTokenizer:
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

    def __init__(self, config: dict[str, Any], name: str = "tokenizer.json") -> None:
        if not isinstance(config, dict) or "model" not in config:
            raise ChunkerError(f"{name} is not a tokenizer.json (no 'model'); pass the file "
                               "Hugging Face's tokenizers saves")
        self.name = name
        self.normalizer = _normalizers.build(config["normalizer"]) if config.get("normalizer") else None
        self.pre = _pretokenizers.build(config["pre_tokenizer"]) if config.get("pre_tokenizer") else None
        self.model = _models.build(config["model"])
        self.before, self.after = _processors.build(config.get("post_processor"))
        self.specials = len(self.before) + len(self.after)
        trunc = config.get("truncation")
        self.model_max: int | None = trunc.get("max_length") if isinstance(trunc, dict) else None
        norm_text = self.normalizer.text if self.normalizer is not None else None
        self.raw_added, self.norm_added, self.added = _added.build(
            config.get("added_tokens") or [], self.model.vocab, norm_text)
        self.needs_first = self._uses_first(self.pre)
        self._tail = getattr(self.pre, "tail", None)
        self._tail_first = self._uses_first(self._tail)
        self.subsplit: re.Pattern[str] | None = None  # on the model's words
        self._key_subsplit: re.Pattern[str] | None = None  # on keys (see _words)
        self.cut_blockers: list[str] = []
        self._cut_ok = self._judge_cuts()
        self._words = Words(self.model, self.pre.transform if self.pre is not None else None,
                            self._words_rep(), bool(self.pre is not None and self.pre.drops_ws),
                            self._tail, self.subsplit if self._key_subsplit is None else None)
        self._risky_raw = any(t.risky for t in self.raw_added.tokens.values())
        self._solid: dict[str, bool] = {}
        self._blocked_key: tuple[int, int] | None = None
        self._blocked: list[tuple[int, int]] = []

    def __repr__(self) -> str:
        return f"<HFTokenizer {self.name} {self.model.kind}>"

    # ------------------------------------------------------------------ structure

    @staticmethod
    def _uses_first(pre: Any) -> bool:
        if isinstance(pre, _pretokenizers.Metaspace):
            return pre.scheme == "first"
        if isinstance(pre, _pretokenizers.Sequence):
            return any(HFTokenizer._uses_first(p) for p in pre.parts)
        return False

    def _normalizer_parts(self) -> list[Any]:
        out: list[Any] = []
        stack = [self.normalizer] if self.normalizer is not None else []
        while stack:
            n = stack.pop(0)
            if isinstance(n, _normalizers.Sequence) and n.kind == "Sequence":
                stack[:0] = n.parts
            else:
                out.append(n)
        return out

    def _judge_cuts(self) -> bool:
        """Whether a cut before a space after a solid character can be a boundary at all;
        records in `cut_blockers` which components rule it out."""
        blockers = self.cut_blockers
        removes = self.pre is not None and self.pre.removes_spaces
        for n in self._normalizer_parts():
            if n.kind == "Prepend":
                blockers.append("normalizer Prepend")
            elif n.kind == "Strip" and n.left and not removes:
                blockers.append("normalizer Strip (left) before a pre-tokenizer that keeps spaces")
            elif n.kind == "Replace":
                lit = n.literal
                spacey = (lit is not None and (" " not in lit or set(lit) == {" "})) or (
                    lit is None and n.onig in _SPACE_RUNS)
                if not spacey:
                    blockers.append(f"normalizer Replace {n.onig!r}")
        if any(t.risky for t in self.norm_added.tokens.values()):
            blockers.append("an added token with normalized=true that can match whitespace or "
                            "has lstrip/rstrip/single_word")
        cut = self.pre.cut if self.pre is not None else LOCAL
        if cut == ISOLATES:
            pass
        elif cut == LOCAL:
            marker = self._space_marker()
            if not isinstance(self.model, _models.BPE) or marker is None \
                    or not self._bpe_separable(marker):
                blockers.append(f"model {self.model.kind} sees words across spaces "
                                f"(pre-tokenizer {getattr(self.pre, 'kind', None)})")
            else:
                # Cut the keys where the model's words would be cut (the parts repeat more
                # often than whole keys), or else the model's words themselves (_words).
                m = re.escape(marker)
                self.subsplit = re.compile(f"{m}*[^{m}]+|{m}+")
                sources = self._marker_sources(marker) if self._tail is None else None
                if sources:
                    k = "".join(map(re.escape, sources))
                    self._key_subsplit = re.compile(f"[{k}]*[^{k}]+|[{k}]+")
        else:
            blockers.append(f"pre-tokenizer {self.pre.kind} (its split can cross or merge "  # type: ignore[union-attr]
                            "at a space)")
        return not blockers

    def _space_marker(self) -> str | None:
        """What a space between two letters becomes in the model's input."""
        words = self.model_words(self.normalize("a b"), True)
        joined = "".join(words)
        k = joined.rfind("b")
        if k >= 2 and joined[k - 2] == "a" and joined[k - 1] != "a":
            return joined[k - 1]
        return None

    def _marker_sources(self, marker: str) -> str | None:
        """The characters of a key that become the marker in the model's input."""
        transform = self.pre.transform if self.pre is not None else None
        if transform == "bytes":
            b = byte_chars().index(marker) if marker in byte_chars() else 0x80
            return chr(b) if b < 0x80 else None
        if transform == "metaspace":
            return " " + marker if self._words_rep() == marker else (None if marker == " " else marker)
        return marker

    def _words_rep(self) -> str:
        last = self.pre.parts[-1] if isinstance(self.pre, _pretokenizers.Sequence) and self.pre.parts else self.pre
        return getattr(last, "rep", "")

    def _bpe_separable(self, marker: str) -> bool:
        """No merge can join a non-marker symbol to a following marker: no vocabulary token
        holds that pair (every merge result is in the vocabulary)."""
        model = self.model
        assert isinstance(model, _models.BPE)
        if model.prefix or model.suffix or marker not in model.vocab:
            return False
        pair = re.compile(f"[^{re.escape(marker)}]{re.escape(marker)}")
        return not any(pair.search(t) for t in model.vocab)

    # ------------------------------------------------------------------ pipeline

    def normalize(self, s: str) -> str:
        return self.normalizer.text(s) if self.normalizer is not None else s

    def norm_split(self, normed: str) -> list[tuple[int, int, int]]:
        """Normalized added tokens in a normalized piece: (start, end, id or -1) parts."""
        if self.norm_added.rx is None:
            return [(0, len(normed), -1)]
        return self.norm_added.split(normed)

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
                return bool(normed) and (al is None or al[0] == 0)
            k *= 8

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

    def encode(self, text: str) -> list[int]:
        """Ids as HF gives them with truncation and padding off, specials included."""
        text = clean_surrogates(text)
        ids = self._words.ids
        body: list[int] = []
        for p in self._pieces(text):
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
        for p in self._pieces(text):
            total += 1 if isinstance(p, int) else sum(map(counts.__getitem__, p))
        return total

    # ------------------------------------------------------------------ offsets

    def offsets(self, text: str, mid_chars: list[int] | None = None) -> array:  # type: ignore[type-arg]
        """Code-point start of each non-special token, non-decreasing.

        A token that starts inside a character (a byte of it) gets that character's offset
        and, when `mid_chars` is given, its index is appended there.
        """
        kind = "i" if len(text) < (1 << 31) else "q"
        return array(kind, self._offsets(clean_surrogates(text), mid_chars))

    def _offsets(self, text: str, mid_chars: list[int] | None) -> list[int]:
        starts = self._words.starts
        out: list[int] = []
        for a, b, tid in self.raw_added.split(text):
            if tid >= 0:
                out.append(a)
                continue
            piece = text[a:b]
            if self.normalizer is not None:
                normed, al = self.normalizer.aligned(piece)
            else:
                normed, al = piece, None
            # Without an alignment, positions in the normalized piece are the text's, shifted.
            first = a == 0 and (al is None or (bool(al) and al[0] == 0))
            base = a if al is None else 0
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
                out += [a + x for x in mapped] if a else mapped
        return out

    def _mids(self, keys: list[str], at: int, mid_chars: list[int]) -> None:
        mids, counts = self._words.mids, self._words.counts
        for key in keys:
            m = mids[key]
            if m:
                mid_chars.extend(at + x for x in m)
            at += counts[key]

    # ------------------------------------------------------------------ boundaries

    def _is_solid(self, c: str) -> bool:
        known = self._solid.get(c)
        if known is None:
            known = False
            if unicodedata.category(c)[0] in "LNPS" and c not in PREPEND:
                n = self.normalize(c)
                known = bool(n) and n[-1] not in WHITESPACE and n[-1] != "\u2581" \
                    and n[0] not in WHITESPACE
            self._solid[c] = known
        return known

    def _space_ok(self) -> bool:
        n = self.normalize(" ")
        return n in (" ", "\u2581")

    def _blocked_spans(self, text: str) -> list[tuple[int, int]]:
        """Spans [start, stop] that risky raw added tokens cover (a cut inside is unsafe)."""
        key = (id(text), len(text))
        if self._blocked_key != key:
            self._blocked = [(a, b) for a, b, _, _ in self.raw_added.matches(text)]
            self._blocked_key = key
        return self._blocked

    def boundary_at(self, text: str, p: int) -> bool:
        """Whether count(text[a:b]) - specials equals the document's tokens with offsets in
        [a, b) for this p as a or b (with any other boundary as the other end)."""
        if p <= 0 or p >= len(text):
            return True
        if not self._cut_ok or text[p] != " " or not self._is_solid(text[p - 1]):
            return False
        if not self._space_ok():
            return False
        if self._risky_raw:
            for a, b in self._blocked_spans(text):
                if a <= p <= b:
                    return False
        return True

    def first_boundary(self, text: str, start: int, end: int) -> int | None:
        """The first boundary p with start <= p < end, or None."""
        n = len(text)
        start = max(start, 0)
        end = min(end, n + 1)
        if start >= end:
            return None
        if start == 0 or start == n:
            return start
        if self._cut_ok:
            p = text.find(" ", start, end)
            while p >= 0:
                if self.boundary_at(text, p):
                    return p
                p = text.find(" ", p + 1, end)
        return n if end > n else None

    def last_boundary(self, text: str, start: int, end: int) -> int | None:
        """The last boundary p with start < p <= end, or None."""
        n = len(text)
        end = min(end, n)
        if end <= start:
            return None
        if end == n or end == 0:
            return end
        if self._cut_ok:
            p = text.rfind(" ", max(start + 1, 0), end + 1)
            while p > start:
                if self.boundary_at(text, p):
                    return p
                p = text.rfind(" ", max(start + 1, 0), p)
        return 0 if start < 0 else None


_SPACE_RUNS = {" {2,}", " +", "\\s+"}


def load_example() -> HFTokenizer:
    """A tiny WordPiece tokenizer for examples."""
    vocab = {"[CLS]": 0, "[SEP]": 1, "[UNK]": 2, "hello": 3, "world": 4}
    return HFTokenizer({
        "model": {"type": "WordPiece", "vocab": vocab, "unk_token": "[UNK]"},
        "normalizer": {"type": "BertNormalizer"},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 1], "cls": ["[CLS]", 0]},
    }, name="example")
