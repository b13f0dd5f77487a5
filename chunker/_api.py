"""`chunk()`: settings in, validated records and stats out."""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from ._errors import ChunkerError
from ._measure import EstimateTokenMeasure, ExactTokenMeasure, IndexedEstimateMeasure, Measure, make_measure
from ._records import Chunk, ChunkResult, Stats
from ._settings import DEFAULTS, Settings
from ._text import ends_sentence, is_heading_line, rstripped_tail
from ._tokenizers import Tokenizer, get_tokenizer
from .strategies import Span, fixed, markdown, paragraph, recursive, sentence

__all__ = ["chunk"]

_SPLITTERS: Dict[str, Callable[..., List[Span]]] = {
    "fixed": fixed.split,
    "sentence": sentence.split,
    "paragraph": paragraph.split,
    "recursive": recursive.split,
    "markdown": markdown.split,
}


# The token measure of the last document (its single encoding, or the estimate's running
# sums), kept between calls only when keep_last_measure(True) asked for it.
_keep = False
_kept: Optional[Tuple[str, str, Measure]] = None  # (the document itself, tokenizer name, measure)


def keep_last_measure(on: bool) -> None:
    """Keep the last document's token measure between calls on the very same ``str`` object.

    The playground's worker turns this on: a slider move, or the comparison of all
    strategies, then chunks its document again without encoding it again. Off by default,
    where ``chunk()`` lets the measure go before it builds the records, so its peak memory is
    the larger of the two rather than their sum.
    """
    global _keep, _kept
    _keep, _kept = bool(on), None


def _let_go_unless(text: str) -> None:
    global _kept
    if _kept is not None and _kept[0] is not text:
        _kept = None  # never hold on to a document the caller has moved on from


def _token_measure(text: str, tok: Tokenizer) -> Measure:
    global _kept
    if _kept is not None and _kept[0] is text and _kept[1] == tok.name:
        return _kept[2]
    measure = make_measure(text, "tokens", tok)
    if _keep:
        _kept = (text, tok.name, measure)
    return measure


def _langchain(text: str, *, size: int, overlap: int, tokenizer: Tokenizer,
               unit: str, measure: Measure) -> List[Span]:
    from .strategies.langchain import langchain_spans, spans_measured

    if unit == "chars":
        length: Callable[[str], int] = len
    elif unit == "words":
        length = lambda s: len(s.split())  # noqa: E731
    else:
        length = tokenizer.count
        # The same numbers as counting each piece's text, from the document's running sums
        # (the estimate) or its single encoding (exact tokens: no piece is encoded again).
        span_length = (measure.count if isinstance(measure, IndexedEstimateMeasure) else
                       measure.exact if isinstance(measure, ExactTokenMeasure) else None)
        if span_length is not None:
            return [Span(s, e) for s, e in spans_measured(text, size=size, overlap=overlap,
                                                          length=length, span_length=span_length)]
    return [Span(s, e) for s, e in langchain_spans(text, size=size, overlap=overlap, length=length)]


def chunk(text: str, *, strategy: str = DEFAULTS["strategy"], unit: str = DEFAULTS["unit"],
          size: int = DEFAULTS["size"], overlap: Union[int, str] = DEFAULTS["overlap"],
          tokenizer: str = DEFAULTS["tokenizer"],
          breaks: Union[str, Sequence[str]] = DEFAULTS["breaks"],
          source: Optional[str] = None, max_chunk_chars: Optional[int] = None) -> ChunkResult:
    """Split `text` and describe every chunk.

    `overlap` is a count in `unit` or a percentage of `size` such as ``"15%"``. `breaks` only
    matters to the sentence strategy. Raises `ChunkerError` with a one-line message on bad input.
    With `max_chunk_chars`, settings whose chunks would hold more characters than that in all
    (an overlap of nearly the whole size repeats the document thousands of times) raise
    `ChunkerError` before any chunk text is made.

    >>> res = chunk("Chunk size is a balance. Overlap repeats text.", strategy="sentence",
    ...             unit="chars", size=30, overlap=0)
    >>> [(c.start_char, c.end_char, c.text) for c in res.chunks]
    [(0, 24, 'Chunk size is a balance.'), (25, 46, 'Overlap repeats text.')]
    >>> res.stats.chunks, res.stats.exact
    (2, False)
    """
    if not isinstance(text, str):
        raise ChunkerError(f"text must be a str, got {type(text).__name__}: decode bytes as UTF-8 first")
    settings = Settings(strategy=strategy, unit=unit, size=size, overlap=overlap,
                        tokenizer=tokenizer, breaks=tuple(breaks) if not isinstance(breaks, str) else breaks)
    tok = get_tokenizer(settings.tokenizer)
    _let_go_unless(text)
    size, overlap_count = settings.size, settings.overlap_count
    # NOTE: LangChain keeps whitespace-only pieces at tiny sizes; so does its strategy here.
    keep_blank = settings.strategy == "langchain"
    if (not text or text.isspace()) and not keep_blank:  # isspace() stops at the first letter
        return ChunkResult((), _stats(text, [], tok), settings, source)
    if max_chunk_chars is not None and settings.strategy == "fixed" and overlap_count:
        # Fixed windows repeat the document size / stride times over, near enough: past the
        # limit, say so before encoding the document or making millions of windows (a stride
        # of one at 10 MB). The 10 % margin leaves a case near the limit to the exact check.
        times = size / (size - overlap_count)
        if len(text) * times > max_chunk_chars * 1.1:
            raise ChunkerError(_volume_message(f"about {len(text) * times:,.0f}", times, settings, max_chunk_chars))
    if settings.unit == "tokens":
        measure = counter = _token_measure(text, tok)
    else:
        measure = make_measure(text, settings.unit, tok)
        # Chunks are sized in characters or words, but counted in tokens all the same: from
        # one encoding of the document (or the estimate's sums), not chunk by chunk.
        counter = None if tok.name == "approx" else _token_measure(text, tok)
    if settings.strategy == "langchain":
        spans = _langchain(text, size=size, overlap=overlap_count,
                           tokenizer=tok, unit=settings.unit, measure=measure)
    else:
        spans = _SPLITTERS[settings.strategy](text, size=size, overlap=overlap_count,
                                              measure=measure, breaks=settings.breaks)
    if not keep_blank:
        spans = [sp for sp in spans if not _blank(text, sp)]
    if max_chunk_chars is not None:
        _check_volume(text, spans, settings, max_chunk_chars)
    counts = doc_tokens = duplicated = None
    if isinstance(counter, ExactTokenMeasure):
        # The exact measure has encoded the whole document already: count every chunk and
        # every overlap from it now, then let its token offsets go before the chunk texts are
        # made, so the peak memory is the larger of the two, not their sum.
        counts = [counter.exact(sp.start, sp.end) for sp in spans]
        duplicated = _duplicated(spans, counter.exact)
        doc_tokens = len(counter.offsets)
    elif isinstance(counter, EstimateTokenMeasure):
        # approx and estimate count a span's own text, and their measures do that from the
        # document already read (estimate's running sums; approx's length rule).
        counts = [counter.count(sp.start, sp.end) for sp in spans]
        duplicated = _duplicated(spans, counter.count)
        doc_tokens = counter.count(0, len(text))
    del measure, counter
    chunks = _records(text, spans, settings, tok, counts)
    return ChunkResult(tuple(chunks), _stats(text, chunks, tok, doc_tokens, duplicated),
                       settings, source)


def _records(text: str, spans: Sequence[Span], settings: Settings, tok: Tokenizer,
             counts: Optional[Sequence[int]] = None) -> List[Chunk]:
    """One record per span; `counts` are the spans' exact token counts when already known."""
    size, unit = settings.size, settings.unit
    out: List[Chunk] = []
    prev_end = None
    for k, span in enumerate(spans):
        start, end = span.start, span.end
        piece = text[start:end]
        tokens = counts[k] if counts is not None else tok.count(piece)
        if unit == "tokens":
            measured = tokens
        elif unit == "chars":
            measured = len(piece)
        else:
            measured = len(piece.split())
        flags: List[str] = []
        if not ends_sentence(piece):
            flags.append("mid_sentence")
        if size > 0 and measured * 5 < size:
            flags.append("fragment")
        if _last_line_is_heading(piece):
            flags.append("orphan_heading")
        if size > 0 and measured > size:
            flags.append("oversize")
        if span.cut:
            flags.append("split_sentence")
        shared = max(0, min(prev_end, end) - start) if prev_end is not None else 0
        out.append(Chunk._made_from(piece, len(out), start, end, tokens, not tok.exact,
                                    tuple(flags), span.headings, shared))
        prev_end = end
    return out


def volume_limit(text: str, *, times: int, floor: int) -> int:
    """A `max_chunk_chars` for `text`: `times` its length, and never under `floor` (a short
    document may repeat more before it costs anything)."""
    return max(times * len(text), floor)


def _check_volume(text: str, spans: Sequence[Span], settings: Settings, limit: int) -> None:
    total = sum(sp.end - sp.start for sp in spans)
    if total <= limit:
        return
    raise ChunkerError(_volume_message(f"{total:,}", total / max(1, len(text)), settings, limit))


def _volume_message(total: str, times: float, settings: Settings, limit: int) -> str:
    return (f"these settings make chunks holding {total} characters in all, {times:,.0f} times the "
            f"document, past the limit of {limit:,}: lower the overlap ({settings.overlap_count} of "
            f"{settings.size} {settings.unit} now) or raise the size")


def _blank(text: str, span: Span) -> bool:
    """Nothing but whitespace (a window of it has nothing to embed). Only a span that starts
    and ends on whitespace can be, so most are answered without copying their text."""
    start, end = span.start, span.end
    if end <= start:
        return True
    if not (text[start].isspace() and text[end - 1].isspace()):
        return False
    return text[start:end].isspace()


def _duplicated(spans: Sequence[Span], count_span: Callable[[int, int], int]) -> int:
    """Tokens embedded more than once: text that several chunks hold counts once per extra chunk."""
    duplicated = 0
    covered = None
    for sp in spans:
        if covered is not None and sp.start < covered:
            duplicated += count_span(sp.start, min(covered, sp.end))
        covered = sp.end if covered is None else max(covered, sp.end)
    return duplicated


def _last_line_is_heading(piece: str) -> bool:
    tail = rstripped_tail(piece)
    if "\n" not in tail and len(tail) < len(piece):  # a last line longer than the tail
        tail = piece.rstrip()
    return is_heading_line(tail[tail.rfind("\n") + 1:])


def _stats(text: str, chunks: Sequence[Chunk], tok: Tokenizer, doc_tokens: Optional[int] = None,
           duplicated: Optional[int] = None) -> Stats:
    if doc_tokens is None:
        doc_tokens = 0 if not text or text.isspace() else tok.count(text)
    flag_counts: Dict[str, int] = {}
    for c in chunks:
        for f in c.flags:
            flag_counts[f] = flag_counts.get(f, 0) + 1
    if not chunks:
        return Stats(0, len(text), doc_tokens, 0, 0.0, 0, 0, 0.0, 0, 0, 0.0, 0, tok.exact,
                     flag_counts, document=text)
    if duplicated is None:
        duplicated = _duplicated(_spans_of(chunks), lambda a, b: tok.count(text[a:b]))
    tokens = [c.tokens for c in chunks]
    chars = [c.chars for c in chunks]
    n = len(chunks)
    return Stats(
        chunks=n, document_chars=len(text), document=text,
        document_tokens=doc_tokens,
        min_tokens=min(tokens), avg_tokens=round(sum(tokens) / n, 2), max_tokens=max(tokens),
        min_chars=min(chars), avg_chars=round(sum(chars) / n, 2), max_chars=max(chars),
        duplicated_tokens=duplicated,
        duplicated_pct=round(100.0 * duplicated / doc_tokens, 2) if doc_tokens else 0.0,
        embedding_tokens=sum(tokens), exact=tok.exact, flag_counts=flag_counts)


def _spans_of(chunks: Sequence[Chunk]) -> List[Span]:
    return [Span(c.start_char, c.end_char) for c in chunks]
