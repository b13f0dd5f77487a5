"""Strategy `sentence`: packs whole sentences (or the finest enabled break: paragraph, line,
sentence, clause) up to `size`; overlap is whole trailing sentences.

A sentence longer than `size` gets chunks of its own, cut at the limit between words (inside a
word only when one word alone is too long), and those chunks are flagged `split_sentence`.
Size 0 gives one chunk per sentence.
"""

from __future__ import annotations

from ..text._segments import Fences, position_kind
from ..tokens._measure import Measure
from ._pack import Leaves, Spans, cascade, pack_columns, spans_from_pack

_ORDER = ("paragraph", "line", "sentence", "clause")


def split(
    text: str, *, size: int, overlap: int, measure: Measure, breaks: tuple[str, ...] = ("paragraph", "line", "sentence")
) -> Spans:
    """
    >>> from chunker import chunk
    >>> [c.text for c in chunk("Dr. Smith left. He came back.", strategy="sentence", size=0)]
    ['Dr. Smith left.', 'He came back.']
    """
    leaves = sentence_leaves(text, size=size, measure=measure, breaks=breaks)
    groups = pack_columns(leaves.starts, leaves.ends, size=size, overlap=overlap, measure=measure, hard=leaves.hard)
    return spans_from_pack(leaves, groups)


def sentence_leaves(text: str, *, size: int, measure: Measure, breaks: tuple[str, ...]) -> Leaves:
    """The text's pieces at every break point in `breaks` (and words, then characters, where a
    piece is over the size): what the sentence strategy packs, and the semantic one compares."""
    enabled = [b for b in _ORDER if b in breaks]
    # The paragraph level always runs first: a blank line ends every sentence anyway.
    levels = tuple(dict.fromkeys(["paragraph"] + enabled)) + ("word", "char")
    leaves = Leaves(position_kind(len(text)))
    cascade(
        text,
        0,
        len(text),
        0,
        measure=measure,
        size=size,
        leaves=leaves,
        levels=levels,
        split_all_until=len(levels) - 3,
        fences=Fences.of(text),
    )
    return leaves
