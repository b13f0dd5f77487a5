"""Serialisations of a result: a JSON array, JSON Lines, and plain text. All carry the same
records (`Chunk.to_dict()`), plus `source` when the result came from a named file."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Union

from ._records import ChunkResult

__all__ = ["records", "to_json", "to_jsonl", "to_text"]

Results = Union[ChunkResult, Iterable[ChunkResult]]


def _results(res: Results) -> List[ChunkResult]:
    return [res] if isinstance(res, ChunkResult) else list(res)


def records(res: Results) -> List[Dict[str, Any]]:
    """The records of one result, or of several (each then carries its `source`)."""
    out = []
    for r in _results(res):
        for c in r.chunks:
            d = c.to_dict()
            if r.source is not None:
                d = {"source": r.source, **d}
            out.append(d)
    return out


def to_json(res: Results, *, indent: int = 2) -> str:
    """A JSON array of records.

    >>> from chunker import chunk
    >>> print(to_json(chunk("Hi.", size=10, overlap=0), indent=None)[:60])
    [{"index": 0, "start_char": 0, "end_char": 3, "text": "Hi.", 
    """
    return json.dumps(records(res), ensure_ascii=False, indent=indent) + "\n"


def to_jsonl(res: Results) -> str:
    """One JSON record per line, the shape batch embedding jobs load."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records(res))


def to_text(res: Results) -> str:
    """Each chunk's text under a header line with its index, offsets, sizes and flags."""
    parts = []
    for r in records(res):
        head = f"--- chunk {r['index']}"
        if "source" in r:
            head += f" of {r['source']}"
        approx = "~" if r["tokens_estimated"] else ""
        head += (f" [{r['start_char']}:{r['end_char']}] {approx}{r['tokens']} tokens,"
                 f" {r['chars']} chars, {r['words']} words")
        if r["flags"]:
            head += " (" + ", ".join(r["flags"]) + ")"
        parts.append(head + " ---\n" + r["text"] + "\n")
    return "\n".join(parts)
