"""Serialisations of a result, and the registry of export formats.

Every format carries the same records (`Chunk.to_dict()`, plus `source` when the result came
from a named file) and is written as a stream of pieces, one record at a time, so writing a
million chunks never holds a million records. The command line's ``--format`` and the page's
download buttons are drawn from `FORMATS`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ._records import ChunkResult

__all__ = ["Format", "FORMATS", "records", "iter_records", "to_json", "to_jsonl", "to_text"]

Results = ChunkResult | Iterable[ChunkResult]


def _results(res: Results) -> Iterable[ChunkResult]:
    return [res] if isinstance(res, ChunkResult) else res


def iter_records(res: Results) -> Iterator[dict[str, Any]]:
    """The records of one result, or of several (each then carries its `source`), one by one."""
    for r in _results(res):
        for c in r.chunks:
            d = c.to_dict()
            yield d if r.source is None else {"source": r.source, **d}


def records(res: Results) -> list[dict[str, Any]]:
    """The records of one result, or of several (each then carries its `source`)."""
    return list(iter_records(res))


# Line separators other than LF, which str.splitlines() and some JSON Lines readers split on:
# written as escapes, so one record is one line to every reader. (JSON allows either form.)
_SEPARATORS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


def _dumps(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent).translate(_SEPARATORS)


def json_pieces(res: Results, *, indent: int | None = 2) -> Iterator[str]:
    """`to_json` in pieces."""
    pad = " " * indent if indent else ""
    sep = ",\n" if indent else ", "
    first = True
    yield "["
    for r in iter_records(res):
        body = _dumps(r, indent)
        if indent:
            body = pad + body.replace("\n", "\n" + pad)
        yield ("\n" if indent else "") + body if first else sep + body
        first = False
    yield ("\n]\n" if indent and not first else "]\n")


def jsonl_pieces(res: Results) -> Iterator[str]:
    """`to_jsonl` in pieces, one record (line) each."""
    for r in iter_records(res):
        yield _dumps(r) + "\n"


def text_pieces(res: Results) -> Iterator[str]:
    """`to_text` in pieces, one chunk each."""
    first = True
    for r in iter_records(res):
        head = f"--- chunk {r['index']}"
        if "source" in r:
            head += f" of {r['source']}"
        approx = "~" if r["tokens_estimated"] else ""
        head += (f" [{r['start_char']}:{r['end_char']}] {approx}{r['tokens']} tokens,"
                 f" {r['chars']} chars, {r['words']} words")
        if "page_start" in r:
            first, last = r["page_start"], r["page_end"]
            head += f", p. {first}" if first == last else f", pp. {first}–{last}"
        if r["flags"]:
            head += " (" + ", ".join(r["flags"]) + ")"
        yield ("" if first else "\n") + head + " ---\n" + r["text"] + "\n"
        first = False


def to_json(res: Results, *, indent: int | None = 2) -> str:
    """A JSON array of records.

    >>> from chunker import chunk
    >>> print(to_json(chunk("Hi.", size=10, overlap=0), indent=None)[:60])
    [{"index": 0, "start_char": 0, "end_char": 3, "text": "Hi.",
    """
    return "".join(json_pieces(res, indent=indent))


def to_jsonl(res: Results) -> str:
    """One JSON record per line, the shape batch embedding jobs load."""
    return "".join(jsonl_pieces(res))


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

    def write(self, res: Results) -> str:
        return "".join(self.pieces(res))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "mime": self.mime, "extension": self.extension,
                "description": self.description}


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("jsonl", jsonl_pieces, "application/x-ndjson", "jsonl",
           "JSON Lines: one record per line, the shape batch embedding jobs load."),
    Format("json", json_pieces, "application/json", "json", "One JSON array of records."),
    Format("txt", text_pieces, "text/plain", "txt", "Each chunk's text under a header line with its numbers."),
)}
"""Every export format by name; the first is the command line's default."""
