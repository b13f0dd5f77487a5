"""Your splitter, exactly: a framework splitter's constructor call, read and reproduced.

The `splitter` setting takes the line from a user's code, such as
``RecursiveCharacterTextSplitter.from_language(Language.PYTHON, chunk_size=800, chunk_overlap=80)``:
it is parsed (`parse_splitter`, never evaluated) against `SPLITTERS`, the one registry of the
framework classes supported, and the chunks are then that framework's, computed here in pure
Python with offsets into the document (`splitter_spans`).

>>> from chunker import chunk
>>> res = chunk("One two.\\n\\nThree four five.", splitter="RecursiveCharacterTextSplitter(chunk_size=12, chunk_overlap=0)")
>>> [c.text for c in res.chunks], res.settings.strategy, res.settings.unit, res.settings.size
(['One two.', 'Three four', 'five.'], 'langchain', 'chars', 12)
"""

from __future__ import annotations

from ..strategies._spans import Span
from ..tokens._tokenizers import TokenizerLike
from ._parse import MAX_SOURCE, SplitterCall, parse_splitter
from ._registry import FRAMEWORKS, SPLITTERS, Constructor, Param, SplitterClass, register_splitter

__all__ = [
    "SPLITTERS",
    "FRAMEWORKS",
    "SplitterClass",
    "Param",
    "Constructor",
    "SplitterCall",
    "register_splitter",
    "parse_splitter",
    "splitter_spans",
    "MAX_SOURCE",
]


def splitter_spans(text: str, splitter: str | SplitterCall, tokenizer: TokenizerLike, *, metadata: str | None = "") -> list[Span]:
    """The chunks the framework's splitter makes of `text`, as `Span` records (offsets into
    `text`; `embed` where the framework's chunk text is not that slice; the `framework_offset` flag where its own
    start index is elsewhere). `tokenizer` is the run's, for a splitter counting with the
    user's own tokenizer.

    `metadata` is the metadata string of the node a LlamaIndex node parser cuts (its
    ``split_text_metadata_aware``, which sizes the chunks within what the metadata leaves):
    ``""`` for a document without metadata, as ``get_nodes_from_documents`` cuts one; None for
    the class's ``split_text``. LangChain's classes, and LlamaIndex's that are not sized with
    the metadata, make the same chunks either way."""
    call = splitter if isinstance(splitter, SplitterCall) else parse_splitter(splitter)
    return list(call.kind.split(text, call, tokenizer, metadata=metadata))
