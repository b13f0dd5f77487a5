"""The records `chunk()` returns: a `Chunk` per span, `Stats` for the whole document.

A result holds its chunks as spans and numbers (`Chunks`): about 40 bytes a chunk beside the
document, whose text each `Chunk` record slices when it is asked for. A megabyte cut into
single characters is a million chunks; as records held at once it would be a gigabyte.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from .._errors import ChunkerError
from ..settings._options import OPTIONS, Settings
from ..text._segments import count_words, position_kind

__all__ = ["Chunk", "Chunks", "Stats", "FlagCounts", "ChunkResult", "FLAGS", "chunk_id", "id_base", "utf8"]

FLAGS: dict[str, str] = {
    "mid_sentence": "Ends mid-sentence: the chunk does not end with terminal punctuation or a closing code fence.",
    "fragment": "Fragment: under a fifth of the chunk size; a fragment embeds as noise.",
    "orphan_heading": "Orphaned heading: the last line is a heading whose body went to the next chunk.",
    "oversize": "Oversize: larger than the chunk size, measured on the final chunk.",
    "split_sentence": "Split sentence: a sentence was cut to fit the size.",
    "truncated": "Truncated: more tokens than the embedding model's input limit; the model will cut this chunk.",
    "tiny": "Tiny: smaller than the minimum size, and no neighbour in its section could take it within the size.",
    "table_continued": "Table continued: a later part of a table split between its rows; it carries the table's header rows "
    "as context, so its embed text starts with them.",
    "row_cut": "Row cut: a table row too long for the size (with its header rows) was cut; the chunk starts or ends inside it.",
    "framework_offset": (
        "Framework offset: the framework's own start index for this chunk (a search for its text) points "
        "elsewhere; start_char is where the chunk really is."
    ),
}
"""Flag names and what each one means (the page shows these on the badges)."""


@dataclass(frozen=True)
class Chunk:
    """One chunk: a span of the document, its text and its sizes.

    `start_char`/`end_char` are code-point offsets into the document exactly as given, so
    ``document[start_char:end_char] == text`` always holds.

    `context` is what the embedder reads before the text (the `context` setting's rendering,
    then what the strategy adds, such as a table's header rows): `embed_text` is the two
    together, `embed_tokens` its count in the chosen tokenizer. With no context they are
    `text` and `tokens` themselves.
    """

    index: int
    start_char: int
    end_char: int
    text: str
    tokens: int
    tokens_estimated: bool
    flags: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()
    overlap_chars: int = 0
    page_start: int | None = None
    """The first page (from 1) the chunk touches, for a document with pages (a PDF); else None."""
    page_end: int | None = None
    id: str = ""
    """A stable hash of the document's source, the settings, the span and its text (`chunk_id`):
    the same on every run, machine and engine; two different chunks never share it."""
    context: str = ""
    embed_tokens: int = -1
    """`embed_text`'s tokens; left out (-1), `tokens` (a chunk with no context)."""
    framework_text: str | None = None
    """A pasted splitter's own chunk text, where it is not one slice of the document (the
    separators put back between pieces, stripped lines joined): `text` is then the slice
    covering it, and `embed_text` holds this instead. None: the framework's text is `text`."""
    chars: int = field(init=False)
    # Counted on first use: chunking a large document for a pipeline need not pay for it.
    _words: int | None = field(init=False, default=None, repr=False, compare=False)

    @property
    def words(self) -> int:
        """Whitespace-separated words, as ``len(text.split())``."""
        if self._words is None:
            object.__setattr__(self, "_words", count_words(self.text))
        return self._words  # type: ignore[return-value]

    @property
    def embed_text(self) -> str:
        """What the embedding model receives: the context, then the chunk's text (a pasted
        splitter's own text where it is not the slice)."""
        own = self.text if self.framework_text is None else self.framework_text
        return self.context + own if self.context else own

    def __post_init__(self) -> None:
        object.__setattr__(self, "chars", len(self.text))
        if self.embed_tokens < 0:
            if self.context:
                raise ChunkerError(f"chunk {self.index} has a context: give its embed_tokens, the count of context + text")
            object.__setattr__(self, "embed_tokens", self.tokens)
        if not 0 <= self.start_char <= self.end_char:
            raise ChunkerError(f"chunk {self.index} has bad offsets {self.start_char}..{self.end_char}")
        if self.end_char - self.start_char != len(self.text):
            raise ChunkerError(f"chunk {self.index}: offsets do not match its text length")
        unknown = [f for f in self.flags if f not in FLAGS]
        if unknown:
            raise ChunkerError(f"chunk {self.index} has unknown flags {unknown}")

    @classmethod
    def _made_from(
        cls,
        text: str,
        index: int,
        start_char: int,
        end_char: int,
        tokens: int,
        tokens_estimated: bool,
        flags: tuple[str, ...],
        headings: tuple[str, ...],
        overlap_chars: int,
        page_start: int | None = None,
        page_end: int | None = None,
        id: str = "",
        context: str = "",
        embed_tokens: int = -1,
        framework_text: str | None = None,
    ) -> Chunk:
        """A record whose `text` is ``document[start_char:end_char]`` as `Chunks` has just sliced
        it (the property tests hold every result to that).

        `__post_init__`'s checks are skipped: a frozen dataclass sets each field through
        object.__setattr__, which costs more than slicing the chunk, and a document can make
        thousands of chunks.
        """
        record = object.__new__(cls)
        record.__dict__.update(
            index=index,
            start_char=start_char,
            end_char=end_char,
            text=text,
            tokens=tokens,
            tokens_estimated=tokens_estimated,
            flags=flags,
            headings=headings,
            overlap_chars=overlap_chars,
            page_start=page_start,
            page_end=page_end,
            id=id,
            context=context,
            embed_tokens=tokens if embed_tokens < 0 else embed_tokens,
            framework_text=framework_text,
            chars=len(text),
            _words=None,
        )
        return record

    def to_dict(self, *, embed: bool | None = None) -> dict[str, Any]:
        """The record as exported; `page_start` and `page_end` only for a document with pages;
        `embed_text` and `embed_tokens` when `embed` (by default: when the chunk has a context).
        A result's records all carry them or none do (see `embedded`)."""
        out: dict[str, Any] = {
            "id": self.id,
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
        if self.page_start is not None:
            out["page_start"], out["page_end"] = self.page_start, self.page_end
        if embed or (embed is None and (self.context or self.framework_text is not None)):
            out["embed_text"], out["embed_tokens"] = self.embed_text, self.embed_tokens
        return out


class Chunks(Sequence[Chunk]):
    """The chunks of one result as compact columns; `Chunk` records are made on access.

    Indexing, slicing and iterating give records equal to those a tuple would hold; equality
    with any sequence of records compares them one by one.
    """

    __slots__ = (
        "_text",
        "_starts",
        "_ends",
        "_counted",
        "_count",
        "_flagged",
        "_flag",
        "_headings",
        "_estimated",
        "_pages",
        "_wide_space",
        "_id_base",
        "_contexts",
        "_embed_counted",
        "_embed_count",
        "embedded",
        "_embeds",
    )

    def __init__(
        self,
        text: str,
        starts: Sequence[int],
        ends: Sequence[int],
        tokens: Sequence[int] | Callable[[], Sequence[int]],
        flags: Sequence[tuple[str, ...]] | Callable[[], Sequence[tuple[str, ...]]],
        headings: Sequence[tuple[str, ...]] | None,
        estimated: bool,
        pages: Sequence[int] = (),
        wide_space: bool | None = None,
        id_base: Any = None,
        contexts: Sequence[str] | None = None,
        embed_tokens: Sequence[int] | Callable[[], Sequence[int]] | None = None,
        embedded: bool = False,
        embeds: Sequence[str | None] | None = None,
    ) -> None:
        """`tokens` are the chunks' counts, and `flags` their flags, or what works them out when
        they are first read (a caller who keeps only the texts, as `split_text` does, never pays
        for them); `wide_space`, whether the text holds whitespace outside ASCII, when known
        (see `has_wide_space`); `id_base`, the hash the chunks' ids start from (`id_base`; by
        default that of no source and the default settings).

        `contexts` are the chunks' contexts (None: none has one, and then `embed_text` is the
        text and `embed_tokens` the tokens, with nothing kept or counted for them);
        `embed_tokens` their embed texts' counts, or what counts them. `embedded` says the
        records carry `embed_text` and `embed_tokens` when exported (a context was asked
        for, even where it came out empty)."""
        kind = position_kind(len(text))
        self._text = text
        self._starts = _array(kind, starts)
        self._ends = _array(kind, ends)
        self._counted: array[int] | None = None
        self._count: Callable[[], Sequence[int]] | None = None
        if callable(tokens):
            self._count = tokens
        else:
            self._counted = _array("q", tokens)
        self._wide_space = wide_space
        self._flagged: list[tuple[str, ...]] | None = None
        self._flag: Callable[[], Sequence[tuple[str, ...]]] | None = None
        if callable(flags):
            self._flag = flags
        else:
            self._flagged = _shared(flags)
        self._headings = None if headings is None or not any(headings) else list(headings)
        self._estimated = estimated
        self._pages = tuple(pages)
        self._id_base = id_base if id_base is not None else _default_base()
        self._contexts = list(contexts) if contexts is not None and any(contexts) else None
        self._embed_counted: array[int] | None = None
        self._embed_count: Callable[[], Sequence[int]] | None = None
        if self._contexts is not None:
            if embed_tokens is None:
                raise ChunkerError("chunks with contexts need their embed_tokens")
            if callable(embed_tokens):
                self._embed_count = embed_tokens
            else:
                self._embed_counted = _array("q", embed_tokens)
        # A framework's own texts where they are not the slices (see `Chunk.framework_text`).
        self._embeds = None if embeds is None or all(e is None for e in embeds) else list(embeds)
        # Every record carries embed_text when a context was asked for; otherwise only those
        # whose embedded text is not their text (a table part's header rows, a framework's text).
        self.embedded = embedded

    def __len__(self) -> int:
        return len(self._starts)

    @property
    def _tokens(self) -> array[int]:
        """Every chunk's token count, counted on first use."""
        counted = self._counted
        if counted is None:
            assert self._count is not None
            counted = self._counted = _array("q", self._count())
            self._count = None
        return counted

    @property
    def _embed_tokens(self) -> Sequence[int]:
        """Every chunk's `embed_tokens`: its tokens when no chunk has a context."""
        if self._contexts is None:
            return self._tokens
        counted = self._embed_counted
        if counted is None:
            assert self._embed_count is not None
            counted = self._embed_counted = _array("q", self._embed_count())
            self._embed_count = None
        return counted

    @property
    def _flags(self) -> list[tuple[str, ...]]:
        """Every chunk's flags, worked out on first use."""
        flagged = self._flagged
        if flagged is None:
            assert self._flag is not None
            flagged = self._flagged = _shared(self._flag())
            self._flag = None
        return flagged

    @overload
    def __getitem__(self, i: int) -> Chunk: ...

    @overload
    def __getitem__(self, i: slice) -> list[Chunk]: ...

    def __getitem__(self, i: int | slice) -> Chunk | list[Chunk]:
        if isinstance(i, slice):
            return [self._make(k) for k in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"chunk index {i} out of range for {n} chunks")
        return self._make(i)

    def __iter__(self) -> Iterator[Chunk]:
        make = self._make
        return (make(k) for k in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        shown = ", ".join(repr(c) for c in self[:3])
        return f"Chunks([{shown}{', ...' if len(self) > 3 else ''}], {len(self):,} chunks)"

    def spans(self) -> list[tuple[int, int]]:
        """Every chunk's (start_char, end_char), without making records."""
        return list(zip(self._starts, self._ends))

    def _make(self, k: int) -> Chunk:
        start, end = self._starts[k], self._ends[k]
        shared = max(0, min(self._ends[k - 1], end) - start) if k else 0
        first = last = None
        if self._pages:  # the pages the chunk's text touches, from 1
            first = max(1, bisect.bisect_right(self._pages, start))
            last = max(first, bisect.bisect_right(self._pages, max(start, end - 1)))
        piece = self._text[start:end]
        contexts, embeds = self._contexts, self._embeds
        return Chunk._made_from(
            piece,
            k,
            start,
            end,
            self._tokens[k],
            self._estimated,
            self._flags[k],
            self._headings[k] if self._headings else (),
            shared,
            first,
            last,
            chunk_id(self._id_base, start, end, piece),
            contexts[k] if contexts is not None else "",
            self._embed_tokens[k] if contexts is not None else -1,
            embeds[k] if embeds is not None else None,
        )

    def ids(self) -> list[str]:
        """Every chunk's id, without making records."""
        base, text = self._id_base, self._text
        return [chunk_id(base, a, b, text[a:b]) for a, b in zip(self._starts, self._ends)]


ID_SCHEME = 2
"""Part of every id's hash: raised whenever what an id hashes changes, so that an old id never
names a different chunk. (2: only the options that cut, `Option.cuts`.)"""


def id_base(source: str | None, settings: Settings | None) -> Any:
    """The hash every chunk id of a document starts from: its `source` and the settings that
    cut it, canonical (an overlap of "10%" of 100 and of 10 are one setting; a tokenizer.json or
    an embedding model is known by its content, not its path). Only the options that can change
    a chunk or what is embedded for it are hashed (`Option.cuts`, from the table of options):
    a model limit or a retriever, which judge and rank the chunks, leave every id as it was.
    `chunk_id` adds each chunk's span and text."""
    items: list[Any] = []
    if settings is not None:
        overlap = settings.overlap_count
        items = [[k, overlap if k == "overlap" else v] for k, v in settings._items if _cuts(k)]
    key = json.dumps([ID_SCHEME, source, items], ensure_ascii=False, separators=(",", ":"), default=repr)
    return hashlib.sha256(utf8(key))


def _cuts(name: str) -> bool:
    option = OPTIONS.get(name)
    return option is None or option.cuts


_DEFAULT_BASE: list[Any] = []


def _default_base() -> Any:
    if not _DEFAULT_BASE:
        _DEFAULT_BASE.append(id_base(None, Settings()))
    return _DEFAULT_BASE[0]


def chunk_id(base: Any, start: int, end: int, text: str) -> str:
    """The id of the chunk `text` at `start`..`end` of a document whose `id_base` is `base`: 32
    hexadecimal digits (the first 128 bits of SHA-256, which CPUs compute in hardware: twice
    BLAKE2b's speed here, so ids add little to writing records). Its text is hashed with its span, so an edited
    file's changed chunk gets a new id, and two chunks of any documents share an id only if
    they are one chunk: same source, settings, span and text.

    >>> b = id_base("policy.md", Settings())
    >>> chunk_id(b, 0, 3, "abc") == chunk_id(id_base("policy.md", Settings()), 0, 3, "abc")
    True
    >>> len({chunk_id(b, 0, 3, "abc"), chunk_id(b, 1, 4, "abc"), chunk_id(id_base(None, Settings()), 0, 3, "abc")})
    3
    """
    h = base.copy()
    h.update(b"%d %d " % (start, end))
    h.update(utf8(text))
    digest: str = h.hexdigest()[:32]
    return digest


def utf8(text: str) -> bytes:
    """`text` in UTF-8; a lone surrogate (which strict UTF-8 refuses) as its own three bytes.
    Strict first: its encoder is the fast one."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _shared(flags: Sequence[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Flag tuples repeat from chunk to chunk: one shared tuple each, so a chunk costs a
    reference, not a tuple of its own."""
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}
    out = flags if type(flags) is list else list(flags)
    for k, f in enumerate(out):
        out[k] = shared.setdefault(f, f)
    return out


def _array(kind: str, values: Sequence[int]) -> array[int]:
    """`values` as an array of `kind`: the array itself when it is one already (a million chunks'
    positions are not copied again)."""
    if isinstance(values, array) and values.typecode == kind:
        return values
    return array(kind, values)


class FlagCounts(Mapping[str, int]):
    """How many chunks carry each flag: a read-only mapping, so that `Stats` can be frozen and
    hashed like every other record.

    >>> counts = FlagCounts({"oversize": 2})
    >>> counts["oversize"], counts.get("tiny", 0), dict(counts), hash(counts) == hash(FlagCounts(counts))
    (2, 0, {'oversize': 2}, True)
    """

    __slots__ = ("_counts",)

    def __init__(self, counts: Mapping[str, int] | Iterable[tuple[str, int]] = ()) -> None:
        self._counts = dict(counts)

    def __getitem__(self, flag: str) -> int:
        return self._counts[flag]

    def __iter__(self) -> Iterator[str]:
        return iter(self._counts)

    def __len__(self) -> int:
        return len(self._counts)

    def __hash__(self) -> int:
        return hash(frozenset(self._counts.items()))

    def __repr__(self) -> str:
        return f"FlagCounts({self._counts!r})"


@dataclass(frozen=True)
class Stats:
    """Figures for the whole result: the stats strip's numbers (chunks, sizes, tokens embedded
    more than once, tokens embedded in all) and the flags counted."""

    chunks: int
    document_chars: int
    document_words: int
    document_tokens: int
    min_tokens: int
    avg_tokens: float
    max_tokens: int
    min_chars: int
    avg_chars: float
    max_chars: int
    duplicated_tokens: int
    duplicated_pct: float
    avg_overlap: float
    """Overlap between neighbouring chunks, averaged, in the unit of the settings."""
    max_overlap: int
    embedding_tokens: int
    exact: bool
    flag_counts: Mapping[str, int] = field(default_factory=FlagCounts)

    def __post_init__(self) -> None:
        if not isinstance(self.flag_counts, FlagCounts):
            object.__setattr__(self, "flag_counts", FlagCounts(self.flag_counts))

    def to_dict(self) -> dict[str, Any]:
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
            "avg_overlap": self.avg_overlap,
            "max_overlap": self.max_overlap,
            "embedding_tokens": self.embedding_tokens,
            "exact": self.exact,
            "flag_counts": dict(self.flag_counts),
        }


@dataclass(frozen=True)
class ChunkResult:
    """What `chunk()` returns: the chunks, their stats and the settings that made them, and
    `notes`: what the strategy tells the reader, one line each (a Python file that does not
    parse, cut at Python's separators instead). The command line writes them to stderr, the
    page under the chunks."""

    chunks: Sequence[Chunk]
    stats: Stats
    settings: Settings
    source: str | None = None
    notes: tuple[str, ...] = ()

    @classmethod
    def _lazy(
        cls,
        chunks: Sequence[Chunk],
        stats: Callable[[], Stats],
        settings: Settings,
        source: str | None = None,
        notes: tuple[str, ...] = (),
    ) -> ChunkResult:
        """A result whose `stats` are worked out when first read: a pipeline that writes the
        chunks never pays for the document's words or the overlaps' counts."""
        result = object.__new__(cls)
        result.__dict__.update(chunks=chunks, settings=settings, source=source, notes=notes, _make_stats=stats)
        return result

    def __getattr__(self, name: str) -> Any:
        make = self.__dict__.get("_make_stats")
        if name != "stats" or make is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        stats = make()
        self.__dict__["stats"] = stats
        del self.__dict__["_make_stats"]
        return stats

    def __getstate__(self) -> dict[str, Any]:
        self.stats  # noqa: B018 - worked out now: the function that makes them does not pickle
        return dict(self.__dict__)

    def __iter__(self) -> Iterator[Chunk]:
        return iter(self.chunks)

    def __len__(self) -> int:
        return len(self.chunks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "settings": self.settings.to_dict(),
            "stats": self.stats.to_dict(),
            "chunks": [c.to_dict() for c in self.chunks],
        }
