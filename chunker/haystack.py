"""Haystack: `ChunkerSplitter`, a pipeline component that cuts exactly where `chunker.chunk` does.

Needs ``pip install 'chunker[haystack]'`` (haystack-ai); the rest of chunker never imports it.

>>> from haystack import Document, Pipeline
>>> from chunker.haystack import ChunkerSplitter
>>> pipe = Pipeline()
>>> _ = pipe.add_component("splitter", ChunkerSplitter(strategy="sentence", unit="words", size=6, overlap=0))
>>> out = pipe.run({"splitter": {"documents": [Document(content="Ship it. Ship it. Ship it again, please.", id="d1")]}})
>>> for d in out["splitter"]["documents"]:
...     print(repr(d.content), d.meta)
'Ship it. Ship it.' {'source_id': 'd1', 'page_number': 1, 'split_id': 0, 'split_idx_start': 0}
'Ship it again, please.' {'source_id': 'd1', 'page_number': 1, 'split_id': 1, 'split_idx_start': 18}
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from ._adapters import chunk_options, settings_of
from ._errors import ChunkerError
from .session._api import chunk

try:
    from haystack import Document, component, default_from_dict, default_to_dict
except ModuleNotFoundError as e:  # only a missing Haystack; a broken one keeps its own error
    if (e.name or "").split(".")[0] != "haystack":
        raise
    raise ImportError("chunker.haystack needs Haystack: pip install 'chunker[haystack]'") from None

__all__ = ["ChunkerSplitter"]

_PAGE_BREAK = "\f"


@component
class ChunkerSplitter:
    """A Haystack component taking `chunker.chunk`'s settings (every option of it, and
    `max_chunk_chars`), checked when it is made: bad ones raise `chunker.ChunkerError` at once.

    ``run(documents=[...])`` returns ``{"documents": [...]}``: one Document per chunk, its
    content the chunk's text, its meta the input's plus the keys Haystack's `DocumentSplitter`
    writes: `source_id` (the input's id), `split_id` (the chunk's number in its input),
    `split_idx_start` (where the chunk starts in the input's content, in code points:
    ``content[start:start + len(chunk)] == chunk``, even where the text repeats) and
    `page_number` (1 plus the form feeds before the chunk), and, when the settings overlap,
    `_split_overlap` (which neighbour shares which range of this chunk). Empty inputs are
    skipped unless `skip_empty_documents` is False (then each is one empty chunk).
    """

    def __init__(self, *, skip_empty_documents: bool = True, **settings: Any) -> None:
        self._options = chunk_options(settings, owner="ChunkerSplitter", others=("skip_empty_documents",))
        if not isinstance(skip_empty_documents, bool):
            raise ChunkerError(f"skip_empty_documents must be True or False, got {skip_empty_documents!r}")
        self.skip_empty_documents = skip_empty_documents
        self._overlaps = settings_of(self._options).overlap_count > 0 or bool(self._options.get("splitter"))

    @property
    def settings(self) -> dict[str, Any]:
        """The keyword arguments handed to `chunker.chunk`."""
        return dict(self._options)

    def to_dict(self) -> dict[str, Any]:
        """The component for a pipeline's YAML: its settings as given to `chunker.chunk`."""
        # Lists, not tuples: a pipeline's YAML holds plain values only.
        plain = {k: list(v) if isinstance(v, tuple) else v for k, v in self._options.items()}
        out: dict[str, Any] = default_to_dict(self, skip_empty_documents=self.skip_empty_documents, **plain)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChunkerSplitter:
        made: ChunkerSplitter = default_from_dict(cls, data)
        return made

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, list[Document]]:
        """Split each document; the chunks of all of them, in order."""
        if not isinstance(documents, list) or not all(isinstance(d, Document) for d in documents):
            raise TypeError("ChunkerSplitter expects a list of Haystack Documents as input")
        out: list[Document] = []
        for doc in documents:
            if doc.content is None:
                raise ChunkerError(f"document {doc.id!r} has no text content: ChunkerSplitter splits text documents only")
            if doc.content == "" and self.skip_empty_documents:
                continue
            out.extend(self._split(doc))
        return {"documents": out}

    def _split(self, doc: Document) -> list[Document]:
        text: str = doc.content or ""
        name = doc.meta.get("file_path") or doc.meta.get("file_name")
        chunks = list(chunk(text, source=name if isinstance(name, str) else None, **self._options).chunks)
        spans = [(c.start_char, c.end_char, c.text) for c in chunks] or ([(0, 0, "")] if text == "" else [])
        made: list[Document] = []
        page, counted = 1, 0
        for i, (start, _, piece) in enumerate(spans):
            page += text.count(_PAGE_BREAK, counted, start)  # the page the chunk's first character is on
            counted = start
            meta = deepcopy(doc.meta)
            meta.update(source_id=doc.id, page_number=page, split_id=i, split_idx_start=start)
            made.append(Document(content=piece, meta=meta))
        if self._overlaps:
            for d in made:
                d.meta["_split_overlap"] = []
            for (a0, b0, _), (a1, _, _), before, this in zip(spans, spans[1:], made, made[1:]):
                if a1 < b0:  # this chunk opens with the end of the one before
                    this.meta["_split_overlap"].append({"doc_id": before.id, "range": (a1 - a0, b0 - a0)})
                    before.meta["_split_overlap"].append({"doc_id": this.id, "range": (0, b0 - a1)})
        return made
