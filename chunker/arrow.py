"""Apache Arrow: `chunk_table`, one row per chunk of every row of a table.

It is what `chunker.ray.chunk_dataset` runs on each block of a dataset, and what a Spark job
calls from ``mapInArrow`` (docs/pipelines.md): one function for every engine that hands out
Arrow data. Needs pyarrow (``pip install 'chunker[ray]'`` brings it; Spark has its own).

>>> import pyarrow as pa
>>> from chunker.arrow import chunk_table
>>> docs = pa.table({"id": [7, 8], "text": ["One. Two.", "Three."]})
>>> out = chunk_table(docs, strategy="sentence", size=0)
>>> out.select(["id", "index", "start_char", "text"]).to_pylist()[:2]
[{'id': 7, 'index': 0, 'start_char': 0, 'text': 'One.'}, {'id': 7, 'index': 1, 'start_char': 5, 'text': 'Two.'}]
"""

from __future__ import annotations

from typing import Any

from ._adapters import chunk_options
from ._errors import ChunkerError
from .session._api import chunk

try:
    import pyarrow as pa
except ModuleNotFoundError as e:  # only a missing pyarrow; a broken one keeps its own error
    if (e.name or "").split(".")[0] != "pyarrow":
        raise
    raise ImportError("chunker.arrow needs pyarrow: pip install pyarrow (the 'ray' extra brings it)") from None

__all__ = ["CHUNK_SCHEMA", "EMBED_SCHEMA", "chunk_table"]

CHUNK_SCHEMA = pa.schema(
    [
        ("index", pa.int64()),
        ("start_char", pa.int64()),
        ("end_char", pa.int64()),
        ("text", pa.string()),
        ("chars", pa.int64()),
        ("words", pa.int64()),
        ("tokens", pa.int64()),
        ("tokens_estimated", pa.bool_()),
        ("overlap_chars", pa.int64()),
        ("flags", pa.list_(pa.string())),
        ("headings", pa.list_(pa.string())),
    ]
)
"""The columns `chunk_table` adds: `Chunk.to_dict()`'s fields, typed. Given explicitly, so a
block whose chunks have no flags at all, or a block of no chunks, has the same schema as the rest."""

EMBED_SCHEMA = pa.schema([*CHUNK_SCHEMA, ("embed_text", pa.string()), ("embed_tokens", pa.int64())])
"""The columns with a `context` setting: `CHUNK_SCHEMA`, then each chunk's embed text and its
tokens. Decided by the settings, not by the chunks, so every block of a dataset has one schema."""


def chunk_table(table: pa.Table | pa.RecordBatch, *, text_column: str = "text", **settings: Any) -> pa.Table:
    """`table` cut into chunks: one row per chunk, exactly as ``chunker.chunk`` cuts each row's text.

    Each output row has the input row's other columns, as they were, then every field of the
    chunk record (`CHUNK_SCHEMA`), whose offsets index that row's `text_column`; the text
    column itself is not repeated on each chunk. `settings` are `chunker.chunk`'s. Raises
    `ChunkerError` for bad settings, a missing `text_column`, another column named like a
    chunk field (say `index`), two columns of one name, or a row whose text is not a string.
    """
    options = chunk_options(settings, owner="chunk_table")
    embed = options.get("context", "none") != "none"
    schema = EMBED_SCHEMA if embed else CHUNK_SCHEMA
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    if table.num_rows == 0 and text_column not in table.column_names:
        return schema.empty_table()  # an engine's empty block may come without columns
    others = check_columns(table.column_names, text_column, schema)
    rows: list[int] = []
    columns: dict[str, list[Any]] = {name: [] for name in schema.names}
    for i, text in enumerate(table.column(text_column).to_pylist()):
        if not isinstance(text, str):
            raise ChunkerError(
                f"column {text_column!r} holds {type(text).__name__} in a row, not text: "
                "filter such rows out or decode them first"
            )
        for c in chunk(text, **options).chunks:
            rows.append(i)
            for name, value in c.to_dict(embed=embed).items():
                columns[name].append(value)
    # The input row's other columns, one copy per chunk, in their own Arrow types.
    kept = table.select(others).take(pa.array(rows, type=pa.int64()))
    arrays = [*kept.columns, *(pa.array(columns[f.name], type=f.type) for f in schema)]
    # Made from the arrays, not by appending to `kept`: a table of no columns has no rows.
    return pa.Table.from_arrays(arrays, schema=pa.schema([*kept.schema, *schema]))


def check_columns(names: list[str], text_column: str, schema: pa.Schema = EMBED_SCHEMA) -> list[str]:
    """The columns besides `text_column`; `ChunkerError` if it is missing, if two columns share
    a name, or if another column has the name of a chunk field (one of the two would be lost)."""
    if not isinstance(text_column, str) or not text_column:
        raise ChunkerError(f"text_column must be a column name, got {text_column!r}")
    seen: set[str] = set()
    for n in names:
        if n in seen:  # Arrow allows it; selecting by name does not
            raise ChunkerError(f"the data has two columns named {n!r}: rename one of them first")
        seen.add(n)
    if text_column not in names:
        raise ChunkerError(f"the data has no column {text_column!r} (it has {', '.join(names)}): pass text_column=")
    others = [n for n in names if n != text_column]
    clash = [n for n in others if n in schema.names]
    if clash:
        raise ChunkerError(f"input column {clash[0]!r} has the name of a chunk field: rename it first, e.g. to 'doc_{clash[0]}'")
    return others
