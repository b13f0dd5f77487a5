"""Validated chunking settings, shared by the library, the command line and the page."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Tuple, Union

from ._errors import ChunkerError

__all__ = ["Settings", "STRATEGIES", "UNITS", "TOKENIZERS", "BREAKS", "DEFAULTS"]

STRATEGIES: Dict[str, str] = {
    "recursive": "Paragraph, then line, sentence, word and character breaks; pieces are packed up to the size.",
    "fixed": "Windows of exactly `size` units with a stride of size minus overlap; ignores structure.",
    "sentence": "Packs whole sentences up to the size; a sentence longer than the size is cut and flagged.",
    "paragraph": "Packs whole blank-line-separated paragraphs; a long paragraph is never split, only flagged.",
    "markdown": "Heading-aware sections with their heading path; code blocks and tables stay whole.",
    "langchain": "Exactly what LangChain's RecursiveCharacterTextSplitter returns, with correct offsets.",
}
"""Strategy names (the CLI's) and a one-line explanation of each."""

UNITS: Dict[str, str] = {
    "tokens": "Size and overlap count tokens of the chosen tokenizer.",
    "chars": "Size and overlap count Unicode code points.",
    "words": "Size and overlap count whitespace-separated words.",
}
"""Units that `size` and `overlap` are counted in."""

TOKENIZERS: Dict[str, str] = {
    "approx": "Estimate: trimmed characters / 4, rounded half up (at least 1).",
    "estimate": "Estimate from character classes: CJK about one token per character, Latin words, digits, symbols.",
    "o200k": "Exact: OpenAI o200k_base (GPT-4o, GPT-4.1, o-series).",
    "cl100k": "Exact: OpenAI cl100k_base (GPT-4, GPT-3.5, text-embedding-3).",
}
"""Tokenizer names and what each counts; only o200k and cl100k are exact."""

BREAKS: Dict[str, str] = {
    "paragraph": "A blank line.",
    "line": "A line break.",
    "sentence": "The end of a sentence.",
    "clause": "A comma, semicolon or colon inside a sentence.",
}
"""Break points the sentence strategy may close a chunk at."""

DEFAULTS: Dict[str, Any] = {
    "strategy": "recursive",
    "unit": "tokens",
    "size": 500,
    "overlap": 50,
    "tokenizer": "approx",
    "breaks": ("paragraph", "line", "sentence"),
}
"""The defaults of `chunk()` and the CLI. (The page opens at 150 tokens and 10% so that its
sample document shows several chunks; every setting it uses travels in its URL.)"""

# Strategies for which size 0 means "one chunk per natural unit" (seed 000's by-sentence and
# by-paragraph modes).
_SIZE_ZERO_OK = ("sentence", "paragraph")


def _choice(kind: str, value: Any, options: Dict[str, str]) -> str:
    if value not in options:
        raise ChunkerError(
            f"unknown {kind} {value!r}: choose one of {', '.join(options)}"
        )
    return value


def _whole_number(kind: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value.strip())
        raise ChunkerError(f"{kind} must be a whole number, got {value!r}")
    return value


def parse_overlap(value: Union[int, str], size: int) -> Tuple[int, Union[int, str]]:
    """Turn ``50`` or ``"15%"`` into a count in the size's unit.

    A percentage is of `size`, rounded down (seed 000's ``⌊size × overlap%⌋``).

    >>> parse_overlap("15%", 300)
    (45, '15%')
    >>> parse_overlap(50, 500)
    (50, 50)
    """
    if isinstance(value, str) and value.strip().endswith("%"):
        text = value.strip()[:-1].strip()
        try:
            pct = float(text)
        except ValueError:
            raise ChunkerError(
                f"overlap {value!r} is not a percentage: write it like 15%"
            ) from None
        if not math.isfinite(pct) or pct < 0:
            raise ChunkerError(f"overlap {value!r} must be a percentage from 0% to under 100%")
        if pct >= 100:
            raise ChunkerError(f"overlap {value!r} must be under 100% of the size")
        label = f"{text}%"
        return int(size * pct // 100), label
    count = _whole_number("overlap", value)
    return count, count


@dataclass(frozen=True)
class Settings:
    """One validated set of chunking options.

    >>> Settings(strategy="fixed", unit="chars", size=300, overlap="15%").overlap_count
    45
    """

    strategy: str = DEFAULTS["strategy"]
    unit: str = DEFAULTS["unit"]
    size: int = DEFAULTS["size"]
    overlap: Union[int, str] = DEFAULTS["overlap"]
    tokenizer: str = DEFAULTS["tokenizer"]
    breaks: Tuple[str, ...] = DEFAULTS["breaks"]

    def __post_init__(self) -> None:
        _choice("strategy", self.strategy, STRATEGIES)
        _choice("unit", self.unit, UNITS)
        _choice("tokenizer", self.tokenizer, TOKENIZERS)
        size = _whole_number("size", self.size)
        object.__setattr__(self, "size", size)
        if size < 0 or (size == 0 and self.strategy not in _SIZE_ZERO_OK):
            zero = " (0 is allowed for sentence and paragraph: one chunk each)" if size == 0 else ""
            raise ChunkerError(f"size must be a positive number, got {size}{zero}")
        breaks = self.breaks
        if isinstance(breaks, str):
            breaks = tuple(b.strip() for b in breaks.split(",") if b.strip())
        breaks = tuple(breaks)
        for b in breaks:
            _choice("break point", b, BREAKS)
        if not breaks:
            raise ChunkerError("breaks is empty: name at least one of " + ", ".join(BREAKS))
        # Keep the canonical order so equal settings compare and serialise equal.
        object.__setattr__(self, "breaks", tuple(b for b in BREAKS if b in breaks))
        count, label = parse_overlap(self.overlap, size)
        object.__setattr__(self, "overlap", label)
        if size == 0:
            return  # one chunk per sentence/paragraph: overlap has nothing to repeat
        if count < 0:
            raise ChunkerError(f"overlap must be 0 or more, got {count}")
        if count >= size:
            raise ChunkerError(
                f"overlap {self.overlap} must be smaller than the size {size}: try {size // 10} (10%)"
            )

    @property
    def overlap_count(self) -> int:
        """The overlap in the size's unit (a percentage resolved against `size`)."""
        if self.size == 0:
            return 0
        return parse_overlap(self.overlap, self.size)[0]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "strategy": self.strategy,
            "unit": self.unit,
            "size": self.size,
            "overlap": self.overlap,
            "tokenizer": self.tokenizer,
            "breaks": list(self.breaks),
        }
