"""The records `chunk()` returns: one `Chunk` per span, `Stats` for the whole document."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from ._settings import Settings
from ._text import count_words

__all__ = ["Chunk", "Stats", "ChunkResult", "FLAGS"]

FLAGS: Dict[str, str] = {
    "mid_sentence": "Ends mid-sentence: the chunk does not end with terminal punctuation or a closing code fence.",
    "fragment": "Fragment: under a fifth of the chunk size; a fragment embeds as noise.",
    "orphan_heading": "Orphaned heading: the last line is a heading whose body went to the next chunk.",
    "oversize": "Oversize: larger than the chunk size, measured on the final chunk.",
    "split_sentence": "Split sentence: a sentence was cut to fit the size.",
}
"""Flag names and what each one means (the page shows these on the badges)."""


@dataclass(frozen=True)
class Chunk:
    """One chunk: a span of the document, its text and its sizes.

    `start_char`/`end_char` are code-point offsets into the document exactly as given, so
    ``document[start_char:end_char] == text`` always holds.
    """

    index: int
    start_char: int
    end_char: int
    text: str
    tokens: int
    tokens_estimated: bool
    flags: Tuple[str, ...] = ()
    headings: Tuple[str, ...] = ()
    overlap_chars: int = 0
    chars: int = field(init=False)
    # Counted on first use: chunking a large document for a pipeline need not pay for it.
    _words: Optional[int] = field(init=False, default=None, repr=False, compare=False)

    @property
    def words(self) -> int:
        """Whitespace-separated words, as ``len(text.split())``."""
        if self._words is None:
            object.__setattr__(self, "_words", count_words(self.text))
        return self._words  # type: ignore[return-value]

    def __post_init__(self) -> None:
        object.__setattr__(self, "chars", len(self.text))
        if not 0 <= self.start_char <= self.end_char:
            raise ValueError(f"chunk {self.index} has bad offsets {self.start_char}..{self.end_char}")
        if self.end_char - self.start_char != len(self.text):
            raise ValueError(f"chunk {self.index}: offsets do not match its text length")
        unknown = [f for f in self.flags if f not in FLAGS]
        if unknown:
            raise ValueError(f"chunk {self.index} has unknown flags {unknown}")

    @classmethod
    def _made_from(cls, text: str, index: int, start_char: int, end_char: int, tokens: int,
                   tokens_estimated: bool, flags: Tuple[str, ...], headings: Tuple[str, ...],
                   overlap_chars: int) -> "Chunk":
        """A record for `chunk()` only, whose `text` is ``document[start_char:end_char]`` as it
        has just sliced it (the property tests hold every result to that).

        `__post_init__`'s checks are skipped: a frozen dataclass sets each field through
        object.__setattr__, which costs more than slicing the chunk, and a document can make
        thousands of chunks.
        """
        record = object.__new__(cls)
        record.__dict__.update(index=index, start_char=start_char, end_char=end_char, text=text,
                               tokens=tokens, tokens_estimated=tokens_estimated, flags=flags,
                               headings=headings, overlap_chars=overlap_chars, chars=len(text),
                               _words=None)
        return record

    def to_dict(self) -> Dict[str, Any]:
        return {
            "index": self.index,
            "start_char": self.start_char,
            "end_char": self.end_char,
            "text": self.text,
            "chars": self.chars,
            "words": self.words,
            "tokens": self.tokens,
            "tokens_estimated": self.tokens_estimated,
            "overlap_chars": self.overlap_chars,
            "flags": list(self.flags),
            "headings": list(self.headings),
        }


@dataclass(frozen=True)
class Stats:
    """Figures for the whole result (seed 001's stats strip and seed 002's largest/average)."""

    chunks: int
    document_chars: int
    document_tokens: int
    min_tokens: int
    avg_tokens: float
    max_tokens: int
    min_chars: int
    avg_chars: float
    max_chars: int
    duplicated_tokens: int
    duplicated_pct: float
    embedding_tokens: int
    exact: bool
    flag_counts: Dict[str, int] = field(default_factory=dict)
    document: str = field(default="", repr=False, compare=False)
    _words: Optional[int] = field(init=False, default=None, repr=False, compare=False)

    @property
    def document_words(self) -> int:
        """Whitespace-separated words of the whole document, counted on first use."""
        if self._words is None:
            object.__setattr__(self, "_words", count_words(self.document))
        return self._words  # type: ignore[return-value]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "chunks": self.chunks,
            "document_chars": self.document_chars,
            "document_words": self.document_words,
            "document_tokens": self.document_tokens,
            "min_tokens": self.min_tokens,
            "avg_tokens": self.avg_tokens,
            "max_tokens": self.max_tokens,
            "min_chars": self.min_chars,
            "avg_chars": self.avg_chars,
            "max_chars": self.max_chars,
            "duplicated_tokens": self.duplicated_tokens,
            "duplicated_pct": self.duplicated_pct,
            "embedding_tokens": self.embedding_tokens,
            "exact": self.exact,
            "flag_counts": dict(self.flag_counts),
        }


@dataclass(frozen=True)
class ChunkResult:
    """What `chunk()` returns: the chunks, their stats and the settings that made them."""

    chunks: Tuple[Chunk, ...]
    stats: Stats
    settings: Settings
    source: Optional[str] = None

    def __iter__(self):
        return iter(self.chunks)

    def __len__(self) -> int:
        return len(self.chunks)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "settings": self.settings.to_dict(),
            "stats": self.stats.to_dict(),
            "chunks": [c.to_dict() for c in self.chunks],
        }
