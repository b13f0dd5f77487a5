"""Apache Arrow: `chunk_table`, one row per chunk of every row of a table.

It is what `chunker.ray.chunk_dataset` runs on each block of a dataset and what
`chunker.spark.chunk_dataframe` runs on each batch: one function for every engine that hands
out Arrow data, so a row gives the same records whichever engine runs it. A row's text is a
string, or a file's bytes, read exactly as the command line reads that file (PDF, Word and
HTML extracted, text strict UTF-8). Needs pyarrow (``pip install 'chunkscope[ray]'`` brings it;
Spark has its own).

>>> import pyarrow as pa
>>> from chunker.arrow import chunk_table
>>> docs = pa.table({"doc": [7, 8], "text": ["One. Two.", "Three."]})
>>> out = chunk_table(docs, strategy="sentence", size=0)
>>> out.select(["doc", "index", "start_char", "text"]).to_pylist()[:2]
[{'doc': 7, 'index': 0, 'start_char': 0, 'text': 'One.'}, {'doc': 7, 'index': 1, 'start_char': 5, 'text': 'Two.'}]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from ._adapters import chunk_options, settings_of
from ._errors import ChunkerError
from .documents import read_file, shown_name, source_of, text_encoding
from .results._export import embedded
from .results._schema import Field, embeds, engine_fields
from .session._api import Document

try:
    import pyarrow as pa
except ModuleNotFoundError as e:  # only a missing pyarrow; a broken one keeps its own error
    if (e.name or "").split(".")[0] != "pyarrow":
        raise
    raise ImportError("chunker.arrow needs pyarrow: pip install pyarrow (the 'ray' extra brings it)") from None

__all__ = [
    "CHUNK_SCHEMA",
    "EMBED_SCHEMA",
    "chunk_batches",
    "chunk_table",
    "check_columns",
    "complete_files",
    "completed_sources",
    "reading_options",
    "schema_for",
]


def _arrow_type(f: Field) -> pa.DataType:
    return {"string": pa.string(), "int": pa.int64(), "bool": pa.bool_(), "strings": pa.list_(pa.string())}[f.kind]


CHUNK_SCHEMA = pa.schema([(f.name, _arrow_type(f)) for f in engine_fields(embed=False)])
"""The columns `chunk_table` adds: the record's fields (`chunker.results._schema.FIELDS`),
typed. Given explicitly, so a block whose chunks have no flags at all, or a block of no chunks,
has the same schema as the rest."""

EMBED_SCHEMA = pa.schema([(f.name, _arrow_type(f)) for f in engine_fields(embed=True)])
"""The columns when the settings embed (`chunker.results._schema.embeds`: a `context` setting,
a pasted splitter, or a strategy that may give a chunk a context of its own, such as a split
table's header rows): `CHUNK_SCHEMA` with each chunk's embed text and its tokens, null on a
row whose JSON record leaves them out. Decided by the settings, not by the chunks, so every
block of a dataset has one schema."""


def schema_for(**settings: Any) -> pa.Schema:
    """The columns `chunk_table` adds with these settings: `EMBED_SCHEMA` or `CHUNK_SCHEMA`.

    >>> schema_for(strategy="fixed") == CHUNK_SCHEMA, schema_for(strategy="fixed", context="headings") == EMBED_SCHEMA
    (True, True)
    """
    options = chunk_options(dict(settings), owner="schema_for")
    return EMBED_SCHEMA if embeds(settings_of(options)) else CHUNK_SCHEMA


_READING = ("raw", "keep_running", "encoding")


def reading_options(settings: dict[str, Any], root: str | os.PathLike[str] | None) -> dict[str, Any]:
    """The reading options taken out of `settings` (`raw`, `keep_running`, `encoding`: the
    command line's flags of those names), checked, with `root` made absolute (by default the
    current folder, read here: on the driver, not on a worker)."""
    out: dict[str, Any] = {k: settings.pop(k) for k in _READING if k in settings}
    for k in ("raw", "keep_running"):
        if not isinstance(out.setdefault(k, False), bool):
            raise ChunkerError(f"{k} must be True or False, got {out[k]!r}")
    if out.setdefault("encoding", None) is not None:
        text_encoding(out["encoding"])
    out["root"] = root_path(root)
    return out


def root_path(root: Any) -> str:
    """`root` made absolute (by default the current folder); `ChunkerError` for what is no path."""
    if root is not None and not isinstance(root, (str, bytes, os.PathLike)):
        raise ChunkerError(f"root must be a folder's path, got {type(root).__name__}: give the folder sources are relative to")
    return os.path.abspath(os.fsdecode(root) if root is not None else os.getcwd())


def worker_paths(settings: dict[str, Any], *, owner: str) -> dict[str, str]:
    """The `tokenizer` (a tokenizer.json) and `embedding_model` of `settings` as absolute paths,
    for an engine's worker processes to load them from. The checked settings name what they
    load by its content (``hf:...``, ``m2v:...``), which only the process that loaded it knows:
    a worker handed that name failed every block ("is not loaded in this process"). A loaded
    object or such a name, which no path stands behind, is refused here, on the driver."""
    from .embeddings import CONTENT_PREFIX as MODEL_PREFIX
    from .tokens._hf import CONTENT_PREFIX as TOKENIZER_PREFIX
    from .tokens._tokenizers import TOKENIZERS

    out: dict[str, str] = {}
    for name, prefix, what in (
        ("tokenizer", TOKENIZER_PREFIX, "the path of its tokenizer.json"),
        ("embedding_model", MODEL_PREFIX, "the path of its folder"),
    ):
        value = settings.get(name)
        if value is None or value == "" or (name == "tokenizer" and value in TOKENIZERS):
            continue
        if isinstance(value, os.PathLike) or (isinstance(value, str) and not value.startswith(prefix)):
            out[name] = os.path.abspath(os.fsdecode(value))
        else:
            shown = value if isinstance(value, str) else f"a loaded {type(value).__name__}"
            raise ChunkerError(
                f"{owner} cuts in worker processes, which cannot use {name} {shown[:60]}: give {what}, "
                "which every worker can read"
            )
    return out


def skip_set(skip_sources: Any) -> frozenset[str]:
    """`skip_sources` as a set; `ChunkerError` for a single str (a set of its characters would
    skip nothing, silently) or anything that is no collection."""
    if isinstance(skip_sources, (str, bytes)) or not isinstance(skip_sources, Iterable):
        raise ChunkerError(
            f"skip_sources must be a collection of sources, got {type(skip_sources).__name__}: "
            'pass completed_sources(folder), or a list such as ["docs/a.md"]'
        )
    return frozenset(skip_sources)


def chunk_table(
    table: pa.Table | pa.RecordBatch,
    *,
    text_column: str = "text",
    source_column: str | None = None,
    file_column: str | None = None,
    root: str | None = None,
    skip_sources: Iterable[str] = (),
    **settings: Any,
) -> pa.Table:
    """`table` cut into chunks: one row per chunk, exactly as ``chunker.chunk`` cuts each row's text.

    Each output row has the input row's other columns, as they were, then every field of the
    record (`CHUNK_SCHEMA`), whose offsets index that row's text; the text column itself is not
    repeated on each chunk. A `text_column` of strings is chunked as it is; one of bytes (a
    file's, as Ray's ``read_binary_files`` and Spark's ``binaryFile`` give them) is read as the
    command line reads the file: PDF, Word and HTML extracted to text, any other file strict
    UTF-8 (``raw=True``, ``keep_running=True`` and ``encoding=`` as its flags say).

    `source_column` names each row's source (a file's path, or any name); its value, made
    canonical by `chunker.documents.source_of` against `root` (default: the current folder), is
    the records' `source` and part of their ids, so a file gives the ids the command line gives
    it when run in `root`. That column is replaced by `source`, not kept. Rows whose source is in
    `skip_sources` are left out (a resumed run: `completed_sources`). `file_column` instead
    names a column of local paths: each file is read here, by the command line's reader, and
    its path is the row's source (`text_column` is not read).

    A row that cannot be chunked (its text is null or not text, its file cannot be read, or it
    is past the volume limit) is one output row holding its `error`, one line, and no chunk
    fields: a bad row never stops the job (filter on ``error IS NULL``). Raises `ChunkerError`
    before any row is read for bad settings, a missing `text_column`, another column named like
    a record field (say `index`), or two columns of one name.
    """
    reading = reading_options(settings, root)
    options = chunk_options(
        settings, owner="chunk_table", others=(*_READING, "text_column", "source_column", "file_column", "root")
    )
    embed = embeds(settings_of(options))
    schema = EMBED_SCHEMA if embed else CHUNK_SCHEMA
    if file_column is not None:
        text_column, source_column = file_column, file_column
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    if table.num_rows == 0 and text_column not in table.column_names:
        return schema.empty_table()  # an engine's empty block may come without columns
    others = check_columns(table.column_names, text_column, source_column)
    skip = skip_set(skip_sources)
    texts = table.column(text_column).to_pylist()
    names = table.column(source_column).to_pylist() if source_column is not None else [None] * len(texts)
    rows: list[int] = []
    columns: dict[str, list[Any]] = {name: [] for name in schema.names}
    blank = dict.fromkeys(schema.names)
    base = reading["root"]
    for i, (text, name) in enumerate(zip(texts, names)):
        source: str | None = None
        try:
            source = _source(name, base)  # bytes that are not UTF-8: the row's error
            if source is not None and source in skip:
                continue
            if file_column is not None:
                if not isinstance(text, str):  # str(None) would be looked for as a file "None"
                    what = "null" if text is None else type(text).__name__
                    raise ChunkerError(f"a row: column {file_column!r} holds {what}, not a file's path")
                text = read_file(text)  # a file that cannot be read: its error row
            records = _records(text, source, text_column, reading, options, embed)
        except ChunkerError as e:
            records = [{**blank, "source": source, "error": str(e)}]
        for record in records:
            rows.append(i)
            for key in columns:
                columns[key].append(record.get(key))
    # The input row's other columns, one copy per chunk, in their own Arrow types.
    kept = table.select(others).take(pa.array(rows, type=pa.int64()))
    arrays = [*kept.columns, *(pa.array(columns[f.name], type=f.type) for f in schema)]
    # Made from the arrays, not by appending to `kept`: a table of no columns has no rows.
    return pa.Table.from_arrays(arrays, schema=pa.schema([*kept.schema, *schema]))


def _source(name: Any, base: str) -> str | None:
    """A row's `source` from its source column's value: text (a binary column's bytes are
    UTF-8) or any other value as str() writes it; `ChunkerError` for bytes that are not UTF-8."""
    if name is None:
        return None
    if isinstance(name, (bytes, bytearray, memoryview)):
        raw = bytes(name)
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ChunkerError(
                f"a row: its source {raw[:40]!r} is not UTF-8 (bad byte at offset {e.start}): give sources as text"
            ) from None
    return source_of(str(name), base)


def _records(
    text: Any, source: str | None, column: str, reading: dict[str, Any], options: dict[str, Any], embed: bool
) -> list[dict[str, Any]]:
    """One row's records, each with its source, and its embed text where its JSON record has
    one (when the table has the columns, `embed`); `ChunkerError` for a row that gives none."""
    limit = options.get("max_chunk_chars")
    settings = {k: v for k, v in options.items() if k != "max_chunk_chars"}
    label = shown_name(source) if source is not None else "a row"
    if isinstance(text, (bytes, bytearray, memoryview)):
        # The command line's reader: the kind from the content and the name, then extraction.
        doc = Document.from_bytes(
            bytes(text),
            name=label,
            raw=reading["raw"],
            keep_running=reading["keep_running"],
            encoding=reading["encoding"],
            source=source,
        )
    elif isinstance(text, str):
        doc = Document(text, source=source)
    else:
        what = "null" if text is None else type(text).__name__
        raise ChunkerError(f"{label}: column {column!r} holds {what}, not text: give text or a file's bytes")
    try:
        result = doc.chunk(max_chunk_chars=limit, **settings)
    except ChunkerError as e:
        raise ChunkerError(f"{label}: {e}") from None
    # The JSON record's rule (chunker.results._export.iter_records): every record embedded
    # with a context asked for; otherwise those whose embedded text is not their text.
    say = True if embedded(result) else None
    records = [{"source": source, **c.to_dict(embed=say)} for c in result.chunks]
    if not embed and records and any("embed_text" in r for r in records):
        # A strategy registered without own_context gave a chunk a context: the table would
        # have no column for it, and the embed text would be lost without a word.
        raise ChunkerError(
            f"{label}: strategy {settings['strategy']!r} gave a chunk a context of its own: register it with own_context=True"
        )
    return records


def check_columns(
    names: list[str], text_column: str, source_column: str | None = None, schema: pa.Schema | None = None
) -> list[str]:
    """The columns kept besides the text (and the source, which `source` replaces);
    `ChunkerError` if a named column is missing, if two columns share a name, or if another
    column has the name of a record field (by default any of `EMBED_SCHEMA`'s: one of the two
    would be lost)."""
    for what, column in (("text_column", text_column), ("source_column", source_column)):
        if column is None and what == "source_column":
            continue
        if not isinstance(column, str) or not column:
            raise ChunkerError(f"{what} must be a column name, got {column!r}")
    seen: set[str] = set()
    for n in names:
        if n in seen:  # Arrow allows it; selecting by name does not
            raise ChunkerError(f"the data has two columns named {n!r}: rename one of them first")
        seen.add(n)
    for column in (text_column, source_column):
        if column is not None and column not in names:
            shown = ", ".join(names) or "none"
            option = "text_column" if column == text_column else "source_column"
            raise ChunkerError(f"the data has no column {column!r} (it has {shown}): pass {option}=")
    others = [n for n in names if n not in (text_column, source_column)]
    clash = [n for n in others if n in (schema if schema is not None else EMBED_SCHEMA).names]
    if clash:
        raise ChunkerError(f"input column {clash[0]!r} has the name of a record field: rename it first, e.g. to 'doc_{clash[0]}'")
    return others


def complete_files(path: str | os.PathLike[str]) -> list[str]:
    """The Parquet files under `path` (a folder, at any depth) that are whole, in name order:
    what to read an earlier run's output from (``pyarrow.parquet.read_table(complete_files(out))``).

    A Parquet file is readable only once its footer, written last, is there, so a file a killed
    run left half written is not listed; names starting with ``.`` or ``_`` (an engine's
    temporary and marker files) are passed over, as Spark and Ray pass over them.
    """
    import pyarrow.parquet as pq

    found: list[str] = []
    for top, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for f in sorted(files):
            if f.startswith((".", "_")) or not f.endswith(".parquet"):
                continue
            file = os.path.join(top, f)
            try:
                pq.read_metadata(file)
            except (OSError, pa.ArrowException):
                continue  # no footer: not complete
            found.append(file)
    return found


def completed_sources(path: str | os.PathLike[str]) -> set[str]:
    """The sources whose records a folder of Parquet files (an earlier run's output) holds in
    full: what a resumed run passes as `skip_sources`.

    A source's records are written by one task in one file (a row is never split across
    blocks, and an engine writes a task's rows to one file unless told to cap the rows a file
    holds), and only whole files count (`complete_files`): a file a killed run left half
    written is not counted, and its sources run again. Write the resumed run to a new folder
    beside the old one, and read both through `complete_files`.
    """
    import pyarrow.parquet as pq

    done: set[str] = set()
    for file in complete_files(path):
        try:
            column = pq.read_table(file, columns=["source", "error"])
        except (OSError, pa.ArrowException):
            continue
        for source, error in zip(column.column("source").to_pylist(), column.column("error").to_pylist()):
            if source is not None and error is None:
                done.add(source)
    return done


def chunk_batches(batches: Iterable[pa.RecordBatch], **kwargs: Any) -> Iterator[pa.RecordBatch]:
    """`chunk_table` over a stream of record batches, as Spark's ``mapInArrow`` hands them out
    and takes them back (`chunker.spark.chunk_dataframe`)."""
    for batch in batches:
        yield from chunk_table(batch, **kwargs).to_batches()
