"""Serialisations of a result, and the registry of export formats.

Every format carries the same records (`Chunk.to_dict()`, plus `source` when the result came
from a named file; `embed_text` and `embed_tokens` in every record of a result made with a
context, in none of one made without, so the default output is as it always was) and is
written as a stream of pieces, one record at a time, so writing a million chunks never holds a
million records. The command line's ``--format`` and the page's
download buttons are drawn from `FORMATS`.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from binascii import hexlify
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any

from .._errors import ChunkerError
from ..text._segments import has_wide_space, word_counter
from ._records import ChunkResult, Chunks, utf8

__all__ = ["Format", "Frame", "FORMATS", "records", "iter_records", "embedded", "to_json", "to_jsonl", "to_text", "to_chonkie"]

Results = ChunkResult | Iterable[ChunkResult]


def _results(res: Results) -> Iterable[ChunkResult]:
    if isinstance(res, ChunkResult):
        return [res]
    if isinstance(res, (str, bytes)) or not isinstance(res, Iterable):
        raise ChunkerError(f"expected the ChunkResult of chunk() or a list of them, got {type(res).__name__}")
    if isinstance(res, Sequence):  # checked whole first: no export writes half of a list
        return list(_checked(res))
    return _checked(res)  # a stream of results, checked as each comes


def _checked(results: Iterable[Any]) -> Iterator[ChunkResult]:
    """Each of several results, checked as it comes (a list of chunks is no list of results)."""
    for n, r in enumerate(results):
        if not isinstance(r, ChunkResult):
            raise ChunkerError(
                f"expected the ChunkResult of chunk() or a list of them, got a {type(r).__name__} at {n}: "
                "give the result itself, not its chunks"
            )
        yield r


def iter_records(res: Results) -> Iterator[dict[str, Any]]:
    """The records of one result, or of several (each then carries its `source`), one by one."""
    for r in _results(res):
        embed = embedded(r)
        for c in r.chunks:
            d = c.to_dict(embed=True if embed else None)  # None: the chunk's own say
            # The fields in their order (`chunker.results._schema.FIELDS`): id, then source.
            yield d if r.source is None else {"id": d["id"], "source": r.source, **d}


def embedded(res: ChunkResult) -> bool:
    """Whether every record of `res` carries `embed_text` and `embed_tokens`: a context was asked
    for. Otherwise a record carries them where its embedded text is not its text (a strategy's
    own context, a framework's own text)."""
    chunks = res.chunks
    if type(chunks) is Chunks:
        return chunks.embedded
    return getattr(res.settings, "context", "none") != "none"


def records(res: Results) -> list[dict[str, Any]]:
    """The records of one result, or of several (each then carries its `source`)."""
    return list(iter_records(res))


# Line separators other than LF, which str.splitlines() and some JSON Lines readers split on:
# written as escapes, so one record is one line to every reader. (JSON allows either form.)
_SEPARATORS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


def _dumps(value: Any, indent: int | None = None) -> str:
    out = json.dumps(value, ensure_ascii=False, indent=indent)
    # str.translate looks up every character; three scans for the rare separators cost far
    # less (translating was an eighth of a command-line run's work).
    if "\u2028" in out or "\u2029" in out or "\x85" in out:
        out = out.translate(_SEPARATORS)
    return out


@dataclass(frozen=True)
class Frame:
    """How a format strings records together: `record` renders one record on its own, and the
    text around them depends only on where it stands (before the first, between two, after the
    last, or the whole output when there is none). So records rendered apart, by several
    processes or file by file, join into exactly the output of one pass (see `join`).

    >>> frame = json_frame(None)
    >>> "".join(frame.join([frame.body([{"a": 1}]), "", frame.body([{"b": 2}, {"c": 3}])]))
    '[{"a": 1}, {"b": 2}, {"c": 3}]\\n'
    """

    record: Callable[[dict[str, Any]], str]
    open: str = ""
    sep: str = ""
    close: str = ""
    empty: str = ""
    render: Callable[[Results], Iterator[str]] | None = None
    """Every record of a result rendered, as `record` renders its `iter_records`, by a quicker
    way (from the chunks' columns, no record made), for a format that has one."""
    render_utf8: Callable[[Results], Iterator[bytes]] | None = None
    """`render`'s pieces in UTF-8, made as bytes (the command line writes bytes)."""

    def body(self, recs: Iterable[dict[str, Any]]) -> str:
        """Records rendered and joined, without the text before, after or around them."""
        return self.sep.join(map(self.record, recs))

    def rendered(self, res: Results) -> Iterator[str]:
        """Every record of `res` rendered, one a piece."""
        return self.render(res) if self.render is not None else map(self.record, iter_records(res))

    def rendered_utf8(self, res: Results) -> Iterator[bytes]:
        """`rendered` in UTF-8 (a lone surrogate raises UnicodeEncodeError)."""
        if self.render_utf8 is not None:
            return self.render_utf8(res)
        return (piece.encode("utf-8") for piece in self.rendered(res))

    def join(self, bodies: Iterable[str]) -> Iterator[str]:
        """The whole output from bodies (`body`) in order; an empty body holds no record."""
        first = True
        for body in bodies:
            if body:
                yield (self.open if first else self.sep) + body
                first = False
        yield self.empty if first else self.close

    def pieces(self, res: Results) -> Iterator[str]:
        """The output of `res`, one record a piece."""
        return self.join(self.rendered(res))


def json_frame(indent: int | None = 2) -> Frame:
    """The JSON array's frame, its records indented by `indent` (None: one line)."""
    if not indent:
        return Frame(_dumps, "[", ", ", "]\n", "[]\n")
    pad = " " * indent
    return Frame(lambda r: pad + _dumps(r, indent).replace("\n", "\n" + pad), "[\n", ",\n", "\n]\n", "[]\n")


def _text_record(r: dict[str, Any]) -> str:
    head = f"--- chunk {r['index']}"
    if "source" in r:
        head += f" of {r['source']}"
    approx = "~" if r["tokens_estimated"] else ""
    head += f" [{r['start_char']}:{r['end_char']}] {approx}{r['tokens']} tokens, {r['chars']} chars, {r['words']} words"
    if "page_start" in r:
        first, last = r["page_start"], r["page_end"]
        head += f", p. {first}" if first == last else f", pp. {first}–{last}"
    if r["flags"]:
        head += " (" + ", ".join(r["flags"]) + ")"
    text: str = r["text"]
    if "embed_text" in r:
        embedded: str = r["embed_text"]
        if embedded.endswith(text):  # a context, then the chunk
            head += f"; embedded {r['embed_tokens']} tokens, context {encode_basestring(embedded[: len(embedded) - len(text)])}"
        else:  # a pasted splitter's own text, which is not the slice (after any context)
            head += f"; embedded {r['embed_tokens']} tokens as {encode_basestring(embedded)}"
    return head + " ---\n" + text + "\n"


def _jsonl_record(r: dict[str, Any]) -> str:
    return _dumps(r) + "\n"


def _jsonl_lines(res: Results) -> Iterator[str]:
    """`_jsonl_record` of every record (see `_jsonl_utf8`), as str."""
    for line in _jsonl_utf8(res, strict=False):
        yield line.decode("utf-8", "surrogatepass")


# Characters json escapes other than the quote, the backslash, LF, CR and tab (as \\u00XX, \\b
# or \\f): rare enough that one look at the whole document tells whether a chunk can hold one.
_RARE_CONTROLS = bytes(c for c in range(32) if c not in b"\t\n\r")
_RARE_CONTROLS_TEXT = re.compile("[" + re.escape(_RARE_CONTROLS.decode("ascii")) + "]")
_SEPARATORS_UTF8 = tuple((chr(c).encode(), escaped.encode()) for c, escaped in _SEPARATORS.items())  # `_SEPARATORS` in bytes


# A record up to its pages and embedded text: id (and source), index, offsets, text, counts, flags.
_RECORD_HEAD = (
    b'{"id": "%s%s"index": %d, "start_char": %d, "end_char": %d, "text": %s, "chars": %d, "words": %d, '
    b'"tokens": %d, "tokens_estimated": %s, "overlap_chars": %d, "flags": %s, "headings": %s'
)


def _json_utf8(data: bytes) -> bytes:
    """``encode_basestring(s).encode()`` for ``data = s.encode()`` when `s` holds none of
    `_RARE_CONTROLS`: five C-speed replaces of the UTF-8 bytes, which the id hashes anyway
    (json's encoder took four times as long on the docs' chunks)."""
    return (
        b'"'
        + (
            data.replace(b"\\", b"\\\\")
            .replace(b'"', b'\\"')
            .replace(b"\n", b"\\n")
            .replace(b"\r", b"\\r")
            .replace(b"\t", b"\\t")
        )
        + b'"'
    )


def _jsonl_utf8(res: Results, *, strict: bool = True) -> Iterator[bytes]:
    """`_jsonl_record` of every record in UTF-8, written from the chunks' columns: the very
    bytes ``json.dumps(record, ensure_ascii=False)`` encodes to (the keys in `Chunk.to_dict`'s
    order, ", " and ": " between, strings escaped as json's own encoder escapes them), without
    a `Chunk` or a dict a chunk. A chunk's text is encoded once, for its id and its line. The
    words are counted from one reading of the document (`word_counter`), told once whether it
    holds whitespace outside ASCII. `strict`: a lone surrogate raises UnicodeEncodeError, as
    encoding the str would (else it is written as its own three bytes, "surrogatepass")."""
    encode: Callable[[str], bytes] = str.encode if strict else utf8  # str.encode: UTF-8, strict
    for r in _results(res):
        chunks = r.chunks
        if type(chunks) is not Chunks:
            yield from (encode(_jsonl_record(d)) for d in iter_records(r))
            continue
        text, starts, ends, tokens = chunks._text, chunks._starts, chunks._ends, chunks._tokens
        flags, headings, pages = chunks._flags, chunks._headings, chunks._pages
        embed = chunks.embedded
        contexts, own = chunks._contexts, chunks._embeds  # own: a pasted splitter's texts
        embed_tokens = chunks._embed_tokens if embed or contexts is not None or own is not None else None
        estimated = b"true" if chunks._estimated else b"false"
        wide = chunks._wide_space if chunks._wide_space is not None else has_wide_space(text)
        # One byte a character (outside Latin-1 "?", no control) for the words and the controls.
        latin1 = None if wide else text.encode("latin-1", "replace")
        words = word_counter(text, wide, latin1)
        if latin1 is not None:
            # A megabyte at a time: the copies stay small beside the document's.
            plain = all(
                len(piece) == len(piece.translate(None, _RARE_CONTROLS))
                for piece in (latin1[i : i + (1 << 20)] for i in range(0, len(latin1), 1 << 20))
            )
            latin1 = None  # not held through the records: a byte a character of the document
        else:
            plain = _RARE_CONTROLS_TEXT.search(text) is None
        # The line separators are whitespace outside ASCII: a document without any holds none,
        # and nor do its records, but for what a context, a framework's text or the source adds
        # (an id is hexadecimal): a line is searched for them only then.
        separators = wide or (r.source is not None and has_wide_space(r.source))
        after_id = b'", ' if r.source is None else b'", "source": ' + encode(encode_basestring(r.source)) + b", "
        copy = chunks._id_base.copy  # each id: the document's hash, then the span and its text (chunk_id)
        lists: dict[tuple[str, ...], bytes] = {}  # flags and headings repeat: each rendered once
        end_before = 0
        for k in range(len(starts)):
            start, end = starts[k], ends[k]
            piece = text[start:end]
            fs = flags[k]
            f = lists.get(fs)
            if f is None:
                f = lists[fs] = encode(_json_list(fs))
            hs = headings[k] if headings else ()
            h = lists.get(hs)
            if h is None:
                h = lists[hs] = encode(_json_list(hs))
            shared = max(0, min(end_before, end) - start) if k else 0
            end_before = end
            data = encode(piece)
            hashed = copy()
            hashed.update(b"%d %d " % (start, end))
            hashed.update(data)  # as chunk_id hashes it (utf8: a lone surrogate as its own three bytes)
            line = _RECORD_HEAD % (
                hexlify(hashed.digest()[:16]),
                after_id,
                k,
                start,
                end,
                _json_utf8(data) if plain else encode(encode_basestring(piece)),
                end - start,
                words(start, end),
                tokens[k],
                estimated,
                shared,
                f,
                h,
            )
            if pages:
                first = max(1, bisect.bisect_right(pages, start))
                last = max(first, bisect.bisect_right(pages, max(start, end - 1)))
                line += b', "page_start": %d, "page_end": %d' % (first, last)
            context = contexts[k] if contexts is not None else ""
            framework = own[k] if own is not None else None
            added = False  # a context or a framework's text with a line separator
            if embed_tokens is not None and (embed or context or framework is not None):
                embedded_text = context + (piece if framework is None else framework)
                line += b', "embed_text": %s, "embed_tokens": %d' % (encode(encode_basestring(embedded_text)), embed_tokens[k])
                added = has_wide_space(context) or (framework is not None and has_wide_space(framework))
            line += b"}\n"
            if separators or added:
                for raw, escaped in _SEPARATORS_UTF8:
                    if raw in line:
                        line = line.replace(raw, escaped)
            yield line


def _json_list(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(map(encode_basestring, items)) + "]"


def _chonkie_record(r: dict[str, Any]) -> str:
    """One chunk as chonkie's `Chunk.to_dict()` has it (its JSONPorter writes one a line): `id`,
    `text`, `start_index` and `end_index` (code points: ``text[start_index:end_index]`` is the
    chunk), `token_count`, `context` (the text embedded before the chunk, or null) and
    `embedding` (null). The id is made from the chunk's source, place and text, so the same
    chunk always has the same id; `source` follows when the result came from a named file."""
    source = r.get("source")
    key = f"{source or ''}\0{r['start_char']}\0{r['end_char']}\0{r['text']}"
    out: dict[str, Any] = {
        "id": "chnk_" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32],
        "text": r["text"],
        "start_index": r["start_char"],
        "end_index": r["end_char"],
        "token_count": r["tokens"],
        "context": r.get("context") or None,
        "embedding": None,
    }
    if source is not None:
        out["source"] = source
    return _dumps(out) + "\n"


def _chonkie_lines(res: Results) -> Iterator[str]:
    """`_chonkie_record` of every chunk, read from the chunks: a record (`Chunk.to_dict`) holds
    the context only inside `embed_text`, so its `context` was null even with one."""
    for r in _results(res):
        for c in r.chunks:
            fields = {"start_char": c.start_char, "end_char": c.end_char, "text": c.text, "tokens": c.tokens}
            yield _chonkie_record({**fields, "context": c.context, "source": r.source})


JSONL_FRAME = Frame(_jsonl_record, render=_jsonl_lines, render_utf8=_jsonl_utf8)
CHONKIE_FRAME = Frame(_chonkie_record, render=_chonkie_lines)
TEXT_FRAME = Frame(_text_record, sep="\n")


def json_pieces(res: Results, *, indent: int | None = 2) -> Iterator[str]:
    """`to_json` in pieces."""
    return json_frame(indent).pieces(res)


def jsonl_pieces(res: Results) -> Iterator[str]:
    """`to_jsonl` in pieces, one record (line) each."""
    return JSONL_FRAME.pieces(res)


def text_pieces(res: Results) -> Iterator[str]:
    """`to_text` in pieces, one chunk each."""
    return TEXT_FRAME.pieces(res)


def to_json(res: Results, *, indent: int | None = 2) -> str:
    """A JSON array of records.

    >>> from chunker import chunk
    >>> print(to_json(chunk("Hi.", size=10, overlap=0), indent=None)[:102])
    [{"id": "a06d98967511e80955bce05213e61576", "index": 0, "start_char": 0, "end_char": 3, "text": "Hi.",
    """
    return "".join(json_pieces(res, indent=indent))


def to_jsonl(res: Results) -> str:
    """One JSON record per line, the shape batch embedding jobs load."""
    return "".join(jsonl_pieces(res))


def chonkie_pieces(res: Results) -> Iterator[str]:
    """`to_chonkie` in pieces, one chunk (line) each."""
    return CHONKIE_FRAME.pieces(res)


def to_chonkie(res: Results) -> str:
    """chonkie's chunk records, one JSON object a line, so the chunks load into tools made for
    chonkie's (``Chunk.from_dict`` of each line).

    >>> from chunker import chunk
    >>> print(to_chonkie(chunk("Hi there.", size=10, overlap=0)).replace(", ", ",\\n "))
    {"id": "chnk_...",
     "text": "Hi there.",
     "start_index": 0,
     "end_index": 9,
     "token_count": 3,
     "context": null,
     "embedding": null}
    """
    return "".join(chonkie_pieces(res))


def to_text(res: Results) -> str:
    """Each chunk's text under a header line with its index, offsets, sizes and flags."""
    return "".join(text_pieces(res))


@dataclass(frozen=True)
class Format:
    """An export format: how to write it, and how a browser should save it."""

    name: str
    pieces: Callable[[Results], Iterable[str]]
    mime: str
    extension: str
    description: str
    frame: Frame | None = None
    """How its records join (see `Frame`), for a format whose records can be rendered apart."""

    def write(self, res: Results) -> str:
        return "".join(self.pieces(res))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "mime": self.mime, "extension": self.extension, "description": self.description}


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format(
            "jsonl",
            jsonl_pieces,
            "application/x-ndjson",
            "jsonl",
            "JSON Lines: one record per line, the shape batch embedding jobs load.",
            JSONL_FRAME,
        ),
        Format("json", json_pieces, "application/json", "json", "One JSON array of records.", json_frame()),
        Format("txt", text_pieces, "text/plain", "txt", "Each chunk's text under a header line with its numbers.", TEXT_FRAME),
        Format(
            "chonkie",
            chonkie_pieces,
            "application/x-ndjson",
            "chonkie.jsonl",
            "chonkie's chunk records (text, start_index, end_index, token_count, context), one a line.",
            CHONKIE_FRAME,
        ),
    )
}
"""Every export format by name; the first is the command line's default."""
