"""What the framework adapters share: their settings, checked once, and a chunk's metadata.

`chunker.langchain`, `chunker.llama_index`, `chunker.ray` and `chunker.arrow` take the very
keyword arguments of `chunker.chunk` (the table of options' "adapters" surface) and hand them
to it unchanged, so a pipeline cuts exactly where the playground showed. Bad settings fail
when the adapter is made, not on the first document.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._errors import ChunkerError
from .results._records import Chunk
from .settings._options import Settings, options_for

__all__ = ["METADATA_KEYS", "SETTING_NAMES", "setting_names", "chunk_metadata", "chunk_options", "settings_of", "chunk_content"]

SETTING_NAMES = (*(o.name for o in options_for("adapters")), "max_chunk_chars")
"""The keyword arguments of `chunker.chunk` an adapter takes (`source` is per document), as the
table of options had them at import; `setting_names()` is the table's answer now."""


def setting_names() -> tuple[str, ...]:
    """The options the adapters take, from the table of options, and `max_chunk_chars`."""
    return (*(o.name for o in options_for("adapters")), "max_chunk_chars")


METADATA_KEYS = ("start_index", "end_index", "tokens", "flags", "headings")
"""The keys an adapter adds to each chunk's metadata (see `chunk_metadata`)."""

# Other libraries' names for our settings: the error says which of ours to use instead.
_INSTEAD = {
    "chunk_size": "size",
    "chunk_overlap": "overlap",
    "length_function": "unit and tokenizer",
    "encoding_name": "tokenizer ('o200k' or 'cl100k')",
    "model_name": "tokenizer ('o200k' or 'cl100k')",
    "separators": "strategy",
    "source": "the document's own metadata (source is per document)",
}


def chunk_options(settings: dict[str, Any], *, owner: str, others: Iterable[str] = (), aliases: str = "") -> dict[str, Any]:
    """`settings` checked and made canonical: keyword arguments for `chunker.chunk`.

    Raises `ChunkerError` naming the first bad value. `others` are further names the owner
    takes itself (they are only listed in the message about an unknown name). `aliases` names
    the library whose own names for our options (each `Option.aliases`) the owner takes too,
    such as LangChain's ``chunk_size`` for ``size``.

    >>> chunk_options({"size": "200", "overlap": "10%"}, owner="Splitter")["overlap"]
    '10%'
    >>> chunk_options({"chunk_size": 200}, owner="Splitter")
    Traceback (most recent call last):
    ...
    chunker._errors.ChunkerError: Splitter has no setting 'chunk_size': use size
    """
    options = options_for("adapters")
    theirs = {o.aliases[aliases]: o.name for o in options if aliases and aliases in o.aliases}
    given: dict[str, Any] = {}
    for name, value in settings.items():
        ours = theirs.get(name, name)
        if ours in given:
            alias = next(k for k, v in theirs.items() if v == ours)
            raise ChunkerError(f"{owner} has both {alias!r} and {ours!r}: give one of them")
        given[ours] = value
    names = setting_names()
    # chunk()'s options no adapter uses (the retriever ranks a result for the retrieval check;
    # an adapter hands on chunks): checked with the rest, so settings written for chunk() work
    # here too, then left out.
    unused = {o.name for o in options_for("chunk") if "adapters" not in o.surfaces}
    for name in given:
        if name not in names and name not in unused:
            if name in _INSTEAD:
                raise ChunkerError(f"{owner} has no setting {name!r}: use {_INSTEAD[name]}")
            known = ", ".join((*names, *others))
            raise ChunkerError(f"{owner} has no setting {name!r}: choose from {known}")
    limit = given.pop("max_chunk_chars", None)
    canonical = Settings(**given)  # the unused ones checked too
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ChunkerError(f"max_chunk_chars must be a whole number (0: no limit) or None (the default limit), got {limit!r}")
    return {**{o.name: getattr(canonical, o.name) for o in options}, "max_chunk_chars": limit}


def settings_of(options: dict[str, Any]) -> Settings:
    """The `Settings` record of options from `chunk_options`."""
    return Settings(**{k: v for k, v in options.items() if k != "max_chunk_chars"})


def chunk_metadata(c: Chunk) -> dict[str, Any]:
    """The metadata an adapter adds to a chunk: offsets into the text it was given (code
    points, ``text[start_index:end_index] == chunk``), its tokens, flags and headings.

    >>> from chunker import chunk
    >>> chunk_metadata(chunk("# Title\\n\\nBody text.", strategy="markdown", size=50, overlap=0).chunks[0])
    {'start_index': 0, 'end_index': 19, 'tokens': 5, 'flags': [], 'headings': ['Title']}
    """
    return {
        "start_index": c.start_char,
        "end_index": c.end_char,
        "tokens": c.tokens,
        "flags": list(c.flags),
        "headings": list(c.headings),
    }


def chunk_content(c: Chunk) -> str:
    """A chunk's text as a framework hands it on: the framework's own for a pasted splitter,
    else the text."""
    return c.text if c.framework_text is None else c.framework_text
