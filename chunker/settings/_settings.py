"""The registry of every default and choice the settings draw on, and the checks of their values.

The library, the command line and the page all read their choices (units, break points), their
defaults and the volume-limit policy from here; strategies and tokenizers have registries of
their own (chunker/strategies/__init__.py, chunker/tokens/_tokenizers.py). The options
themselves, and `Settings`, are declared once in `_options`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .._errors import ChunkerError, shown

__all__ = [
    "Choice",
    "UNITS",
    "BREAKS",
    "RETRIEVERS",
    "DEFAULTS",
    "PLAYGROUND_DEFAULTS",
    "VOLUME_TIMES",
    "VOLUME_FLOOR",
    "MAX_SIZE",
    "volume_limit",
    "whole_number",
]


@dataclass(frozen=True)
class Choice:
    """One value of a setting with a fixed set of values: its name, label and meaning."""

    name: str
    label: str
    description: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "description": self.description}


def _choices(*items: Choice) -> dict[str, Choice]:
    return {c.name: c for c in items}


UNITS = _choices(
    Choice("tokens", "tokens", "Size and overlap count tokens of the chosen tokenizer."),
    Choice("chars", "characters", "Size and overlap count Unicode code points."),
    Choice("words", "words", "Size and overlap count whitespace-separated words."),
)
"""Units that `size` and `overlap` are counted in."""

BREAKS = _choices(
    Choice("paragraph", "paragraph", "A blank line."),
    Choice("line", "line", "A line break."),
    Choice("sentence", "sentence", "The end of a sentence."),
    Choice("clause", "clause (, ; :)", "A comma, semicolon or colon inside a sentence."),
)
"""Break points the sentence strategy may close a chunk at, coarsest first."""

RETRIEVERS = _choices(
    Choice("bm25", "BM25", "Okapi BM25 over the chunks' words."),
    Choice("dense", "dense (embedding model)", "The cosine of the embedding model's vectors of question and chunk."),
    Choice("hybrid", "hybrid (BM25 + dense)", "Reciprocal rank fusion of the BM25 and dense rankings."),
)
"""How the retrieval check ranks chunks (chunker/retrieval/_rankers.py); dense and hybrid need
an embedding model."""

DEFAULTS: dict[str, Any] = {
    "strategy": "recursive",
    "unit": "tokens",
    "size": 500,
    "overlap": 50,
    "tokenizer": "estimate",
    "breaks": ("paragraph", "line", "sentence"),
}
"""The defaults of `chunk()`, `Document.chunk()` and the CLI."""

PLAYGROUND_DEFAULTS: dict[str, Any] = {**DEFAULTS, "size": 150, "overlap": "10%"}
"""What the page opens with: smaller chunks, so that its sample document shows several."""

VOLUME_TIMES = 20
VOLUME_FLOOR = 2_000_000
"""The volume-limit policy (see `volume_limit`): settings whose chunks would hold more than
VOLUME_TIMES times the document's characters, and more than VOLUME_FLOOR, are refused."""

MAX_SIZE = 1_000_000_000
"""The largest size (and overlap) accepted: far past any document, and small enough that the
arithmetic on it stays exact."""


def volume_limit(text: str) -> int:
    """The default `max_chunk_chars` for `text`.

    An overlap of nearly the whole size repeats the document thousands of times over (at a
    stride of one character, a megabyte makes gigabytes of chunk text), which would fill the
    memory before anything is shown or written. A short document may repeat more before it
    costs anything, hence the floor.

    >>> volume_limit("x" * 1000), volume_limit("x" * 1_000_000)
    (2000000, 20000000)
    """
    return max(VOLUME_TIMES * len(text), VOLUME_FLOOR)


def _choice(kind: str, value: Any, options: dict[str, Any]) -> str:
    try:
        known = value in options
    except TypeError:  # unhashable: a list or a dict where a name belongs
        known = False
    if not known:
        shown = value if isinstance(value, str) else f"{type(value).__name__} {value!r}"
        raise ChunkerError(
            f"unknown {kind} {shown!r}: choose one of {', '.join(options)}"
            if isinstance(value, str)
            else f"{kind} must be a name, got {shown[:80]}: choose one of {', '.join(options)}"
        )
    return str(value)


def whole_number(kind: str, value: Any) -> int:
    """`value` as a whole number from 0 to MAX_SIZE: an int, an integral float, or ASCII digits
    with spaces around them. Signs other than a leading minus, digit group separators (``1_000``,
    ``1,000``) and digits of other scripts are refused: a setting that travels in a link or a
    script should read the same everywhere.

    >>> whole_number("size", " 500 "), whole_number("size", 500.0)
    (500, 500)
    >>> whole_number("size", "1_000")
    Traceback (most recent call last):
    ...
    chunker._errors.ChunkerError: size must be a whole number in digits 0-9, got '1_000'
    """
    field = kind.lstrip("-").replace("-", "_")
    if isinstance(value, bool):
        raise ChunkerError(f"{kind} must be a whole number, got {value!r}", field=field)
    if isinstance(value, float):
        if not (math.isfinite(value) and value.is_integer()):
            raise ChunkerError(f"{kind} must be a whole number, got {value!r}", field=field)
        value = int(value)
    elif isinstance(value, str):
        digits = value.strip()
        body = digits[1:] if digits.startswith("-") else digits
        if not (body.isascii() and body.isdigit()):
            raise ChunkerError(f"{kind} must be a whole number in digits 0-9, got {value[:40]!r}", field=field)
        if len(body) > 12:
            raise ChunkerError(f"{kind} {digits[:20]}… is too large: at most {MAX_SIZE:,}", field=field)
        value = int(digits)
    elif not isinstance(value, int):
        raise ChunkerError(f"{kind} must be a whole number, got {type(value).__name__} {str(value)[:40]!r}", field=field)
    if value > MAX_SIZE:
        raise ChunkerError(
            f"{kind} {value if value < 10**15 else '10^' + str(len(str(value)) - 1)} is too large: at most {MAX_SIZE:,}",
            field=field,
        )
    return int(value)


_PERCENT = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def parse_overlap(value: int | str, size: int) -> tuple[int, int | str]:
    """Turn ``50`` or ``"15%"`` into a count in the size's unit, and the value to show.

    A percentage is of `size`, rounded down: ``⌊size × percentage / 100⌋``.

    >>> parse_overlap("15%", 300)
    (45, '15%')
    >>> parse_overlap(50, 500)
    (50, 50)
    """
    if isinstance(value, str) and value.strip().endswith("%"):
        text = value.strip()[:-1].strip()
        # Plain decimal digits, as whole numbers are: float() would also read 1_5, 1e1 and inf.
        if _PERCENT.fullmatch(text) is None:
            raise ChunkerError(f"overlap {value[:40]!r} is not a percentage: write it like 15%", field="overlap")
        pct = float(text)
        if not math.isfinite(pct) or pct < 0:
            raise ChunkerError(f"overlap {value[:40]!r} must be a percentage from 0% to under 100%", field="overlap")
        if pct >= 100:
            raise ChunkerError(f"overlap {value[:40]!r} must be under 100% of the size", field="overlap")
        return int(size * pct // 100), f"{text}%"
    count = whole_number("overlap", value)
    return count, count


def _breaks(value: Any) -> tuple[str, ...]:
    if value is None:
        raise ChunkerError("breaks is None: name at least one of " + ", ".join(BREAKS))
    if isinstance(value, str):
        value = [b.strip() for b in value.split(",") if b.strip()]
    try:
        items = tuple(value)
    except TypeError:
        raise ChunkerError(f"breaks must be names such as 'sentence', got {type(value).__name__} {shown(value, 60)}") from None
    for b in items:
        _choice("break point", b, BREAKS)
    if not items:
        raise ChunkerError("breaks is empty: name at least one of " + ", ".join(BREAKS))
    # The registry's order, so that equal settings compare and serialise equal.
    return tuple(b for b in BREAKS if b in items)
