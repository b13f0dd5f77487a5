"""LangChain: `ChunkerSplitter`, a `TextSplitter` that cuts exactly where `chunker.chunk` does.

Needs ``pip install 'chunkscope[langchain]'`` (langchain-text-splitters).

>>> from langchain_core.documents import Document
>>> from chunker.langchain import ChunkerSplitter
>>> splitter = ChunkerSplitter(strategy="sentence", unit="words", size=6, overlap=0, add_start_index=True)
>>> doc = Document(page_content="Ship it. Ship it. Ship it again, please.", metadata={"id": 7})
>>> for d in splitter.split_documents([doc]):
...     print(repr(d.page_content), d.metadata)
'Ship it. Ship it.' {'id': 7, 'start_index': 0}
'Ship it again, please.' {'id': 7, 'start_index': 18}
>>> ChunkerSplitter(size=6, unit="words", overlap=0, metadata=True).create_documents(["Ship it."])[0].metadata
{'start_index': 0, 'end_index': 8, 'tokens': 3, 'flags': [], 'headings': []}

Your own LangChain line, exactly, with offsets that are right where LangChain's are not:

>>> lc = ChunkerSplitter(splitter="RecursiveCharacterTextSplitter(chunk_size=9, chunk_overlap=0, add_start_index=True)")
>>> [(d.page_content, d.metadata) for d in lc.create_documents(["Ship it. Ship it."])]
[('Ship it.', {'start_index': 0}), ('Ship it.', {'start_index': 9})]
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._adapters import METADATA_KEYS, chunk_content, chunk_metadata, chunk_options, settings_of
from ._errors import ChunkerError, check_str_list
from .documents import source_of
from .results._records import Chunks
from .session._api import chunk
from .splitters import parse_splitter
from .tokens._tokenizers import TOKENIZERS, get_tokenizer

try:
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter
except ModuleNotFoundError as e:  # only a missing LangChain; a broken one keeps its own error
    if (e.name or "").split(".")[0] not in ("langchain_text_splitters", "langchain_core"):
        raise
    raise ImportError("chunker.langchain needs LangChain's text splitters: pip install 'chunkscope[langchain]'") from None

__all__ = ["ChunkerSplitter"]


class ChunkerSplitter(TextSplitter):
    """A LangChain `TextSplitter` taking `chunker.chunk`'s settings.

    ``ChunkerSplitter(strategy=..., unit=..., size=..., overlap=..., tokenizer=..., breaks=...,
    model_max=..., splitter=..., max_chunk_chars=...)``: every option of `chunk` (the table of
    options), each optional with its default, and checked here, so bad settings raise
    `chunker.ChunkerError` at once. `split_text` gives the chunk texts; `create_documents` and
    `split_documents` give Documents as LangChain's splitters do: the input's metadata (a copy
    per chunk), plus ``start_index`` when `add_start_index` is set (a code-point offset into the
    text, from the chunk record: right even where the text repeats, unlike LangChain's own,
    which searches for the chunk with ``str.find``), and nothing else unless asked:
    ``metadata=True`` adds every key of `METADATA_KEYS` (`start_index`, `end_index`, `tokens`,
    `flags`, `headings`), or name the ones wanted (``metadata=("end_index", "flags")``).

    With `splitter` (a pasted LangChain constructor call) the chunk texts are that splitter's,
    and its own ``add_start_index`` is taken unless `add_start_index` is given here.

    LangChain's own `chunk_size` and `chunk_overlap` are taken as `size` and `overlap`, counted
    in `unit` (tokens by default). `length_function` is not taken: `unit` and `tokenizer` say
    it, and none of TextSplitter's merging is used.
    """

    def __init__(self, *, add_start_index: bool | None = None, metadata: bool | Iterable[str] = False, **settings: Any) -> None:
        self._options = chunk_options(
            settings, owner="ChunkerSplitter", aliases="langchain", others=("add_start_index", "metadata")
        )
        if add_start_index is not None and not isinstance(add_start_index, bool):
            raise ChunkerError(f"add_start_index must be True or False, got {add_start_index!r}")
        if add_start_index is None:
            pasted = self._options.get("splitter")
            add_start_index = bool(pasted and parse_splitter(pasted).values().get("add_start_index"))
        self._keys = _metadata_keys(metadata)
        self._wanted = (add_start_index, metadata)
        size = self._options["size"]
        overlap = settings_of(self._options).overlap_count
        # TextSplitter checks chunk_size > 0 and overlap <= size in its own terms; ours are
        # checked already (size 0 is one chunk per sentence or paragraph), so it is handed values
        # that pass, kept only for code that reads its attributes. Its merging is never called.
        super().__init__(
            chunk_size=size or 1,
            chunk_overlap=overlap if size else 0,
            length_function=_length_function(self._options),
            keep_separator=False,
            add_start_index=add_start_index,
            strip_whitespace=False,
        )

    @classmethod
    def from_language(cls, language: Any, **kwargs: Any) -> ChunkerSplitter:
        """The `code` strategy in `language` (LangChain's ``Language``, or its value such as
        ``"python"``): Python by its syntax tree, other languages at LangChain's separators for
        them; `kwargs` are the other settings."""
        if "strategy" in kwargs or "language" in kwargs:
            raise ChunkerError("from_language sets strategy='code' and the language: leave both out")
        name = getattr(language, "value", language)
        return cls(strategy="code", language=name, **kwargs)

    @classmethod
    def from_tiktoken_encoder(cls, *args: Any, **kwargs: Any) -> ChunkerSplitter:
        # TextSplitter's version loads tiktoken's encoding (a download) before it calls the
        # constructor; the chunker has both exact encodings built in.
        raise ChunkerError(
            "ChunkerSplitter counts tokens itself: pass unit='tokens' and "
            "tokenizer='o200k' or 'cl100k' instead of from_tiktoken_encoder"
        )

    @classmethod
    def from_huggingface_tokenizer(cls, *args: Any, **kwargs: Any) -> ChunkerSplitter:
        raise ChunkerError(
            "ChunkerSplitter counts tokens itself: pass unit='tokens' and a tokenizer "
            f"({', '.join(TOKENIZERS)}) instead of from_huggingface_tokenizer"
        )

    @property
    def settings(self) -> dict[str, Any]:
        """The keyword arguments handed to `chunker.chunk`, in canonical form."""
        return dict(self._options)

    def split_text(self, text: str) -> list[str]:
        # The texts alone, sliced by the spans: no record is made, and nothing is counted.
        chunks = chunk(text, **self._options).chunks
        if isinstance(chunks, Chunks) and chunks._embeds is None:
            return [text[a:b] for a, b in chunks.spans()]
        return [chunk_content(c) for c in chunks]

    def create_documents(self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None) -> list[Document]:
        check_str_list(texts, "texts", "text")
        texts = list(texts)
        if not metadatas:
            metadatas = None  # LangChain takes an empty list as none given
        if metadatas is not None and len(metadatas) != len(texts):
            raise ChunkerError(f"metadatas has {len(metadatas)} entries for {len(texts)} texts: give one per text, or none")
        documents = []
        for i, text in enumerate(texts):
            base = metadatas[i] if metadatas is not None else {}
            if not isinstance(base, Mapping):  # LangChain's Document refuses it too, later and less clearly
                raise ChunkerError(
                    f"metadatas[{i}] is {type(base).__name__}, not a dict: give a dict "
                    "(or {}) for each text, or no metadatas at all"
                )
            # A loader's "source" (the file's path) tells the code strategy its language, and the
            # chunks' ids hash it, made canonical as the command line's `source` is.
            name = base.get("source")
            source = source_of(name) if isinstance(name, str) and name else None
            for c in chunk(text, source=source, **self._options).chunks:
                # A copy per chunk, as LangChain makes: a caller editing one chunk's metadata
                # must not edit its siblings'.
                metadata = copy.deepcopy(dict(base))
                if self._keys:
                    found = chunk_metadata(c)
                    metadata.update((k, found[k]) for k in self._keys)
                if self._add_start_index:
                    metadata["start_index"] = c.start_char
                # The record's id: the one the command line and the engines write for this chunk.
                documents.append(Document(page_content=chunk_content(c), metadata=metadata, id=c.id))
        return documents

    def __reduce__(self) -> tuple[Any, ...]:
        # Made again from its settings: the tokenizer's counting function does not pickle, and
        # a splitter is shipped to worker processes (multiprocessing, Ray, Spark) by pickle.
        return (_splitter, (self._options, *self._wanted))

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self._options.items())
        return f"ChunkerSplitter({shown})"


def _splitter(options: dict[str, Any], add_start_index: bool = False, metadata: Any = False) -> ChunkerSplitter:
    return ChunkerSplitter(add_start_index=add_start_index, metadata=metadata, **options)


def _metadata_keys(metadata: bool | Iterable[str]) -> tuple[str, ...]:
    if metadata is True:
        return METADATA_KEYS
    if metadata is False or metadata is None:
        return ()
    if isinstance(metadata, str) or not isinstance(metadata, Iterable):
        raise ChunkerError(f"metadata must be True, False or a list of keys from {', '.join(METADATA_KEYS)}, got {metadata!r}")
    keys = tuple(metadata)
    unknown = [k for k in keys if k not in METADATA_KEYS]
    if unknown:
        raise ChunkerError(f"unknown metadata key {unknown[0]!r}: choose from {', '.join(METADATA_KEYS)}")
    return keys


def _length_function(options: dict[str, Any]) -> Callable[[str], int]:
    """What TextSplitter calls `length_function`: a text's size in the settings' unit."""
    if options["unit"] == "chars":
        return len
    if options["unit"] == "words":
        return lambda s: len(s.split())
    return get_tokenizer(options["tokenizer"]).count
