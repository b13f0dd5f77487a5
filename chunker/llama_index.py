"""LlamaIndex: `ChunkerNodeParser`, a `NodeParser` that cuts exactly where `chunker.chunk` does.

Needs ``pip install 'chunkscope[llama-index]'`` (llama-index-core). Nothing here downloads
anything: the parser uses neither NLTK nor LlamaIndex's tokenizer (see docs/pipelines.md).

>>> from llama_index.core import Document
>>> from chunker.llama_index import ChunkerNodeParser
>>> parser = ChunkerNodeParser(strategy="sentence", unit="words", size=6, overlap=0)
>>> doc = Document(text="Ship it. Ship it. Ship it again, please.", metadata={"id": 7})
>>> for n in parser.get_nodes_from_documents([doc]):
...     print(n.start_char_idx, n.end_char_idx, repr(n.text), n.metadata["id"], n.metadata["tokens"])
0 17 'Ship it. Ship it.' 7 6
18 40 'Ship it again, please.' 7 6
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._adapters import METADATA_KEYS, chunk_content, chunk_metadata, chunk_options, setting_names, settings_of
from ._errors import ChunkerError, check_str_list
from .documents import source_of
from .results._records import Chunk
from .session._api import Document as TextDocument
from .settings._context import NONE
from .settings._options import options_for
from .text._segments import count_words
from .tokens._tokenizers import get_tokenizer

try:
    from llama_index.core.bridge.pydantic import Field, create_model
    from llama_index.core.callbacks import CBEventType, EventPayload
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.node_parser.node_utils import default_id_func
    from llama_index.core.schema import (
        BaseNode,
        Document,
        MetadataMode,
        NodeRelationship,
        TextNode,
    )
    from llama_index.core.utils import get_tqdm_iterable
except ModuleNotFoundError as e:  # only a missing LlamaIndex; a broken one keeps its own error
    if (e.name or "").split(".")[0] != "llama_index":
        raise
    raise ImportError("chunker.llama_index needs llama-index-core: pip install 'chunkscope[llama-index]'") from None

__all__ = ["ChunkerNodeParser"]

# NodeParser's own fields, taken beside chunker's settings.
_PARSER_FIELDS = ("include_metadata", "include_prev_next_rel", "callback_manager", "id_func")


# One pydantic field per option of the table that the adapters take, with its default and
# description: fields, so an IngestionPipeline's cache tells two parsers with different settings
# apart. Options registered after this module is imported are not fields.
_Fields = create_model(
    "_ChunkerSettingFields",
    __base__=NodeParser,
    **{  # type: ignore[call-overload]
        o.name: (o.annotation, Field(default=o.default, description=o.description)) for o in options_for("adapters")
    },
)


class ChunkerNodeParser(_Fields):  # type: ignore[misc, valid-type]
    """A LlamaIndex `NodeParser` taking `chunker.chunk`'s settings.

    ``ChunkerNodeParser(strategy=..., unit=..., size=..., overlap=..., tokenizer=..., breaks=...,
    model_max=..., max_chunk_chars=...)`` (every option of `chunk`), plus NodeParser's
    `include_metadata`, `include_prev_next_rel`, `callback_manager` and `id_func`. Settings are checked here: bad ones raise
    `chunker.ChunkerError` at once. They are model fields, so an IngestionPipeline's cache
    tells two parsers with different settings apart.

    Each TextNode has `start_char_idx`/`end_char_idx` from the chunk record (code points into
    the text it was cut from), a SOURCE relationship to that node, PREVIOUS/NEXT between
    siblings, and metadata: the input's, plus `start_index`, `end_index`, `tokens`, `flags` and
    `headings` (lists). Those five are excluded from the text LlamaIndex embeds and shows the
    LLM, so the embedded text is the chunk the size was measured on plus only the input's own
    metadata.

    As in LlamaIndex's `SentenceSplitter`, the size holds the chunk and the input's metadata
    string (the longer of its embed and LLM forms, measured in the unit): each input is cut at
    the size less its metadata, and an input whose metadata alone fills the size is refused.
    An empty text is one empty node; `split_text` gives the chunk texts of a text, and every
    text cut raises LlamaIndex's CHUNKING callback event, as its own splitters do.

    With a pasted splitter (the `splitter` setting), the nodes are that class's: their text is
    the framework's own (`Chunk.framework_text` where it is not the slice; the offsets are the
    slice covering it), an empty text gives what the class gives, and LlamaIndex's
    SentenceSplitter and TokenTextSplitter size each input's chunks within what its metadata
    string leaves (``split_text_metadata_aware``), while `split_text` is the class's own
    ``split_text``. LangChain's classes cut as LlamaIndex's ``LangchainNodeParser`` runs them,
    without the metadata.

    With a context (the `context` setting, or a strategy's own, such as a table's header
    rows), the node's metadata holds it as `context` and the node is templated so that
    ``node.get_content(metadata_mode=MetadataMode.EMBED)`` is the record's `embed_text`: the
    context, then the text, and nothing else (the input's metadata is then excluded from the
    embedded text too, and with the `context` setting it is not measured against the size: the
    context is). LlamaIndex strips the whitespace around that text, so a context that begins
    with whitespace loses it there.
    """

    max_chunk_chars: int | None = Field(default=None, description="Refuse settings whose chunks hold more characters in all.")

    def __init__(self, **settings: Any) -> None:
        parser = {k: settings.pop(k) for k in _PARSER_FIELDS if k in settings}
        # Checked before pydantic sees them: pydantic would turn a ChunkerError (a ValueError)
        # into a ValidationError of several lines.
        options = chunk_options(settings, owner="ChunkerNodeParser", others=_PARSER_FIELDS)
        super().__init__(**options, **parser)

    @classmethod
    def class_name(cls) -> str:
        return "ChunkerNodeParser"

    @property
    def settings(self) -> dict[str, Any]:
        """The keyword arguments handed to `chunker.chunk`."""
        return {name: getattr(self, name) for name in setting_names() if name in type(self).model_fields}

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any) -> list[BaseNode]:
        options = self.settings  # chunk() checks them again: a field may have been assigned
        out: list[BaseNode] = []
        for node in get_tqdm_iterable(nodes, show_progress, "Chunking nodes"):
            text = node.get_content(metadata_mode=MetadataMode.NONE)
            source = node.as_related_node_info()  # once per input: it hashes the whole text
            hidden_embed = [
                *node.excluded_embed_metadata_keys,
                *(k for k in METADATA_KEYS if k not in node.excluded_embed_metadata_keys),
            ]
            hidden_llm = [
                *node.excluded_llm_metadata_keys,
                *(k for k in METADATA_KEYS if k not in node.excluded_llm_metadata_keys),
            ]
            # A reader's file name tells the code strategy its language, and the chunks' ids
            # hash it (made canonical, as the command line's `source` is).
            name = node.metadata.get("file_path") or node.metadata.get("source") or node.metadata.get("file_name")
            path = source_of(name) if isinstance(name, str) and name else None
            if options.get("splitter"):
                # The class sizes its chunks itself, with the metadata string where it is
                # LlamaIndex's (the longer of its two forms, as MetadataAwareTextSplitter takes it).
                chunks = self._chunks(text, options, path, metadata=_metadata_str(node))
            else:
                # With the context setting, the context is what the size holds beside the text.
                sized = options if options.get("context", NONE) != NONE else _metadata_sized(node, options)
                chunks = self._chunks(text, sized, path)
            with_context = any(c.context for c in chunks)
            if with_context:  # the embedded text is the context and the text, nothing else
                hidden_embed = [*hidden_embed, *(k for k in node.metadata if k not in hidden_embed)]
            for c in chunks:
                metadata = chunk_metadata(c)
                template, text_template = node.metadata_template, node.text_template
                if with_context:
                    metadata, template, text_template = _with_context(metadata, c.context)
                out.append(
                    TextNode(
                        # The record's id (the one the command line and the engines write), unless
                        # an id_func of the caller's was given; LlamaIndex's own is a random uuid.
                        id_=c.id if c.id and self.id_func is default_id_func else self.id_func(c.index, node),
                        text=chunk_content(c),
                        start_char_idx=c.start_char,
                        end_char_idx=c.end_char,
                        metadata=metadata,
                        excluded_embed_metadata_keys=hidden_embed,
                        excluded_llm_metadata_keys=hidden_llm,
                        metadata_seperator=node.metadata_separator,
                        metadata_template=template,
                        text_template=text_template,
                        relationships={NodeRelationship.SOURCE: source},
                    )
                )
        return out

    def split_text(self, text: str) -> list[str]:
        """The chunk texts of `text` under these settings, as a LlamaIndex `TextSplitter` gives
        them (an empty text is one empty chunk; a pasted splitter's are its ``split_text``'s)."""
        return [chunk_content(c) for c in self._chunks(text, self.settings, metadata=None)]

    def split_texts(self, texts: list[str]) -> list[str]:
        """`split_text` of each text, one list."""
        check_str_list(texts, "texts", "text")
        return [t for text in texts for t in self.split_text(text)]

    def _chunks(self, text: str, options: dict[str, Any], source: str | None = None, *, metadata: str | None = "") -> list[Chunk]:
        """The chunks of one text, inside a CHUNKING event (an empty text: one empty chunk, and
        no event, as SentenceSplitter has it; a pasted splitter's own, whatever they are).
        `metadata`: the node's metadata string a pasted splitter is sized with (see
        `chunker.splitters.splitter_spans`)."""
        splitter = options.get("splitter")
        if text == "" and not splitter:
            return [Chunk(0, 0, 0, "", 0, False)]
        doc = TextDocument(text, source=source)
        doc._keep = False  # one run, as chunk() makes it: the measure goes before the records are made

        def run() -> list[Chunk]:
            res = doc.run(settings_of(options), max_chunk_chars=options.get("max_chunk_chars"), splitter_metadata=metadata)
            return list(res.chunks)

        if text == "":
            return run()
        with self.callback_manager.event(CBEventType.CHUNKING, payload={EventPayload.CHUNKS: [text]}) as event:
            chunks = run()
            event.on_end(payload={EventPayload.CHUNKS: [c.text for c in chunks]})
        return chunks

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]) -> list[BaseNode]:
        # NodeParser's post-processing merges the input's metadata and links the siblings,
        # which we keep; it also sets every node's offsets again by searching the parent's text
        # with str.find, which can land on an earlier copy of a repeated passage. The offsets
        # the chunker gave are put back.
        spans = [(n.start_char_idx, n.end_char_idx) if isinstance(n, TextNode) else None for n in nodes]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node, span in zip(nodes, spans):
            if span is not None and isinstance(node, TextNode):
                node.start_char_idx, node.end_char_idx = span
        return nodes


CONTEXT_KEY = "context"
"""The metadata key a node's context is held under (see `ChunkerNodeParser`)."""


def _with_context(metadata: dict[str, Any], context: str) -> tuple[dict[str, Any], str, str]:
    """(metadata, metadata_template, text_template) making LlamaIndex's embed-mode text of a node
    exactly its context then its text. LlamaIndex strips the metadata string and the whole text
    (`TextNode.get_content`), so the context's own outer whitespace (the blank line after a
    heading path) goes in the text template, around the metadata string, and the metadata holds
    the rest; the template writes the value alone, never its key."""
    core = context.strip()
    at = context.find(core) if core else len(context)
    lead, trail = context[:at], context[at + len(core) :]
    if not core:
        lead, trail = "", ""  # no metadata string: LlamaIndex gives the text alone
    out = {**metadata, CONTEXT_KEY: core}
    return out, "{value}", lead + "{metadata_str}" + trail + "{content}"


def _metadata_str(node: BaseNode) -> str:
    """The node's metadata string a LlamaIndex splitter sizes chunks with: the longer of its
    embed and LLM forms (MetadataAwareTextSplitter's ``_get_metadata_str``)."""
    embed = node.get_metadata_str(mode=MetadataMode.EMBED)
    llm = node.get_metadata_str(mode=MetadataMode.LLM)
    return embed if len(embed) > len(llm) else llm


def _metadata_sized(node: BaseNode, options: dict[str, Any]) -> dict[str, Any]:
    """`options` with the size the node's metadata string leaves (SentenceSplitter's
    ``split_text_metadata_aware``): the longer of the embed and LLM forms, measured in the
    unit; an overlap or min_size the smaller size cannot hold is brought under it."""
    size = options["size"]
    meta = _metadata_str(node)
    if not size or not meta:
        return options
    unit = options["unit"]
    used = (
        len(meta)
        if unit == "chars"
        else count_words(meta)
        if unit == "words"
        else get_tokenizer(options["tokenizer"]).count(meta)
    )
    left = size - used
    if left <= 0:
        raise ChunkerError(
            f"the metadata of node {node.node_id!r} measures {used} {unit}, as much as the size {size} or more: "
            "give a larger size, or leave keys out of the embedded text (excluded_embed_metadata_keys)",
            field="size",
        )
    out = {**options, "size": left}
    overlap = options["overlap"]
    if isinstance(overlap, int) and overlap >= left:
        out["overlap"] = left - 1
    if options.get("min_size", 0) >= left:
        out["min_size"] = left - 1
    return out
