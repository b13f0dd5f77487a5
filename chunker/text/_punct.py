"""Sentence punctuation, in one place: the sentence detector and the `mid_sentence` flag must
agree on what ends a sentence, or a chunk the detector ended on a sentence gets flagged."""

from __future__ import annotations

__all__ = ["LATIN_TERMINALS", "QUESTION_MARKS", "CJK_STOPS", "TERMINALS", "CLOSERS", "OPENERS"]

QUESTION_MARKS = "!?\u203d\u203c\u2047\u2048\u2049"
"""Exclamation and question marks: ! ? ‽ ‼ ⁇ ⁈ ⁉."""

LATIN_TERMINALS = "." + QUESTION_MARKS + "\u2026"
"""Punctuation that ends a sentence when whitespace follows: the full stop, the marks above and
the ellipsis character."""

CJK_STOPS = "\u3002\uff01\uff1f\uff61"
"""CJK full stops (。！？｡): they end a sentence with no space after them."""

TERMINALS = LATIN_TERMINALS + CJK_STOPS

CLOSERS = "\"'\u201d\u2019\u00bb\u203a)]}\u300d\u300f\u3011\u3015\u3009\u300b\uff09\uff3d\uff5d"
"""Characters that may close a sentence after its terminal punctuation: quotes, brackets."""

OPENERS = "\"'\u201c\u2018\u00ab\u2039([{\u00bf\u00a1\u300c\u300e\u3010\u3014\u3008\u300a\uff08\uff3b\uff5b"
"""Characters that may open a sentence before its first letter."""
