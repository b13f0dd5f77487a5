"""Strategy `recursive`: the cascade paragraph → line → sentence → word → character.

A span that fits is one piece; one that does not is split at the next level. Pieces are packed
up to `size`, and the overlap is whole trailing pieces. Hard-wrapped prose skips the line level.
"""

from __future__ import annotations

from ..text._segments import Fences, position_kind
from ..tokens._measure import Measure
from ._pack import Leaves, Spans, cascade, pack_columns, spans_from_pack

_LEVELS = ("paragraph", "line", "sentence", "word", "char")


def split(text: str, *, size: int, overlap: int, measure: Measure, breaks: tuple[str, ...] = ()) -> Spans:
    """
    >>> from chunker import chunk
    >>> [c.text for c in chunk("One. Two.\\n\\nThree.", strategy="recursive", unit="chars", size=10, overlap=0)]
    ['One. Two.', 'Three.']
    """
    leaves = Leaves(position_kind(len(text)))
    cascade(text, 0, len(text), 0, measure=measure, size=size, leaves=leaves, levels=_LEVELS, fences=Fences.of(text))
    groups = pack_columns(leaves.starts, leaves.ends, size=size, overlap=overlap, measure=measure, hard=leaves.hard)
    return spans_from_pack(leaves, groups)
