"""Added tokens (`added_tokens`): found in the text before the model runs, as HF's
AddedVocabulary does.

Tokens with normalized=false are matched on the raw text first; the pieces between them are
normalized, and tokens with normalized=true are then matched (in their normalized form) on
each normalized piece. Matching is leftmost-longest and non-overlapping; a single_word token
needs no word character (Rust's \\w) on either side, and a rejected match still consumes its
text; lstrip/rstrip take the White_Space next to the match into the token.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._unicode import WHITESPACE, is_word_char


@dataclass(frozen=True)
class AddedToken:
    content: str
    id: int
    special: bool
    single_word: bool
    lstrip: bool
    rstrip: bool
    normalized: bool

    @property
    def risky(self) -> bool:
        """Whether a match could reach across a space or depend on its neighbours."""
        return self.single_word or self.lstrip or self.rstrip or any(c in WHITESPACE or c == "\u2581" for c in self.content)


class Matcher:
    """Leftmost-longest matching of one set of added tokens."""

    def __init__(self, tokens: dict[str, AddedToken]) -> None:
        self.tokens = tokens
        alts = sorted(tokens, key=lambda s: (-len(s), s))
        self.rx = re.compile("|".join(map(re.escape, alts))) if alts else None

    def matches(self, s: str) -> list[tuple[int, int, AddedToken, bool]]:
        """(start, stop, token, kept) for each match the scan meets, stop after rstrip."""
        out: list[tuple[int, int, AddedToken, bool]] = []
        if self.rx is None or not s:
            return out
        last = 0
        for m in self.rx.finditer(s):
            start, stop = m.span()
            tok = self.tokens[m.group()]
            if tok.single_word:
                before_ok = start == 0 or not is_word_char(s[start - 1])
                after_ok = stop == len(s) or not is_word_char(s[stop])
                if not (before_ok and after_ok):
                    out.append((start, stop, tok, False))
                    continue
            if tok.lstrip:
                k = start
                while k > 0 and s[k - 1] in WHITESPACE:
                    k -= 1
                start = max(k, last)
            if tok.rstrip:
                while stop < len(s) and s[stop] in WHITESPACE:
                    stop += 1
            if start >= stop:
                # The match lies in whitespace the token before took with its rstrip: HF's
                # split there is empty, and it drops it (no token).
                out.append((start, start, tok, False))
                continue
            out.append((start, stop, tok, True))
            last = stop
        return out

    def split(self, s: str) -> list[tuple[int, int, int]]:
        """Cover s with (start, end, id) parts; id -1 for text between tokens."""
        parts: list[tuple[int, int, int]] = []
        last = 0
        for start, stop, tok, kept in self.matches(s):
            if not kept:
                continue
            if last < start:
                parts.append((last, start, -1))
            parts.append((start, stop, tok.id))
            last = stop
        if last < len(s) or not parts:
            parts.append((last, len(s), -1))
        return parts


def build(
    entries: list[dict[str, Any]], model_vocab: dict[str, int], normalize: Callable[[str], str] | None, *, size: int | None = None
) -> tuple[Matcher, Matcher, list[AddedToken]]:
    """(raw matcher, normalized matcher, all tokens), with HF's id assignment: a token
    already in the model's vocabulary keeps that id, others get ids after it in order, from
    `size` (the model's vocabulary size, by default the vocabulary's length)."""
    by_content: dict[str, AddedToken] = {}
    next_id = len(model_vocab) if size is None else size
    for e in entries:
        content = e.get("content", "")
        if not content:
            continue
        prior = by_content.get(content)
        if prior is not None:
            tid = prior.id
        elif content in model_vocab:
            tid = model_vocab[content]
        else:
            tid = next_id
            next_id += 1
        by_content[content] = AddedToken(
            content,
            tid,
            bool(e.get("special", False)),
            bool(e.get("single_word", False)),
            bool(e.get("lstrip", False)),
            bool(e.get("rstrip", False)),
            bool(e.get("normalized", not e.get("special", False))),
        )
    raw = {t.content: t for t in by_content.values() if not t.normalized}
    normed: dict[str, AddedToken] = {}
    for t in by_content.values():
        if t.normalized:
            key = normalize(t.content) if normalize is not None else t.content
            if key:
                normed[key] = t
    return Matcher(raw), Matcher(normed), list(by_content.values())
