"""Where a text may be cut so that each side counts as it does inside the whole.

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

`Cuts` is a part of HFTokenizer (a mixin): it judges the components once (`_judge_cuts`,
which also sets the BPE subsplit the pipeline uses) and answers boundary queries.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from . import _models, _normalizers
from ._pretokenizers import ISOLATES, LOCAL, Sequence
from ._rewriting import byte_chars
from ._unicode import PREPEND, WHITESPACE

_SPACE_RUNS = {" {2,}", " +", "\\s+"}


class Cuts:
    normalizer: Any
    pre: Any
    model: Any
    norm_added: Any
    raw_added: Any
    cut_blockers: list[str]
    subsplit: re.Pattern[str] | None
    _key_subsplit: re.Pattern[str] | None
    _tail: Any
    _cut_ok: bool
    _risky_raw: bool
    _solid: dict[str, bool]
    _blocked_key: tuple[int, int] | None
    _blocked: list[tuple[int, int]]

    # Given by HFTokenizer.
    normalize: Any
    model_words: Any

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
                spacey = (lit is not None and (" " not in lit or set(lit) == {" "})) or (lit is None and n.onig in _SPACE_RUNS)
                if not spacey:
                    blockers.append(f"normalizer Replace {n.onig!r}")
        if any(t.risky for t in self.norm_added.tokens.values()):
            blockers.append("an added token with normalized=true that can match whitespace or has lstrip/rstrip/single_word")
        cut = self.pre.cut if self.pre is not None else LOCAL
        if cut == ISOLATES:
            pass
        elif cut == LOCAL:
            marker = self._space_marker()
            if not isinstance(self.model, _models.BPE) or marker is None or not self._bpe_separable(marker):
                blockers.append(
                    f"model {self.model.kind} sees words across spaces (pre-tokenizer {getattr(self.pre, 'kind', None)})"
                )
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
            blockers.append(f"pre-tokenizer {self.pre.kind} (its split can cross or merge at a space)")
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
        last = self.pre.parts[-1] if isinstance(self.pre, Sequence) and self.pre.parts else self.pre
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

    def _is_solid(self, c: str) -> bool:
        known = self._solid.get(c)
        if known is None:
            known = False
            if unicodedata.category(c)[0] in "LNPS" and c not in PREPEND:
                n = self.normalize(c)
                known = bool(n) and n[-1] not in WHITESPACE and n[-1] != "\u2581" and n[0] not in WHITESPACE
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
