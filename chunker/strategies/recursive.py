"""Strategy `recursive`: the cascade paragraph → line → sentence → word → character.

A span that fits is one piece; one that does not is split at the next level. Pieces are packed
up to `size`, and the overlap is whole trailing pieces. Hard-wrapped prose skips the line level.

A Markdown pipe table (chunker/text/_tables.py: the HTML and Word readers write theirs so) is
one piece when it fits; a longer one is split between its rows, each part after the first
carrying the header rows (see `_tables`). A text without a pipe costs one look for it.
"""

from __future__ import annotations

from ..text._segments import Fences, position_kind
from ..text._tables import find_tables
from ..tokens._measure import Measure
from ._pack import Leaves, Spans, cascade, pack_columns, spans_from_pack
from ._tables import Split, annotate, split_table

_LEVELS = ("paragraph", "line", "sentence", "word", "char")


def split(text: str, *, size: int, overlap: int, measure: Measure, breaks: tuple[str, ...] = ()) -> Spans:
    """
    >>> from chunker import chunk
    >>> [c.text for c in chunk("One. Two.\\n\\nThree.", strategy="recursive", unit="chars", size=10, overlap=0)]
    ['One. Two.', 'Three.']
    """
    leaves = Leaves(position_kind(len(text)))
    fences = Fences.of(text)
    tables = find_tables(text, fences=fences) if size and "|" in text else []
    splits: list[Split] = []
    pos = 0
    for table in tables:
        # The text before the table, then the table: whole, or split between its rows.
        cascade(text, pos, table.start, 0, measure=measure, size=size, leaves=leaves, levels=_LEVELS, fences=fences)
        if measure.over(table.start, table.end, size):
            leaves.hard.add(len(leaves))
            splits.append(split_table(text, table.start, table.end, table, size=size, measure=measure, leaves=leaves))
            leaves.hard.add(len(leaves))
        else:
            leaves.add(table.start, table.end)
        pos = table.end
    cascade(text, pos, len(text), 0, measure=measure, size=size, leaves=leaves, levels=_LEVELS, fences=fences)
    groups = pack_columns(
        leaves.starts, leaves.ends, size=size, overlap=overlap, measure=measure, hard=leaves.hard, walls=leaves.walls
    )
    return annotate(text, splits, spans_from_pack(leaves, groups))
