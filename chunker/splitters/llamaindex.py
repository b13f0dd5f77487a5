"""LlamaIndex's splitters, as `llama-index-core` 0.14 cuts, with offsets into the text.

`sentence_splitter` is ``SentenceSplitter``, `token_text_splitter` is LlamaIndex's
``TokenTextSplitter`` and `markdown_node_parser` is ``MarkdownNodeParser``, each with the
class's own defaults: tokens counted as LlamaIndex counts them (cl100k, special tokens' text
counted as one token each), sentences found by nltk's untrained Punkt (chunker/text/_punkt.py).
The chunk texts are LlamaIndex's, character for character. Every `Piece` is the slice of the
document the chunk came from (``text[start:end]``); where LlamaIndex's text is not that slice
(a custom `secondary_chunking_regex` that skips characters joins pieces that are not
neighbours; a Markdown heading written with a tab gets a space), the piece covers it and
carries LlamaIndex's text as `embed`, the text an embedder is handed.

`split` is the registry's entry (chunker/splitters/_registry.py): the chunks a node parser makes
of a document without metadata (``get_nodes_from_documents``, which is ``split_text`` but for
TokenTextSplitter's two tokens kept for the metadata's format), or of a node with the metadata
given (``split_text_metadata_aware``), or ``split_text``'s own, as `Span` records,
each flagged `framework_offset` where LlamaIndex's own ``start_char_idx`` (a ``str.find`` from just after
the previous node's start) lands elsewhere than the chunk is.

LlamaIndex itself is never imported; tests/test_llamaindex_splitters.py compares with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from .._errors import ChunkerError
from ..strategies._spans import Span
from ..text._punkt import punkt_starts
from ..tokens._measure import ExactTokenMeasure
from ..tokens._tokenizers import TokenizerLike, get_tokenizer
from ._parse import SplitterCall

__all__ = [
    "split",
    "CHUNKING_REGEX",
    "PARAGRAPH_SEPARATOR",
    "Piece",
    "sentence_splitter",
    "token_text_splitter",
    "markdown_node_parser",
    "llama_counter",
]

CHUNKING_REGEX = "[^,.;。？！]+[,.;。？！]?|[,.;。？！]"
"""SentenceSplitter's default `secondary_chunking_regex`: phrases ending in a comma, full stop
or semicolon (Latin or CJK), and the marks on their own."""

PARAGRAPH_SEPARATOR = "\n\n\n"
"""SentenceSplitter's default `paragraph_separator`."""

# cl100k's special tokens. LlamaIndex encodes with ``allowed_special="all"``: the text of one of
# them in a document is one token, and the text on either side is encoded on its own.
_SPECIALS = re.compile(r"<\|(?:endoftext|fim_prefix|fim_middle|fim_suffix|endofprompt)\|>")


class Piece(NamedTuple):
    """A chunk: offsets into the document, and what only the splitter knows."""

    start: int
    end: int
    embed: str | None = None
    """LlamaIndex's text, when it is not ``text[start:end]``."""
    headings: tuple[str, ...] = ()
    """The headings above the chunk's own (MarkdownNodeParser's ``header_path``)."""


Counter = Callable[[int, int], int]


def llama_counter(text: str, tokenizer: str | TokenizerLike = "cl100k") -> Counter:
    """``count(a, b)``: the tokens LlamaIndex's default tokenizer gives ``text[a:b]``.

    Counted from one encoding of the document (`ExactTokenMeasure`), or, when the document holds
    a special token's text, piece by piece between them, each special one token.
    """
    tok = get_tokenizer(tokenizer)
    if "<|" in text and _SPECIALS.search(text):
        count = tok.count

        def with_specials(a: int, b: int) -> int:
            piece = text[a:b]
            parts = _SPECIALS.split(piece)
            return sum(count(p) for p in parts if p) + len(parts) - 1

        return with_specials
    if not getattr(tok, "exact", False):
        return lambda a, b: tok.count(text[a:b])
    measure = ExactTokenMeasure(text, tok)
    exact = measure.exact
    return lambda a, b: exact(a, b) if b > a else 0


def split(text: str, call: SplitterCall, tokenizer: TokenizerLike, *, metadata: str | None = "") -> list[Span]:
    """The registry's entry: the class `call` names, with its arguments. LlamaIndex counts in
    its own tokenizer (cl100k), whatever the run's `tokenizer` is.

    SentenceSplitter and TokenTextSplitter are sized with the node's `metadata` (see
    `chunker.splitters.splitter_spans`): its tokens are kept from each chunk's size, and
    TokenTextSplitter keeps two more for the metadata's format, even for a document without
    metadata (``""``); None is ``split_text``, which keeps nothing."""
    values = call.values()
    pieces: list[Piece]
    kept = 0 if metadata is None else llama_counter(metadata)(0, len(metadata)) if metadata else 0
    if call.cls == "SentenceSplitter":
        pieces = sentence_splitter(text, **{k: values[k] for k in _SENTENCE_PARAMS}, reserve=kept)
    elif call.cls == "TokenTextSplitter":
        reserve = 0 if metadata is None else kept + _METADATA_FORMAT
        pieces = token_text_splitter(text, **{k: values[k] for k in _TOKEN_PARAMS}, reserve=reserve)
    else:
        pieces = markdown_node_parser(text, header_path_separator=values["header_path_separator"])
    return [
        Span(p.start, p.end, headings=p.headings, embed=p.embed, flags=("framework_offset",) if moved else ())
        for p, moved in _moved(text, pieces)
    ]


_METADATA_FORMAT = 2
"""The tokens LlamaIndex's TokenTextSplitter keeps for the metadata's format, beside the
metadata's own."""

_SENTENCE_PARAMS = ("chunk_size", "chunk_overlap", "separator", "paragraph_separator", "secondary_chunking_regex")
_TOKEN_PARAMS = ("chunk_size", "chunk_overlap", "separator", "backup_separators", "keep_whitespaces")


def _moved(text: str, pieces: list[Piece]) -> list[tuple[Piece, bool]]:
    """Each piece, and whether LlamaIndex's node post-processing puts its start elsewhere: it
    searches the document for the node's text from one past the last start it found (and
    leaves the node without offsets when the text is not found)."""
    out, origin = [], 0
    for p in pieces:
        found = text.find(p.embed if p.embed is not None else text[p.start : p.end], origin)
        if found >= 0:
            origin = found + 1
        out.append((p, found != p.start))
    return out


def _whole(value: object, name: str, *, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        more = "above 0" if least == 1 else "0 or more"
        raise ChunkerError(f"{name} must be a whole number {more}, got {value!r}", field=name)
    return value


def _separator(value: object, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise ChunkerError(
            f"{name} must be a string of one character or more, got {value!r} (LlamaIndex cannot split on '')", field=name
        )
    return value


def _sizes(chunk_size: object, chunk_overlap: object) -> tuple[int, int]:
    size = _whole(chunk_size, "chunk_size", least=1)
    overlap = _whole(chunk_overlap, "chunk_overlap", least=0)
    if overlap > size:
        raise ChunkerError(
            f"chunk_overlap {overlap} is larger than chunk_size {size} (LlamaIndex refuses it): give at most {size}",
            field="chunk_overlap",
        )
    return size, overlap


def _reserved(size: int, reserve: int, owner: str) -> int:
    """The size left for the text when the metadata takes `reserve` tokens of `size`."""
    if reserve and size - reserve <= 0:
        raise ChunkerError(
            f"the metadata measures {reserve} tokens, as much as chunk_size {size} or more ({owner} refuses it): "
            "give a larger chunk_size, or exclude metadata keys from the embedded text"
        )
    return size - reserve


def _pieces_at(a: int, b: int, cuts: Sequence[int]) -> list[tuple[int, int]]:
    """``text[a:b]`` cut at `cuts` (ascending, inside it), empty pieces left out."""
    out, p = [], a
    for c in cuts:
        if c > p:
            out.append((p, c))
            p = c
    if b > p:
        out.append((p, b))
    return out


def _by_separator(text: str, a: int, b: int, sep: str) -> list[tuple[int, int]]:
    """LlamaIndex's split keeping the separator: each piece after the first starts with it."""
    cuts, n, i = [], len(sep), text.find(sep, a, b)
    while i != -1:
        cuts.append(i)
        i = text.find(sep, i + n, b)
    return _pieces_at(a, b, cuts)


def _by_char(a: int, b: int) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(a, b)]


def _joined(text: str, parts: Sequence[tuple[int, int]]) -> tuple[int, int, str | None] | None:
    """The chunk of `parts` joined and stripped, as LlamaIndex makes it: its covering span, and
    its text when that is not the span's slice (None when it is). None for a blank chunk."""
    joined = "".join(text[a:b] for a, b in parts)
    stripped = joined.strip()
    if not stripped:
        return None
    lead = len(joined) - len(joined.lstrip())
    last = lead + len(stripped) - 1  # index of its last character in `joined`
    start = end = -1
    seen = 0
    for a, b in parts:
        if start < 0 and lead < seen + b - a:
            start = a + lead - seen
        if last < seen + b - a:
            end = a + last - seen + 1
            break
        seen += b - a
    return start, end, None if text[start:end] == stripped else stripped


# ---------------------------------------------------------------- SentenceSplitter


class _Split(NamedTuple):
    start: int
    end: int
    sentence: bool
    tokens: int


def sentence_splitter(
    text: str,
    *,
    chunk_size: int = 1024,
    chunk_overlap: int = 200,
    separator: str = " ",
    paragraph_separator: str = PARAGRAPH_SEPARATOR,
    secondary_chunking_regex: str | None = CHUNKING_REGEX,
    count: Counter | None = None,
    reserve: int = 0,
) -> list[Piece]:
    """``SentenceSplitter(...).split_text(text)`` as pieces of `text`.

    `count` sizes ``text[a:b]`` in tokens (`llama_counter` by default). `reserve` is the tokens
    of the metadata the chunks are embedded with: chunks are sized within ``chunk_size -
    reserve``, the overlap is still `chunk_overlap` (``split_text_metadata_aware``, which a node
    parser calls with the node's metadata string). An empty text is one
    empty chunk, as LlamaIndex has it. A piece that cannot be cut below the size (one
    character of more tokens than the size) raises `ChunkerError`, where LlamaIndex raises
    ValueError.

    >>> doc = "First sentence here. Second one follows.\\n\\n\\nA new paragraph, with a clause."
    >>> [doc[p.start:p.end] for p in sentence_splitter(doc, chunk_size=12, chunk_overlap=0)]
    ['First sentence here. Second one follows.', 'A new paragraph, with a clause.']
    """
    size, overlap = _sizes(chunk_size, chunk_overlap)
    size = _reserved(size, reserve, "SentenceSplitter")
    separator = _separator(separator, "separator")
    paragraph_separator = _separator(paragraph_separator, "paragraph_separator")
    regex = _chunking_regex(secondary_chunking_regex)
    if text == "":
        return [Piece(0, 0)]
    measure = count or llama_counter(text)

    def sentences(a: int, b: int) -> list[tuple[int, int]]:
        starts = punkt_starts(text[a:b])
        return [(a + s, a + (starts[k + 1] if k + 1 < len(starts) else b - a)) for k, s in enumerate(starts)]

    def phrases(a: int, b: int) -> list[tuple[int, int]]:
        # Matched in the piece on its own, as re.findall sees it (^, lookbehinds, \b at its edges).
        assert regex is not None
        found = regex.finditer(text[a:b])
        if regex.groups:
            return [(a + m.start(1), a + m.end(1)) if m.start(1) >= 0 else (a + m.start(), a + m.start()) for m in found]
        return [(a + m.start(), a + m.end()) for m in found]

    structural: list[Callable[[int, int], list[tuple[int, int]]]] = [
        lambda a, b: _by_separator(text, a, b, paragraph_separator),
        sentences,
    ]
    finer: list[Callable[[int, int], list[tuple[int, int]]]] = [
        lambda a, b: _by_separator(text, a, b, separator),
        _by_char,
    ]
    if regex is not None:
        finer.insert(0, phrases)

    def cut(a: int, b: int) -> tuple[list[tuple[int, int]], bool]:
        for fn in structural:
            parts = fn(a, b)
            if len(parts) > 1:
                return parts, True
        for fn in finer:
            parts = fn(a, b)
            if len(parts) > 1:
                break
        return parts, False

    def split(a: int, b: int) -> list[_Split]:
        n = measure(a, b)
        if n <= size:
            return [_Split(a, b, True, n)]
        parts, sentence = cut(a, b)
        out: list[_Split] = []
        for p, q in parts:
            m = measure(p, q)
            if m <= size or len(parts) == 1:
                out.append(_Split(p, q, sentence, m))
            else:
                out.extend(split(p, q))
        return out

    return _sentence_merge(text, split(0, len(text)), size, overlap)


def _chunking_regex(value: object) -> re.Pattern[str] | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ChunkerError(f"secondary_chunking_regex must be a string or None, got {value!r}", field="secondary_chunking_regex")
    try:
        pattern = re.compile(value)
    except (re.error, RecursionError, OverflowError) as e:
        raise ChunkerError(f"secondary_chunking_regex {value!r} is not a valid regular expression: {e}") from None
    if pattern.groups > 1:
        raise ChunkerError(
            f"secondary_chunking_regex {value!r} has {pattern.groups} capturing groups (LlamaIndex fails on them): "
            "write (?:...) for all but one"
        )
    return pattern


def _sentence_merge(text: str, splits: list[_Split], size: int, overlap: int) -> list[Piece]:
    """SentenceSplitter's merge: splits packed up to the size, each new chunk opening with the
    previous chunk's last whole splits that fit the overlap."""
    chunks: list[list[_Split]] = []
    current: list[_Split] = []
    total = 0
    fresh = True  # nothing but the overlap in `current` yet

    def close() -> None:
        nonlocal current, total, fresh
        chunks.append(current)
        previous, current, total, fresh = current, [], 0, True
        for s in reversed(previous):
            if total + s.tokens > overlap:
                break
            current.insert(0, s)
            total += s.tokens

    i = 0
    while i < len(splits):
        s = splits[i]
        if s.tokens > size:
            raise ChunkerError(
                f"one character measures {s.tokens} tokens, more than chunk_size {size} "
                "(LlamaIndex raises 'Single token exceeded chunk size'): give a larger chunk_size"
            )
        if not fresh and total + s.tokens > size:
            close()
            continue
        # A chunk that opens with overlap gives up its first splits until the new one fits.
        while fresh and current and total + s.tokens > size:
            total -= current.pop(0).tokens
        current.append(s)
        total += s.tokens
        fresh = False
        i += 1
    if not fresh:
        chunks.append(current)
    out = []
    for chunk in chunks:
        found = _joined(text, [(s.start, s.end) for s in chunk])
        if found is not None:
            out.append(Piece(*found))
    return out


# ---------------------------------------------------------------- TokenTextSplitter


def token_text_splitter(
    text: str,
    *,
    chunk_size: int = 1024,
    chunk_overlap: int = 20,
    separator: str = " ",
    backup_separators: Sequence[str] = ("\n",),
    keep_whitespaces: bool = False,
    count: Counter | None = None,
    reserve: int = 0,
) -> list[Piece]:
    """LlamaIndex's ``TokenTextSplitter(...).split_text(text)`` as pieces of `text`; `reserve`
    as for `sentence_splitter` (this class reserves 2 tokens more for the metadata's format).

    >>> doc = "one two three four five six seven eight nine ten"
    >>> [doc[p.start:p.end] for p in token_text_splitter(doc, chunk_size=4, chunk_overlap=1)]
    ['one two three four', 'four five six seven', 'seven eight nine ten']
    """
    size, overlap = _sizes(chunk_size, chunk_overlap)
    size = _reserved(size, reserve, "TokenTextSplitter")
    seps = [_separator(separator, "separator")]
    if isinstance(backup_separators, str) or not isinstance(backup_separators, (list, tuple)):
        # None too: the class's field is a list, and pydantic refuses None.
        raise ChunkerError(f"backup_separators must be a list of strings such as ['\\n'] or [], got {backup_separators!r}")
    seps += [_separator(s, "backup_separators") for s in backup_separators]
    if not isinstance(keep_whitespaces, bool):
        raise ChunkerError(f"keep_whitespaces must be True or False, got {keep_whitespaces!r}")
    if text == "":
        return [Piece(0, 0)]
    measure = count or llama_counter(text)

    def split(a: int, b: int) -> list[tuple[int, int, int]]:
        n = measure(a, b)
        if n <= size:
            return [(a, b, n)]
        for sep in seps:
            parts = _by_separator(text, a, b, sep)
            if len(parts) > 1:
                break
        else:
            parts = _by_char(a, b)
        out: list[tuple[int, int, int]] = []
        for p, q in parts:
            m = measure(p, q)
            if m <= size or len(parts) == 1:
                out.append((p, q, m))
            else:
                out.extend(split(p, q))
        return out

    out: list[Piece] = []

    def emit(parts: list[tuple[int, int, int]]) -> None:
        if not parts:
            return
        a, b = parts[0][0], parts[-1][1]
        if keep_whitespaces:
            if b > a:
                out.append(Piece(a, b))
            return
        found = _joined(text, [(a, b)])
        if found is not None:
            out.append(Piece(*found))

    current: list[tuple[int, int, int]] = []
    total = 0
    for s in split(0, len(text)):
        n = s[2]
        if total + n > size:
            emit(current)
            # The next chunk keeps the last splits while they fit both the overlap and,
            # with the new split, the size.
            while current and (total > overlap or total + n > size):
                total -= current.pop(0)[2]
        current.append(s)
        total += n
    emit(current)
    return out


# ---------------------------------------------------------------- MarkdownNodeParser

_HEADER = re.compile(r"(#+)\s(.*)")


def markdown_node_parser(text: str, *, header_path_separator: str = "/") -> list[Piece]:
    """``MarkdownNodeParser``'s nodes as pieces of `text`: a section per heading line (outside
    code fences), each with the headings above it (`headings`; LlamaIndex's ``header_path`` is
    them joined by the separator).

    >>> doc = "# Guide\\nIntro.\\n## Setup\\nRun it.\\n"
    >>> [(doc[p.start:p.end], p.headings) for p in markdown_node_parser(doc)]
    [('# Guide\\nIntro.', ()), ('## Setup\\nRun it.', ('Guide',))]
    """
    if not isinstance(header_path_separator, str):
        raise ChunkerError(f"header_path_separator must be a string, got {header_path_separator!r}")
    out: list[Piece] = []
    stack: list[tuple[int, str]] = []
    fenced = False
    # The section being built: where it starts, and the heading line's whitespace after the
    # marks when it is not a space (LlamaIndex writes the heading again with a space).
    start, respaced = 0, -1
    pos, n = 0, len(text)

    def close(end: int) -> None:
        # LlamaIndex's section is the document's lines from `start` to `end`, each with its
        # line break (the last one too, even where the document has none), so its length and
        # positions are the document's: stripped, it is the slice of the same stripped span.
        section = text[start:end]
        stripped = section.strip()
        if not stripped:
            return
        a = start + len(section) - len(section.lstrip())
        b = a + len(stripped)
        embed = None
        if a <= respaced < b:
            embed = stripped[: respaced - a] + " " + stripped[respaced - a + 1 :]
        out.append(Piece(a, b, embed, tuple(h for _, h in stack[:-1])))

    while pos <= n:
        nl = text.find("\n", pos)
        stop = n if nl == -1 else nl
        line = text[pos:stop]
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            m = _HEADER.match(line)
            if m is not None:
                close(pos)
                level = len(m.group(1))
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, m.group(2)))
                start, respaced = pos, (pos + level if line[level] != " " else -1)
        if nl == -1:
            break
        pos = nl + 1
    close(n)
    return out
