"""`Document` and `chunk()`: a text and settings in, validated records and stats out."""

from __future__ import annotations

import bisect
import operator
import os
from array import array
from collections.abc import Callable, Sequence
from typing import Any

from .._errors import ChunkerError, shown
from ..results._records import ChunkResult, Chunks, Stats, id_base
from ..settings._context import NONE, fields_of, render
from ..settings._options import Settings, options_doc, options_for, signed, unknown_setting
from ..settings._settings import DEFAULTS, volume_limit, whole_number
from ..splitters import splitter_spans
from ..strategies import STRATEGIES, Span, Spans, Strategy
from ..strategies._merge import merge_small
from ..text._segments import (
    LONE_SURROGATE,
    Fences,
    checked_text,
    count_words,
    is_heading_line,
    span_ends_sentence,
    stripped_end,
    surrogate_error,
    tail_of,
)
from ..tokens._measure import EstimateTokenMeasure, ExactTokenMeasure, Measure, make_measure
from ..tokens._tokenizers import TokenizerLike, get_tokenizer
from ._advice import Advice, advise

__all__ = ["Document", "chunk"]


def _label(what: str, value: Any) -> str | None:
    """A document's `source`, `name` or `title`: text or None. Each can reach every chunk's
    embed_text (a context's {source} and {title}) and every record, so a lone surrogate, which
    no UTF-8 output can write, is refused here, where it is given. (The readers make a file
    name's undecodable bytes U+FFFD: see `chunker.documents.shown_name`.)"""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ChunkerError(f"{what} must be text or None, got {type(value).__name__} {shown(value, 60)}: give it as a str")
    bad = LONE_SURROGATE.search(value)
    if bad is not None:
        instead = "give it as UTF-8 text (os.fsencode(name).decode('utf-8', 'replace') for a file name)"
        raise surrogate_error(what, value, bad.start(), instead)
    return value


def _pages(pages: Any, length: int) -> tuple[int, ...]:
    """`pages` checked: ascending whole-number start offsets from 0 within the text."""
    try:
        starts = tuple(pages)
    except TypeError:
        raise ChunkerError(
            f"pages must be a sequence of start offsets, got {type(pages).__name__}: give () for a text without pages"
        ) from None
    wrong = next((p for p in starts if isinstance(p, bool) or not isinstance(p, int)), None)
    if wrong is not None:
        raise ChunkerError(f"pages must be whole-number start offsets, got {wrong!r} in {starts[:5]}...")
    if starts and (starts[0] != 0 or any(b <= a for a, b in zip(starts, starts[1:])) or starts[-1] > length):
        raise ChunkerError(f"pages must be ascending start offsets from 0 within the text, got {starts[:5]}...")
    return starts


class Document:
    """A document held for chunking under changing settings: the page, the CLI and pipelines
    use this one object.

    It keeps what measuring the text cost between calls (the last tokenizer's encoding of the
    whole document, or the estimate's running sums), so a new size, overlap or strategy does
    not read the document again. Every call applies the same volume-limit policy (see
    `chunker.settings._settings.volume_limit`) unless `max_chunk_chars` says otherwise.

    >>> doc = Document("Chunk size is a balance. Overlap repeats text.")
    >>> [c.text for c in doc.chunk(strategy="sentence", size=0)]
    ['Chunk size is a balance.', 'Overlap repeats text.']
    >>> doc.chunk(unit="chars", size=30, overlap=0).stats.chunks, doc.words
    (2, 8)
    """

    def __init__(
        self,
        text: str,
        *,
        source: str | None = None,
        pages: Sequence[int] = (),
        name: str | None = None,
        title: str | None = None,
    ) -> None:
        self.text, self._wide_space = checked_text(text)
        self.source = _label("source", source)
        self.name = _label("name", name)
        """The file name the text was read from, if any: the code strategy's language comes from
        its extension (or from `source`'s). Records do not carry it."""
        self.pages = _pages(pages, len(self.text))
        """Where each page starts in `text` (a PDF's); records then carry page_start/page_end."""
        self._title = _label("title", title)
        self._read_from = name  # the file's name, for the context's {source} and {title}, whatever its kind
        self._keep = True
        self._measure: tuple[str, Measure] | None = None  # (tokenizer identity, its token measure)
        self._tokens: dict[str, int] = {}
        self._words: int | None = None
        self._advice_facts: Any = None  # what advice reads from the text alone (session/_advice.py)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        keep_running: bool = False,
        raw: bool = False,
        max_bytes: int | None = None,
        encoding: str | None = None,
    ) -> Document:
        """A file as `python -m chunker FILE` reads it: a PDF, Word (.docx) or HTML file is
        extracted to Markdown-flavoured text (see `chunker.extract`), any other file is strict
        UTF-8 text with its byte order mark and CR LF kept. `raw=True` reads any file as text.

        >>> import tempfile, os
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, "page.html")
        ...     with open(path, "w", encoding="utf-8") as f:
        ...         _ = f.write("<h1>Title</h1><p>Body.</p>")
        ...     Document.open(path).text
        '# Title\\n\\nBody.'
        """
        from ..documents import MAX_BYTES, read_file, shown_name, source_of  # only files need it

        if not isinstance(path, (str, os.PathLike)):
            raise ChunkerError(f"Document.open takes a file's path, got {type(path).__name__}: give a str or a pathlib.Path")
        limit = MAX_BYTES if max_bytes is None else max_bytes
        data = read_file(path, max_bytes=limit)  # read no further than the limit (/dev/zero never ends)
        return cls.from_bytes(
            data,
            name=shown_name(path),
            source=source_of(path),  # the command line's: its records' ids are the same
            keep_running=keep_running,
            raw=raw,
            max_bytes=limit,
            encoding=encoding,
        )

    @classmethod
    def from_bytes(
        cls,
        data: bytes,
        *,
        name: str | None = None,
        keep_running: bool = False,
        raw: bool = False,
        max_bytes: int | None = None,
        source: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        encoding: str | None = None,
    ) -> Document:
        """`Document.open` for bytes already read; `name` helps tell the kind and names the file in
        errors, `source` is what records carry (none by default), `encoding` is a text file's
        when it is not UTF-8."""
        from ..documents import MAX_BYTES, decode_text, extract

        if raw:
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise ChunkerError(f"from_bytes takes the file's bytes, got {type(data).__name__}: for text, give Document(text)")
            return cls(decode_text(bytes(data), label=name or "the input", encoding=encoding), source=source)
        found = extract(
            data,
            name=name,
            keep_running=keep_running,
            progress=progress,
            max_bytes=MAX_BYTES if max_bytes is None else max_bytes,
            encoding=encoding,
        )
        # An extracted document (PDF, Word, HTML) is text now: its file name says nothing of it.
        doc = cls(
            found.text,
            source=source,
            pages=found.pages,
            name=name if found.kind == "text" else None,
            title=found.title or None,
        )
        doc._read_from = name
        return doc

    def __repr__(self) -> str:
        return f"<Document {len(self.text):,} chars{' from ' + self.source if self.source else ''}>"

    @property
    def title(self) -> str:
        """The document's title, the `context` setting's ``{title}``: the one its reader found
        (an HTML page's <title>, a PDF's or Word file's own title), else the text's first
        Markdown heading (not for a code file: a comment there is no heading), else the stem of
        the name it was read from (`source`, else `name`), else ""."""
        if self._title is None:
            self._title = _title_of(self.text, self.source or self._read_from)
        return self._title

    @property
    def words(self) -> int:
        """Whitespace-separated words, as ``len(text.split())``, counted once."""
        if self._words is None:
            self._words = count_words(self.text)
        return self._words

    def count_tokens(self, tokenizer: str | TokenizerLike = DEFAULTS["tokenizer"]) -> int:
        """The whole document's tokens, counted once per tokenizer (by its identity: a loaded
        tokenizer.json's content, so a second file never answers with the first one's count)."""
        tok = get_tokenizer(tokenizer)
        known = self._tokens.get(tok.name)
        if known is None:
            text = self.text
            known = 0 if not text or text.isspace() else tok.count(text)
            self._tokens[tok.name] = known
        return known

    def chunk(self, *, max_chunk_chars: int | None = None, **settings: Any) -> ChunkResult:
        """Split the document; see `chunk()` for the settings (every option of
        `chunker.settings._options.OPTIONS`, keyword only, each with its default)."""
        return self.run(_settings_of(settings, "Document.chunk()"), max_chunk_chars=max_chunk_chars)

    def compare(
        self, settings: Settings, *, strategies: Sequence[str] | None = None, max_chunk_chars: int | None = None
    ) -> dict[str, Stats | ChunkerError]:
        """The stats of every strategy (or of `strategies`) under the other settings as given;
        settings a strategy cannot take give its error instead. Beside a pasted splitter, each
        strategy runs at the size, overlap, unit and tokenizer the splitter set."""
        _check_settings(settings, "compare")
        if isinstance(strategies, str):  # one name, not the names of its letters
            strategies = [strategies]
        out: dict[str, Stats | ChunkerError] = {}
        for name in strategies if strategies is not None else list(STRATEGIES):
            try:
                same = Settings(**{**settings.to_dict(), "strategy": name, "splitter": None})
                out[name] = self.run(same, max_chunk_chars=max_chunk_chars).stats
            except ChunkerError as e:
                out[name] = e
        return out

    def advise(self, result: ChunkResult, *, limit: int | str | None = None) -> Advice:
        """Advice on `result`, a chunking of this document (see `chunker.advise`)."""
        if not isinstance(result, ChunkResult):
            raise ChunkerError(f"advise takes the ChunkResult of chunking this document, got {type(result).__name__}")
        return advise(self, result, limit=limit if limit is not None else result.settings.model_tokens)

    def run(self, settings: Settings, *, max_chunk_chars: int | None = None, splitter_metadata: str | None = "") -> ChunkResult:
        """Split the document under settings already validated. `splitter_metadata` is the
        metadata string a LlamaIndex node parser sizes a pasted splitter's chunks with (see
        `chunker.splitters.splitter_spans`; ``""``, a document without metadata, as `chunk` cuts)."""
        _check_settings(settings, "run")
        text = self.text
        limit = _limit(text, max_chunk_chars)
        tok = get_tokenizer(settings.tokenizer)
        strategy = STRATEGIES[settings.strategy]
        size, overlap_count = settings.size, settings.overlap_count
        if (not text or text.isspace()) and not strategy.keeps_blank and not settings.splitter:
            return ChunkResult((), self._stats((), tok, settings, 0), settings, self.source)
        if limit is not None and settings.strategy == "fixed" and overlap_count:
            # Fixed windows repeat the document size / stride times over, near enough: past the
            # limit, say so before encoding the document or making millions of windows (a stride
            # of one at 10 MB). The 10 % margin leaves a case near the limit to the exact check.
            times = size / (size - overlap_count)
            if len(text) * times > limit * 1.1:
                raise ChunkerError(_volume_message(f"about {len(text) * times:,.0f}", times, settings, limit))
        with Fences.held_for(text):  # the strategy and the records read the same fences
            return self._run(text, strategy, settings, tok, limit, splitter_metadata)

    def _run(
        self,
        text: str,
        strategy: Strategy,
        settings: Settings,
        tok: TokenizerLike,
        limit: int | None,
        splitter_metadata: str | None,
    ) -> ChunkResult:
        overlap_count = settings.overlap_count
        tokens_unit = settings.unit == "tokens"
        measure = self._token_measure(tok) if tokens_unit else make_measure(text, settings.unit, tok)
        wanted = {
            w: self.pages if w == "pages" else (self.source or self.name) if w == "source" else getattr(settings, w)
            for w in strategy.wants
        }
        fit = _Fit(self, settings, tok, measure)

        def split(start: int, end: int, budget: int, sizer: Measure) -> tuple[Spans, tuple[str, ...]]:
            """The strategy's spans of text[start:end] (offsets into that piece), blanks dropped
            and small chunks merged, within `budget`; and its notes. A pasted splitter's are
            the framework's chunks as it makes them: whitespace-only ones too, none merged (the
            splitter fixed min_size at 0), whatever a context leaves (it knows of none)."""
            piece = text if start == 0 and end == len(text) else text[start:end]
            if settings.splitter:
                return Spans.of(splitter_spans(piece, settings.splitter, tok, metadata=splitter_metadata), len(piece)), ()
            raw = strategy.split(piece, size=budget, overlap=overlap_count, measure=sizer, breaks=settings.breaks, **wanted)
            notes: tuple[str, ...] = tuple(getattr(raw, "notes", ()))
            spans = Spans.of(raw, len(piece))
            del raw
            if not strategy.keeps_blank:
                spans = _without_blanks(piece, spans)
            if settings.min_size:
                spans = merge_small(spans, size=budget, min_size=settings.min_size, measure=sizer)
            return spans, notes

        def section(start: int, end: int, budget: int) -> Spans:
            return split(start, end, budget, make_measure(text[start:end], settings.unit, tok))[0]

        while True:
            # The context counts against the size: the strategy gets what the contexts leave,
            # and splits again where a chunk's context turns out longer than reserved: section
            # by section where the strategy's sections stand alone, else the whole text. A
            # pasted splitter's chunks are the framework's: a context over the size is flagged.
            spans, notes = split(0, len(text), fit.budget(), measure)
            if fit.fits(spans, by_sections="pages" not in strategy.wants and not settings.splitter) or settings.splitter:
                break
            if fit.sections:
                sectioned = fit.by_sections(spans, section)
                if sectioned is not None:
                    spans = sectioned
                    break
        contexts = fit.contexts
        counter = [measure] if tokens_unit else []  # what counts the chunks: the tokens measure
        del measure
        if limit is not None:
            _check_volume(text, spans, settings, limit)
        found: list[tuple[Sequence[int], Callable[[], tuple[Sequence[int], int]]]] = []

        def counted() -> tuple[Sequence[int], Callable[[], tuple[Sequence[int], int]]]:
            """(every chunk's tokens, what gives the tokens of each chunk that earlier ones hold
            and the document's tokens), counted once, when first asked for."""
            if not found:
                found.append(self._counted(text, spans, tok, counter.pop() if counter else None))
            return found[0]

        if tokens_unit or settings.model_tokens is not None or (tok.exact and not self._each_alone(text, spans, tok)):
            # The measure is at hand (tokens), the flags need the counts (truncated), or the
            # document is encoded whole: now, so that an exact measure lets its token offsets go
            # before the chunk texts are made. The estimates, and an exact tokenizer counting
            # each chunk's own text, count when the counts are first read.
            counted()
        chunks = _records(
            text,
            spans,
            settings,
            tok,
            lambda: counted()[0],
            self.pages,
            self._wide_space,
            id_base(self.source, settings),
            contexts,
            fit.embed_counts(spans),
        )

        def stats() -> Stats:
            repeats, doc_tokens = counted()[1]()
            return self._stats(chunks, tok, settings, doc_tokens, repeats)

        return ChunkResult._lazy(chunks, stats, settings, self.source, notes)

    def _counted(
        self, text: str, spans: Spans, tok: TokenizerLike, counter: Measure | None
    ) -> tuple[Sequence[int], Callable[[], tuple[Sequence[int], int]]]:
        """The chunks' token counts, and what gives their overlaps' and the document's (see
        `counted`). Chunks are sized in characters or words but counted in tokens all the same:
        from one encoding of the document (or the estimate's masks), or, for a document chunked
        once, each chunk's own text (see `_each_alone`)."""
        if counter is None and tok.exact and self._each_alone(text, spans, tok):
            return self._counted_alone(text, spans, tok)
        if counter is None:
            counter = self._token_measure(tok) if tok.name != "approx" else make_measure(text, "tokens", tok)
        if isinstance(counter, ExactTokenMeasure):
            # The exact measure has encoded the whole document already: count every chunk and
            # every overlap from it, then let this chunking's edges go (a kept measure keeps the
            # encoding).
            counts = array("q", map(counter.exact, spans.starts, spans.ends))
            repeats = _repeats(spans.starts, spans.ends, counter.plain)
            doc_tokens = len(counter.offsets) + counter.specials
            counter.forget()
            self._tokens.setdefault(tok.name, doc_tokens)
            return counts, lambda: (repeats, doc_tokens)
        # approx and estimate count a span's own text, and their measures do that from the
        # document already read (estimate's masks; approx's length rule): the overlaps and the
        # document only when the stats are read (records alone never need them).
        assert isinstance(counter, EstimateTokenMeasure)
        estimate = counter
        found = estimate.counts(spans.starts, spans.ends)
        rest: list[tuple[Sequence[int], int]] = []

        def overlaps_and_document() -> tuple[Sequence[int], int]:
            if not rest:
                doc_tokens = estimate.count(0, len(text))
                self._tokens.setdefault(tok.name, doc_tokens)
                rest.append((_repeats(spans.starts, spans.ends, estimate.count), doc_tokens))
            return rest[0]

        return found, overlaps_and_document

    def _each_alone(self, text: str, spans: Spans, tok: TokenizerLike) -> bool:
        """Whether an exact tokenizer counts chunks sized in characters or words by encoding
        each chunk's own text, rather than from an encoding of the whole document.

        The whole document's encoding also needs every token's offset (a width per token,
        summed), and pays off only when it is kept for the next chunking (a `Document` held
        under changing settings, the page) or when chunks repeat much of the text (a large
        overlap). A document chunked once with chunks that repeat little of it (`chunk()`, a
        command line's file) is counted chunk by chunk: the same counts (`exact` is each
        span's own count), with about the text encoded once and no offsets; compiled tiktoken
        encodes a megabyte in a third of the time its offsets take."""
        if self._keep or (self._measure is not None and self._measure[0] == tok.name):
            return False
        return sum(spans.ends) - sum(spans.starts) <= _ALONE_VOLUME * len(text)

    def _counted_alone(
        self, text: str, spans: Spans, tok: TokenizerLike
    ) -> tuple[Sequence[int], Callable[[], tuple[Sequence[int], int]]]:
        """`_counted` for `_each_alone`: every chunk's text counted as it stands; the overlaps
        and the document only when the stats are read."""
        count = tok.count
        starts, ends = spans.starts, spans.ends
        counts = array("q", [count(text[a:b]) for a, b in zip(starts, ends)])
        rest: list[tuple[Sequence[int], int]] = []

        def overlaps_and_document() -> tuple[Sequence[int], int]:
            if not rest:
                # As the document's encoding gives them: its tokens, with the special tokens
                # of one sequence, and each overlap's own tokens without them.
                doc_tokens = count(text)
                self._tokens.setdefault(tok.name, doc_tokens)
                specials = int(getattr(tok, "specials", 0))
                rest.append((_repeats(starts, ends, lambda a, b: count(text[a:b]) - specials), doc_tokens))
            return rest[0]

        return counts, overlaps_and_document

    def _token_measure(self, tok: TokenizerLike) -> Measure:
        if self._measure is not None and self._measure[0] == tok.name:
            return self._measure[1]
        self._measure = None  # let the last tokenizer's encoding go before making another
        measure = make_measure(self.text, "tokens", tok)
        if self._keep:
            self._measure = (tok.name, measure)
        return measure

    def _stats(
        self,
        chunks: Chunks | Sequence[Any],
        tok: TokenizerLike,
        settings: Settings,
        doc_tokens: int | None = None,
        repeats: Sequence[int] | None = None,
    ) -> Stats:
        """`repeats` are the tokens of each chunk after the first that earlier chunks hold."""
        text = self.text
        if doc_tokens is None:
            doc_tokens = self.count_tokens(tok.name)
        if not len(chunks):
            return Stats(
                chunks=0,
                document_chars=len(text),
                document_words=self.words,
                document_tokens=doc_tokens,
                min_tokens=0,
                avg_tokens=0.0,
                max_tokens=0,
                min_chars=0,
                avg_chars=0.0,
                max_chars=0,
                duplicated_tokens=0,
                duplicated_pct=0.0,
                avg_overlap=0.0,
                max_overlap=0,
                embedding_tokens=0,
                exact=tok.exact,
                flag_counts={},
            )
        assert isinstance(chunks, Chunks)
        flag_counts: dict[str, int] = {}
        for fs in chunks._flags:
            for f in fs:
                flag_counts[f] = flag_counts.get(f, 0) + 1
        starts, ends = chunks._starts, chunks._ends
        if repeats is None:
            repeats = _repeats(starts, ends, lambda a, b: tok.count(text[a:b]))
        # What the overlap really came to, in the unit it was asked in: whole sentences or
        # sections may share less than asked, or nothing.
        if settings.unit == "tokens":
            shared = repeats
        elif settings.unit == "chars":
            shared = _repeats(starts, ends, _length)
        else:
            shared = _repeats(starts, ends, lambda a, b: count_words(text[a:b]))
        tokens = chunks._tokens
        n = len(chunks)
        total_chars = sum(ends) - sum(starts)
        duplicated = sum(repeats)
        return Stats(
            chunks=n,
            document_chars=len(text),
            document_words=self.words,
            document_tokens=doc_tokens,
            min_tokens=min(tokens),
            avg_tokens=round(sum(tokens) / n, 2),
            max_tokens=max(tokens),
            min_chars=min(map(operator.sub, ends, starts)),
            avg_chars=round(total_chars / n, 2),
            max_chars=max(map(operator.sub, ends, starts)),
            duplicated_tokens=duplicated,
            duplicated_pct=round(100.0 * duplicated / doc_tokens, 2) if doc_tokens else 0.0,
            avg_overlap=round(sum(shared) / len(shared), 2) if shared else 0.0,
            max_overlap=max(shared, default=0),
            embedding_tokens=sum(chunks._embed_tokens),
            exact=tok.exact,
            flag_counts=flag_counts,
        )


@signed("chunk")
def chunk(text: str, *, source: str | None = None, max_chunk_chars: int | None = None, **settings: Any) -> ChunkResult:
    """Split `text` and describe every chunk.

    The settings are keyword arguments, each optional with its default: the options of
    `chunker.settings._options.OPTIONS` (listed below, and in ``help(chunk)``'s signature).

    `overlap` is a count in `unit` or a percentage of `size` such as ``"15%"``. `breaks` only
    matters to the sentence strategy. `tokenizer` is a name (`TOKENIZERS`), the path of a
    Hugging Face tokenizer.json, or a tokenizer `load_tokenizer` returned. `model_max` is the
    embedding model's input limit (a `MODEL_LIMITS` name or tokens; by default a
    tokenizer.json's own): chunks past it are flagged `truncated`. Raises `ChunkerError` with a
    one-line message on bad input.
    Settings whose chunks would hold more characters in all than `max_chunk_chars` (an overlap
    of nearly the whole size repeats the document thousands of times) raise `ChunkerError`
    before any chunk text is made; by default the limit is 20 times the document, at least
    2,000,000 characters, and 0 lifts it.

    >>> res = chunk("Chunk size is a balance. Overlap repeats text.", strategy="sentence",
    ...             unit="chars", size=30, overlap=0)
    >>> [(c.start_char, c.end_char, c.text) for c in res.chunks]
    [(0, 24, 'Chunk size is a balance.'), (25, 46, 'Overlap repeats text.')]
    >>> res.stats.chunks, res.stats.exact
    (2, False)
    """
    doc = Document(text, source=source)
    doc._keep = False  # one call: let the measure go before the records are made
    return doc.run(_settings_of(settings, "chunk()"), max_chunk_chars=max_chunk_chars)


chunk.__doc__ = (chunk.__doc__ or "") + "\n    Settings:\n\n" + options_doc("chunk") + "\n"
signed("chunk")(Document.chunk)


def _check_settings(settings: Any, method: str) -> None:
    if not isinstance(settings, Settings):
        raise ChunkerError(
            f"Document.{method}() takes a Settings, got {type(settings).__name__}: give Settings(strategy=..., size=...)"
        )


def _settings_of(given: dict[str, Any], owner: str) -> Settings:
    names = {o.name for o in options_for("chunk")}
    for name in given:
        if name not in names:
            raise unknown_setting(name, owner=owner, others=("source", "max_chunk_chars"))
    return Settings(**given)


def _limit(text: str, max_chunk_chars: Any) -> int | None:
    if max_chunk_chars is None:
        return volume_limit(text)
    n = whole_number("max_chunk_chars", max_chunk_chars)
    if n < 0:
        raise ChunkerError(f"max_chunk_chars must be 0 (no limit) or more, got {n}")
    return n or None


def _records(
    text: str,
    spans: Spans,
    settings: Settings,
    tok: TokenizerLike,
    counts: Callable[[], Sequence[int]],
    pages: Sequence[int] = (),
    wide_space: bool | None = None,
    ids: Any = None,
    contexts: list[str] | None = None,
    embed_counts: Callable[[Callable[[], Sequence[int]]], Sequence[int]] | None = None,
) -> Chunks:
    """The chunks of `spans`, flagged; `counts()` gives the spans' token counts, asked for
    only where a flag needs them (tokens as the unit, a model's limit) or when read.
    `contexts` are the chunks' contexts (None: the setting is none and no strategy gave one);
    `embed_counts(counts)` counts their embed texts. A chunk with a context is judged
    oversize and truncated on its embed text, what the model receives.

    Each chunk's text is sliced here only to judge its flags, then let go: the result keeps
    spans and numbers (see `Chunks`).
    """
    size, unit = settings.size, settings.unit
    limit = settings.model_tokens
    known = counts() if unit == "tokens" or limit is not None else None
    with_context = contexts is not None and any(contexts)
    embedded: list[Sequence[int]] = []

    def embed_tokens() -> Sequence[int]:
        if not embedded:
            assert embed_counts is not None
            embedded.append(embed_counts(counts))
        return embedded[0]

    if with_context and known is not None:
        embed_tokens()
    min_size = settings.min_size
    cut, marks = spans.cut, spans.flags
    fences = Fences.of(text)  # whether a chunk's last fence line closes a block is the document's to say

    def flagged() -> list[tuple[str, ...]]:
        """Every chunk's flags, judged when first read: a caller that keeps only the texts
        (`split_text`) never slices a chunk to judge it."""
        flags: list[tuple[str, ...]] = []
        shared: dict[tuple[str, ...], tuple[str, ...]] = {}  # one tuple per set of flags, not per chunk
        many = len(spans.starts) > 1
        # Only a chunk's last characters are read to judge it (a chunk can be long); its whole
        # text is sliced only to count its words.
        for k, (start, end) in enumerate(zip(spans.starts, spans.ends)):
            n = known[k] if known is not None else 0
            if unit == "tokens":
                measured = n
            elif unit == "chars":
                measured = end - start
            else:
                measured = count_words(text[start:end])
            embed_measured, embed_n = measured, n
            if with_context and contexts is not None and contexts[k]:
                context = contexts[k]
                embed_n = embed_tokens()[k] if known is not None else 0
                if unit == "tokens":
                    embed_measured = embed_n
                elif unit == "chars":
                    embed_measured = len(context) + end - start
                else:
                    embed_measured = count_words(context + text[start:end])
            found: list[str] = []
            if not span_ends_sentence(text, start, end, fences):
                found.append("mid_sentence")
            if size > 0 and measured * 5 < size and many:  # the only chunk: nothing to merge with
                found.append("fragment")
            if _last_line_is_heading(text, start, end):
                found.append("orphan_heading")
            if size > 0 and embed_measured > size:
                found.append("oversize")
            if cut is not None and cut[k]:
                found.append("split_sentence")
            if limit is not None and embed_n > limit:
                found.append("truncated")
            if measured < min_size:
                found.append("tiny")
            if marks is not None and marks[k]:
                found.extend(marks[k])  # what only the strategy can judge (a table's parts)
            key = tuple(found)
            flags.append(shared.setdefault(key, key))
        return flags

    return Chunks(
        text,
        spans.starts,
        spans.ends,
        known if known is not None else counts,
        flagged,
        spans.headings,
        not tok.exact,
        pages,
        wide_space,
        ids,
        contexts if with_context else None,
        embed_tokens if with_context else None,
        embedded=contexts is not None and settings.context != NONE,
        embeds=spans.embeds,
    )


def _check_volume(text: str, spans: Spans, settings: Settings, limit: int) -> None:
    total = sum(spans.ends) - sum(spans.starts)
    if total <= limit:
        return
    raise ChunkerError(_volume_message(f"{total:,}", total / max(1, len(text)), settings, limit))


def _volume_message(total: str, times: float, settings: Settings, limit: int) -> str:
    return (
        f"these settings make chunks holding {total} characters in all, {times:,.0f} times the "
        f"document, past the limit of {limit:,}: lower the overlap ({settings.overlap_count} of "
        f"{settings.size} {settings.unit} now) or raise the size"
    )


def _blank(text: str, start: int, end: int) -> bool:
    """Nothing but whitespace (a window of it has nothing to embed). Only a span that starts
    and ends on whitespace can be, so most are answered without copying their text."""
    if end <= start:
        return True
    if not (text[start].isspace() and text[end - 1].isspace()):
        return False
    return text[start:end].isspace()


_NOT = bytes([1]) + bytes(255)  # 0 -> 1, 1 -> 0


def _without_blanks(text: str, spans: Spans) -> Spans:
    blank = bytearray(_blank(text, a, b) for a, b in zip(spans.starts, spans.ends))
    if blank.find(1) < 0:
        return spans
    return spans.keep(blank.translate(_NOT))


_ALONE_VOLUME = 1.5
"""Chunks holding at most this many times the document's characters in all are counted one by
one by an exact tokenizer (see `Document._each_alone`): encoding them costs about that many
times one encoding of the document, which with its token offsets costs more than twice as much
(compiled tiktoken; about as much in pure Python)."""


def _length(start: int, end: int) -> int:
    return end - start


def _repeats(starts: Sequence[int], ends: Sequence[int], count_span: Callable[[int, int], int]) -> array[int]:
    """For each chunk after the first, how much of it earlier chunks already hold (its overlap),
    by `count_span`; summed in tokens, that is what gets embedded more than once."""
    out = array("q")
    covered = None
    for start, end in zip(starts, ends):
        if covered is not None:
            out.append(count_span(start, min(covered, end)) if start < covered else 0)
        covered = end if covered is None else max(covered, end)
    return out


def _last_line_is_heading(text: str, start: int, end: int) -> bool:
    """Whether the last line of text[start:end] is a heading. A chunk's first line lost its
    indentation to trimming: it is judged with it, as the document has it ("    # x" is code,
    not a heading)."""
    tail = tail_of(text, start, end)
    if "\n" not in tail and len(tail) < end - start:  # a last line longer than the tail
        stop = stripped_end(text, start, end)
        line_break = text.rfind("\n", start, stop)
        if line_break >= 0:
            return is_heading_line(text[line_break + 1 : stop])
        tail = text[start:stop]
    if "\n" in tail:
        return is_heading_line(tail[tail.rfind("\n") + 1 :])
    line_start = text.rfind("\n", 0, start) + 1
    if line_start < start:
        indent = text[line_start:start]
        if not indent.lstrip("\ufeff").strip():  # only whitespace (or a byte order mark) before it
            tail = indent + tail
    return is_heading_line(tail)


_REFITS = 4
"""Splits tried at most: each raises the reserve to the longest context a chunk turned out to
have, so a chunk's context found longer than reserved is split for again (a new split can
end chunks under other headings). What is still over after that is flagged oversize."""


class _Fit:
    """The context setting, rendered for each chunk, and the share of the size it takes.

    The strategy is told the size less `reserve`, what the contexts take: at first the
    context every chunk shares (the template with no heading and the first page); after a
    split, the most any chunk's context turned out to add to its text. A strategy's own
    context (`Span.context`) is the strategy's to fit within the size it is told. A pasted
    splitter's chunks are the framework's, cut at its own size: their contexts are rendered
    and measured, never fitted (a chunk they take over the size is flagged, not refused).
    """

    def __init__(self, doc: Document, settings: Settings, tok: TokenizerLike, measure: Measure) -> None:
        self.doc, self.settings, self.tok, self.measure = doc, settings, tok, measure
        self.template = settings.context
        self.framework = bool(settings.splitter)  # the spans are a pasted splitter's: nothing to fit
        self.fields = fields_of(self.template)
        self.size = settings.size
        self.unit = settings.unit
        self.reserve = 0
        self.tries = 0
        self.contexts: list[str] | None = None
        self.sections = False  # split again section by section (see `fits`)
        self._costs: list[int] = []
        self._need = 0
        self._measured: list[int] | None = None  # the embed texts' token counts found while fitting
        self._rendered: dict[tuple[tuple[str, ...], int | None], str] = {}
        self._widest = ""
        if self.template != NONE and self.size > 0:
            shared = self._render((), 1 if doc.pages else None)
            self.reserve = self._alone(shared)
            self._widest = shared

    def _render(self, headings: tuple[str, ...], page: int | None) -> str:
        key = (headings, page)
        known = self._rendered.get(key)
        if known is None:
            doc = self.doc
            known = self._rendered[key] = render(
                self.template,
                headings,
                title=doc.title if "title" in self.fields else "",
                source=(doc.source or doc._read_from or "") if "source" in self.fields else "",
                page=page,
            )
        return known

    def _measure_text(self, s: str) -> int:
        if self.unit == "chars":
            return len(s)
        if self.unit == "words":
            return count_words(s)
        return int(self.tok.count(s))

    def _alone(self, context: str) -> int:
        """A context's own size in the unit (a tokenizer's special tokens are the chunk's)."""
        if not context:
            return 0
        n = self._measure_text(context)
        return max(0, n - int(getattr(self.tok, "specials", 0))) if self.unit == "tokens" else n

    def _span_size(self, start: int, end: int) -> int:
        if self.unit == "chars":
            return end - start
        if self.unit == "words":
            return count_words(self.doc.text[start:end])
        return int(getattr(self.measure, "exact", self.measure.count)(start, end))

    def _too_long(self, cost: int, context: str) -> ChunkerError:
        return ChunkerError(
            f"the context {context[:80]!r} is {cost:,} {self.unit}, and the size is {self.size:,}: the context counts "
            f"against the size, so raise the size or shorten the context",
            field="context",
        )

    def budget(self) -> int:
        """The size the strategy is told: what the contexts leave."""
        size, reserve = self.size, self.reserve
        if not reserve or self.framework:
            return size
        if reserve >= size:
            raise self._too_long(reserve, self._widest)
        left = size - reserve
        overlap = self.settings.overlap_count
        if overlap >= left:
            raise ChunkerError(
                f"overlap {overlap} must be smaller than what the context leaves of the size: {size} less "
                f"{reserve} {self.unit} of context is {left}; lower the overlap or raise the size",
                field="overlap",
            )
        return left

    def fits(self, spans: Spans, *, by_sections: bool = False) -> bool:
        """Render every chunk's context; whether each fits the size beside its chunk (or the
        splits tried are used up). False: split again, with the reserve raised, or (`sections`
        set, when `by_sections` and the strategy marks where its sections start) the sections
        whose contexts are longer than reserved, each alone (`by_sections`)."""
        self.tries += 1
        self.sections = False
        own = spans.context
        if self.template == NONE:
            self.contexts = list(own) if own is not None else None
            return True
        text, pages = self.doc.text, self.doc.pages
        heads = spans.headings
        starts, ends = spans.starts, spans.ends
        page_of = (lambda a: max(1, bisect.bisect_right(pages, a))) if pages else (lambda a: None)
        rendered = [self._render(heads[k] if heads is not None else (), page_of(starts[k])) for k in range(len(starts))]
        self.contexts = [r + o for r, o in zip(rendered, own)] if own is not None else rendered
        size = self.size
        if size == 0:  # one chunk per unit: nothing bounds them
            return True
        reserve, need = self.reserve, self.reserve
        measured: list[int] = []
        costs = self._costs = [0] * len(rendered)  # what each chunk's context needs reserved, where it was over
        for k, context in enumerate(rendered):
            if not context:
                measured.append(-1)
                continue
            a, b = starts[k], ends[k]
            if own is not None and own[k]:
                body = own[k] + text[a:b]
                body_size = self._measure_text(body)
            else:
                body = text[a:b]
                body_size = self._span_size(a, b)
            embed_size = self._measure_text(context + body)
            measured.append(embed_size)
            if embed_size > size and body_size <= size - reserve:
                costs[k] = embed_size - body_size
                if costs[k] > need:
                    need, self._widest = costs[k], context
        if need > reserve and not self.framework:
            if need >= size:
                raise self._too_long(need, self._widest)
            if by_sections and spans.walls and self.tries == 1:
                self.sections, self._need = True, need
                return False
            if self.tries < _REFITS:
                self.reserve = need
                return False
        self._measured = measured if self.unit == "tokens" else None
        return True

    def by_sections(self, spans: Spans, split: Callable[[int, int, int], Spans]) -> Spans | None:
        """`spans` with each section (from one wall to the next) that holds a chunk whose context
        is longer than reserved split again alone, by `split(start, end, budget)`, with what
        the longest context of its own chunks leaves, so that a section under a short heading
        path keeps the whole size.

        A section's chunks must share one heading path, before and after (split alone, the
        section has lost the headings above it, so that path is put back): where one does not
        (a run of headings cut apart), None, and the whole text is split again instead, with
        the reserve raised."""
        text, size = self.doc.text, self.size
        starts, n = spans.starts, len(spans)
        bounds = sorted({0, *(w for w in spans.walls or () if 0 < w < len(text)), len(text)})
        out: list[Span] = []
        k = 0
        for a, b in zip(bounds, bounds[1:]):
            first = k
            while k < n and starts[k] < b:
                k += 1
            need = max(self._costs[first:k], default=0)
            if need <= self.reserve:
                out.extend(spans[i] for i in range(first, k))
                continue
            heads = {spans[i].headings for i in range(first, k)}
            if len(heads) != 1:
                self._whole()
                return None
            (path,) = heads
            for _ in range(_REFITS):
                self._widest = self._render(path, None)
                sub = split(a, b, self._left(need))
                if len({sp.headings for sp in sub}) > 1:
                    self._whole()
                    return None
                parts = [sp._replace(start=sp.start + a, end=sp.end + a, headings=path) for sp in sub]
                more = max((self._over_by(sp, size - need) for sp in parts), default=0)
                if more <= need:
                    break
                need = more
            out.extend(parts)
        result = Spans.of(out, len(text))
        result.walls = spans.walls
        self.tries = _REFITS  # what is still over is flagged: no more splits
        self.fits(result)
        return result

    def _whole(self) -> None:
        """Give up splitting section by section: the whole text again, the reserve raised."""
        self.reserve, self.sections = self._need, False

    def _over_by(self, span: Span, left: int) -> int:
        """What `span`'s context needs reserved, when it does not fit beside the span though the
        span fits in `left`; else 0."""
        text, pages = self.doc.text, self.doc.pages
        page = max(1, bisect.bisect_right(pages, span.start)) if pages else None
        context = self._render(span.headings, page)
        if not context:
            return 0
        body = span.context + text[span.start : span.end]
        body_size = self._measure_text(body) if span.context else self._span_size(span.start, span.end)
        embed_size = self._measure_text(context + body)
        return embed_size - body_size if embed_size > self.size and body_size <= left else 0

    def _left(self, reserve: int) -> int:
        """The size less `reserve`, checked as `budget` checks it."""
        held, self.reserve = self.reserve, reserve
        try:
            return self.budget()
        finally:
            self.reserve = held

    def embed_counts(self, spans: Spans) -> Callable[[Callable[[], Sequence[int]]], Sequence[int]] | None:
        """What counts the chunks' embed texts in tokens (None: no chunk has a context)."""
        contexts = self.contexts
        if contexts is None or not any(contexts):
            return None
        measured, text, tok = self._measured, self.doc.text, self.tok
        starts, ends = spans.starts, spans.ends

        def count(counts: Callable[[], Sequence[int]]) -> Sequence[int]:
            base = counts()
            out = array("q")
            for k, context in enumerate(contexts):
                if not context:
                    out.append(base[k])
                elif measured is not None and measured[k] >= 0:
                    out.append(measured[k])
                else:
                    out.append(tok.count(context + text[starts[k] : ends[k]]))
            return out

        return count


def _title_of(text: str, name: str | None) -> str:
    """`Document.title` when no reader gave one: the first Markdown heading, else the name's stem."""
    from ..strategies._languages import LANGUAGES  # only a title asked for needs them
    from ..strategies.markdown import iter_blocks

    base = name.replace("\\", "/").rsplit("/", 1)[-1] if name else ""
    dot = base.rfind(".")
    ext = base[dot:].lower() if dot > 0 else ""
    code = any(ext in lang.extensions for lang in LANGUAGES.values() if lang.name not in _PROSE) if ext else False
    if not code:
        for block in iter_blocks(text):
            if block.kind == "heading" and block.title.strip():
                return block.title.strip()
    return base[:dot] if dot > 0 else base


_PROSE = frozenset({"markdown", "rst", "latex", "html"})
"""Languages whose files are prose: their first heading is their title."""
