"""One module per strategy; each exposes ``split(text, *, size, overlap, measure, breaks)``
returning `Span` records in document order. `langchain` has its own signature (it measures
strings, as LangChain does) and is adapted in `chunker._api`."""

from __future__ import annotations

from ._pack import Span

__all__ = ["Span"]
